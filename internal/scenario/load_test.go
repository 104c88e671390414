package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// flow is appended to test documents that need a flow; it comes last so that it does
// not move the lines of the cases.
const flow = "\nflow: [{url: 'http://127.0.0.1:8099/'}]\n"

func TestLoadScenarioDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want Scenario
	}{
		{
			name: "nothing set is per-vu-iterations 1x1",
			in:   "",
			want: Scenario{Name: "default", Executor: PerVUIterations, VUs: 1, Iterations: 1, MaxDuration: 10 * time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "shared-iterations",
			in:   "scenarios: {s: {executor: shared-iterations}}",
			want: Scenario{Name: "s", Executor: SharedIterations, VUs: 1, Iterations: 1, MaxDuration: 10 * time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "per-vu-iterations",
			in:   "scenarios: {p: {executor: per-vu-iterations, vus: 2, iterations: 3, maxDuration: 1m}}",
			want: Scenario{Name: "p", Executor: PerVUIterations, VUs: 2, Iterations: 3, MaxDuration: time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "constant-vus",
			in:   "scenarios: {c: {executor: constant-vus, duration: 30s}}",
			want: Scenario{Name: "c", Executor: ConstantVUs, VUs: 1, Duration: 30 * time.Second, GracefulStop: 30 * time.Second},
		},
		{
			name: "externally-controlled: vus 0, maxVUs vus, no gracefulStop",
			in:   "scenarios: {x: {executor: externally-controlled, duration: 0}}",
			want: Scenario{Name: "x", Executor: ExternallyControlled},
		},
		{
			name: "externally-controlled",
			in:   "scenarios: {x: {executor: externally-controlled, vus: 2, maxVUs: 5, duration: 1m}}",
			want: Scenario{Name: "x", Executor: ExternallyControlled, VUs: 2, MaxVUs: 5, Duration: time.Minute},
		},
		{
			name: "externally-controlled maxVUs defaults to vus",
			in:   "scenarios: {x: {executor: externally-controlled, vus: 3, duration: 1m}}",
			want: Scenario{Name: "x", Executor: ExternallyControlled, VUs: 3, MaxVUs: 3, Duration: time.Minute},
		},
		{
			name: "ramping-vus",
			in:   "scenarios: {r: {executor: ramping-vus, stages: [{duration: 1m, target: 10}, {duration: 30s, target: 0}]}}",
			want: Scenario{
				Name: "r", Executor: RampingVUs, StartVUs: 1, GracefulRampDown: 30 * time.Second, GracefulStop: 30 * time.Second,
				Stages: []Stage{{Duration: time.Minute, Target: 10}, {Duration: 30 * time.Second, Target: 0}},
			},
		},
		{
			name: "constant-arrival-rate",
			in:   "scenarios: {c: {executor: constant-arrival-rate, duration: 1m, rate: 1000, preAllocatedVUs: 100}}",
			want: Scenario{Name: "c", Executor: ConstantArrivalRate, Duration: time.Minute, Rate: 1000, TimeUnit: time.Second, PreAllocatedVUs: 100, MaxVUs: 100, GracefulStop: 30 * time.Second},
		},
		{
			name: "ramping-arrival-rate",
			in:   "scenarios: {r: {executor: ramping-arrival-rate, preAllocatedVUs: 20, stages: [{duration: 2m, target: 10}]}}",
			want: Scenario{
				Name: "r", Executor: RampingArrivalRate, PreAllocatedVUs: 20, MaxVUs: 20, TimeUnit: time.Second, GracefulStop: 30 * time.Second,
				Stages: []Stage{{Duration: 2 * time.Minute, Target: 10}},
			},
		},
		{
			name: "every common option",
			in: `scenarios:
  all:
    executor: ramping-arrival-rate
    startTime: 1m30s
    gracefulStop: 5s
    env: {A: "1"}
    tags: {team: "a", n: 5}
    startRate: 2.5
    timeUnit: 1m
    preAllocatedVUs: 0
    maxVUs: 10
    stages: [{duration: 1500, target: 3}]`,
			want: Scenario{
				Name: "all", Executor: RampingArrivalRate, StartTime: 90 * time.Second, GracefulStop: 5 * time.Second,
				Env: map[string]string{"A": "1"}, Tags: map[string]string{"team": "a", "n": "5"},
				StartRate: 2.5, TimeUnit: time.Minute, MaxVUs: 10, Stages: []Stage{{Duration: 1500 * time.Millisecond, Target: 3}},
			},
		},
		// Shortcuts (k6 DeriveScenariosFromShortcuts).
		{
			name: "vus and duration are constant-vus",
			in:   "vus: 5\nduration: 30s",
			want: Scenario{Name: "default", Executor: ConstantVUs, VUs: 5, Duration: 30 * time.Second, GracefulStop: 30 * time.Second},
		},
		{
			name: "duration alone is constant-vus with 1 VU",
			in:   "duration: 2h",
			want: Scenario{Name: "default", Executor: ConstantVUs, VUs: 1, Duration: 2 * time.Hour, GracefulStop: 30 * time.Second},
		},
		{
			name: "iterations are shared-iterations",
			in:   "iterations: 10",
			want: Scenario{Name: "default", Executor: SharedIterations, VUs: 1, Iterations: 10, MaxDuration: 10 * time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "iterations with vus and duration as maxDuration",
			in:   "iterations: 10\nvus: 2\nduration: 1m",
			want: Scenario{Name: "default", Executor: SharedIterations, VUs: 2, Iterations: 10, MaxDuration: time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "stages are ramping-vus with vus as startVUs",
			in:   "stages: [{duration: 10s, target: 5}]\nvus: 4",
			want: Scenario{Name: "default", Executor: RampingVUs, StartVUs: 4, GracefulRampDown: 30 * time.Second, GracefulStop: 30 * time.Second, Stages: []Stage{{Duration: 10 * time.Second, Target: 5}}},
		},
		{
			name: "bare vus is shared-iterations with as many iterations (k6 v2)",
			in:   "vus: 5",
			want: Scenario{Name: "default", Executor: SharedIterations, VUs: 5, Iterations: 5, MaxDuration: 10 * time.Minute, GracefulStop: 30 * time.Second},
		},
		{
			name: "empty stages count as not set",
			in:   "stages: []\nduration: 1500",
			want: Scenario{Name: "default", Executor: ConstantVUs, VUs: 1, Duration: 1500 * time.Millisecond, GracefulStop: 30 * time.Second},
		},
		{
			name: "days and fractions",
			in:   "duration: 1d1.5h",
			want: Scenario{Name: "default", Executor: ConstantVUs, VUs: 1, Duration: 25*time.Hour + 30*time.Minute, GracefulStop: 30 * time.Second},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tst, err := Parse("t.yaml", []byte(tc.in+flow))
			require.NoError(t, err)
			require.Len(t, tst.Scenarios, 1)
			got := *tst.Scenarios[0]
			require.Len(t, got.Flow.Steps, 1)
			got.Flow, got.Line = Flow{}, 0
			if got.Env == nil {
				got.Env = tc.want.Env
			}
			if got.Tags == nil {
				got.Tags = tc.want.Tags
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestLoadTestDefaults(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(flow))
	require.NoError(t, err)
	require.Equal(t, "t.yaml", tst.Source)
	require.Equal(t, []string{"avg", "min", "med", "max", "p(90)", "p(95)"}, tst.SummaryTrendStats)
	require.Equal(t, DefaultSystemTags(), tst.SystemTags)
	require.Empty(t, tst.SummaryTimeUnit)
	require.Equal(t, 10, tst.MaxRedirects)
	require.Empty(t, tst.Thresholds)

	st := tst.Scenarios[0].Flow.Steps[0]
	require.Equal(t, "GET", st.Method)
	require.Equal(t, 60*time.Second, st.Timeout)
	require.Equal(t, 10, st.Redirects)
	require.Equal(t, []StatusRange{{200, 399}}, st.Expected)
	require.Empty(t, st.Name, "a static URL is its own url tag")
	require.Equal(t, Think{}, st.Sleep)

	tst, err = Parse("t.yaml", []byte(`
tags: {testid: x}
env: {BASE: "http://127.0.0.1:8099"}
summaryTrendStats: [avg, p(99.9), count]
summaryTimeUnit: ms
summaryBreakdown: [name, method]
summaryBreakdownLimit: 5
systemTags: [status, vu]
maxRedirects: 0
userAgent: tidemark-test
insecureSkipTLSVerify: true
flow: [{url: '${__ENV.BASE}/'}]
`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"testid": "x"}, tst.Tags)
	require.Equal(t, map[string]string{"BASE": "http://127.0.0.1:8099"}, tst.Env)
	require.Equal(t, []string{"avg", "p(99.9)", "count"}, tst.SummaryTrendStats)
	require.Equal(t, "ms", tst.SummaryTimeUnit)
	require.Equal(t, []string{"name", "method"}, tst.SummaryBreakdown)
	require.Equal(t, 5, tst.SummaryBreakdownLimit)
	require.Equal(t, []string{"status", "vu"}, tst.SystemTags)
	require.True(t, tst.InsecureSkipTLSVerify)
	st = tst.Scenarios[0].Flow.Steps[0]
	require.Equal(t, 0, st.Redirects, "maxRedirects is the steps' default")
	require.Equal(t, "tidemark-test", st.Headers["User-Agent"].String())
	require.Equal(t, "http://127.0.0.1:8099/", st.URL.String())
}

func TestLoadSteps(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
flow:
  - name: create
    group: orders
    method: post
    url: http://127.0.0.1:8099/orders/${__VU}?i=${__ITER}
    headers: {X-Token: "t-${__ENV.TOKEN:-none}", Content-Type: text/plain}
    body: "id=${__UUID}"
    tags: {kind: write}
    expect: [201, "400-404", "500"]
    timeout: 1500
    redirects: 0
    sleep: 1s-3s
    checks:
      - status: 201
      - {name: has id, bodyContains: '"id"'}
      - bodyRegex: '^\{.*\}$'
      - {jsonPath: 'data.items[0].id', equals: 42}
      - {jsonPath: data.name, equals: tea}
      - jsonPath: data
      - {header: Content-Type, equals: application/json}
      - header: X-Request-Id
  - sleep: 2
  - url: https://example.test/
    body: {name: "a<b", n: [1, 2.5, true, null], u: "${__VU}"}
    sleep: {min: 0.5, max: 1500ms}
  - url: http://example.test/
    body: [1, 2]
    headers: {content-type: text/json}
    sleep: 250ms
`))
	require.NoError(t, err)
	steps := tst.Scenarios[0].Flow.Steps
	require.Len(t, steps, 4)

	s := steps[0]
	require.Equal(t, "create", s.Name)
	require.Equal(t, "orders", s.Group)
	require.Equal(t, "POST", s.Method)
	require.Equal(t, "http://127.0.0.1:8099/orders/${__VU}?i=${__ITER}", s.URL.String())
	require.Equal(t, "t-none", s.Headers["X-Token"].String(), "environment variables are bound at load")
	require.True(t, s.Headers["X-Token"].Static())
	require.Equal(t, "id=${__UUID}", s.Body.String())
	require.Equal(t, map[string]string{"kind": "write"}, s.Tags)
	require.Equal(t, []StatusRange{{201, 201}, {400, 404}, {500, 500}}, s.Expected)
	require.Equal(t, 1500*time.Millisecond, s.Timeout, "bare numbers are milliseconds")
	require.Equal(t, 0, s.Redirects)
	require.Equal(t, Think{Min: time.Second, Max: 3 * time.Second}, s.Sleep)
	var names []string
	for _, c := range s.Checks {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{
		"status is 201", "has id", `body matches /^\{.*\}$/`, "data.items[0].id is 42", `data.name is "tea"`,
		"data is present", "header Content-Type is application/json", "header X-Request-Id is present",
	}, names)
	require.Equal(t, CheckStatus, s.Checks[0].Kind)
	require.Equal(t, 201, s.Checks[0].Status)
	require.Equal(t, CheckBodyContains, s.Checks[1].Kind)
	require.Equal(t, `"id"`, s.Checks[1].Value)
	require.Equal(t, CheckBodyRegex, s.Checks[2].Kind)
	require.Equal(t, `^\{.*\}$`, s.Checks[2].Regex.String())
	require.Equal(t, CheckJSON, s.Checks[3].Kind)
	require.Equal(t, "data.items.0.id", s.Checks[3].Path)
	require.Equal(t, "42", s.Checks[3].Value)
	require.Equal(t, "tea", s.Checks[4].Value, "strings are kept as they are")
	require.Empty(t, s.Checks[5].Value)
	require.Equal(t, CheckHeader, s.Checks[6].Kind)
	require.Equal(t, "Content-Type", s.Checks[6].Path)
	require.Equal(t, "application/json", s.Checks[6].Value)

	require.Equal(t, Step{Sleep: Think{Min: 2 * time.Second}}, steps[1], "a bare number of sleep is seconds, as k6's sleep()")

	s = steps[2]
	//nolint:testifylint // the exact bytes are the point: key order and numbers as written
	require.Equal(t, `{"name":"a<b","n":[1,2.5,true,null],"u":"${__VU}"}`, s.Body.String())
	require.Equal(t, "application/json", s.Headers["Content-Type"].String())
	require.Equal(t, Think{Min: 500 * time.Millisecond, Max: 1500 * time.Millisecond}, s.Sleep)

	s = steps[3]
	require.Equal(t, `[1,2]`, s.Body.String())
	require.Len(t, s.Headers, 1, "an explicit content type is kept")
	require.Equal(t, "text/json", s.Headers["content-type"].String())
	require.Equal(t, Think{Min: 250 * time.Millisecond}, s.Sleep)
}

func TestLoadNameOfDynamicURL(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`flow: [{url: 'http://h/${__ENV.P:-x}/${__VU}/${__RANDOM_INT(1,9)}'}, {url: 'http://h/${__VU}', name: mine}]`))
	require.NoError(t, err)
	require.Equal(t, "http://h/x/${}/${}", tst.Scenarios[0].Flow.Steps[0].Name, "as k6's http.url, to keep url tags low-cardinality")
	require.Equal(t, "mine", tst.Scenarios[0].Flow.Steps[1].Name)
}

func TestLoadEnv(t *testing.T) {
	t.Parallel()
	in := []byte(`
env: {HOST: file, PORT: "1"}
scenarios:
  a: {executor: shared-iterations}
  b: {executor: shared-iterations, env: {HOST: scen}}
flow: [{url: 'http://${__ENV.HOST}:${__ENV.PORT}/${__ENV.EMPTY:-d}'}]
`)
	tst, err := Parse("t.yaml", in)
	require.NoError(t, err)
	require.Equal(t, "http://file:1/d", tst.Scenarios[0].Flow.Steps[0].URL.String())
	require.Equal(t, "http://scen:1/d", tst.Scenarios[1].Flow.Steps[0].URL.String())

	// The process environment overrides the file's env; a scenario's env overrides both;
	// later maps win.
	tst, err = Parse("t.yaml", in, map[string]string{"HOST": "proc", "PORT": "2"}, map[string]string{"PORT": "3", "EMPTY": ""})
	require.NoError(t, err)
	require.Equal(t, "http://proc:3/d", tst.Scenarios[0].Flow.Steps[0].URL.String(), "an empty value takes the default")
	require.Equal(t, "http://scen:3/d", tst.Scenarios[1].Flow.Steps[0].URL.String())
}

func TestLoadFlows(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
scenarios:
  browse: {executor: constant-vus, duration: 1m, exec: browse}
  buy: {executor: constant-vus, duration: 1m, flow: [{url: 'http://h/buy'}]}
  plain: {executor: constant-vus, duration: 1m}
  named: {executor: constant-vus, duration: 1m, exec: default}
flows:
  browse: [{url: 'http://h/browse'}]
flow: [{url: 'http://h/'}]
`))
	require.NoError(t, err)
	var got []string
	for _, sc := range tst.Scenarios {
		got = append(got, sc.Name+" "+sc.Flow.Steps[0].URL.String())
	}
	require.Equal(t, []string{"browse http://h/browse", "buy http://h/buy", "plain http://h/", "named http://h/"}, got, "file order is kept")
}

func TestLoadThresholds(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
thresholds:
  http_req_duration: ['p(95)<500', 'p(99.9) < 2000']
  http_req_failed: 'rate<0.01'
  'http_req_duration{scenario:spike}':
    - threshold: max<3000
      abortOnFail: true
      delayAbortEval: 10s
  checks: [{threshold: 'rate>0.9'}]
  http_reqs: [{threshold: 'rate>10', window: 30s, abortOnFail: true}]
`+flow))
	require.NoError(t, err)
	require.Equal(t, map[string][]Threshold{
		"http_req_duration":                 {{Expr: "p(95)<500", Line: 3}, {Expr: "p(99.9) < 2000", Line: 3}},
		"http_req_failed":                   {{Expr: "rate<0.01", Line: 4}},
		"http_req_duration{scenario:spike}": {{Expr: "max<3000", AbortOnFail: true, DelayAbortEval: 10 * time.Second, Line: 6}},
		"checks":                            {{Expr: "rate>0.9", Line: 9}},
		"http_reqs":                         {{Expr: "rate>10", Window: 30 * time.Second, AbortOnFail: true, Line: 10}},
	}, tst.Thresholds)
	require.Equal(t, []string{"thresholds.http_reqs[0].window"}, tst.TidemarkOnly(), "k6 would reject the key")
	require.Equal(t, []any{map[string]any{"threshold": "rate>10", "abortOnFail": true, "window": "30s"}},
		tst.K6Options(nil)["thresholds"].(map[string]any)["http_reqs"])
	set, err := tst.ThresholdSet(nil)
	require.NoError(t, err)
	noSamples := func(*threshold.Key) threshold.Source { return nil }
	require.Len(t, set.Evaluate(0, true, noSamples).Outcomes, 6)

	// A run passes its own registry, which holds the built-in metrics and more.
	reg := metrics.NewRegistry()
	metrics.RegisterBuiltin(reg)
	_, err = reg.New("tidemark_extra", metrics.Gauge, metrics.Default)
	require.NoError(t, err)
	set, err = tst.ThresholdSet(threshold.RegistryTypes(reg))
	require.NoError(t, err)
	require.Len(t, set.Evaluate(0, true, noSamples).Outcomes, 6)
	_, err = tst.ThresholdSet(threshold.RegistryTypes(metrics.NewRegistry()))
	require.ErrorContains(t, err, "http_req_duration", "typeOf is what the set looks metrics up in")
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		noFlow  bool
		env     map[string]string
		wantErr string
	}{
		// Syntax and shape.
		{name: "yaml syntax", in: "vus: 1\nduration: 1m\n  x: 3\n", noFlow: true, wantErr: "t.yaml:3: invalid YAML or JSON: mapping values are not allowed in this context"},
		{name: "tab indentation", in: "vus: 1\nflow:\n\t- url: x\n", noFlow: true, wantErr: "t.yaml:3: invalid YAML or JSON: found character that cannot start any token"},
		{name: "empty file", in: "", noFlow: true, wantErr: "t.yaml: file is empty; expected a mapping of k6 options such as scenarios, thresholds and flow"},
		{name: "not a mapping", in: "- vus", noFlow: true, wantErr: "t.yaml:1: expected a mapping, got a list"},
		{name: "duplicate field", in: "vus: 1\nvus: 2", wantErr: "t.yaml:2: vus: field given twice (first on line 1)"},
		// Unknown and misspelt fields.
		{
			name:    "unknown top-level field",
			in:      "vsu: 5",
			wantErr: `t.yaml:1: vsu: unknown field "vsu"; expected one of scenarios, vus, iterations, duration, stages, thresholds, tags, env, summaryTrendStats, summaryTimeUnit, summaryBreakdown, summaryBreakdownLimit, systemTags, flow, flows, maxRedirects, userAgent, insecureSkipTLSVerify, rps, blacklistIPs, blockHostnames, dns, hosts, localIPs, noConnectionReuse, noVUConnectionReuse; did you mean "vus"?`,
		},
		{name: "unsupported k6 option", in: "executionSegmentSequence: '0,1/2,1'", wantErr: `t.yaml:1: executionSegmentSequence: k6 option "executionSegmentSequence" is not supported by Tidemark; remove it`},
		{
			name:    "misspelt scenario option",
			in:      "scenarios:\n  s:\n    executor: constant-vus\n    duration: 1m\n    gracefullStop: 1s",
			wantErr: `t.yaml:5: scenarios.s.gracefullStop: unknown field "gracefullStop"; expected one of executor, startTime, gracefulStop, env, tags, flow, exec, options, vus, iterations, maxDuration, duration, stages, startVUs, gracefulRampDown, rate, timeUnit, preAllocatedVUs, maxVUs, startRate; did you mean "gracefulStop"?`,
		},
		{
			name:    "misspelt step field",
			in:      "flow:\n  - url: http://h/\n    chekcs: []",
			noFlow:  true,
			wantErr: `t.yaml:3: flow[0].chekcs: unknown field "chekcs"; expected one of name, group, method, url, headers, body, tags, expect, checks, timeout, redirects, sleep; did you mean "checks"?`,
		},
		// Wrong types.
		{name: "string for an integer", in: "vus: five", wantErr: `t.yaml:1: vus: expected a whole number, got "five"`},
		{name: "fraction for an integer", in: "vus: 1.5", wantErr: `t.yaml:1: vus: expected a whole number, got the number 1.5`},
		{name: "list for a string", in: "summaryTimeUnit: [s]", wantErr: `t.yaml:1: summaryTimeUnit: expected a string, got a list`},
		{name: "mapping for tags", in: "tags: [a]", wantErr: `t.yaml:1: tags: expected a mapping, got a list`},
		{name: "null for a bool", in: "insecureSkipTLSVerify: ~", wantErr: `t.yaml:1: insecureSkipTLSVerify: expected true or false, got null`},
		{name: "string for a number", in: "scenarios: {s: {executor: constant-arrival-rate, duration: 1m, rate: fast, preAllocatedVUs: 1}}", wantErr: `t.yaml:1: scenarios.s.rate: expected a number, got "fast"`},
		// Durations.
		{name: "duration without unit", in: `duration: "30"`, wantErr: `t.yaml:1: duration: bad duration "30": missing unit; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "bad duration", in: `duration: 10x`, wantErr: `t.yaml:1: duration: bad duration "10x": invalid duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "negative duration", in: `duration: -1s`, wantErr: `t.yaml:1: duration: bad duration "-1s": negative duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "negative ms", in: `duration: -5`, wantErr: `t.yaml:1: duration: bad duration -5: negative duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "zero duration", in: `duration: 0s`, wantErr: `t.yaml:1: duration: must be more than 0`},
		// Executors.
		{
			name:    "unknown executor",
			in:      "scenarios:\n  spike:\n    executor: ramping-arival-rate",                                                                                                                                                                                                               //nolint:misspell // the typo is the test
			wantErr: `t.yaml:3: scenarios.spike.executor: unknown executor "ramping-arival-rate"; expected one of shared-iterations, per-vu-iterations, constant-vus, ramping-vus, constant-arrival-rate, ramping-arrival-rate, externally-controlled; did you mean "ramping-arrival-rate"?`, //nolint:misspell // the typo is the test
		},
		{name: "externally-controlled needs a duration", in: "scenarios: {x: {executor: externally-controlled}}", wantErr: `t.yaml:1: scenarios.x: missing required option duration; executor "externally-controlled" needs duration`},
		{name: "externally-controlled without gracefulStop", in: "scenarios: {x: {executor: externally-controlled, duration: 0, gracefulStop: 3s}}", wantErr: `t.yaml:1: scenarios.x.gracefulStop: not supported by the externally-controlled executor (a stop interrupts the running iterations); remove it`},
		{name: "externally-controlled vus over maxVUs", in: "scenarios: {x: {executor: externally-controlled, duration: 5s, vus: 4, maxVUs: 3}}", wantErr: `t.yaml:1: scenarios.x.maxVUs: the number of active VUs (4) must be less than or equal to the number of maxVUs (3); expected maxVUs of at least vus`},
		{name: "externally-controlled negative vus", in: "scenarios: {x: {executor: externally-controlled, duration: 5s, vus: -1}}", wantErr: `t.yaml:1: scenarios.x.vus: must not be negative, got -1`},
		{name: "missing executor", in: "scenarios:\n  x: {vus: 1}", wantErr: `t.yaml:2: scenarios.x.executor: missing executor; expected one of shared-iterations, per-vu-iterations, constant-vus, ramping-vus, constant-arrival-rate, ramping-arrival-rate, externally-controlled`},
		{name: "missing required options", in: "scenarios:\n  x:\n    executor: constant-arrival-rate\n    rate: 10", wantErr: `t.yaml:3: scenarios.x: missing required options duration, preAllocatedVUs; executor "constant-arrival-rate" needs duration, rate, preAllocatedVUs`},
		{name: "missing stages", in: "scenarios:\n  x:\n    executor: ramping-vus", wantErr: `t.yaml:3: scenarios.x: missing required option stages; executor "ramping-vus" needs stages`},
		{name: "option of another executor", in: "scenarios:\n  x:\n    executor: shared-iterations\n    duration: 1m", wantErr: `t.yaml:4: scenarios.x.duration: option not valid for executor "shared-iterations"; its options are executor, startTime, gracefulStop, env, tags, flow, exec, options, vus, iterations, maxDuration`},
		{name: "bad scenario name", in: "scenarios:\n  a b: {executor: shared-iterations}", wantErr: `t.yaml:2: scenarios.a b: bad scenario name "a b"; expected letters, digits, '_' and '-' only`},
		{name: "no scenarios", in: "scenarios: {}", wantErr: `t.yaml:1: scenarios: no scenarios; expected at least one, e.g. scenarios: {load: {executor: constant-vus, vus: 1, duration: 30s}}`},
		{name: "zero vus", in: "scenarios: {x: {executor: constant-vus, vus: 0, duration: 1m}}", wantErr: `t.yaml:1: scenarios.x.vus: must be at least 1, got 0`},
		{name: "fewer iterations than vus", in: "scenarios: {x: {executor: shared-iterations, vus: 5, iterations: 2}}", wantErr: `t.yaml:1: scenarios.x.iterations: 2 iterations cannot be shared by 5 VUs; expected at least as many iterations as vus`},
		{name: "shortcut fewer iterations than vus", in: "iterations: 2\nvus: 5", wantErr: `t.yaml:1: iterations: 2 iterations cannot be shared by 5 VUs; expected at least as many iterations as vus`},
		{name: "zero iterations", in: "iterations: 0", wantErr: `t.yaml:1: iterations: must be at least 1, got 0`},
		{name: "zero rate", in: "scenarios: {x: {executor: constant-arrival-rate, duration: 1m, rate: 0, preAllocatedVUs: 1}}", wantErr: `t.yaml:1: scenarios.x.rate: must be more than 0, got 0`},
		{name: "zero time unit", in: "scenarios: {x: {executor: constant-arrival-rate, duration: 1m, rate: 1, timeUnit: 0, preAllocatedVUs: 1}}", wantErr: `t.yaml:1: scenarios.x.timeUnit: must be more than 0`},
		{name: "maxVUs below preAllocatedVUs", in: "scenarios: {x: {executor: constant-arrival-rate, duration: 1m, rate: 1, preAllocatedVUs: 10, maxVUs: 5}}", wantErr: `t.yaml:1: scenarios.x.maxVUs: 5 is less than preAllocatedVUs (10); expected at least preAllocatedVUs`},
		{name: "no VUs for arrivals", in: "scenarios: {x: {executor: constant-arrival-rate, duration: 1m, rate: 1, preAllocatedVUs: 0}}", wantErr: `t.yaml:1: scenarios.x.preAllocatedVUs: no VUs to run iterations; expected preAllocatedVUs or maxVUs above 0`},
		{name: "negative preAllocatedVUs", in: "scenarios: {x: {executor: constant-arrival-rate, duration: 1m, rate: 1, preAllocatedVUs: -1}}", wantErr: `t.yaml:1: scenarios.x.preAllocatedVUs: must not be negative, got -1`},
		{name: "negative startRate", in: "scenarios: {x: {executor: ramping-arrival-rate, preAllocatedVUs: 1, startRate: -1, stages: [{duration: 1s, target: 1}]}}", wantErr: `t.yaml:1: scenarios.x.startRate: must not be negative, got -1`},
		{name: "negative startVUs", in: "scenarios: {x: {executor: ramping-vus, startVUs: -1, stages: [{duration: 1s, target: 1}]}}", wantErr: `t.yaml:1: scenarios.x.startVUs: must not be negative, got -1`},
		{name: "zero maxDuration", in: "scenarios: {x: {executor: per-vu-iterations, maxDuration: 0}}", wantErr: `t.yaml:1: scenarios.x.maxDuration: must be more than 0`},
		// Stages.
		{name: "stage without target", in: "stages:\n  - duration: 1m", wantErr: `t.yaml:2: stages[0]: a stage needs duration and target, e.g. {duration: 2m, target: 10}`},
		{name: "negative target", in: "stages:\n  - {duration: 1m, target: -1}", wantErr: `t.yaml:2: stages[0].target: must not be negative, got -1`},
		{name: "fractional VU target", in: "stages:\n  - {duration: 1m, target: 1.5}", wantErr: `t.yaml:2: stages[0].target: a VU target must be a whole number, got 1.5`},
		{name: "stages of no time", in: "stages: [{duration: 0s, target: 1}]", wantErr: `t.yaml:1: stages: the stages last 0s in total; expected at least one stage with a duration above 0`},
		{name: "all targets zero", in: "scenarios: {x: {executor: ramping-arrival-rate, preAllocatedVUs: 1, stages: [{duration: 1s, target: 0}]}}", wantErr: `t.yaml:1: scenarios.x.stages: no iterations: startRate and every stage target are 0; expected a target above 0`},
		{name: "no VUs at all", in: "scenarios: {x: {executor: ramping-vus, startVUs: 0, stages: [{duration: 1s, target: 0}]}}", wantErr: `t.yaml:1: scenarios.x.stages: no VUs: startVUs and every stage target are 0; expected a target above 0`},
		{name: "empty stages in a scenario", in: "scenarios: {x: {executor: ramping-vus, stages: []}}", wantErr: `t.yaml:1: scenarios.x.stages: no stages; expected a list of {duration, target}`},
		// Shortcut conflicts.
		{name: "iterations and stages", in: "iterations: 5\nstages: [{duration: 1m, target: 1}]", wantErr: `t.yaml:2: stages: conflicts with iterations (line 1); use one of them, or describe the load in scenarios`},
		{name: "duration and stages", in: "duration: 1m\nstages: [{duration: 1m, target: 1}]", wantErr: `t.yaml:2: stages: conflicts with duration (line 1); use one of them, or describe the load in scenarios`},
		{
			name:    "shortcuts and scenarios",
			in:      "scenarios: {x: {executor: shared-iterations}}\nvus: 2\nduration: 1m",
			wantErr: "t.yaml:2: vus: conflicts with scenarios (line 1); set vus inside a scenario instead\nt.yaml:3: duration: conflicts with scenarios (line 1); set duration inside a scenario instead",
		},
		// Thresholds.
		{
			name:    "unknown metric",
			in:      "thresholds:\n  http_req_durations: ['p(95)<500']",
			wantErr: `t.yaml:2: thresholds.http_req_durations: unknown metric "http_req_durations"; expected a k6 built-in metric (checks, data_received, data_sent, dropped_iterations, group_duration, http_req_blocked, http_req_connecting, http_req_duration, http_req_failed, http_req_receiving, http_req_sending, http_req_tls_handshaking, http_req_waiting, http_reqs, iteration_duration, iterations, vus, vus_max); did you mean "http_req_duration"?`,
		},
		{name: "method not valid for the type", in: "thresholds:\n  http_req_failed: ['p(95)<1']", wantErr: `t.yaml:2: thresholds.http_req_failed[0]: method p(95) in "p(95)<1" is not valid for http_req_failed, a rate metric; expected one of rate`},
		{name: "counter method", in: "thresholds:\n  http_reqs: ['avg<1']", wantErr: `t.yaml:2: thresholds.http_reqs[0]: method avg in "avg<1" is not valid for http_reqs, a counter metric; expected one of count, rate`},
		{name: "gauge method", in: "thresholds:\n  vus: ['max<1']", wantErr: `t.yaml:2: thresholds.vus[0]: method max in "max<1" is not valid for vus, a gauge metric; expected one of value`},
		{name: "bad expression", in: "thresholds:\n  http_req_duration:\n    - p95<500", wantErr: `t.yaml:3: thresholds.http_req_duration[0]: expression "p95<500": unknown method "p95"; expected one of count, rate, value, avg, min, max, med, p(N)`},
		{name: "expression without operator", in: "thresholds:\n  http_req_duration: ['p(95) 500']", wantErr: "t.yaml:2: thresholds.http_req_duration[0]: expression \"p(95) 500\": no operator; expected `method op value` with op one of > >= <= < == === !=, e.g. 'p(95)<500'"},
		{name: "bad sub-metric", in: "thresholds:\n  'http_req_duration{scenario}': ['p(95)<500']", wantErr: `t.yaml:2: thresholds.http_req_duration{scenario}: metric "http_req_duration{scenario}": malformed tag "scenario"; expected tag:value`},
		{name: "vu sub-metric", in: "thresholds:\n  'http_reqs{vu:1}': ['count<1']", wantErr: `t.yaml:2: thresholds.http_reqs{vu:1}: vu and iter are not tags in Tidemark, so this sub-metric would match nothing; expected other tags such as scenario, name, status or method`},
		{name: "threshold object without threshold", in: "thresholds:\n  http_reqs: [{abortOnFail: true}]", wantErr: `t.yaml:2: thresholds.http_reqs[0]: missing threshold; expected {threshold: 'p(95)<500', abortOnFail: true}`},
		{name: "threshold object misspelt", in: "thresholds:\n  http_reqs: [{threshold: 'count<1', abortOnFail: true, delayAbortEvl: 1s}]", wantErr: `t.yaml:2: thresholds.http_reqs[0].delayAbortEvl: unknown field "delayAbortEvl"; expected one of threshold, abortOnFail, delayAbortEval, window; did you mean "delayAbortEval"?`},
		{name: "window not a duration", in: "thresholds:\n  http_req_duration: [{threshold: 'p(95)<500', window: half}]", wantErr: `t.yaml:2: thresholds.http_req_duration[0].window: bad duration "half": invalid duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "window under a second", in: "thresholds:\n  http_req_duration: [{threshold: 'p(95)<500', window: 500ms}]", wantErr: `t.yaml:2: thresholds.http_req_duration[0].window: window 500ms is shorter than 1s; windows are evaluated every second; expected a duration such as '30s'`},
		{name: "window as a bare number is milliseconds", in: "thresholds:\n  http_req_duration: [{threshold: 'p(95)<500', window: 30}]", wantErr: `t.yaml:2: thresholds.http_req_duration[0].window: window 30ms is shorter than 1s; windows are evaluated every second; expected a duration such as '30s'`},
		{name: "bad delayAbortEval", in: "thresholds:\n  http_reqs: [{threshold: 'count<1', delayAbortEval: soon}]", wantErr: `t.yaml:2: thresholds.http_reqs[0].delayAbortEval: bad duration "soon": invalid duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`},
		{name: "empty threshold list", in: "thresholds:\n  http_reqs: []", wantErr: `t.yaml:2: thresholds.http_reqs: no thresholds; expected a list of expressions such as 'p(95)<500'`},
		// URLs and variables.
		{name: "missing flow", in: "vus: 1", noFlow: true, wantErr: `t.yaml:1: flow: no flow; expected a list of steps under flow (here or at the top level), e.g. flow: [{url: "http://127.0.0.1:8099/"}]`},
		{name: "missing url", in: "flow:\n  - method: GET", noFlow: true, wantErr: `t.yaml:2: flow[0].url: missing url; expected a request step with url (http or https), or a pause with only sleep`},
		{name: "empty flow", in: "flow: []", noFlow: true, wantErr: `t.yaml:1: flow: no steps; expected a list of steps such as {url: "http://127.0.0.1:8099/"}`},
		{name: "unknown exec", in: "scenarios:\n  x: {executor: shared-iterations, exec: brwse}\nflows: {browse: [{url: 'http://h/'}]}", noFlow: true, wantErr: `t.yaml:2: scenarios.x.exec: no flow named "brwse"; expected one of the names under flows (browse); did you mean "browse"?`},
		{name: "ftp url", in: "flow: [{url: 'ftp://h/'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: invalid URL "ftp://h/": scheme "ftp" is not supported; expected http or https`},
		{name: "relative url", in: "flow: [{url: '/path'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: invalid URL "/path": no scheme; expected an absolute URL such as http://127.0.0.1:8099/`},
		{name: "url without host", in: "flow: [{url: 'http:///path'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: invalid URL "http:///path": no host; expected an absolute URL such as http://127.0.0.1:8099/`},
		{name: "unparsable url", in: "flow: [{url: 'http://h:x/'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: invalid URL "http://h:x/": invalid port ":x" after host; expected an absolute URL such as http://127.0.0.1:8099/`},
		{name: "unset env", in: "flow: [{url: '${__ENV.TARGET_URL}/'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: environment variable TARGET_URL is not set; set it, or give a default: ${__ENV.TARGET_URL:-value}`},
		{name: "env makes a bad url", in: "flow: [{url: '${__ENV.T}/'}]", env: map[string]string{"T": "localhost:80"}, noFlow: true, wantErr: `t.yaml:1: flow[0].url: invalid URL "localhost:80/": scheme "localhost" is not supported; expected http or https`},
		{name: "unknown variable", in: "flow: [{url: 'http://h/${__VUS}'}]", noFlow: true, wantErr: `t.yaml:1: flow[0].url: unknown variable ${__VUS}; expected one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}; did you mean "__VU"?`},
		{name: "bad variable in a header", in: "flow: [{url: 'http://h/', headers: {X-A: '${__ITER'}}]", noFlow: true, wantErr: `t.yaml:1: flow[0].headers.X-A: unclosed "${__ITER"; expected ${NAME} with NAME one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}`},
		{name: "bad variable in a JSON body", in: "flow: [{url: 'http://h/', body: {a: '${__RANDOM_INT(5,1)}'}}]", noFlow: true, wantErr: `t.yaml:1: flow[0].body: bad ${__RANDOM_INT(5,1)}: min 5 is greater than max 1`},
		{name: "bad header name", in: "flow: [{url: 'http://h/', headers: {'X A': b}}]", noFlow: true, wantErr: `t.yaml:1: flow[0].headers.X A: bad header name "X A"; expected letters, digits and -!#$%&'*+.^_` + "`|~"},
		{name: "line break in a header value", in: "flow: [{url: 'http://h/', headers: {X-A: \"a\\r\\nB: c\"}}]", noFlow: true, wantErr: `t.yaml:1: flow[0].headers.X-A: bad header value "a\r\nB: c"; expected no control characters other than tab (no line breaks)`},
		{name: "env puts a line break in a header value", in: "flow: [{url: 'http://h/', headers: {X-A: '${__ENV.V}'}}]", env: map[string]string{"V": "a\nb"}, noFlow: true, wantErr: `t.yaml:1: flow[0].headers.X-A: bad header value "a\nb"; expected no control characters other than tab (no line breaks)`},
		{name: "bad method", in: "flow: [{url: 'http://h/', method: gett}]", noFlow: true, wantErr: `t.yaml:1: flow[0].method: unknown HTTP method "gett"; expected one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE; did you mean "GET"?`},
		// Steps.
		{name: "zero timeout", in: "flow: [{url: 'http://h/', timeout: 0}]", noFlow: true, wantErr: `t.yaml:1: flow[0].timeout: must be more than 0`},
		{name: "negative redirects", in: "flow: [{url: 'http://h/', redirects: -1}]", noFlow: true, wantErr: `t.yaml:1: flow[0].redirects: must not be negative, got -1`},
		{name: "sleep range reversed", in: "flow: [{url: 'http://h/', sleep: 3s-1s}]", noFlow: true, wantErr: `t.yaml:1: flow[0].sleep: sleep range 3s-1s has max below min; expected min <= max`},
		{name: "bad sleep range", in: "flow: [{url: 'http://h/', sleep: 1s-x}]", noFlow: true, wantErr: `t.yaml:1: flow[0].sleep: bad sleep range "1s-x"; expected a duration such as "1s", a range such as "1s-3s", {min: 1s, max: 3s}, or a number of seconds`},
		{name: "sleep without max", in: "flow: [{sleep: {min: 1s}}]", noFlow: true, wantErr: `t.yaml:1: flow[0].sleep: a sleep range needs min and max; expected a duration such as "1s", a range such as "1s-3s", {min: 1s, max: 3s}, or a number of seconds`},
		{name: "sleep of a list", in: "flow: [{sleep: [1]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].sleep: expected a duration such as "1s", a range such as "1s-3s", {min: 1s, max: 3s}, or a number of seconds, got a list`},
		{name: "bad expect range", in: "flow: [{url: 'http://h/', expect: ['500-400']}]", noFlow: true, wantErr: `t.yaml:1: flow[0].expect[0]: bad status range "500-400"; expected statuses from 100 to 599, low to high`},
		{name: "bad expect", in: "flow: [{url: 'http://h/', expect: ok}]", noFlow: true, wantErr: `t.yaml:1: flow[0].expect[0]: bad status "ok"; expected a status such as 200 or a range such as "200-399"`},
		{name: "check with two kinds", in: "flow: [{url: 'http://h/', checks: [{status: 200, bodyContains: x}]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].checks[0]: status and bodyContains given together; expected exactly one of status, bodyContains, bodyRegex, jsonPath, header`},
		{name: "check with nothing", in: "flow: [{url: 'http://h/', checks: [{name: x}]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].checks[0]: nothing to check; expected exactly one of status, bodyContains, bodyRegex, jsonPath, header`},
		{name: "bad regex", in: "flow: [{url: 'http://h/', checks: [{bodyRegex: '(a'}]}]", noFlow: true, wantErr: "t.yaml:1: flow[0].checks[0].bodyRegex: bad regular expression: error parsing regexp: missing closing ): `(a`; expected Go (RE2) syntax"},
		{name: "bad json path", in: "flow: [{url: 'http://h/', checks: [{jsonPath: 'a[x]'}]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].checks[0].jsonPath: bad JSON path "a[x]": index "x" is not a number from 0; expected a dotted path with [i] indexes such as data.items[0].id`},
		{name: "equals with status", in: "flow: [{url: 'http://h/', checks: [{status: 200, equals: 1}]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].checks[0].equals: equals only goes with jsonPath or header`},
		{name: "bad check status", in: "flow: [{url: 'http://h/', checks: [{status: 42}]}]", noFlow: true, wantErr: `t.yaml:1: flow[0].checks[0].status: bad status 42; expected 100 to 599`},
		// Summary options.
		{name: "bad trend stat", in: "summaryTrendStats: [avg, p95]", wantErr: `t.yaml:1: summaryTrendStats[1]: unknown trend stat "p95"; expected avg, min, med, max, count or p(N) with N from 0 to 100`},
		{name: "bad time unit", in: "summaryTimeUnit: m", wantErr: `t.yaml:1: summaryTimeUnit: unknown time unit "m"; expected one of "s", "ms", "us"`},
		{name: "empty breakdown key", in: "summaryBreakdown: [name, '', status]", wantErr: `t.yaml:1: summaryBreakdown[1]: empty tag key; expected tag keys, e.g. [name, method, status]`},
		{name: "empty breakdown key in a string", in: "summaryBreakdown: 'name,,status'", wantErr: `t.yaml:1: summaryBreakdown[1]: empty tag key in "name,,status"; expected tag keys separated by commas, e.g. name,method,status`},
		{name: "repeated breakdown key", in: "summaryBreakdown: [name, name]", wantErr: `t.yaml:1: summaryBreakdown[1]: tag key "name" is given twice`},
		{name: "breakdown of a mapping", in: "summaryBreakdown: {name: 1}", wantErr: `t.yaml:1: summaryBreakdown: expected a list, got a mapping`},
		{name: "zero breakdown limit", in: "summaryBreakdownLimit: 0", wantErr: `t.yaml:1: summaryBreakdownLimit: must be more than 0, got 0`},
		{name: "negative breakdown limit", in: "summaryBreakdownLimit: -5", wantErr: `t.yaml:1: summaryBreakdownLimit: must be more than 0, got -5`},
		{name: "bad system tag", in: "systemTags: [stauts]", wantErr: `t.yaml:1: systemTags[0]: unknown system tag "stauts"; expected one of proto, subproto, status, method, url, name, group, check, error, error_code, tls_version, scenario, service, expected_response, vu, iter, ip, ocsp_status; did you mean "status"?`},
		// Every problem is reported, in line order.
		{
			name: "many problems",
			in: `scenarios:
  spike:
    executor: ramping-arrival-rate
    preAllocatedVUs: 20
    maxVUs: ten
    stages:
      - { duration: 2x, target: 10 }
thresholds:
  http_req_duration: ['p(95)<500ms']
flow:
  - url: http://127.0.0.1:8099/
    sleep: -1s`,
			noFlow: true,
			wantErr: `t.yaml:5: scenarios.spike.maxVUs: expected a whole number, got "ten"
t.yaml:7: scenarios.spike.stages[0].duration: bad duration "2x": invalid duration; expected a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds
t.yaml:9: thresholds.http_req_duration[0]: expression "p(95)<500ms": right-hand side "500ms" is not a number
t.yaml:12: flow[0].sleep: bad duration "-1s": negative duration; expected a duration such as "1s", a range such as "1s-3s", {min: 1s, max: 3s}, or a number of seconds`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := tc.in
			if !tc.noFlow {
				in += flow
			}
			tst, err := Parse("t.yaml", []byte(in), tc.env)
			require.Nil(t, tst)
			require.EqualError(t, err, tc.wantErr)
			var es Errors
			require.ErrorAs(t, err, &es)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, "t.yaml", e.File)
		})
	}
}

func TestLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "nope.yaml"), nil)
	require.EqualError(t, err, filepath.Join(dir, "nope.yaml")+": file does not exist; expected a YAML or JSON scenario file")
	require.ErrorIs(t, err, os.ErrNotExist)
	var e *Error
	require.ErrorAs(t, err, &e)

	p := filepath.Join(dir, "t.json")
	require.NoError(t, os.WriteFile(p, []byte(`{
	"scenarios": {
		"api": {"executor": "constant-vus", "vus": 2, "duration": "10s"}
	},
	"thresholds": {"http_req_duration": ["p(95)<500"]},
	"flow": [{"url": "http://127.0.0.1:8099/", "body": {"a": 1}}]
}`), 0o600))
	tst, err := Load(p, nil)
	require.NoError(t, err)
	require.Equal(t, p, tst.Source)
	require.Equal(t, ConstantVUs, tst.Scenarios[0].Executor)
	require.Equal(t, 3, tst.Scenarios[0].Line)
	require.Equal(t, `{"a":1}`, tst.Scenarios[0].Flow.Steps[0].Body.String())

	// JSON errors carry lines too.
	require.NoError(t, os.WriteFile(p, []byte("{\n  \"scenarios\": {\n    \"api\": {\"executor\": \"constant-vu\"}\n  }\n}"), 0o600))
	_, err = Load(p, nil)
	require.ErrorContains(t, err, p+`:3: scenarios.api.executor: unknown executor "constant-vu"`)
}

func TestLoadAliases(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
x-common: &common
  executor: constant-vus
  duration: 1m
scenarios:
  a: {<<: *common, vus: 2}
  b:
    <<: *common
    duration: 2m
flow: [{url: 'http://h/'}]
`))
	require.Nil(t, tst)
	require.EqualError(t, err, `t.yaml:2: x-common: unknown field "x-common"; expected one of scenarios, vus, iterations, duration, stages, thresholds, tags, env, summaryTrendStats, summaryTimeUnit, summaryBreakdown, summaryBreakdownLimit, systemTags, flow, flows, maxRedirects, userAgent, insecureSkipTLSVerify, rps, blacklistIPs, blockHostnames, dns, hosts, localIPs, noConnectionReuse, noVUConnectionReuse`)

	tst, err = Parse("t.yaml", []byte(`
flows:
  common: &common
    - url: 'http://h/'
scenarios:
  a: &base {executor: constant-vus, duration: 1m, vus: 2, exec: common}
  b:
    <<: *base
    duration: 2m
`))
	require.NoError(t, err)
	require.Equal(t, time.Minute, tst.Scenarios[0].Duration)
	require.Equal(t, 2*time.Minute, tst.Scenarios[1].Duration, "explicit keys win over merged ones")
	require.Equal(t, 2, tst.Scenarios[1].VUs)

	// A billion laughs fails instead of expanding.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("flow: [{url: 'http://h/', body: *a8}]\n")
	_, err = Parse("t.yaml", []byte(b.String()))
	require.ErrorContains(t, err, ": document too large or too deeply aliased; expected at most 100000 values")
}

func TestErrorFormat(t *testing.T) {
	t.Parallel()
	require.Equal(t, "f.yaml:3: a.b: bad", (&Error{File: "f.yaml", Line: 3, Field: "a.b", Msg: "bad"}).Error())
	require.Equal(t, "f.yaml: bad", (&Error{File: "f.yaml", Msg: "bad"}).Error())
	require.Equal(t, "a: bad", (&Error{Field: "a", Msg: "bad"}).Error())
	inner := errors.New("inner")
	require.ErrorIs(t, Errors{{Msg: "x", Err: inner}}, inner)
}

func TestLoadMoreErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, wantErr string
	}{
		{
			name:    "scenario option at the top level",
			in:      "rate: 10\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:1: rate: rate is a scenario option; expected it inside a scenario: scenarios: {NAME: {executor: ..., rate: ...}}`,
		},
		{
			name:    "k6 browser type other than chromium",
			in:      "scenarios: {s: {executor: shared-iterations, options: {browser: {type: firefox}}}}\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:1: scenarios.s.options.browser.type: unknown browser type "firefox"; expected chromium`,
		},
		{
			name:    "k6 scenario options other than browser",
			in:      "scenarios: {s: {executor: shared-iterations, options: {cloud: {}}}}\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:1: scenarios.s.options.cloud: unknown field "cloud"; expected one of browser`,
		},
		{
			name:    "unused flow is checked",
			in:      "flows: {spare: [{url: 'ftp://h/'}]}\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:1: flows.spare[0].url: invalid URL "ftp://h/": scheme "ftp" is not supported; expected http or https`,
		},
		{
			name:    "flows.default without a top-level flow",
			in:      "flows: {default: [{url: 'h'}]}",
			wantErr: `t.yaml:1: flows.default[0].url: invalid URL "h": no scheme; expected an absolute URL such as http://127.0.0.1:8099/`,
		},
		{
			name:    "flow and flows.default",
			in:      "flows: {default: [{url: 'http://h/'}]}\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:2: flow: both flow and flows.default are given; expected one of them`,
		},
		{
			name:    "flow and exec",
			in:      "scenarios: {s: {executor: shared-iterations, exec: x, flow: [{url: 'http://h/'}]}}\nflows: {x: [{url: 'http://h/'}]}",
			wantErr: `t.yaml:1: scenarios.s.exec: both flow and exec are given; expected one of them`,
		},
		{
			name:    "threshold as a single object",
			in:      "thresholds: {http_reqs: {threshold: 'count<1', abortOnFail: maybe}}\nflow: [{url: 'http://h/'}]",
			wantErr: `t.yaml:1: thresholds.http_reqs[0].abortOnFail: expected true or false, got "maybe"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("t.yaml", []byte(tc.in))
			require.EqualError(t, err, tc.wantErr)
		})
	}
	tst, err := Parse("t.yaml", []byte("thresholds: {http_reqs: {threshold: 'count<1', abortOnFail: true}}\nflow: [{url: 'http://h/'}]"))
	require.NoError(t, err)
	require.Equal(t, []Threshold{{Expr: "count<1", AbortOnFail: true, Line: 1}}, tst.Thresholds["http_reqs"])
}
