package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// Defaults of k6 (reference/k6.md §4.1) and of Tidemark's request steps.
const (
	DefaultGracefulStop     = 30 * time.Second
	DefaultGracefulRampDown = 30 * time.Second
	DefaultMaxDuration      = 10 * time.Minute
	DefaultTimeUnit         = time.Second
	DefaultTimeout          = 60 * time.Second
	DefaultMaxRedirects     = 10
	// DefaultScenarioName is the name of the scenario made from the vus, duration,
	// iterations and stages shortcuts, and the `scenario` tag of its samples.
	DefaultScenarioName = "default"
)

// DefaultExpected returns the statuses a step expects unless it says otherwise
// (k6's expectedStatuses default): 200 to 399.
func DefaultExpected() []StatusRange {
	return []StatusRange{{Min: 200, Max: 399}}
}

// DefaultSummaryTrendStats returns k6's default trend columns.
func DefaultSummaryTrendStats() []string {
	return []string{"avg", "min", "med", "max", "p(90)", "p(95)"}
}

// DefaultSystemTags returns k6's default system tag set.
func DefaultSystemTags() []string {
	return []string{"proto", "subproto", "status", "method", "url", "name", "group", "check", "error", "error_code", "tls_version", "scenario", "service", "expected_response"}
}

// allSystemTags are the tags systemTags may list (k6's system tags).
func allSystemTags() []string {
	return append(DefaultSystemTags(), "vu", "iter", "ip", "ocsp_status")
}

// DroppedSystemTags are the system tags that enabled (a test's systemTags) leaves out:
// samples do not carry them. Nil enabled, or k6's default set, drops none (a script's
// own tag named vu, iter or ip stays).
func DroppedSystemTags(enabled []string) []string {
	if enabled == nil || slices.Equal(slices.Sorted(slices.Values(enabled)), slices.Sorted(slices.Values(DefaultSystemTags()))) {
		return nil
	}
	var out []string
	for _, t := range allSystemTags() {
		if !slices.Contains(enabled, t) {
			out = append(out, t)
		}
	}
	return out
}

// Executors returns k6's executors.
func Executors() []Executor {
	return []Executor{SharedIterations, PerVUIterations, ConstantVUs, RampingVUs, ConstantArrivalRate, RampingArrivalRate, ExternallyControlled}
}

func executorNames() []string {
	var out []string
	for _, e := range Executors() {
		out = append(out, string(e))
	}
	return out
}

// topFields are the keys of a scenario file.
func topFields() []string {
	return []string{
		"scenarios", "vus", "iterations", "duration", "stages", "thresholds", "tags", "env",
		"summaryTrendStats", "summaryTimeUnit", "summaryBreakdown", "summaryBreakdownLimit", "systemTags", "flow", "flows",
		"maxRedirects", "userAgent", "insecureSkipTLSVerify",
		"rps", "blacklistIPs", "blockHostnames", "dns", "hosts", "localIPs", "noConnectionReuse", "noVUConnectionReuse",
	}
}

// unsupportedK6Options are k6 options that Tidemark recognises but does not support,
// to say so rather than "unknown field".
func unsupportedK6Options() []string {
	return []string{
		"batch", "batchPerHost", "cloud", "discardResponseBodies",
		"execution", "executionSegment", "executionSegmentSequence", "ext",
		"httpDebug", "includeSystemEnvVars", "linger", "minIterationDuration",
		"noCookiesReset", "noSetup", "noTeardown", "noUsageReport",
		"paused", "setupTimeout", "summaryMode", "teardownTimeout",
		"throw", "tlsAuth", "tlsCipherSuites", "tlsVersion", "tlsRestriction",
	}
}

// commonScenarioFields are accepted by every executor.
func commonScenarioFields() []string {
	return []string{"executor", "startTime", "gracefulStop", "env", "tags", "flow", "exec", "options"}
}

// executorFields returns the options an executor accepts beyond the common ones.
func executorFields(e Executor) []string {
	switch e {
	case SharedIterations, PerVUIterations:
		return []string{"vus", "iterations", "maxDuration"}
	case ConstantVUs:
		return []string{"vus", "duration"}
	case RampingVUs:
		return []string{"stages", "startVUs", "gracefulRampDown"}
	case ConstantArrivalRate:
		return []string{"rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"}
	case RampingArrivalRate:
		return []string{"stages", "startRate", "timeUnit", "preAllocatedVUs", "maxVUs"}
	case ExternallyControlled:
		return []string{"vus", "maxVUs", "duration"}
	}
	return nil
}

// requiredFields returns the options an executor cannot do without.
func requiredFields(e Executor) []string {
	switch e {
	case ConstantVUs:
		return []string{"duration"}
	case RampingVUs:
		return []string{"stages"}
	case ConstantArrivalRate:
		return []string{"duration", "rate", "preAllocatedVUs"}
	case RampingArrivalRate:
		return []string{"stages", "preAllocatedVUs"}
	case ExternallyControlled:
		return []string{"duration"}
	}
	return nil
}

