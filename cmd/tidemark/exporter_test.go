package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestExporterFlagErrors: bad flags stop tidemark exporter before it listens, with the
// flag, what was given and what is expected, and k6's invalid-config exit code.
func TestExporterFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no Prometheus", nil, "--prometheus.url is required: the Prometheus-compatible API the runs write to, such as http://prometheus:9090"},
		{"interval", []string{"--prometheus.url=http://127.0.0.1:1", "--interval=0s"}, "--interval 0s: expected a positive duration such as 1m"},
		{"max runs", []string{"--prometheus.url=http://127.0.0.1:1", "--metrics.max-runs-per-group=0"}, "--metrics.max-runs-per-group 0: expected a positive number such as 10"},
		{"retention", []string{"--prometheus.url=http://127.0.0.1:1", "--metrics.retention=0s"}, "--metrics.retention 0s: expected a positive duration such as 30d"},
		{"group-by", []string{"--prometheus.url=http://127.0.0.1:1", "--group-by=testid"}, `group-by "testid": expected a label name other than testid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"exporter", "--web.listen-address=127.0.0.1:0", "--storage.path=" + t.TempDir()}, tc.args...)
			code := run(args, &stdout, &stderr)
			require.Equal(t, int(exitcode.InvalidConfig), code, stderr.String())
			require.Contains(t, stderr.String(), tc.wantErr)
			require.Empty(t, stdout.String(), "nothing served")
		})
	}
}
