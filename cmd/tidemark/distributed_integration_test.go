//go:build integration

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/barrier"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// instanceProc is one `tidemark run` process of a distributed run.
type instanceProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	err            error
	done           chan struct{}
}

func startInstance(t *testing.T, bin string, args ...string) *instanceProc {
	t.Helper()
	p := &instanceProc{done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exit waits for the process (at most limit) and returns its exit code.
func (p *instanceProc) exit(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		t.Fatalf("instance did not exit within %s; stderr:\n%s", limit, p.stderr.String())
	}
	if p.err == nil {
		return 0
	}
	var ee *exec.ExitError
	require.ErrorAs(t, p.err, &ee)
	return ee.ExitCode()
}

var startAtLog = regexp.MustCompile(`start_at="?([^"\s]+)"?`) // k6's log format quotes a value with a colon

// TestDistributedStartBarrier runs a distributed run as separate processes against a
// real Prometheus: three instances started 5 s apart begin within one second of each
// other (their first samples in Prometheus), and two of three time out saying so.
func TestDistributedStartBarrier(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	prom := promtest.StartPrometheus(t)
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "scenarios:\n  load:\n    executor: constant-vus\n    vus: 3\n    duration: 3s\nflow:\n  - url: "+url+"/\n")
	args := func(testID string, i int, extra ...string) []string {
		return append([]string{"run", "--quiet", "--no-summary", "--testid", testID, "--instances", "3",
			"--instance-index", strconv.Itoa(i), "--remote-write.url", prom.WriteURL(),
			// Short pushes: an instance's first sample lies within 250 ms of its start.
			"--remote-write.push-interval", "250ms"}, append(extra, file)...)
	}

	t.Run("three instances start together", func(t *testing.T) {
		t.Parallel()
		const testID = "barrier-together"
		procs := make([]*instanceProc, 3)
		for i := range procs {
			if i > 0 {
				time.Sleep(5 * time.Second) // the test's premise: instances start 5 s apart
			}
			procs[i] = startInstance(t, bin, args(testID, i)...)
		}
		var starts []string
		for i, p := range procs {
			require.Equal(t, 0, p.exit(t, 2*time.Minute), "instance %d stderr:\n%s", i, p.stderr.String())
			m := startAtLog.FindStringSubmatch(p.stderr.String())
			require.NotNil(t, m, "instance %d logged no start_at:\n%s", i, p.stderr.String())
			starts = append(starts, m[1])
		}
		require.Equal(t, []string{starts[0], starts[0], starts[0]}, starts, "every instance computed the same start instant")
		startAt, err := time.Parse(time.RFC3339Nano, starts[0])
		require.NoError(t, err)

		// The first sample of each instance's run-info and vus series: the instant its
		// engine went live, to within one push interval.
		for _, metric := range []string{"tidemark_run_info", "k6_vus"} {
			firsts := firstSamples(t, prom.URL, fmt.Sprintf(`%s{testid=%q}[10m]`, metric, testID))
			require.Len(t, firsts, 3, "%s: one series per instance_id", metric)
			lo, hi := firsts["0"], firsts["0"]
			for id, ts := range firsts {
				require.False(t, ts.Before(startAt), "%s instance %s: first sample %s before the start %s", metric, id, ts, startAt)
				lo, hi = minTime(lo, ts), maxTime(hi, ts)
			}
			t.Logf("%s: first samples %v, spread %s, start_at %s", metric, firsts, hi.Sub(lo), startAt)
			require.Less(t, hi.Sub(lo), time.Second, "%s: the instances' first samples lie within one second", metric)
		}
		// Each announced its readiness, 5 s apart.
		ready := firstSamples(t, prom.URL, fmt.Sprintf(`%s{testid=%q}[10m]`, barrier.ReadyMetric, testID))
		require.Len(t, ready, 3)
	})

	t.Run("two of three time out", func(t *testing.T) {
		t.Parallel()
		const testID = "barrier-timeout"
		procs := []*instanceProc{
			startInstance(t, bin, args(testID, 0, "--start-timeout", "6s")...),
			startInstance(t, bin, args(testID, 2, "--start-timeout", "6s")...),
		}
		for i, p := range procs {
			require.Equal(t, exitcode.GenericTimeout, p.exit(t, time.Minute), "instance %d stderr:\n%s", i, p.stderr.String())
			require.Contains(t, p.stderr.String(), "2 of 3 instances ready after 6s")
			require.Contains(t, p.stderr.String(), "instance_id 0, 2")
		}
		// Neither sent load: no run-info series.
		v, err := promtest.Query(context.Background(), prom.URL, fmt.Sprintf(`count(tidemark_run_info{testid=%q})`, testID), time.Time{})
		require.NoError(t, err)
		require.Empty(t, v.(model.Vector))
	})
}

// firstSamples returns the first sample's time of each instance_id in the range
// selector expr.
func firstSamples(t *testing.T, baseURL, expr string) map[string]time.Time {
	t.Helper()
	v, err := promtest.Query(context.Background(), baseURL, expr, time.Time{})
	require.NoError(t, err)
	m, ok := v.(model.Matrix)
	require.True(t, ok, "%s: %v", expr, v)
	out := map[string]time.Time{}
	for _, s := range m {
		if len(s.Values) == 0 {
			continue
		}
		id := string(s.Metric["instance_id"])
		ts := s.Values[0].Timestamp.Time()
		if prev, ok := out[id]; !ok || ts.Before(prev) {
			out[id] = ts
		}
	}
	if len(out) == 0 {
		require.NoError(t, errors.New("no samples"), expr)
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