func allScenarioFields() []string {
	out := commonScenarioFields()
	for _, e := range Executors() {
		for _, f := range executorFields(e) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func stepFields() []string {
	return []string{"name", "group", "method", "url", "headers", "body", "tags", "expect", "checks", "timeout", "redirects", "sleep"}
}

func checkFields() []string {
	return []string{"name", "status", "bodyContains", "bodyRegex", "jsonPath", "header", "equals"}
}

func httpMethods() []string {
	return []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"}
}

// Load reads and validates the scenario file at path (YAML or JSON). env holds the
// values of ${__ENV.NAME}: the command passes the process environment and --env values.
// The file's top-level `env` gives defaults beneath env, and a scenario's `env`
// overrides both. Every problem is returned, as Errors. VU counts, rates and
// iteration counts are bounded by MachineLimits.
func Load(path string, env map[string]string) (*Test, error) {
	return load(path, env, MachineLimits())
}

// LoadK6 is Load, then k6's K6_* options from environ (the process environment, and
// the command line's shortcut flags set as their K6_* names) as a script's options
// get them (see ScriptConfig.Environ): K6_VUS, K6_ITERATIONS, K6_DURATION and
// K6_STAGES replace the file's scenarios with one running the file's top-level flow,
// and K6_TAGS, K6_SUMMARY_TREND_STATS, K6_SUMMARY_TIME_UNIT and the other test-wide
// ones override the file. replaced names the variables that replaced the scenarios.
// --env values (env) fill ${__ENV.K} only, as in k6.
func LoadK6(path string, env, environ map[string]string) (t *Test, replaced []string, err error) {
	data, err := readFile(path)
	if err != nil {
		_, lerr := load(path, env, MachineLimits()) // the same message as Load's
		return nil, nil, lerr
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		t, err := parse(path, data, MachineLimits(), env)
		return t, nil, err
	}
	top := root.Content[0]
	before, err := yaml.Marshal(&root)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if replaced, err = applyK6Env(top, environ); err != nil {
		return nil, nil, err
	}
	if err := applyK6OptionEnv(top, environ); err != nil {
		return nil, nil, err
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		return nil, nil, fmt.Errorf("apply the K6_* environment to %s: %w", path, err)
	}
	if bytes.Equal(out, before) {
		out = data // nothing applied: line numbers in messages stay the file's
	}
	t, err = parse(path, out, MachineLimits(), env)
	return t, replaced, err
}

// MaxFileSize is the largest scenario file read. Its YAML is parsed whole before its
// values are checked (a 31 MB file of stages took 9.5 GB and 132 s to reach "at most
// 100000 values"): the size is checked first. The largest scenario files seen are tens
// of KB.
const MaxFileSize = 4 << 20

// errTooLarge is a file over MaxFileSize.
var errTooLarge = fmt.Errorf("larger than %d bytes, the most a scenario file may be", MaxFileSize)

// readFile reads a scenario file of at most MaxFileSize bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errTooLarge}
	}
	return data, nil
}

func load(path string, env map[string]string, l Limits) (*Test, error) {
	data, err := readFile(path)
	if err != nil {
		msg := "cannot read file: " + err.Error()
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			msg = "cannot read file: " + pe.Err.Error()
		}
		if errors.Is(err, fs.ErrNotExist) {
			msg = "file does not exist; expected a YAML or JSON scenario file"
		}
		return nil, Errors{{File: path, Msg: msg, Err: err}}
	}
	return parse(path, data, l, env)
}

// yamlErrorLine splits yaml.v3's "yaml: line N: message" into N and message.
func yamlErrorLine(s string) (int, string) {
	s = strings.TrimPrefix(s, "yaml: ")
	rest, ok := strings.CutPrefix(s, "line ")
	if !ok {
		return 0, s
	}
	num, msg, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, s
	}
	return n, msg
}

// Parse validates data, the content of the scenario file name (used in messages). The
// env maps are merged in order, later ones winning; see Load. VU counts, rates and
// iteration counts are bounded by MachineLimits.
func Parse(name string, data []byte, env ...map[string]string) (*Test, error) {
	return parse(name, data, MachineLimits(), env...)
}

func parse(name string, data []byte, l Limits, env ...map[string]string) (*Test, error) {
	d := &decoder{file: name, budget: nodeBudget, limits: l}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlErrorLine(err.Error())
		return nil, Errors{{File: name, Line: line, Msg: "invalid YAML or JSON: " + msg, Err: err}}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil, Errors{{File: name, Msg: "file is empty; expected a mapping of k6 options such as scenarios, thresholds and flow"}}
	}
	merged := map[string]string{}
	for _, e := range env {
		maps.Copy(merged, e)
	}
	t := d.test(root.Content[0], merged)
	if len(d.errs) > 0 {
		return nil, d.sorted()
	}
	t.Source = name
	return t, nil
}

