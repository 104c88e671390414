package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// syncBuffer is a bytes.Buffer safe to write from the run and read from the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestRunPausedRESTAPI replays k6-operator's calls against `tidemark run --paused
// --address`: the runner answers GET /v1/status while paused and sends no request; the
// starter's PATCH resumes it and the run completes (exit 0); a PATCH stopped:true on a
// paused run ends it with k6's 103. While paused, vus is 0 and vus-max the VUs k6
// initializes before the start.
func TestRunPausedRESTAPI(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "scenarios:\n  s: {executor: shared-iterations, vus: 2, iterations: 6}\nflow:\n  - url: "+url+"/\n")
	patch := func(t *testing.T, addr, attrs string) int {
		t.Helper()
		body := `{"data":{"attributes":` + attrs + `,"id":"default","type":"status"}}`
		req, err := http.NewRequest(http.MethodPatch, "http://"+addr+"/v1/status", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	paused := func(t *testing.T, addr string) bool {
		t.Helper()
		var doc struct {
			Data struct {
				Attributes struct {
					Paused bool `json:"paused"`
				} `json:"attributes"`
			} `json:"data"`
		}
		require.Eventually(t, func() bool {
			resp, err := http.Get("http://" + addr + "/v1/status")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&doc) == nil
		}, 10*time.Second, 20*time.Millisecond)
		return doc.Data.Attributes.Paused
	}
	for _, tc := range []struct {
		name, attrs string
		want        int
		requests    int64
	}{
		{"resumed by the starter", `{"paused":false,"stopped":false}`, exitcode.OK, 6},
		{"stopped while paused", `{"paused":false,"stopped":true}`, exitcode.ScriptStoppedFromRESTAPI, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := freeAddress(t)
			before := ts.Stats().Requests
			var stdout, stderr syncBuffer
			done := make(chan int, 1)
			go func() {
				done <- run([]string{"run", "-q", "--no-embedded-store", "--paused", "--address", addr, file}, &stdout, &stderr)
			}()
			require.True(t, paused(t, addr), "GET /v1/status while paused")
			// The listener answers as soon as it is up; the VUs' plan reaches it a moment
			// later, still well before the start.
			require.Eventually(t, func() bool {
				resp, err := http.Get("http://" + addr + "/v1/status")
				if err != nil {
					return false
				}
				st, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				return strings.Contains(string(st), `"vus":0,"vus-max":2`)
			}, 5*time.Second, 20*time.Millisecond, "k6 v1.8.1 initializes the 2 VUs before the pause")
			time.Sleep(100 * time.Millisecond)
			require.Equal(t, before, ts.Stats().Requests, "no request while paused")
			require.Equal(t, http.StatusOK, patch(t, addr, tc.attrs))
			select {
			case code := <-done:
				require.Equal(t, tc.want, code, "%s\n%s", stdout.String(), stderr.String())
			case <-time.After(20 * time.Second):
				t.Fatalf("the run did not end\n%s", stderr.String())
			}
			require.Equal(t, tc.requests, ts.Stats().Requests-before)
		})
	}
}

// TestRunLinger: with --linger the finished run stays up and its REST API keeps serving
// (a k6-operator runner's state after the test); as k6 v1.8.1, PATCH stopped:true marks
// it stopped and it lingers on, until SIGTERM; the exit code is the run's verdict.
func TestRunLinger(t *testing.T) {
	_, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "iterations: 2\nflow:\n  - url: "+url+"/\n")
	addr := freeAddress(t)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "-q", "--no-embedded-store", "--linger", "--address", addr, file}, &stdout, &stderr)
	}()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "lingering") }, 10*time.Second, 20*time.Millisecond, "lingering\n%s", stderr.String())
	require.Contains(t, stdout.String(), "iterations", "the summary comes before lingering")
	lingers := func(why string) {
		t.Helper()
		select {
		case code := <-done:
			t.Fatalf("the run exited (%d) instead of lingering %s", code, why)
		case <-time.After(200 * time.Millisecond):
		}
	}
	lingers("after the run")
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		return string(body)
	}
	require.Contains(t, get("/v1/metrics/iterations"), `"count":2`)
	req, err := http.NewRequest(http.MethodPatch, "http://"+addr+"/v1/status", strings.NewReader(`{"data":{"attributes":{"stopped":true},"id":"default","type":"status"}}`))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lingers("after PATCH stopped:true (k6 v1.8.1 lingers on)")
	require.Contains(t, get("/v1/status"), `"stopped":true`)
	require.Contains(t, get("/v1/metrics/iterations"), `"count":2`, "still serving the finished run")
	// run's signal.NotifyContext is registered while it lingers; no other test runs
	// in this process now (this one is not parallel).
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-done:
		require.Equal(t, exitcode.OK, code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the run did not end on SIGTERM\n%s", stderr.String())
	}
}

// TestRunRESTAPIListenFails: an --address already in use is k6's 106
// (CannotStartRESTAPI), and no request is sent.
func TestRunRESTAPIListenFails(t *testing.T) {
	ts, url := startTestTarget(t, target.Config{})
	file := writeScenario(t, "scenarios:\n  s: {executor: shared-iterations, vus: 1, iterations: 3}\nflow:\n  - url: "+url+"/\n")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	var stdout, stderr syncBuffer
	code := run([]string{"run", "-q", "--no-embedded-store", "--address", l.Addr().String(), file}, &stdout, &stderr)
	require.Equal(t, exitcode.CannotStartRESTAPI, code, stderr.String())
	require.Contains(t, stderr.String(), "address already in use")
	require.Zero(t, ts.Stats().Requests)
}
