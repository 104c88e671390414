// Package scenario is the test model of a Tidemark run, in the shape of k6's `options`:
// scenarios with their executors, thresholds, test-wide tags and summary options, plus a
// declarative request flow per scenario. Load reads and validates a YAML or JSON file
// and resolves k6's shortcuts (vus, duration, iterations, stages) into scenarios.
package scenario

import "time"

// Executor names one of k6's executors.
type Executor string

// The k6 executors (reference/k6.md §4.1).
const (
	SharedIterations    Executor = "shared-iterations"
	PerVUIterations     Executor = "per-vu-iterations"
	ConstantVUs         Executor = "constant-vus"
	RampingVUs          Executor = "ramping-vus"
	ConstantArrivalRate Executor = "constant-arrival-rate"
	RampingArrivalRate  Executor = "ramping-arrival-rate"
	// ExternallyControlled is k6 v1's externally-controlled executor (removed in k6
	// v2): vus VUs loop for duration (0: until stopped), and k6's REST API pauses,
	// resumes and scales it within maxVUs while it runs.
	ExternallyControlled Executor = "externally-controlled"
)

// Test is a whole load test, after shortcuts have been resolved and defaults applied.
type Test struct {
	// Source is the file the test was loaded from, for messages.
	Source string
	// Scenarios in the order they appear in the file (k6 orders them by name only in
	// its output; we keep the user's order).
	Scenarios []*Scenario
	// Thresholds maps a metric name, optionally with a sub-metric selector
	// (`http_req_duration{scenario:spike}`), to its threshold definitions.
	Thresholds map[string][]Threshold
	// Tags are added to every sample of the run.
	Tags map[string]string
	// SummaryTrendStats are the trend columns of the end-of-test summary; default
	// avg, min, med, max, p(90), p(95).
	SummaryTrendStats []string
	// SummaryTimeUnit forces the unit of durations in the summary: "", "s", "ms" or "us".
	SummaryTimeUnit string
	// SummaryBreakdown lists the tag keys (e.g. name, method, status) whose value
	// combinations get rows of their own for http_req_duration, http_reqs and
	// http_req_failed in the summary and its JSON (a Tidemark option, k6 has none);
	// empty for none.
	SummaryBreakdown []string
	// SummaryBreakdownLimit is the most rows SummaryBreakdown adds per metric;
	// DefaultSummaryBreakdownLimit when 0.
	SummaryBreakdownLimit int
	// SystemTags lists the tags samples get; default k6's DefaultSystemTagSet.
	SystemTags []string
	// Env holds values for ${__ENV.NAME} beyond the process environment.
	Env map[string]string

	// MaxRedirects is k6's maxRedirects: the default of Step.Redirects (already applied
	// by Load); default 10.
	MaxRedirects int
	// UserAgent is k6's userAgent; Load sets it as the User-Agent header of every step
	// that has none. Empty means the HTTP client's default.
	UserAgent string
	// InsecureSkipTLSVerify is k6's insecureSkipTLSVerify: do not verify server
	// certificates.
	InsecureSkipTLSVerify bool // Network are k6's test-wide transport options (rps, blacklistIPs, dns, …).
	Network               Network
	// TLS are a script's tlsVersion, tlsCipherSuites and tlsAuth.
	TLS TLS
}

// Threshold is one threshold expression on a metric (k6's `{threshold, abortOnFail,
// delayAbortEval}`, or a bare string), with Tidemark's `window`.
type Threshold struct {
	Expr           string
	AbortOnFail    bool
	DelayAbortEval time.Duration
	// Window, when set, judges Expr every second over the last Window of the run
	// (threshold.Def.Window); k6 rejects the key.
	Window time.Duration
	// Line is the line in the source file, for messages; 0 when unknown.
	Line int
}