// sorted returns the problems in line order without duplicates (a flow shared by
// several scenarios is checked once per scenario).
func (d *decoder) sorted() Errors {
	seen := map[string]bool{}
	var out Errors
	for _, e := range d.errs {
		if s := e.Error(); !seen[s] {
			seen[s] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// testDefaults are the test-wide values a step inherits.
type testDefaults struct {
	maxRedirects int
	userAgent    string
}

func (d *decoder) test(root *yaml.Node, procEnv map[string]string) *Test {
	f, ok := d.mappingWith(root, "", topFields(), func(name string) string {
		switch {
		case slices.Contains(unsupportedK6Options(), name):
			return fmt.Sprintf("k6 option %q is not supported by Tidemark; remove it", name)
		case slices.Contains(allScenarioFields(), name):
			return fmt.Sprintf("%s is a scenario option; expected it inside a scenario: scenarios: {NAME: {executor: ..., %s: ...}}", name, name)
		}
		return ""
	})
	if !ok {
		return nil
	}
	t := &Test{
		SummaryTrendStats: DefaultSummaryTrendStats(),
		SystemTags:        DefaultSystemTags(),
		MaxRedirects:      DefaultMaxRedirects,
	}
	if n, ok := f.get("tags"); ok {
		t.Tags = d.stringMap(n, "tags")
	}
	if n, ok := f.get("env"); ok {
		t.Env = d.stringMap(n, "env")
	}
	if n, ok := f.get("summaryTrendStats"); ok {
		t.SummaryTrendStats = d.trendStats(n, "summaryTrendStats")
	}
	if n, ok := f.get("summaryTimeUnit"); ok {
		if s, ok := d.str(n, "summaryTimeUnit"); ok {
			if !slices.Contains([]string{"", "s", "ms", "us"}, s) {
				d.errorf(n, "summaryTimeUnit", "unknown time unit %q; expected one of \"s\", \"ms\", \"us\"", s)
			}
			t.SummaryTimeUnit = s
		}
	}
	if n, ok := f.get("summaryBreakdown"); ok {
		t.SummaryBreakdown = d.breakdown(n, "summaryBreakdown")
	}
	if n, ok := f.get("summaryBreakdownLimit"); ok {
		if v, ok := d.integer(n, "summaryBreakdownLimit"); ok {
			if v <= 0 {
				d.errorf(n, "summaryBreakdownLimit", "must be more than 0, got %d", v)
			}
			t.SummaryBreakdownLimit = v
		}
	}
	if n, ok := f.get("systemTags"); ok {
		t.SystemTags = d.stringList(n, "systemTags")
		for i, s := range t.SystemTags {
			if !slices.Contains(allSystemTags(), s) {
				d.errorf(n, index("systemTags", i), "unknown system tag %q; expected one of %s%s", s, strings.Join(allSystemTags(), ", "), didYouMean(s, allSystemTags()))
			}
		}
	}
	if n, ok := f.get("maxRedirects"); ok {
		if v, ok := d.integer(n, "maxRedirects"); ok {
			if v < 0 {
				d.errorf(n, "maxRedirects", "must not be negative, got %d", v)
			}
			t.MaxRedirects = v
		}
	}
	if n, ok := f.get("userAgent"); ok {
		t.UserAgent, _ = d.str(n, "userAgent")
	}
	if n, ok := f.get("insecureSkipTLSVerify"); ok {
		t.InsecureSkipTLSVerify, _ = d.boolean(n, "insecureSkipTLSVerify")
	}
	t.Network = d.network(f)

	env := map[string]string{}
	maps.Copy(env, t.Env)
	maps.Copy(env, procEnv)
	defs := testDefaults{maxRedirects: t.MaxRedirects, userAgent: t.UserAgent}

	flows := map[string]*yaml.Node{}
	if n, ok := f.get("flows"); ok {
		if ff, ok := d.mapping(n, "flows", nil); ok {
			for _, e := range ff.list {
				flows[e.name] = e.val
			}
		}
	}
	if n, ok := f.get("flow"); ok {
		if _, dup := flows[DefaultScenarioName]; dup {
			d.errorf(n, "flow", "both flow and flows.default are given; expected one of them")
		}
		flows[DefaultScenarioName] = n
		d.topFlow = true
	}

	d.usedFlows = map[string]bool{}
	t.Scenarios = d.scenarios(f, flows, env, defs)
	if len(d.errs) == 0 {
		// Check flows no scenario runs too, so that a mistake in one is found before a
		// scenario starts using it.
		for _, name := range slices.Sorted(maps.Keys(flows)) {
			if !d.usedFlows[name] {
				d.flow(flows[name], d.flowField(name), env, defs)
			}
		}
	}
	if n, ok := f.get("thresholds"); ok {
		t.Thresholds = d.thresholds(n)
	}
	return t
}

func (d *decoder) trendStats(n *yaml.Node, field string) []string {
	stats := d.stringList(n, field)
	for i, s := range stats {
		switch s {
		case "avg", "min", "med", "max", "count":
			continue
		}
		if strings.HasPrefix(s, "p(") && strings.HasSuffix(s, ")") {
			if p, err := strconv.ParseFloat(s[2:len(s)-1], 64); err == nil && p >= 0 && p <= 100 {
				continue
			}
		}
		d.errorf(n, index(field, i), "unknown trend stat %q; expected avg, min, med, max, count or p(N) with N from 0 to 100", s)
	}
	return stats
}

// DefaultSummaryBreakdownLimit is summaryBreakdownLimit's default: the most rows a
// breakdown adds per metric. 50 endpoints fit a screen or two of the summary; a run
// with more usually has ids in its URLs, which the note under the rows then points at.
const DefaultSummaryBreakdownLimit = 50

// breakdown decodes summaryBreakdown: a list of tag keys (a comma-separated string is
// taken too, as the flag writes it). An empty key is an error; an unknown one is not,
// as samples may carry any tag: its rows just do not split.
func (d *decoder) breakdown(n *yaml.Node, field string) []string {
	if r := d.resolve(n); r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str" {
		keys := strings.Split(r.Value, ",")
		for i, k := range keys {
			keys[i] = strings.TrimSpace(k)
			switch {
			case keys[i] == "":
				d.errorf(n, index(field, i), "empty tag key in %q; expected tag keys separated by commas, e.g. name,method,status", r.Value)
			case slices.Contains(keys[:i], keys[i]):
				d.errorf(n, index(field, i), "tag key %q is given twice in %q", keys[i], r.Value)
			}
		}
		return keys
	}
	keys := d.stringList(n, field)
	for i, k := range keys {
		keys[i] = strings.TrimSpace(k)
		switch {
		case keys[i] == "":
			d.errorf(n, index(field, i), "empty tag key; expected tag keys, e.g. [name, method, status]")
		case slices.Contains(keys[:i], keys[i]):
			d.errorf(n, index(field, i), "tag key %q is given twice", keys[i])
		}
	}
	return keys
}

// shortcut is a top-level vus, iterations, duration or stages.
type shortcut struct {
	name string
	key  *yaml.Node
	val  *yaml.Node
}

// scenarios resolves the shortcuts (k6 DeriveScenariosFromShortcuts) or decodes the
// scenarios mapping.
func (d *decoder) scenarios(f *fields, flows map[string]*yaml.Node, env map[string]string, defs testDefaults) []*Scenario {
	var cuts []shortcut
	for _, name := range []string{"vus", "iterations", "duration", "stages"} {
		if e, ok := f.by[name]; ok {
			if name == "stages" {
				// An explicitly empty list of stages counts as not set, as in k6.
				if n := d.resolve(e.val); n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
					continue
				}
			}
			cuts = append(cuts, shortcut{name: name, key: e.key, val: e.val})
		}
	}
	has := func(name string) (shortcut, bool) {
		for _, c := range cuts {
			if c.name == name {
				return c, true
			}
		}
		return shortcut{}, false
	}
	if sc, ok := f.by["scenarios"]; ok {
		for _, c := range cuts {
			d.errorf(c.key, c.name, "conflicts with scenarios (line %d); set %s inside a scenario instead", sc.key.Line, c.name)
		}
		return d.scenarioMap(sc.val, flows, env, defs)
	}
	if st, ok := has("stages"); ok {
		for _, other := range []string{"iterations", "duration"} {
			if c, ok := has(other); ok {
				d.errorf(st.key, "stages", "conflicts with %s (line %d); use one of them, or describe the load in scenarios", other, c.key.Line)
			}
		}
	}

	sc := &Scenario{Name: DefaultScenarioName, Line: 1}
	set := map[string]*yaml.Node{}
	for _, c := range cuts {
		set[c.name] = c.val
	}
	_, hasIter := has("iterations")
	_, hasDur := has("duration")
	_, hasStages := has("stages")
	_, hasVUs := has("vus")
	switch {
	case hasIter:
		// iterations (+vus, +duration as maxDuration) → shared-iterations.
		sc.Executor = SharedIterations
		if dn, ok := set["duration"]; ok {
			set["maxDuration"] = dn
			delete(set, "duration")
		}
	case hasDur:
		sc.Executor = ConstantVUs
	case hasStages:
		sc.Executor = RampingVUs
		if vn, ok := set["vus"]; ok {
			set["startVUs"] = vn
			delete(set, "vus")
		}
	case hasVUs:
		// k6 v2: a bare vus runs that many iterations shared by that many VUs.
		sc.Executor = SharedIterations
		set["iterations"] = set["vus"]
	default:
		sc.Executor = PerVUIterations
	}
	// Shortcut fields are reported under their own top-level names.
	names := map[string]string{"maxDuration": "duration", "startVUs": "vus"}
	if hasVUs && !hasIter && !hasDur && !hasStages {
		names["iterations"] = "vus"
	}
	d.options(sc, set, func(opt string) string {
		if n, ok := names[opt]; ok {
			return n
		}
		return opt
	})
	sc.Flow = d.scenarioFlow(nil, "", flows, env, defs, nil)
	return []*Scenario{sc}
}

// validScenarioName is k6's `^[0-9a-zA-Z_-]+$`.
func validScenarioName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func (d *decoder) scenarioMap(n *yaml.Node, flows map[string]*yaml.Node, env map[string]string, defs testDefaults) []*Scenario {
	f, ok := d.mapping(n, "scenarios", nil)
	if !ok {
		return nil
	}
	if len(f.list) == 0 {
		d.errorf(n, "scenarios", "no scenarios; expected at least one, e.g. scenarios: {load: {executor: constant-vus, vus: 1, duration: 30s}}")
	}
	var out []*Scenario
	for _, e := range f.list {
		field := join("scenarios", e.name)
		if !validScenarioName(e.name) {
			d.errorf(e.key, field, "bad scenario name %q; expected letters, digits, '_' and '-' only", e.name)
		}
		if sc := d.scenario(e, field, flows, env, defs); sc != nil {
			out = append(out, sc)
		}
	}
	return out
}

func (d *decoder) scenario(e kv, field string, flows map[string]*yaml.Node, env map[string]string, defs testDefaults) *Scenario {
	f, ok := d.mapping(e.val, field, allScenarioFields())
	if !ok {
		return nil
	}
	sc := &Scenario{Name: e.name, Line: e.key.Line}
	en, ok := f.get("executor")
	if !ok {
		d.errorf(e.key, join(field, "executor"), "missing executor; expected one of %s", strings.Join(executorNames(), ", "))
		return nil
	}
	name, ok := d.str(en, join(field, "executor"))
	if !ok {
		return nil
	}
	sc.Executor = Executor(name)
	if !slices.Contains(Executors(), sc.Executor) {
		msg := fmt.Sprintf("unknown executor %q; expected one of %s%s", name, strings.Join(executorNames(), ", "), didYouMean(name, executorNames()))
		d.errorf(en, join(field, "executor"), "%s", msg)
		return nil
	}
	set := map[string]*yaml.Node{}
	allowed := append(commonScenarioFields(), executorFields(sc.Executor)...)
	for _, kv := range f.list {
		if !slices.Contains(allowed, kv.name) {
			d.errorf(kv.key, join(field, kv.name), "option not valid for executor %q; its options are %s", sc.Executor, strings.Join(allowed, ", "))
			continue
		}
		set[kv.name] = kv.val
	}
	if n, ok := set["env"]; ok {
		sc.Env = d.stringMap(n, join(field, "env"))
	}
	if n, ok := set["tags"]; ok {
		sc.Tags = d.stringMap(n, join(field, "tags"))
	}
	if n, ok := set["options"]; ok {
		sc.Browser = d.browserOption(n, join(field, "options"))
	}
	var missing []string
	for _, r := range requiredFields(sc.Executor) {
		if _, ok := set[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		what := "option"
		if len(missing) > 1 {
			what = "options"
		}
		d.errorf(en, field, "missing required %s %s; executor %q needs %s", what, strings.Join(missing, ", "), sc.Executor, strings.Join(requiredFields(sc.Executor), ", "))
	}
	d.options(sc, set, func(opt string) string { return join(field, opt) })

	scEnv := env
	if len(sc.Env) > 0 {
		scEnv = maps.Clone(env)
		maps.Copy(scEnv, sc.Env)
	}
	sc.Flow = d.scenarioFlow(f, field, flows, scEnv, defs, e.key)
	return sc
}

// scenarioFlow decodes the scenario's flow: its own `flow`, the `flows` entry named by
// `exec`, or the top-level `flow`.
func (d *decoder) scenarioFlow(f *fields, field string, flows map[string]*yaml.Node, env map[string]string, defs testDefaults, at *yaml.Node) Flow {
	own, hasOwn := f.get("flow")
	exec, hasExec := f.get("exec")
	switch {
	case hasOwn && hasExec:
		d.errorf(exec, join(field, "exec"), "both flow and exec are given; expected one of them")
		return Flow{}
	case hasOwn:
		return d.flow(own, join(field, "flow"), env, defs)
	case hasExec:
		name, ok := d.str(exec, join(field, "exec"))
		if !ok {
			return Flow{}
		}
		n, ok := flows[name]
		if !ok {
			known := slices.Sorted(maps.Keys(flows))
			d.errorf(exec, join(field, "exec"), "no flow named %q; expected one of the names under flows (%s)%s", name, strings.Join(known, ", "), didYouMean(name, known))
			return Flow{}
		}
		d.usedFlows[name] = true
		return d.flow(n, d.flowField(name), env, defs)
	}
	n, ok := flows[DefaultScenarioName]
	if !ok {
		line := 1
		if at != nil {
			line = at.Line
		}
		d.errs = append(d.errs, &Error{File: d.file, Line: line, Field: join(field, "flow"),
			Msg: "no flow; expected a list of steps under flow (here or at the top level), e.g. flow: [{url: \"http://127.0.0.1:8099/\"}]"})
		return Flow{}
	}
	d.usedFlows[DefaultScenarioName] = true
	return d.flow(n, d.flowField(DefaultScenarioName), env, defs)
}

// flowField names the flow called name for messages: the top-level `flow` or
// `flows.NAME`.
func (d *decoder) flowField(name string) string {
	if name == DefaultScenarioName && d.topFlow {
		return "flow"
	}
	return "flows." + name
}

// options decodes and validates executor options present in set, applies k6's
// defaults, and checks the values. fieldOf names an option for messages.
func (d *decoder) options(sc *Scenario, set map[string]*yaml.Node, fieldOf func(string) string) {
	sc.GracefulStop = DefaultGracefulStop
	switch sc.Executor {
	case SharedIterations, PerVUIterations:
		sc.VUs, sc.Iterations, sc.MaxDuration = 1, 1, DefaultMaxDuration
	case ConstantVUs:
		sc.VUs = 1
	case RampingVUs:
		sc.StartVUs, sc.GracefulRampDown = 1, DefaultGracefulRampDown
	case ConstantArrivalRate, RampingArrivalRate:
		sc.TimeUnit = DefaultTimeUnit
	}
	ok := map[string]bool{}
	dur := func(name string, dst *time.Duration) {
		if n, has := set[name]; has {
			*dst, ok[name] = d.duration(n, fieldOf(name))
		}
	}
	integer := func(name string, dst *int) {
		if n, has := set[name]; has {
			*dst, ok[name] = d.integer(n, fieldOf(name))
		}
	}
	number := func(name string, dst *float64) {
		if n, has := set[name]; has {
			*dst, ok[name] = d.number(n, fieldOf(name))
		}
	}
	dur("startTime", &sc.StartTime)
	dur("gracefulStop", &sc.GracefulStop)
	integer("vus", &sc.VUs)
	integer("iterations", &sc.Iterations)
	dur("duration", &sc.Duration)
	dur("maxDuration", &sc.MaxDuration)
	integer("startVUs", &sc.StartVUs)
	dur("gracefulRampDown", &sc.GracefulRampDown)
	number("rate", &sc.Rate)
	number("startRate", &sc.StartRate)
	dur("timeUnit", &sc.TimeUnit)
	integer("preAllocatedVUs", &sc.PreAllocatedVUs)
	integer("maxVUs", &sc.MaxVUs)
	if n, has := set["stages"]; has {
		sc.Stages, ok["stages"] = d.stages(n, fieldOf("stages"))
	}
	if !ok["maxVUs"] {
		sc.MaxVUs = sc.PreAllocatedVUs
		if sc.Executor == ExternallyControlled {
			sc.MaxVUs = sc.VUs
		}
	}

	bad := func(name, format string, args ...any) {
		if ok[name] {
			d.errorf(set[name], fieldOf(name), format, args...)
		}
	}
	// One rule per field, with the executors it applies to.
	switch sc.Executor {
	case SharedIterations, PerVUIterations, ConstantVUs:
		if sc.VUs < 1 {
			bad("vus", "must be at least 1, got %d", sc.VUs)
		}
	}
	switch sc.Executor {
	case SharedIterations, PerVUIterations:
		if sc.Iterations < 1 {
			bad("iterations", "must be at least 1, got %d", sc.Iterations)
		}
		if sc.Executor == SharedIterations && sc.Iterations < sc.VUs && sc.VUs >= 1 && sc.Iterations >= 1 {
			// Report on iterations when given, else on vus.
			if ok["iterations"] && fieldOf("iterations") != fieldOf("vus") {
				bad("iterations", "%d iterations cannot be shared by %d VUs; expected at least as many iterations as vus", sc.Iterations, sc.VUs)
			} else {
				bad("vus", "%d iterations cannot be shared by %d VUs; expected at least as many iterations as vus", sc.Iterations, sc.VUs)
			}
		}
		if sc.MaxDuration <= 0 {
			bad("maxDuration", "must be more than 0")
		}
	case RampingVUs:
		if sc.StartVUs < 0 {
			bad("startVUs", "must not be negative, got %d", sc.StartVUs)
		}
	case ConstantArrivalRate:
		if sc.Rate <= 0 {
			bad("rate", "must be more than 0, got %g", sc.Rate)
		}
	case RampingArrivalRate:
		if sc.StartRate < 0 {
			bad("startRate", "must not be negative, got %g", sc.StartRate)
		}
	case ExternallyControlled:
		// k6 v1.8.1: "gracefulStop is not supported by the externally controlled
		// executor"; a stop interrupts the running iterations.
		bad("gracefulStop", "not supported by the externally-controlled executor (a stop interrupts the running iterations); remove it")
		sc.GracefulStop = 0
		switch {
		case sc.VUs < 0:
			bad("vus", "must not be negative, got %d", sc.VUs)
		case sc.MaxVUs < sc.VUs:
			at := "maxVUs"
			if !ok[at] {
				at = "vus"
			}
			bad(at, "the number of active VUs (%d) must be less than or equal to the number of maxVUs (%d); expected maxVUs of at least vus", sc.VUs, sc.MaxVUs)
		}
	}
	switch sc.Executor {
	case ConstantVUs, ConstantArrivalRate:
		if sc.Duration <= 0 {
			bad("duration", "must be more than 0")
		}
	case RampingVUs, RampingArrivalRate:
		if !ok["stages"] || len(sc.Stages) == 0 {
			break
		}
		start, what, of := float64(sc.StartVUs), "VUs", "startVUs"
		if sc.Executor == RampingArrivalRate {
			start, what, of = sc.StartRate, "iterations", "startRate"
		}
		peak := start
		for _, s := range sc.Stages {
			peak = max(peak, s.Target)
		}
		if peak <= 0 {
			bad("stages", "no %s: %s and every stage target are 0; expected a target above 0", what, of)
		}
		if sc.Executor == RampingVUs {
			for i, s := range sc.Stages {
				if s.Target != float64(int64(s.Target)) {
					d.errorf(set["stages"], index(fieldOf("stages"), i)+".target", "a VU target must be a whole number, got %g", s.Target)
				}
			}
		}
	}
	switch sc.Executor {
	case ConstantArrivalRate, RampingArrivalRate:
		if sc.TimeUnit <= 0 {
			bad("timeUnit", "must be more than 0")
		}
		if sc.PreAllocatedVUs < 0 {
			bad("preAllocatedVUs", "must not be negative, got %d", sc.PreAllocatedVUs)
		}
		if sc.MaxVUs < sc.PreAllocatedVUs {
			bad("maxVUs", "%d is less than preAllocatedVUs (%d); expected at least preAllocatedVUs", sc.MaxVUs, sc.PreAllocatedVUs)
		} else if sc.MaxVUs < 1 && sc.PreAllocatedVUs >= 0 {
			bad("preAllocatedVUs", "no VUs to run iterations; expected preAllocatedVUs or maxVUs above 0")
		}
	}
	d.machineLimits(sc, set, ok, fieldOf)
}

// machineLimits checks what the scenario asks of the machine (limits.go): VU counts
// against its memory, rates and iteration counts against MaxIterationsPerSecond.
func (d *decoder) machineLimits(sc *Scenario, set map[string]*yaml.Node, ok map[string]bool, fieldOf func(string) string) {
	check := func(name, msg string) {
		if ok[name] && msg != "" {
			d.errorf(set[name], fieldOf(name), "%s", msg)
		}
	}
	stageTargets := func(msgOf func(target float64) string) {
		if !ok["stages"] {
			return
		}
		for i, s := range sc.Stages {
			if msg := msgOf(s.Target); msg != "" {
				d.errorf(set["stages"], index(fieldOf("stages"), i)+".target", "%s", msg)
			}
		}
	}
	switch sc.Executor {
	case SharedIterations, PerVUIterations, ConstantVUs:
		check("vus", d.limits.checkVUs(float64(sc.VUs)))
	case RampingVUs:
		check("startVUs", d.limits.checkVUs(float64(sc.StartVUs)))
		stageTargets(d.limits.checkVUs)
	case ExternallyControlled:
		check("vus", d.limits.checkVUs(float64(sc.VUs)))
		if sc.MaxVUs > sc.VUs {
			check("maxVUs", d.limits.checkVUs(float64(sc.MaxVUs)))
		}
	case ConstantArrivalRate, RampingArrivalRate:
		check("preAllocatedVUs", d.limits.checkVUs(float64(sc.PreAllocatedVUs)))
		if sc.MaxVUs > sc.PreAllocatedVUs {
			check("maxVUs", d.limits.checkVUs(float64(sc.MaxVUs)))
		}
		if sc.TimeUnit <= 0 {
			break
		}
		rate := func(r float64) string { return checkRate(r, sc.TimeUnit) }
		if sc.Executor == ConstantArrivalRate {
			check("rate", rate(sc.Rate))
		} else {
			check("startRate", rate(sc.StartRate))
			stageTargets(rate)
		}
	}
	switch sc.Executor {
	case SharedIterations:
		if sc.MaxDuration > 0 {
			check("iterations", checkIterations(float64(sc.Iterations), sc.MaxDuration, ""))
		}
	case PerVUIterations:
		if sc.MaxDuration > 0 {
			check("iterations", checkIterations(float64(sc.VUs)*float64(sc.Iterations), sc.MaxDuration, fmt.Sprintf("%d VUs of %d iterations: ", sc.VUs, sc.Iterations)))
		}
	}
}

func (d *decoder) stages(n *yaml.Node, field string) ([]Stage, bool) {
	items, ok := d.sequence(n, field, false)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		d.errorf(n, field, "no stages; expected a list of {duration, target}")
		return nil, false
	}
	out := make([]Stage, 0, len(items))
	good := true
	var total time.Duration
	for i, it := range items {
		sf := index(field, i)
		f, ok := d.mapping(it, sf, []string{"duration", "target"})
		if !ok {
			good = false
			continue
		}
		var s Stage
		dn, hasD := f.get("duration")
		tn, hasT := f.get("target")
		if !hasD || !hasT {
			d.errorf(d.resolve(it), sf, "a stage needs duration and target, e.g. {duration: 2m, target: 10}")
			good = false
			continue
		}
		var okD, okT bool
		s.Duration, okD = d.duration(dn, join(sf, "duration"))
		s.Target, okT = d.number(tn, join(sf, "target"))
		if okT && s.Target < 0 {
			d.errorf(tn, join(sf, "target"), "must not be negative, got %g", s.Target)
			okT = false
		}
		if !okD || !okT {
			good = false
			continue
		}
		if total > math.MaxInt64-s.Duration {
			d.errorf(dn, join(sf, "duration"), "the stages last more than %s (about 292 years) in total; expected less", time.Duration(math.MaxInt64).Truncate(time.Hour))
			good = false
			continue
		}
		total += s.Duration
		out = append(out, s)
	}
	if good && total <= 0 {
		d.errorf(n, field, "the stages last 0s in total; expected at least one stage with a duration above 0")
		good = false
	}
	return out, good
}

// builtinRegistry returns a registry holding k6's built-in metrics.
func builtinRegistry() *metrics.Registry {
	r := metrics.NewRegistry()
	metrics.RegisterBuiltin(r)
	return r
}

func (d *decoder) thresholds(n *yaml.Node) map[string][]Threshold {
	f, ok := d.mapping(n, "thresholds", nil)
	if !ok {
		return nil
	}
	reg := builtinRegistry()
	var names []string
	for _, m := range reg.All() {
		names = append(names, m.Name)
	}
	out := map[string][]Threshold{}
	for _, e := range f.list {
		field := join("thresholds", e.name)
		key, err := threshold.ParseKey(e.name)
		if err != nil {
			d.errorf(e.key, field, "%s", trimInvalid(err))
			continue
		}
		m := reg.Get(key.Metric)
		if m == nil {
			d.errorf(e.key, field, "unknown metric %q; expected a k6 built-in metric (%s)%s", key.Metric, strings.Join(names, ", "), didYouMean(key.Metric, names))
			continue
		}
		if key.NonIndexable() {
			d.errorf(e.key, field, "vu and iter are not tags in Tidemark, so this sub-metric would match nothing; expected other tags such as scenario, name, status or method")
			continue
		}
		var items []*yaml.Node
		if r := d.resolve(e.val); r != nil && r.Kind == yaml.MappingNode {
			items = []*yaml.Node{r} // one {threshold, abortOnFail} without a list
		} else if items, ok = d.sequence(e.val, field, true); !ok {
			continue
		}
		if len(items) == 0 {
			d.errorf(e.val, field, "no thresholds; expected a list of expressions such as 'p(95)<500'")
		}
		for i, it := range items {
			if th, ok := d.threshold(it, index(field, i), key, m); ok {
				out[e.name] = append(out[e.name], th)
			}
		}
	}
	return out
}

// trimInvalid drops the "invalid threshold " prefix of threshold errors where the field
// already says it.
func trimInvalid(err error) string {
	return strings.TrimPrefix(err.Error(), "invalid threshold ")
}

func (d *decoder) threshold(n *yaml.Node, field string, key threshold.Key, m *metrics.Metric) (Threshold, bool) {
	n = d.resolve(n)
	if n == nil {
		return Threshold{}, false
	}
	th := Threshold{Line: n.Line}
	exprNode := n
	if n.Kind == yaml.MappingNode {
		f, ok := d.mapping(n, field, thresholdFields())
		if !ok {
			return Threshold{}, false
		}
		en, has := f.get("threshold")
		if !has {
			d.errorf(n, field, "missing threshold; expected {threshold: 'p(95)<500', abortOnFail: true}")
			return Threshold{}, false
		}
		exprNode = en
		good := true
		if bn, has := f.get("abortOnFail"); has {
			th.AbortOnFail, good = d.boolean(bn, join(field, "abortOnFail"))
		}
		if dn, has := f.get("delayAbortEval"); has {
			var okD bool
			th.DelayAbortEval, okD = d.duration(dn, join(field, "delayAbortEval"))
			good = good && okD
		}
		if wn, has := f.get("window"); has {
			wf := join(field, "window")
			var okW bool
			if th.Window, okW = d.duration(wn, wf); okW {
				if err := threshold.ValidateWindow(th.Window); err != nil {
					d.errorf(wn, wf, "%v; expected a duration such as '30s'", err)
					okW = false
				}
			}
			good = good && okW
		}
		if !good {
			return Threshold{}, false
		}
	}
	expr, ok := d.str(exprNode, field)
	if !ok {
		return Threshold{}, false
	}
	th.Expr = expr
	e, err := threshold.ParseExpr(expr)
	if err != nil {
		d.errorf(exprNode, field, "%s", trimInvalid(err))
		return Threshold{}, false
	}
	if !e.Method.ValidFor(m.Type) {
		d.errorf(exprNode, field, "method %s in %q is not valid for %s, a %s metric; expected one of %s",
			e.Method, expr, key.Metric, m.Type, threshold.MethodsFor(m.Type))
		return Threshold{}, false
	}
	return th, true
}

// thresholdFields are the keys of a threshold object: k6's and Tidemark's window.
func thresholdFields() []string {
	return []string{"threshold", "abortOnFail", "delayAbortEval", "window"}
}

// TidemarkOnly names the options of the test that k6 does not know and would reject,
// as fields ("thresholds.http_req_duration[0].window"), sorted: a script that uses
// them runs only in Tidemark.
func (t *Test) TidemarkOnly() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(t.Thresholds)) {
		for i, th := range t.Thresholds[k] {
			if th.Window > 0 {
				out = append(out, fmt.Sprintf("thresholds.%s[%d].window", k, i))
			}
		}
	}
	return out
}

