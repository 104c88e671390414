package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

// TestParseScript: a script's options decode into the same model as a YAML file's,
// without flows, with exec, lifecycle timeouts, custom-metric thresholds and K6_*.
func TestParseScript(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	metrics.RegisterBuiltin(reg)
	_, err := reg.New("orders", metrics.Trend, metrics.Time)
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		options string
		environ map[string]string
		check   func(t *testing.T, s *Script)
		wantErr string
	}{
		{
			name:    "no options: one VU, one iteration",
			options: "{}",
			check: func(t *testing.T, s *Script) {
				require.Len(t, s.Test.Scenarios, 1)
				sc := s.Test.Scenarios[0]
				require.Equal(t, PerVUIterations, sc.Executor)
				require.Equal(t, [2]int{1, 1}, [2]int{sc.VUs, sc.Iterations})
				require.Empty(t, sc.Flow.Steps)
				require.Equal(t, "default", s.ExecOf(sc.Name))
				require.Equal(t, [3]time.Duration{60 * time.Second, 60 * time.Second, 120 * time.Second}, [3]time.Duration{s.SetupTimeout, s.TeardownTimeout, s.HandleSummaryTimeout})
			},
		},
		{
			name:    "stages shortcut, thresholds on a custom metric",
			options: `{"stages":[{"duration":"10s","target":5},{"duration":"5s","target":0}],"thresholds":{"orders":["p(95)<200"],"http_req_failed":[{"threshold":"rate<0.01","abortOnFail":true}],"http_req_duration":[{"threshold":"p(95)<500","window":"30s","abortOnFail":true}]},"setupTimeout":"5s"}`,
			check: func(t *testing.T, s *Script) {
				sc := s.Test.Scenarios[0]
				require.Equal(t, RampingVUs, sc.Executor)
				require.Equal(t, []Stage{{10 * time.Second, 5}, {5 * time.Second, 0}}, sc.Stages)
				require.Equal(t, []Threshold{{Expr: "p(95)<200"}}, s.Test.Thresholds["orders"])
				require.True(t, s.Test.Thresholds["http_req_failed"][0].AbortOnFail)
				require.Equal(t, []Threshold{{Expr: "p(95)<500", Window: 30 * time.Second, AbortOnFail: true}}, s.Test.Thresholds["http_req_duration"], "Tidemark's window")
				require.Equal(t, []string{"thresholds.http_req_duration[0].window"}, s.Test.TidemarkOnly())
				require.Equal(t, 5*time.Second, s.SetupTimeout)
			},
		},
		{
			name:    "scenarios with exec",
			options: `{"scenarios":{"browse":{"executor":"constant-vus","vus":2,"duration":"1m","exec":"browse","tags":{"kind":"read"}},"spike":{"executor":"ramping-arrival-rate","preAllocatedVUs":10,"stages":[{"duration":"30s","target":50}]}}}`,
			check: func(t *testing.T, s *Script) {
				require.Len(t, s.Test.Scenarios, 2)
				require.Equal(t, "browse", s.ExecOf("browse"))
				require.Equal(t, "default", s.ExecOf("spike"))
				require.Equal(t, map[string]string{"kind": "read"}, s.Test.Scenarios[0].Tags)
				require.Equal(t, RampingArrivalRate, s.Test.Scenarios[1].Executor)
			},
		},
		{
			// k6's options take a whole number as a string too (QuickPizza's
			// 12.modularization.js has vus: "1"); other strings stay errors.
			name:    "whole numbers as strings",
			options: `{"scenarios":{"smoke":{"executor":"constant-vus","vus":"3","duration":"10s"}},"maxRedirects":"2"}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, [2]int{3, 2}, [2]int{s.Test.Scenarios[0].VUs, s.Test.MaxRedirects})
			},
		},
		{
			name:    "a fraction as a string is no whole number",
			options: `{"vus":"1.5"}`,
			wantErr: `s.js: vus: expected a whole number, got "1.5"`,
		},
		{
			name:    "K6_* replace the script's scenarios",
			options: `{"scenarios":{"a":{"executor":"constant-vus","duration":"1h"}}}`,
			environ: map[string]string{"K6_VUS": "4", "K6_DURATION": "30s"},
			check: func(t *testing.T, s *Script) {
				sc := s.Test.Scenarios[0]
				require.Equal(t, [3]any{"default", ConstantVUs, 4}, [3]any{sc.Name, sc.Executor, sc.VUs})
				require.Equal(t, []string{"K6_DURATION", "K6_VUS"}, s.Replaced)
				require.Equal(t, 30*time.Second, sc.Duration)
			},
		},
		{
			// k6 v2.1 (release notes, #5794): -u/K6_VUS alone over scenarios replaces them
			// with N VUs sharing N iterations, with a warning (v1.8.1 ignored it).
			name:    "K6_VUS alone replaces the script's scenarios",
			options: `{"scenarios":{"a":{"executor":"shared-iterations","vus":2,"iterations":4}}}`,
			environ: map[string]string{"K6_VUS": "5"},
			check: func(t *testing.T, s *Script) {
				require.Len(t, s.Test.Scenarios, 1)
				sc := s.Test.Scenarios[0]
				require.Equal(t, [4]any{"default", SharedIterations, 5, 5}, [4]any{sc.Name, sc.Executor, sc.VUs, sc.Iterations})
				require.Equal(t, []string{"K6_VUS"}, s.Replaced, "replaced, so warned of")
			},
		},
		{
			// k6 decodes options as Go's encoding/json does: keys match case-insensitively
			// (k6's graceful-stop documentation writes discardresponsebodies and startvus).
			name: "option keys in another case",
			options: `{"discardresponsebodies":true,"scenarios":{"a":{"executor":"ramping-vus","startvus":2,` +
				`"stages":[{"duration":"1s","target":1}],"gracefulrampdown":"0s"}},"thresholds":{"http_reqs":[{"threshold":"count>0","abortonfail":true}]}}`,
			check: func(t *testing.T, s *Script) {
				require.True(t, s.HTTP.DiscardResponseBodies)
				require.Equal(t, 2, s.Test.Scenarios[0].StartVUs)
				require.True(t, s.Test.Thresholds["http_reqs"][0].AbortOnFail)
			},
		},
		{
			name:    "K6_VUS alone over scenarios must still be a number",
			options: `{"scenarios":{"a":{"executor":"shared-iterations","vus":2,"iterations":4}}}`,
			environ: map[string]string{"K6_VUS": "abc"},
			wantErr: `K6_VUS: "abc" is not a whole number; expected a VU count such as K6_VUS=10`,
		},
		{
			name:    "K6_VUS alone without scenarios sets the VUs",
			options: `{"vus":2,"duration":"10s"}`,
			environ: map[string]string{"K6_VUS": "5"},
			check: func(t *testing.T, s *Script) {
				require.Equal(t, [2]any{ConstantVUs, 5}, [2]any{s.Test.Scenarios[0].Executor, s.Test.Scenarios[0].VUs})
			},
		},
		{
			name:    "httpDebug full",
			options: `{"httpDebug":"full"}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, "full", s.HTTP.Debug)
			},
		},
		{
			name:    "httpDebug as text: the heads",
			options: `{"httpDebug":"headers"}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, "headers", s.HTTP.Debug)
			},
		},
		{
			name:    "httpDebug null or empty: off",
			options: `{"httpDebug":null}`,
			check: func(t *testing.T, s *Script) {
				require.Empty(t, s.HTTP.Debug)
			},
		},
		{
			// k6 v1.8.1: "cannot unmarshal bool into Go value of type null.String", 104.
			name:    "httpDebug true is refused as k6 does",
			options: `{"httpDebug":true}`,
			wantErr: `s.js: httpDebug: expected a string, "full" to log the bodies too or any other text (e.g. "headers") for the heads only, as --http-debug[=full]; got true`,
		},
		{
			name:    "K6_ITERATIONS wins over the script's iterations",
			options: `{"vus":2,"iterations":10}`,
			environ: map[string]string{"K6_ITERATIONS": "3"},
			check: func(t *testing.T, s *Script) {
				require.Equal(t, [2]int{2, 3}, [2]int{s.Test.Scenarios[0].VUs, s.Test.Scenarios[0].Iterations})
			},
		},
		{
			name:    "K6_* test-wide options win over the script's",
			options: `{"tags":{"team":"orders","env":"dev"},"summaryTrendStats":["avg"],"maxRedirects":3,"userAgent":"script/1"}`,
			environ: map[string]string{"K6_TAGS": "env:staging", "K6_SUMMARY_TREND_STATS": "avg, p(99.9)", "K6_MAX_REDIRECTS": "0",
				"K6_USER_AGENT": "env/2", "K6_INSECURE_SKIP_TLS_VERIFY": "true", "K6_SYSTEM_TAGS": "status,method", "K6_SUMMARY_TIME_UNIT": "ms"},
			check: func(t *testing.T, s *Script) {
				tt := s.Test
				require.Equal(t, map[string]string{"env": "staging"}, tt.Tags, "K6_TAGS replaces the script's tags")
				require.Equal(t, []string{"avg", "p(99.9)"}, tt.SummaryTrendStats)
				require.Equal(t, []string{"status", "method"}, tt.SystemTags)
				require.Equal(t, [4]any{0, "env/2", true, "ms"}, [4]any{tt.MaxRedirects, tt.UserAgent, tt.InsecureSkipTLSVerify, tt.SummaryTimeUnit})
			},
		},
		{
			name:    "summaryBreakdown in a script; the flag's variables win over it",
			options: `{"summaryBreakdown":["name"],"summarybreakdownlimit":7}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, []string{"name"}, s.Test.SummaryBreakdown)
				require.Equal(t, 7, s.Test.BreakdownLimit())
				require.Equal(t, []string{"name"}, s.Test.K6Options(nil)["summaryBreakdown"])
				require.Equal(t, 7, s.Test.K6Options(nil)["summaryBreakdownLimit"])
			},
		},
		{
			name:    "TIDEMARK_SUMMARY_BREAKDOWN over the script's",
			options: `{"summaryBreakdown":["name"]}`,
			environ: map[string]string{BreakdownEnv: "name, method,status", BreakdownLimitEnv: "3"},
			check: func(t *testing.T, s *Script) {
				require.Equal(t, []string{"name", "method", "status"}, s.Test.SummaryBreakdown)
				require.Equal(t, 3, s.Test.SummaryBreakdownLimit)
			},
		},
		{
			name:    "bad summaryBreakdownLimit",
			options: `{"summaryBreakdown":["name"],"summaryBreakdownLimit":0}`,
			wantErr: `s.js: summaryBreakdownLimit: must be more than 0, got 0`,
		},
		{
			name:    "empty key in TIDEMARK_SUMMARY_BREAKDOWN",
			options: `{}`,
			environ: map[string]string{BreakdownEnv: "name,"},
			wantErr: `s.js: summaryBreakdown[1]: empty tag key in "name,"; expected tag keys separated by commas, e.g. name,method,status`,
		},
		{
			name:    "bad K6_MAX_REDIRECTS is the option's error",
			options: `{}`,
			environ: map[string]string{"K6_MAX_REDIRECTS": "many"},
			wantErr: `s.js: maxRedirects: expected a whole number, got "many"`,
		},
		{
			name:    "bad K6_TAGS",
			options: `{}`,
			environ: map[string]string{"K6_TAGS": "env"},
			wantErr: `K6_TAGS: bad tag "env"; expected NAME:VALUE, e.g. K6_TAGS=env:staging,team:orders`,
		},
		{
			name:    "noSetup, noTeardown, minIterationDuration; k6 Cloud options ignored",
			options: `{"noSetup":true,"noTeardown":false,"minIterationDuration":"1s","cloud":{"projectID":1},"ext":{"loadimpact":{"name":"x"}}}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, [3]any{true, false, time.Second}, [3]any{s.NoSetup, s.NoTeardown, s.MinIterationDuration})
				require.Equal(t, []string{"cloud", "ext"}, s.Ignored)
			},
		},
		{
			name:    "k6/http options",
			options: `{"discardResponseBodies":true,"batch":5,"batchPerHost":2,"noCookiesReset":true,"throw":true}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, ScriptHTTP{DiscardResponseBodies: true, Batch: 5, BatchPerHost: 2, NoCookiesReset: true, Throw: true}, s.HTTP)
			},
		},
		{
			name:    "k6/http option defaults",
			options: `{}`,
			check: func(t *testing.T, s *Script) {
				require.Equal(t, ScriptHTTP{Batch: 20, BatchPerHost: 6}, s.HTTP)
			},
		},
		{
			name:    "options k6 has and Tidemark does not are errors",
			options: `{"executionSegmentSequence":"0,1/2,1"}`,
			wantErr: `s.js: executionSegmentSequence: k6 option "executionSegmentSequence" is not supported by Tidemark; remove it`,
		},
		{
			name:    "bad K6_STAGES",
			options: `{}`,
			environ: map[string]string{"K6_STAGES": "10s"},
			wantErr: `K6_STAGES: bad stage "10s"; expected DURATION:TARGET, e.g. K6_STAGES=30s:10,1m:20`,
		},
		{
			name:    "flows are for YAML files",
			options: `{"flow":[{"url":"http://x"}]}`,
			wantErr: `s.js: flow: is an option of YAML scenario files; a script's iterations run its exported functions (exec)`,
		},
		{
			name:    "exec is a function name",
			options: `{"scenarios":{"a":{"executor":"per-vu-iterations","exec":"not a name"}}}`,
			wantErr: `s.js: scenarios.a.exec: "not a name" is not a function name`,
		},
		{
			name:    "errors name fields, not lines of the JSON",
			options: "{\n\"vus\": 0,\n\"iterations\": 1}",
			wantErr: `s.js: vus: must be at least 1, got 0`,
		},
		{
			name:    "unknown option",
			options: `{"vus":1,"scenarios":{}}`,
			wantErr: "s.js: vus: conflicts with scenarios; set vus inside a scenario instead\ns.js: scenarios: no scenarios; expected at least one, e.g. scenarios: {load: {executor: constant-vus, vus: 1, duration: 30s}}",
		},
		{
			name:    "bad setupTimeout",
			options: `{"setupTimeout":"0s"}`,
			wantErr: `s.js: setupTimeout: must be more than 0`,
		},
		{
			name:    "not an object",
			options: `[1]`,
			wantErr: `s.js: options: expected an object, e.g. export const options = { vus: 10, duration: '30s' }`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseScript("s.js", []byte(tc.options), ScriptConfig{Registry: reg, Environ: tc.environ})
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, s)
		})
	}
}
