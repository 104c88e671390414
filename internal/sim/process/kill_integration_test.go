//go:build integration

package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cgroup"
)

// TestKillLeavesNothing runs `tidemark simulate --runtime process` on a profile of three
// pods, ends it by SIGINT, SIGTERM or SIGKILL, and checks that no pod process and no cgroup
// of the run is left: on SIGINT and SIGTERM the runtime stops its pods and removes their
// cgroups; on SIGKILL the pods get their parent-death signal and remove their own.
func TestKillLeavesNothing(t *testing.T) {
	bin := tidemarkBinary(t)
	h, err := cgroup.Detect()
	require.NoError(t, err, "the process runtime's tests need a cgroup cpu controller")
	profile := t.TempDir() + "/three.yaml"
	require.NoError(t, os.WriteFile(profile, []byte(`name: kill-test
node: {cpus: 2}
services:
  - name: api
    replicas: 3
    resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}
    request: {cpu: 1ms}
    startup: {readiness: {initial_delay: 0s, period: 1s}}
`), 0o644))
	cgroupRe := regexp.MustCompile(`in cgroup (/tidemark/run-\S+) `)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "simulate", "--runtime", "process", profile)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// The intro names the run's cgroup once the pods are Ready.
			lines := bufio.NewScanner(out)
			subtree := ""
			for subtree == "" && lines.Scan() {
				if m := cgroupRe.FindStringSubmatch(lines.Text()); m != nil {
					subtree = m[1]
				}
			}
			require.NotEmpty(t, subtree, "stderr:\n%s", stderr.String())
			go func() { _, _ = io.Copy(io.Discard, out) }()
			run := h.Open(subtree)
			pods, err := run.Children()
			require.NoError(t, err)
			require.Len(t, pods, 3)
			var pids []int
			for _, p := range pods {
				procs, err := h.Open(subtree + "/" + p).Procs()
				require.NoError(t, err)
				require.Len(t, procs, 1, "one process in pod %s", p)
				pids = append(pids, procs...)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			if sig == syscall.SIGKILL {
				require.Error(t, err)
			} else {
				require.NoError(t, err, "stderr:\n%s", stderr.String())
			}
			// Pods of a killed runtime notice within a moment (their parent-death signal,
			// or the 200 ms check of their parent).
			deadline := time.Now().Add(20 * time.Second)
			for {
				left := []string{}
				for _, pid := range pids {
					if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
						left = append(left, fmt.Sprintf("process %d", pid))
					}
				}
				if run.Exists() {
					left = append(left, "cgroup "+subtree)
				}
				if len(left) == 0 {
					break
				}
				children, _ := run.Children()
				require.True(t, time.Now().Before(deadline), "left after %s: %v (children %v)\nstderr:\n%s", sig, left, children, stderr.String())
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// syncBuffer is a strings.Builder safe to read while exec's copier writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
