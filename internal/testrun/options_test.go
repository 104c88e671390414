package testrun

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/verdict"
	"github.com/tidemark/tidemark/internal/webdash"
)

func TestWebDashboardConfig(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) Env {
		e := Env{}
		for i := 0; i+1 < len(kv); i += 2 {
			e[kv[i]] = kv[i+1]
		}
		return e
	}
	for _, tc := range []struct {
		name    string
		outs    []string
		env     Env
		want    *webdash.Config
		wantErr string
	}{
		{name: "off", outs: []string{"json=a.json"}, env: env()},
		{name: "--out web-dashboard", outs: []string{"web-dashboard"}, env: env(), want: &webdash.DefaultConfig},
		{name: "K6_WEB_DASHBOARD with its variables", env: env("K6_WEB_DASHBOARD", "true", "K6_WEB_DASHBOARD_PORT", "-1", "K6_WEB_DASHBOARD_EXPORT", "r.html"),
			want: &webdash.Config{Host: "localhost", Port: -1, Period: time.Second, Export: "r.html"}},
		{name: "the argument over the variables", outs: []string{"csv=a.csv", "web-dashboard=port=8080&period=5s"}, env: env("K6_WEB_DASHBOARD_PORT", "1"),
			want: &webdash.Config{Host: "localhost", Port: 8080, Period: 5 * time.Second}},
		{name: "twice", outs: []string{"web-dashboard", "web-dashboard=port=1"}, env: env(), wantErr: "--out web-dashboard is given 2 times: a run has one web dashboard"},
		{name: "bad K6_WEB_DASHBOARD", env: env("K6_WEB_DASHBOARD", "yes"), wantErr: `K6_WEB_DASHBOARD="yes": expected true or false`},
		{name: "bad port", outs: []string{"web-dashboard=port=x"}, env: env(), wantErr: `web-dashboard parameter port: "x" is not a port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DashboardConfig(tc.outs, tc.env)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.ErrorIs(t, err, verdict.ErrInvalid)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestResolve: the K6_* environment fills what the flags leave unset, the flags win,
// and a bad shortcut or output is a configuration error naming it.
func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    Options
		env     Env
		check   func(t *testing.T, o Options)
		wantErr string
	}{
		{name: "environment", env: Env{"K6_NO_THRESHOLDS": "true", "K6_PAUSED": "true", "K6_LINGER": "true", "K6_ADDRESS": "a:1",
			"K6_HTTP_DEBUG": "1", "K6_SUMMARY_EXPORT": "e.json", "K6_NO_SUMMARY": "true", "K6_OUT": "json=x.json"},
			check: func(t *testing.T, o Options) {
				require.True(t, o.NoThresholds)
				require.Equal(t, Show{Address: "a:1", Paused: true, Linger: true, NoSummary: true, SummaryExport: "e.json"}, o.Show)
				require.Equal(t, "headers", o.HTTPDebug)
				require.Equal(t, []string{"json=x.json"}, o.Outs)
			}},
		{name: "flags over the environment", opts: Options{HTTPDebug: "off", Outs: []string{"csv=y.csv"}, Show: Show{Address: "b:2", SummaryExport: "f.json"}},
			env: Env{"K6_ADDRESS": "a:1", "K6_HTTP_DEBUG": "full", "K6_SUMMARY_EXPORT": "e.json", "K6_OUT": "json=x.json"},
			check: func(t *testing.T, o Options) {
				require.Equal(t, "b:2", o.Show.Address)
				require.Equal(t, "f.json", o.Show.SummaryExport)
				require.Equal(t, "off", o.HTTPDebug)
				require.Equal(t, []string{"csv=y.csv"}, o.Outs)
			}},
		{name: "summary mode", opts: Options{Shortcuts: Shortcuts{SummaryMode: "disabled"}},
			check: func(t *testing.T, o Options) { require.True(t, o.Show.NoSummary) }},
		{name: "full summary mode", opts: Options{Shortcuts: Shortcuts{SummaryMode: "full"}},
			check: func(t *testing.T, o Options) {
				require.False(t, o.Show.NoSummary)
				require.Equal(t, "full", o.Show.SummaryMode, "the summary renders it")
			}},
		{name: "full summary mode from the environment", env: Env{"K6_SUMMARY_MODE": "full"},
			check: func(t *testing.T, o Options) { require.Equal(t, "full", o.Show.SummaryMode) }},
		{name: "web dashboard", env: Env{"K6_WEB_DASHBOARD": "true", "K6_WEB_DASHBOARD_PORT": "-1"},
			check: func(t *testing.T, o Options) { require.Equal(t, -1, o.Show.Dashboard.Port) }},
		{name: "bad shortcut", opts: Options{Shortcuts: Shortcuts{VUs: "x"}}, wantErr: `--vus "x": expected a whole number of at least 0`},
		{name: "empty --summary-breakdown key", opts: Options{Shortcuts: Shortcuts{Breakdown: "name,,status"}},
			wantErr: `--summary-breakdown "name,,status": tag key 2 is empty; expected tag keys separated by commas, e.g. name,method,status`},
		{name: "repeated --summary-breakdown key", opts: Options{Shortcuts: Shortcuts{Breakdown: "name, name"}},
			wantErr: `--summary-breakdown "name, name": tag key "name" is given twice`},
		{name: "zero --summary-breakdown-limit", opts: Options{Shortcuts: Shortcuts{Breakdown: "name", BreakdownLimit: "0"}},
			wantErr: `--summary-breakdown-limit "0": expected a whole number of at least 1`},
		{name: "negative --summary-breakdown-limit", opts: Options{Shortcuts: Shortcuts{BreakdownLimit: "-3"}},
			wantErr: `--summary-breakdown-limit "-3": expected a whole number of at least 1`},
		{name: "unknown breakdown key is fine", opts: Options{Shortcuts: Shortcuts{Breakdown: "nosuchtag", BreakdownLimit: "5"}},
			check: func(t *testing.T, o Options) {
				require.Equal(t, "nosuchtag", o.Shortcuts.Environ(nil)["TIDEMARK_SUMMARY_BREAKDOWN"])
				require.Equal(t, "5", o.Shortcuts.Environ(nil)["TIDEMARK_SUMMARY_BREAKDOWN_LIMIT"])
			}},
		{name: "bad output", opts: Options{Outs: []string{"influxdb=http://x"}}, wantErr: `invalid output type "influxdb"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.opts.Resolve(tc.env, promslog.NewNopLogger())
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.ErrorIs(t, err, verdict.ErrInvalid)
				return
			}
			require.NoError(t, err)
			tc.check(t, got)
		})
	}
}

