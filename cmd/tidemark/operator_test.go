package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// TestRunSetupOverRESTAPI: a paused script run serves POST /v1/setup (runs setup())
// and PUT /v1/setup (sets the data). With --no-setup the iterations and teardown()
// get the PUT data and setup() does not run again; without it, setup() runs again at
// the start and its result wins, as in k6 v1.8.1. The target's counts by status say
// which function ran how often with which data.
func TestRunSetupOverRESTAPI(t *testing.T) {
	script := filepath.Join(t.TempDir(), "test.js")
	require.NoError(t, os.WriteFile(script, []byte(`
import http from 'k6/http';
export const options = { vus: 1, iterations: 3 };
export function setup() { http.get(__ENV.URL + '/?status=202'); return { status: 203 }; }
export default function (data) { http.get(__ENV.URL + '/?status=' + data.status); }
export function teardown(data) { http.get(__ENV.URL + '/?status=' + (data.status + 1)); }
`), 0o600))
	call := func(t *testing.T, method, addr, path, body string) string {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s %s: %s", method, path, b)
		return string(b)
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  map[string]int64
	}{
		{"--no-setup", []string{"--no-setup"}, map[string]int64{"202": 1, "207": 3, "208": 1}},
		{"K6_NO_SETUP", nil, map[string]int64{"202": 1, "207": 3, "208": 1}},
		{"setup runs again at the start", nil, map[string]int64{"202": 2, "203": 3, "204": 1}},
		{"--no-setup --no-teardown", []string{"--no-setup", "--no-teardown"}, map[string]int64{"202": 1, "207": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "K6_NO_SETUP" {
				t.Setenv("K6_NO_SETUP", "true")
			}
			ts, url := startTestTarget(t, target.Config{})
			addr := freeAddress(t)
			var stdout, stderr syncBuffer
			done := make(chan int, 1)
			args := append([]string{"run", "-q", "--no-embedded-store", "--paused", "--address", addr, "-e", "URL=" + url}, tc.flags...)
			go func() { done <- run(append(args, script), &stdout, &stderr) }()
			require.Eventually(t, func() bool {
				resp, err := http.Get("http://" + addr + "/v1/status")
				if err != nil {
					return false
				}
				_ = resp.Body.Close()
				return resp.StatusCode == http.StatusOK
			}, 10*time.Second, 20*time.Millisecond, "GET /v1/status while paused\n%s", stderr.String())
			require.JSONEq(t, `{"data":{"type":"setupData","id":"default","attributes":{"data":{"status":203}}}}`, call(t, http.MethodPost, addr, "/v1/setup", ""))
			require.JSONEq(t, `{"data":{"type":"setupData","id":"default","attributes":{"data":{"status":207}}}}`, call(t, http.MethodPut, addr, "/v1/setup", `{"status":207}`))
			require.JSONEq(t, `{"data":{"type":"setupData","id":"default","attributes":{"data":{"status":207}}}}`, call(t, http.MethodGet, addr, "/v1/setup", ""))
			call(t, http.MethodPatch, addr, "/v1/status", `{"data":{"attributes":{"paused":false,"stopped":false},"id":"default","type":"status"}}`)
			select {
			case code := <-done:
				require.Equal(t, exitcode.OK, code, "%s\n%s", stdout.String(), stderr.String())
			case <-time.After(20 * time.Second):
				t.Fatalf("the run did not end\n%s", stderr.String())
			}
			require.Equal(t, tc.want, ts.Stats().ByStatus)
		})
	}
}