// MarkTidemarkOnly sets opts["tidemarkOnly"] (options as `tidemark inspect` prints
// them) to TidemarkOnly when the test has such options, so that inspect shows a script
// that k6 would reject; it leaves opts alone otherwise.
func (t *Test) MarkTidemarkOnly(opts map[string]any) {
	if only := t.TidemarkOnly(); len(only) > 0 {
		opts["tidemarkOnly"] = only
	}
}

// ThresholdSet builds the evaluator of the test's thresholds, in the order of their
// keys. It is the one place that turns Thresholds into threshold definitions. typeOf
// looks metric types up: a run passes threshold.RegistryTypes of its registry; nil
// means k6's built-in metrics.
func (t *Test) ThresholdSet(typeOf threshold.TypeFunc) (*threshold.Set, error) {
	if typeOf == nil {
		typeOf = threshold.RegistryTypes(builtinRegistry())
	}
	var defs []threshold.Def
	for _, k := range slices.Sorted(maps.Keys(t.Thresholds)) {
		for _, th := range t.Thresholds[k] {
			defs = append(defs, threshold.Def{Key: k, Expr: th.Expr, AbortOnFail: th.AbortOnFail, DelayAbortEval: th.DelayAbortEval, Window: th.Window})
		}
	}
	return threshold.NewSet(defs, typeOf)
}

// browserOption decodes a scenario's options ({browser: {type: chromium}}, k6's only
// scenario option) and returns the browser type.
func (d *decoder) browserOption(n *yaml.Node, field string) string {
	f, ok := d.mapping(n, field, []string{"browser"})
	if !ok {
		return ""
	}
	bn, ok := f.get("browser")
	if !ok {
		return ""
	}
	bf, ok := d.mapping(bn, join(field, "browser"), []string{"type"})
	if !ok {
		return ""
	}
	tn, ok := bf.get("type")
	if !ok {
		d.errorf(bn, join(join(field, "browser"), "type"), "missing browser type; expected chromium")
		return ""
	}
	typ, ok := d.str(tn, join(join(field, "browser"), "type"))
	if !ok {
		return ""
	}
	if typ != "chromium" {
		d.errorf(tn, join(join(field, "browser"), "type"), "unknown browser type %q; expected chromium", typ)
		return ""
	}
	return typ
}