// TestShortcutsEnviron: the shortcuts are set as their K6_* variables over the
// environment; a duration, iterations or stages given clear the environment's other two.
func TestShortcutsEnviron(t *testing.T) {
	t.Parallel()
	proc := Env{"K6_DURATION": "1m", "K6_ITERATIONS": "9", "K6_VUS": "3", "HOME": "/root"}
	require.Equal(t, Env{"K6_ITERATIONS": "4", "K6_VUS": "2", "HOME": "/root"},
		Shortcuts{VUs: "2", Iterations: "4"}.Environ(proc))
	require.Equal(t, proc, Shortcuts{}.Environ(proc))
	require.Equal(t, map[string]string{"A": "cli"}, Shortcuts{}.ScriptEnv(proc, map[string]string{"A": "cli"}))
	require.Equal(t, "/root", Shortcuts{SystemEnv: true}.ScriptEnv(proc, nil)["HOME"])
}

// TestUseLabelTestID: a testid among the static labels (K6_PROMETHEUS_RW_LABELS) names
// the run unless --testid or a testid tag does; a generated id replaced it.
func TestUseLabelTestID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    Options
		id   string
		want string
	}{
		{name: "label", id: "from-labels", want: "from-labels"},
		{name: "no label", want: ""},
		{name: "--testid wins", o: Options{TestID: "flag"}, id: "from-labels", want: "flag"},
		{name: "a testid tag wins", o: Options{Tags: []string{"team=a", "testid=tag"}}, id: "from-labels", want: ""},
		{name: "other tags", o: Options{Tags: []string{"team=a"}}, id: "from-labels", want: "from-labels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.o.UseLabelTestID(tc.id)
			require.Equal(t, tc.want, tc.o.TestID)
		})
	}
}

// TestShare: a partial execution segment is a share of a split run (its series carry an
// instance_id); the whole test is not.
func TestShare(t *testing.T) {
	t.Parallel()
	require.False(t, Options{}.Share())
	require.False(t, Options{Segment: "0:1"}.Share())
	require.False(t, Options{Segment: "0:1", SegmentSequence: "0,1/2,1"}.Share())
	require.True(t, Options{Segment: "1/2:1"}.Share())
	require.True(t, Options{Segment: "0:1/3", SegmentSequence: "0,1/3,2/3,1"}.Share())
}

// TestWarnUnsupportedK6Env: the browser module's K6_BROWSER_* variables are honoured
// and draw no warning; a K6_ variable nothing reads is named in the one warning.
func TestWarnUnsupportedK6Env(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	WarnUnsupportedK6Env(logger, Env{"K6_BROWSER_ARGS": "ignore-certificate-errors", "K6_BROWSER_HEADLESS": "true",
		"K6_BROWSER_EXECUTABLE_PATH": "/usr/bin/chromium", "K6_BROWSER_TIMEOUT": "10s", "K6_BROWSER_IGNORE_DEFAULT_ARGS": "mute-audio", "K6_VUS": "2"})
	require.Empty(t, buf.String())
	WarnUnsupportedK6Env(logger, Env{"K6_BROWSER_ARGS": "x", "K6_BROWSER_DEBUG": "true", "K6_NOT_A_THING": "1"})
	require.Contains(t, buf.String(), `variables=K6_BROWSER_DEBUG,K6_NOT_A_THING`)
}
