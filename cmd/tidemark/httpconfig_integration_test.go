//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// TestIntegrationPrometheusBehindBasicAuth: a Prometheus whose every endpoint needs
// basic authentication (its --web.config.file). The run writes to it with the
// credentials of --remote-write.config.file; `tidemark correlate` and `tidemark
// dashboards generate --prometheus.url` read it with --http.config.file (promtool's
// http_config format); without the file the answer is 401, said plainly. The
// password is in no output and no report.
func TestIntegrationPrometheusBehindBasicAuth(t *testing.T) {
	const password = "hunter2-tidemark-secret"
	prom := promtest.StartPrometheus(t, promtest.WithBasicAuth("loadtest", password))
	ts, url := startTestTarget(t, target.Config{})
	dir := t.TempDir()
	auth := "basic_auth:\n  username: loadtest\n  password: " + password + "\n"
	rwConfig, httpConfig := filepath.Join(dir, "remote-write.yml"), filepath.Join(dir, "http.yml")
	require.NoError(t, os.WriteFile(rwConfig, []byte("url: "+prom.WriteURL()+"\n"+auth), 0o600))
	require.NoError(t, os.WriteFile(httpConfig, []byte(auth), 0o600))
	scen := writeScenario(t, "scenarios:\n  s: {executor: constant-arrival-rate, rate: 10, duration: 4s, preAllocatedVUs: 2}\nflow:\n  - url: "+url+"/\n")

	var outputs []string
	tidemark := func(args ...string) (int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		outputs = append(outputs, stdout.String(), stderr.String())
		return code, stdout.String() + stderr.String()
	}
	code, out := tidemark("run", "-q", "--testid", "auth-1", "--remote-write.config.file", rwConfig, scen)
	require.Equal(t, exitcode.OK, code, out)
	served := ts.Stats().Requests
	require.Positive(t, served)

	report := filepath.Join(dir, "report")
	code, out = tidemark("correlate", "--testid", "auth-1", "--prometheus.url", prom.URL, "--http.config.file", httpConfig,
		"--after", "1s", "--output.dir", report)
	require.Equal(t, exitcode.OK, code, out)
	b, err := os.ReadFile(filepath.Join(report, "report.json"))
	require.NoError(t, err)
	var res correlator.Result
	require.NoError(t, json.Unmarshal(b, &res))
	require.InDelta(t, float64(served), res.Load.Requests, 0, "requests read through the authenticated API")

	code, out = tidemark("correlate", "--testid", "auth-1", "--prometheus.url", prom.URL, "--output.dir", filepath.Join(dir, "noauth"))
	require.NotEqual(t, exitcode.OK, code)
	require.Contains(t, out, "401", "without --http.config.file the server's refusal is shown")

	code, out = tidemark("dashboards", "generate", "--prometheus.url", prom.URL, "--http.config.file", httpConfig,
		"--output.dir", filepath.Join(dir, "dashboards"))
	require.Equal(t, exitcode.OK, code, out)

	bad := filepath.Join(dir, "bad.yml")
	require.NoError(t, os.WriteFile(bad, []byte("basic_auth:\n  username: x\n  pasword: typo\n"), 0o600))
	code, out = tidemark("correlate", "--testid", "auth-1", "--prometheus.url", prom.URL, "--http.config.file", bad)
	require.Equal(t, exitcode.InvalidConfig, code, out)
	require.Contains(t, out, "bad.yml")
	require.Contains(t, out, "pasword", "the unknown field is named")

	for _, name := range []string{"report.md", "report.json", "report.html"} {
		b, err := os.ReadFile(filepath.Join(report, name))
		require.NoError(t, err)
		outputs = append(outputs, string(b))
	}
	for _, o := range outputs {
		require.NotContains(t, o, password, "the password leaked")
	}
}
