package testrun

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/scenario"
)

// TestOptionFlagsEnviron: k6 run's option flags become their K6_* variables, over the
// environment's.
func TestOptionFlagsEnviron(t *testing.T) {
	t.Parallel()
	f := OptionFlags{RPS: "5", MaxRedirects: "0", Batch: "2", BatchPerHost: "1", DiscardResponseBodies: true, NoConnectionReuse: true,
		NoVUConnectionReuse: true, SystemTags: "status", BlacklistIPs: []string{"10.0.0.0/8", "1.2.3.4"}, BlockHostnames: []string{"*.x"},
		MinIterationDuration: "1s", LocalIPs: "127.0.0.2", DNS: "ttl=0"}
	got := f.Environ(Env{"K6_RPS": "1", "OTHER": "x"})
	require.Equal(t, Env{"OTHER": "x", "K6_RPS": "5", "K6_MAX_REDIRECTS": "0", "K6_BATCH": "2", "K6_BATCH_PER_HOST": "1",
		"K6_DISCARD_RESPONSE_BODIES": "true", "K6_NO_CONNECTION_REUSE": "true", "K6_NO_VU_CONNECTION_REUSE": "true",
		"K6_SYSTEM_TAGS": "status", "K6_BLACKLIST_IPS": "10.0.0.0/8,1.2.3.4", "K6_BLOCK_HOSTNAMES": "*.x",
		"K6_MIN_ITERATION_DURATION": "1s", "K6_LOCAL_IPS": "127.0.0.2", "K6_DNS": "ttl=0"}, got)
	require.Equal(t, Env{"K6_RPS": "1"}, OptionFlags{}.Environ(Env{"K6_RPS": "1"}))
}

// TestResolveK6CLI: the variables of issue 25 are honoured, not warned of; bad
// --compatibility-mode and --type values are refused; an unknown feature is an error
// in the log and the run goes on, as in k6.
func TestResolveK6CLI(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	env := Env{"K6_QUIET": "true", "K6_NO_COLOR": "true", "K6_LOG_FORMAT": "json", "K6_LOG_OUTPUT": "none", "K6_CONSOLE_OUTPUT": "c.log",
		"K6_DISCARD_RESPONSE_BODIES": "true", "K6_SYSTEM_TAGS": "url", "K6_FEATURES": "native-histograms,warp-drive",
		"K6_SCENARIO": "a,b", "K6_COMPATIBILITY_MODE": "base", "K6_TYPE": "js"}
	o, err := Options{}.Resolve(env, logger)
	require.NoError(t, err)
	require.NotContains(t, buf.String(), "not supported by Tidemark")
	require.True(t, o.Show.Quiet)
	require.True(t, o.Show.NoColor)
	require.Equal(t, []string{"a", "b"}, o.Flags.Scenarios)
	require.Equal(t, []string{"native-histograms", "warp-drive"}, o.Flags.Features)
	require.Contains(t, buf.String(), `level=ERROR msg="Unknown feature flag" feature=warp-drive`)

	for _, tc := range []struct {
		flags   OptionFlags
		wantErr string
	}{
		{OptionFlags{CompatibilityMode: "es6"}, `--compatibility-mode "es6": expected base, extended or experimental_enhanced`},
		{OptionFlags{Type: "zip"}, `--type "zip": expected js or archive`},
		{OptionFlags{SecretSources: []string{"url=http://x"}}, `--secret-source "url=http://x": fetching secrets over the network is not supported by Tidemark; use file=PATH or mock=KEY=VALUE`},
	} {
		_, err := Options{Flags: tc.flags}.Resolve(Env{}, logger)
		require.EqualError(t, err, tc.wantErr)
	}
}

// TestSelectScenarios: --scenario keeps the named scenarios in the test's order; an
// unknown name is refused with the names the test has.
func TestSelectScenarios(t *testing.T) {
	t.Parallel()
	test := func() *scenario.Test {
		return &scenario.Test{Scenarios: []*scenario.Scenario{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	}
	tt := test()
	require.NoError(t, selectScenarios(tt, []string{"c", "a"}))
	var names []string
	for _, sc := range tt.Scenarios {
		names = append(names, sc.Name)
	}
	require.Equal(t, "a,c", strings.Join(names, ","))
	tt = test()
	require.NoError(t, selectScenarios(tt, nil))
	require.Len(t, tt.Scenarios, 3)
	require.EqualError(t, selectScenarios(test(), []string{"x"}), `--scenario "x": the test has no such scenario; it has a, b, c`)
}

// TestWarnRemovedExecutors: a scenario of an executor k6 v2 removed runs with a warning
// naming it; others with none.
func TestWarnRemovedExecutors(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	warnRemovedExecutors(&scenario.Test{Scenarios: []*scenario.Scenario{
		{Name: "ext", Executor: scenario.ExternallyControlled}, {Name: "shared", Executor: scenario.SharedIterations},
	}}, logger)
	require.Equal(t, 1, strings.Count(logs.String(), "removed in k6 v2.0"), logs.String())
	require.Contains(t, logs.String(), "scenario=ext")
}
