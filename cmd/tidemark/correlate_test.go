package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestCorrelateAndCompareRejectBadFlags checks that bad flags stop both commands before
// any store is opened or report written, with an error naming the flag.
func TestCorrelateAndCompareRejectBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "grafana url without scheme", args: []string{"correlate", "--testid", "x", "--grafana.url", "grafana:3000"},
			wantErr: `--grafana.url "grafana:3000": expected an http or https URL`},
		{name: "write-back url without host", args: []string{"correlate", "--testid", "x", "--write-back.url", "/api/v1/write"},
			wantErr: `--write-back.url "/api/v1/write": expected an http or https URL`},
		{name: "prometheus url without scheme", args: []string{"correlate", "--testid", "x", "--prometheus.url", "prometheus:9090"},
			wantErr: `--prometheus.url "prometheus:9090": expected an http or https URL`},
		{name: "from not RFC 3339", args: []string{"correlate", "--testid", "x", "--from", "10:00"},
			wantErr: `--from "10:00": expected an RFC 3339 time`},
		{name: "to before from", args: []string{"correlate", "--testid", "x", "--from", "2026-11-30T10:00:00Z", "--to", "2026-11-30T09:00:00Z"},
			wantErr: "to (2026-11-30 09:00:00 +0000 UTC) is not after from (2026-11-30 10:00:00 +0000 UTC)"},
		{name: "param not a number", args: []string{"correlate", "--testid", "x", "--param", "db_pool_per_pod=five"},
			wantErr: "--param db_pool_per_pod=five: expected a number"},
		{name: "compare: prometheus url without scheme", args: []string{"compare", "a", "b", "--prometheus.url", "prometheus:9090"},
			wantErr: `--prometheus.url "prometheus:9090": expected an http or https URL`},
		{name: "compare: param not a number", args: []string{"compare", "a", "b", "--param", "db_pool_per_pod=five"},
			wantErr: "--param db_pool_per_pod=five: expected a number"},
		{name: "zero baseline", args: []string{"correlate", "--testid", "x", "--baseline", "0s"},
			wantErr: "--baseline 0s: expected a positive duration"},
		{name: "negative cool-down", args: []string{"correlate", "--testid", "x", "--after=-1m"},
			wantErr: "--after -1m0s: expected a duration of zero or more"},
		{name: "catalog file missing", args: []string{"correlate", "--testid", "x", "--catalog.file", "/nonexistent/catalog.yaml"},
			wantErr: "read catalog: open /nonexistent/catalog.yaml"},
		{name: "compare: catalog file missing", args: []string{"compare", "a", "b", "--catalog.file", "/nonexistent/catalog.yaml"},
			wantErr: "read catalog: open /nonexistent/catalog.yaml"},
		{name: "bad workload regex", args: []string{"correlate", "--testid", "x", "--workload", "order("},
			wantErr: `workload regex "order("`},
		{name: "compare: bad namespace regex", args: []string{"compare", "a", "b", "--namespace", "shoong["},
			wantErr: `namespace regex "shoong["`},
		{name: "compare: one testid", args: []string{"compare", "a"}, wantErr: "need two or more testids, got 1"},
		{name: "stages without a unit", args: []string{"correlate", "--testid", "x", "--stages", "2m:10,30:50"},
			wantErr: `--stages: invalid stages: stage 2 "30:50": duration "30": missing unit`},
		{name: "zero lookback", args: []string{"correlate", "--testid", "x", "--lookback", "0s"},
			wantErr: "--lookback 0s: expected a positive duration such as 7d"},
		{name: "lookback not a duration", args: []string{"correlate", "--testid", "x", "--lookback", "a year"},
			wantErr: `not a valid duration string: "a year"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			args := append(tc.args, "--storage.tsdb.path", dir+"/data", "--output.dir", dir+"/out")
			code := run(args, &stdout, &stderr)
			require.Equal(t, exitcode.InvalidConfig, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.wantErr)
			require.NoDirExists(t, dir+"/data", "no store is opened")
			require.NoDirExists(t, dir+"/out", "no report is written")
		})
	}
}

// TestSourceFlagsLookback: --lookback takes Prometheus durations (days, weeks, years),
// default 7d.
func TestSourceFlagsLookback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 7 * 24 * time.Hour},
		{[]string{"--lookback=400d"}, 400 * 24 * time.Hour},
		{[]string{"--lookback", "2w"}, 14 * 24 * time.Hour},
		{[]string{"--lookback=90m"}, 90 * time.Minute},
	} {
		app := kingpin.New("t", "")
		cmd := app.Command("c", "")
		f := addSourceFlags(cmd)
		_, err := app.Parse(append([]string{"c"}, tc.args...))
		require.NoError(t, err)
		cfg, err := f.config("x")
		require.NoError(t, err)
		require.Equal(t, tc.want, cfg.Lookback, "%v", tc.args)
	}
}

// TestSourceFlagsNoCoolDown: --after 0 means no cool-down, not the correlator's default.
func TestSourceFlagsNoCoolDown(t *testing.T) {
	t.Parallel()
	f := &sourceFlags{promFlags: &promFlags{}, baseline: time.Minute, lookback: model.Duration(7 * 24 * time.Hour)}
	cfg, err := f.config("x")
	require.NoError(t, err)
	require.Negative(t, cfg.After, "a negative After is the correlator's 'none'")
	f.after = 3 * time.Minute
	cfg, err = f.config("x")
	require.NoError(t, err)
	require.Equal(t, 3*time.Minute, cfg.After)
}

// TestWriteReports: correlate and compare write Markdown, JSON (the versioned value) and
// HTML under one base name, and no temporary file stays behind.
