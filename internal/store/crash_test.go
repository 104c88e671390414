package store

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/stretchr/testify/require"
)

// crashChildEnv makes the test binary, re-executed by TestCrashRecovery, act as a server
// holding the data directory named by the variable, until it is killed.
const crashChildEnv = "TIDEMARK_STORE_CRASH_CHILD_DIR"

// TestCrashRecovery kills a serving process with SIGKILL in the middle of concurrent
// remote writes, then reopens its data directory: every write that was answered 2xx must
// be there (WAL replay), and the discovery file of the dead server must not be believed.
func TestCrashRecovery(t *testing.T) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(t, dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "child.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	defer logFile.Close()
	child := exec.Command(os.Args[0], "-test.run=^TestCrashRecovery$", "-test.count=1")
	child.Env = append(os.Environ(), crashChildEnv+"="+dir)
	child.Stdout, child.Stderr = logFile, logFile
	require.NoError(t, child.Start())
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	defer func() { _ = child.Process.Kill() }()

	// Wait until the child announces itself (a race-enabled binary starts slowly).
	ctx := context.Background()
	var base string
	deadline := time.Now().Add(60 * time.Second)
	for {
		u, ok, err := Discover(ctx, dir)
		require.NoError(t, err)
		if ok {
			base = u
			break
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("child exited before serving: %v\n%s", err, b)
		default:
		}
		require.True(t, time.Now().Before(deadline), "child did not announce itself")
		time.Sleep(20 * time.Millisecond)
	}

	const writers = 8
	start := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
	acked := make([][]int64, writers) // per writer: timestamps answered 2xx.
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		total   int
		enough  = make(chan struct{})
		closeMu sync.Once
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range writers {
		wg.Go(func() {
			ls := labels.FromStrings("__name__", "crash_test", "writer", fmt.Sprint(w))
			for i := 0; ; i++ {
				ts := start.Add(time.Duration(i) * 100 * time.Millisecond)
				raw := encodeV1(t, []series{floatSeries(ls, ts, time.Millisecond, 1, float64(i))})
				if w%2 == 1 {
					raw = encodeV2(t, []series{floatSeries(ls, ts, time.Millisecond, 1, float64(i))})
				}
				code, _, err := post(client, base+"/api/v1/write", raw, w%2 == 1)
				if err != nil || code/100 != 2 {
					return // the server died mid-request: this write was not acknowledged.
				}
				acked[w] = append(acked[w], ts.UnixMilli())
				mu.Lock()
				total++
				if total == 400 {
					closeMu.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		t.Fatal("writers made too little progress")
	}
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	wg.Wait()
	require.Error(t, <-exited, "the child was killed")

	_, ok, err := Discover(ctx, dir)
	require.NoError(t, err)
	require.False(t, ok, "a dead server's discovery file was believed")

	st, err := Open(Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.NoError(t, err, "reopen after kill -9")
	defer func() { require.NoError(t, st.Close()) }()
	a := promAPI(t, "http://embedded", st.Transport())
	end := start.Add(10 * time.Minute)
	v := instant(t, a, `crash_test[15m]`, end)
	got := map[string]map[int64]bool{}
	for _, ss := range v.(model.Matrix) {
		m := map[int64]bool{}
		for _, p := range ss.Values {
			m[int64(p.Timestamp)] = true
		}
		got[string(ss.Metric["writer"])] = m
	}
	n := 0
	for w, tss := range acked {
		for _, ts := range tss {
			require.True(t, got[fmt.Sprint(w)][ts], "acknowledged sample writer=%d ts=%d lost", w, ts)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 400)
	t.Logf("%d acknowledged samples all present after SIGKILL and WAL replay", n)
}

// crashChild serves the store in dir until the process is killed.
func crashChild(t *testing.T, dir string) {
	st, err := Open(Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, err = Announce(dir, "http://"+l.Addr().String())
	require.NoError(t, err)
	srv := &http.Server{Handler: st.Handler(), ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(l) // until SIGKILL.
}