// Scenario is one k6 scenario with its executor options. Options that an executor does
// not use are zero; Load rejects options that the executor does not accept.
type Scenario struct {
	Name     string
	Executor Executor

	StartTime    time.Duration // default 0
	GracefulStop time.Duration // default 30s
	Env          map[string]string
	Tags         map[string]string
	// Browser is options.browser.type ("chromium"): the scenario's VUs may use
	// k6/browser. "" when not set.
	Browser string

	// shared-iterations, per-vu-iterations, constant-vus, externally-controlled.
	VUs        int
	Iterations int
	// constant-vus, constant-arrival-rate, externally-controlled (where 0 runs until
	// stopped).
	Duration time.Duration
	// shared-iterations, per-vu-iterations; default 10m.
	MaxDuration time.Duration

	// ramping-vus, ramping-arrival-rate.
	Stages []Stage
	// ramping-vus: default 1.
	StartVUs int
	// ramping-vus: default 30s.
	GracefulRampDown time.Duration

	// Arrival-rate executors: Rate (constant) or StartRate (ramping) iterations per
	// TimeUnit (default 1s).
	Rate      float64
	StartRate float64
	TimeUnit  time.Duration
	// Arrival-rate executors: VUs allocated before the start, and the most the
	// executor may allocate mid-test (default PreAllocatedVUs). MaxVUs is also
	// externally-controlled's (default VUs).
	PreAllocatedVUs int
	MaxVUs          int

	// Flow is what one iteration does.
	Flow Flow
	// Line is the scenario's line in the source file, for messages.
	Line int
}

// Stage is one linear ramp: reach Target (VUs or iterations per TimeUnit) over Duration.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// Flow is the declarative body of one iteration: steps run in order.
type Flow struct {
	Steps []Step
}

// Step is one request, optionally followed by think time. A step with only Sleep set
// (no URL) is a pause.
type Step struct {
	// Name sets the `name` tag and, as k6 does, the `url` tag, to keep URL labels
	// low-cardinality.
	Name    string
	Group   string
	Method  string // default GET
	URL     *Template
	Headers map[string]*Template
	Body    *Template
	Tags    map[string]string
	// Expected holds the status ranges that count as expected (`expected_response`,
	// `http_req_failed`); default 200–399.
	Expected []StatusRange
	Checks   []Check
	// Timeout of the request; default 60s.
	Timeout time.Duration
	// Redirects is the most redirects followed; default 10.
	Redirects int
	// Sleep after the request (k6's sleep()).
	Sleep Think
}

// StatusRange is an inclusive range of HTTP status codes.
type StatusRange struct {
	Min, Max int
}

// Think is a pause: Min alone is fixed, Min..Max is uniform random.
type Think struct {
	Min, Max time.Duration
}

// CheckKind says what a check tests.
type CheckKind string

// The check kinds.
const (
	CheckStatus       CheckKind = "status"        // Status code equals Status.
	CheckBodyContains CheckKind = "body_contains" // Body contains Value.
	CheckBodyRegex    CheckKind = "body_regex"    // Body matches Regex.
	CheckJSON         CheckKind = "json"          // The body is JSON with a field at Path (equal to Value with `equals`).
	CheckHeader       CheckKind = "header"        // Header Path is present (one of its values is Value with `equals`).
)

// Check is one named k6 check on a response; its name is the `check` tag. Eval
// evaluates it. Checks come from the parser (Parse, Load): a JSON or header check built
// by hand lacks the parsed path and expected value, and only checks presence.
type Check struct {
	Name   string
	Kind   CheckKind
	Status int
	// Path is the header name (CheckHeader) or the JSON path (CheckJSON) in dotted
	// form with array indexes as numbers: the file's `data.items[0].id` is
	// `data.items.0.id` here.
	Path string
	// Value is the text to find (CheckBodyContains), the regular expression's source
	// (CheckBodyRegex), the expected header value (CheckHeader), or the expected JSON
	// value (CheckJSON): a string as it is, any other value as json.Marshal writes it
	// once decoded (42, true, null, {"a":1} with sorted keys). It is empty for a
	// presence check. It is informational: Eval compares decoded values.
	Value string
	Regex *Regexp

	path    []pathElem // parsed Path of a CheckJSON
	want    any        // decoded Value of a CheckJSON
	hasWant bool       // false: CheckJSON or CheckHeader only checks presence
}
