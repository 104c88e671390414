package scenario

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/threshold"
)

// Default lifecycle limits of a script (k6's setupTimeout, teardownTimeout,
// handleSummaryTimeout).
const (
	DefaultSetupTimeout         = 60 * time.Second
	DefaultTeardownTimeout      = 60 * time.Second
	DefaultHandleSummaryTimeout = 120 * time.Second
)

// Script is a test decoded from a k6 script's `export const options`: the same Test a
// YAML file gives, without flows (a script's iterations run its functions), plus what
// only a script has.
type Script struct {
	// Test is the options as a test; its scenarios have empty flows.
	Test *Test
	// Exec maps a scenario name to the exported function it runs (its `exec`);
	// scenarios without exec run "default" (ExecOf).
	Exec map[string]string
	// SetupTimeout, TeardownTimeout and HandleSummaryTimeout bound setup(),
	// teardown() and handleSummary(); defaults 60s, 60s and 120s.
	SetupTimeout, TeardownTimeout, HandleSummaryTimeout time.Duration
	// NoSetup and NoTeardown skip setup() and teardown() (k6's noSetup, noTeardown).
	NoSetup, NoTeardown bool
	// MinIterationDuration is the shortest an iteration takes: a shorter one waits out
	// the rest (k6's minIterationDuration); 0 for none.
	MinIterationDuration time.Duration
	// Ignored names the options of k6 Cloud (cloud, ext) that a local run ignores, for
	// a warning.
	Ignored []string
	// HTTP holds the k6/http options of the script, which YAML files do not take.
	HTTP ScriptHTTP
	// Replaced names the K6_* variables (K6_VUS, K6_ITERATIONS, K6_DURATION,
	// K6_STAGES) that replaced the script's scenarios, for a warning as k6 gives.
	Replaced []string
}

// ScriptHTTP are k6's options of k6/http (reference/k6-js.md §2.2, §4).
type ScriptHTTP struct {
	// DiscardResponseBodies makes responseType default to "none".
	DiscardResponseBodies bool
	// Batch and BatchPerHost bound http.batch's parallel requests; defaults 20 and 6.
	Batch, BatchPerHost int
	// NoCookiesReset keeps a VU's cookie jar between iterations.
	NoCookiesReset bool
	// Throw makes failed requests throw (k6's throw).
	Throw bool
	// Debug is the script's httpDebug, the option form of --http-debug: "" off, "full"
	// for the bodies too, any other text for the heads only. K6_HTTP_DEBUG and
	// --http-debug win over it (the caller applies them).
	Debug string
}

// ExecOf returns the function scenario name runs per iteration.
func (s *Script) ExecOf(name string) string {
	if e, ok := s.Exec[name]; ok && e != "" {
		return e
	}
	return "default"
}

// ScriptConfig is what ParseScript needs beyond the options.
type ScriptConfig struct {
	// Registry holds the metrics thresholds may name: k6's built-in metrics and the
	// custom metrics the script's init context created. Nil: built-in metrics only.
	Registry *metrics.Registry
	// Environ is the process environment. k6's K6_VUS, K6_ITERATIONS, K6_DURATION and
	// K6_STAGES override the script's options (and replace its scenarios), and K6_TAGS,
	// K6_SUMMARY_TREND_STATS, K6_SUMMARY_TIME_UNIT, K6_SYSTEM_TAGS, K6_MAX_REDIRECTS,
	// K6_USER_AGENT and K6_INSECURE_SKIP_TLS_VERIFY the test-wide options, as in k6:
	// defaults < script options < K6_* environment < command-line flags.
	Environ map[string]string
}

// scriptOnly are options a script may set that a YAML file may not (or that mean
// something else there).
func scriptOnly() []string {
	return []string{"setupTimeout", "teardownTimeout", "handleSummaryTimeout"}
}

// canonicalOptionKeys renames the keys of a script's options, of its scenarios and of
// its thresholds' objects that differ from an option's name only in case: k6 decodes
// options as Go's encoding/json does, case-insensitively, so `startvus` and
// `discardresponsebodies` (as in k6's own documentation) are startVUs and
// discardResponseBodies there.
func canonicalOptionKeys(top *yaml.Node) {
	scriptKeys := slices.Concat(topFields(), unsupportedK6Options(), scriptOnly(),
		[]string{"noCookiesReset", "cloud", "ext", "scenarios"})
	canonicalKeys(top, scriptKeys)
	if sc := optionNode(top, "scenarios"); sc != nil && sc.Kind == yaml.MappingNode {
		keys := commonScenarioFields()
		for _, e := range Executors() {
			keys = append(keys, executorFields(e)...)
		}
		for i := 1; i < len(sc.Content); i += 2 {
			canonicalKeys(sc.Content[i], append(keys, "options"))
		}
	}
	if th := optionNode(top, "thresholds"); th != nil && th.Kind == yaml.MappingNode {
		for i := 1; i < len(th.Content); i += 2 {
			if list := th.Content[i]; list.Kind == yaml.SequenceNode {
				for _, n := range list.Content {
					canonicalKeys(n, thresholdFields())
				}
			}
		}
	}
}

// canonicalKeys renames the keys of mapping m that equal one of known but for case.
func canonicalKeys(m *yaml.Node, known []string) {
	if m == nil || m.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if slices.Contains(known, k.Value) {
			continue
		}
		for _, name := range known {
			if strings.EqualFold(k.Value, name) && optionNode(m, name) == nil {
				k.Value = name
				break
			}
		}
	}
}

// ParseScript decodes a script's options, the JSON of `export const options` ("{}"
// when it exports none), into the one options model: the same scenarios, executors,
// defaults, thresholds and validation as Parse, with every problem returned as Errors.
// name (the script's path) is used in messages; as the JSON has no lines of the
// script, errors name fields only.
func ParseScript(name string, options []byte, cfg ScriptConfig) (*Script, error) {
	d := &decoder{file: name, budget: nodeBudget, limits: MachineLimits()}
	fail := func(field, format string, args ...any) error {
		return Errors{{File: name, Field: field, Msg: fmt.Sprintf(format, args...)}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(options, &root); err != nil {
		return nil, fail("options", "not JSON: %v", err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fail("options", "expected an object, e.g. export const options = { vus: 10, duration: '30s' }")
	}
	canonicalOptionKeys(top)
	for _, k := range []string{"flow", "flows"} {
		if n := optionNode(top, k); n != nil {
			return nil, fail(k, "is an option of YAML scenario files; a script's iterations run its exported functions (exec)")
		}
	}
	s := &Script{Exec: map[string]string{}, SetupTimeout: DefaultSetupTimeout, TeardownTimeout: DefaultTeardownTimeout, HandleSummaryTimeout: DefaultHandleSummaryTimeout}
	for _, k := range scriptOnly() {
		n := take(top, k)
		if n == nil {
			continue
		}
		dst := map[string]*time.Duration{"setupTimeout": &s.SetupTimeout, "teardownTimeout": &s.TeardownTimeout, "handleSummaryTimeout": &s.HandleSummaryTimeout}[k]
		if v, ok := d.duration(n, k); ok {
			if v <= 0 {
				d.errorf(n, k, "must be more than 0")
			}
			*dst = v
		}
	}
	s.HTTP = ScriptHTTP{Batch: 20, BatchPerHost: 6}
	for k, dst := range map[string]*bool{"discardResponseBodies": &s.HTTP.DiscardResponseBodies, "noCookiesReset": &s.HTTP.NoCookiesReset, "throw": &s.HTTP.Throw} {
		if n := take(top, k); n != nil {
			*dst, _ = d.boolean(n, k)
		}
	}
	if n := take(top, "httpDebug"); n != nil && n.ShortTag() != "!!null" {
		// k6 v1.8.1 takes a string only: true, false or a number stop it with 104.
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			d.errorf(n, "httpDebug", "expected a string, \"full\" to log the bodies too or any other text (e.g. \"headers\") for the heads only, as --http-debug[=full]; got %s", describe(n))
		} else {
			s.HTTP.Debug = n.Value
		}
	}
	// K6_THROW (and run's -w/--throw, set as it) over the script's throw.
	if v := cfg.Environ["K6_THROW"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, Errors{{Field: "K6_THROW", Msg: fmt.Sprintf("%q is not a boolean; expected true or false", v)}}
		}
		s.HTTP.Throw = b
	}
	for k, dst := range map[string]*int{"batch": &s.HTTP.Batch, "batchPerHost": &s.HTTP.BatchPerHost} {
		if n := take(top, k); n != nil {
			if v, ok := d.integer(n, k); ok {
				if v < 0 {
					d.errorf(n, k, "must not be negative, got %d", v)
				}
				*dst = v
			}
		}
	}
	for _, k := range []string{"noSetup", "noTeardown"} {
		if n := take(top, k); n != nil {
			v, _ := d.boolean(n, k)
			if k == "noSetup" {
				s.NoSetup = v
			} else {
				s.NoTeardown = v
			}
		}
	}
	if n := take(top, "minIterationDuration"); n != nil {
		if v, ok := d.duration(n, "minIterationDuration"); ok {
			if v < 0 {
				d.errorf(n, "minIterationDuration", "must not be negative")
			}
			s.MinIterationDuration = v
		}
	}
	for _, k := range []string{"cloud", "ext"} {
		// They configure k6 Cloud runs only; k6 too ignores them when it runs locally.
		if take(top, k) != nil {
			s.Ignored = append(s.Ignored, k)
		}
	}
	replaced, err := applyK6Env(top, cfg.Environ)
	if err != nil {
		return nil, err
	}
	s.Replaced = replaced
	if err := applyK6OptionEnv(top, cfg.Environ); err != nil {
		return nil, err
	}
	tlsOpts := d.scriptTLS(top)
	thresholds := take(top, "thresholds")
	if sc := optionNode(top, "scenarios"); sc != nil && sc.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(sc.Content); i += 2 {
			scName, body := sc.Content[i].Value, sc.Content[i+1]
			if body.Kind != yaml.MappingNode {
				continue
			}
			if e := take(body, "exec"); e != nil {
				if v, ok := d.str(e, "scenarios."+scName+".exec"); ok {
					if !jsIdent.MatchString(v) {
						d.errorf(e, "scenarios."+scName+".exec", "%q is not a function name", v)
					}
					s.Exec[scName] = v
				}
			}
		}
	}
	// Every scenario needs a flow in the decoder; a script's is never run.
	top.Content = append(top.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "flow"},
		&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "sleep"}, {Kind: yaml.ScalarNode, Tag: "!!int", Value: "0"},
		}}}})
	t := d.test(top, nil)
	if thresholds != nil && t != nil {
		t.Thresholds = d.scriptThresholds(thresholds, cfg.Registry)
	}
	if len(d.errs) > 0 {
		errs := d.sorted()
		for _, e := range errs {
			// Lines of the options' JSON, not of the script.
			e.Line = 0
			e.Msg = jsonLine.ReplaceAllString(e.Msg, "")
		}
		return nil, errs
	}
	for _, sc := range t.Scenarios {
		sc.Flow = Flow{}
		sc.Line = 0
	}
	for _, ths := range t.Thresholds {
		for i := range ths {
			ths[i].Line = 0
		}
	}
	t.Source = name
	t.TLS = tlsOpts
	s.Test = t
	return s, nil
}

// jsonLine is a message's reference to a line of the options' JSON.
var jsonLine = regexp.MustCompile(` \(line [0-9]+\)`)

// jsIdent is a plain JavaScript identifier (what exec may name).
var jsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// optionNode returns the value of key in mapping m, or nil.
func optionNode(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// take removes key from mapping m and returns its value, or nil.
func take(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			m.Content = slices.Delete(m.Content, i, i+2)
			return v
		}
	}
	return nil
}

// set replaces or adds key in mapping m.
func set(m *yaml.Node, key string, val *yaml.Node) {
	take(m, key)
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, val)
}

// applyK6Env applies K6_VUS, K6_ITERATIONS, K6_DURATION and K6_STAGES: set, they
// replace the script's scenarios, as k6's shortcuts from the environment do, and
// any of the last three replaces the script's other two. K6_VUS alone (or -u alone)
// over scenarios replaces them with a shared-iterations scenario of that many VUs and
// iterations, as k6 v2.1 does (k6 v1 ignored it).
func applyK6Env(top *yaml.Node, env map[string]string) ([]string, error) {
	keys := map[string]string{"K6_VUS": "vus", "K6_ITERATIONS": "iterations", "K6_DURATION": "duration", "K6_STAGES": "stages"}
	var given []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if env[k] != "" {
			given = append(given, k)
		}
	}
	if len(given) == 0 {
		return nil, nil
	}
	if sc := optionNode(top, "scenarios"); slices.Equal(given, []string{"K6_VUS"}) && sc != nil && sc.Kind == yaml.MappingNode && len(sc.Content) > 0 {
		if v := strings.TrimSpace(env["K6_VUS"]); !regexp.MustCompile(`^-?[0-9]+$`).MatchString(v) {
			return nil, Errors{{Field: "K6_VUS", Msg: fmt.Sprintf("%q is not a whole number; expected a VU count such as K6_VUS=10", v)}}
		}
		// k6 v2.1: -u/K6_VUS alone replaces the scenarios too, with N VUs sharing N
		// iterations (k6 v1 ignored it without a word); the caller warns of it.
		take(top, "iterations")
	}
	take(top, "scenarios")
	if slices.ContainsFunc(given, func(k string) bool { return k != "K6_VUS" }) {
		// k6's config layers: one that sets duration, iterations or stages clears the
		// other two of the layers below it (checked against k6 v1.8.1: -s 5s:2 over a
		// script's duration runs the stages; -d 3s over its stages, 3 s of constant VUs).
		for _, k := range []string{"K6_ITERATIONS", "K6_DURATION", "K6_STAGES"} {
			if env[k] == "" {
				take(top, keys[k])
			}
		}
	}
	for _, k := range given {
		v := strings.TrimSpace(env[k])
		switch k {
		case "K6_VUS", "K6_ITERATIONS":
			tag := "!!int"
			if !regexp.MustCompile(`^-?[0-9]+$`).MatchString(v) {
				tag = "!!str"
			}
			set(top, keys[k], &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v})
		case "K6_DURATION":
			set(top, keys[k], &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
		case "K6_STAGES":
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for st := range strings.SplitSeq(v, ",") {
				dur, target, ok := strings.Cut(strings.TrimSpace(st), ":")
				if !ok || dur == "" || target == "" {
					return nil, Errors{{Field: "K6_STAGES", Msg: fmt.Sprintf("bad stage %q; expected DURATION:TARGET, e.g. K6_STAGES=30s:10,1m:20", st)}}
				}
				seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
					{Kind: yaml.ScalarNode, Tag: "!!str", Value: "duration"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: dur},
					{Kind: yaml.ScalarNode, Tag: "!!str", Value: "target"}, {Kind: yaml.ScalarNode, Tag: "!!float", Value: target},
				}})
			}
			set(top, "stages", seq)
		}
	}
	return given, nil
}

// applyK6OptionEnv applies the K6_* variables of the test-wide options the model has:
// K6_TAGS (n:v,m:w; replaces the script's tags, as k6 does), K6_SUMMARY_TREND_STATS,
// K6_SUMMARY_TIME_UNIT, K6_SYSTEM_TAGS, K6_MAX_REDIRECTS, K6_USER_AGENT and
// K6_INSECURE_SKIP_TLS_VERIFY, and Tidemark's TIDEMARK_SUMMARY_BREAKDOWN and
// TIDEMARK_SUMMARY_BREAKDOWN_LIMIT (run's --summary-breakdown and
// --summary-breakdown-limit). The decoder then validates them as the script's own.
func applyK6OptionEnv(top *yaml.Node, env map[string]string) error {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	list := func(v string) *yaml.Node {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range splitList(v) {
			seq.Content = append(seq.Content, str(item))
		}
		return seq
	}
	scalar := func(v, tag string, re *regexp.Regexp) *yaml.Node {
		if re.MatchString(v) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
		}
		return str(v) // the decoder says what is wrong with it
	}
	for _, k := range []string{"K6_TAGS", "K6_SUMMARY_TREND_STATS", "K6_SUMMARY_TIME_UNIT", "K6_SYSTEM_TAGS", "K6_MAX_REDIRECTS", "K6_USER_AGENT", "K6_INSECURE_SKIP_TLS_VERIFY",
		BreakdownEnv, BreakdownLimitEnv} {
		v, ok := env[k]
		if !ok || (v == "" && k != "K6_SUMMARY_TIME_UNIT") {
			continue
		}
		switch k {
		case "K6_TAGS":
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for _, kv := range splitList(v) {
				name, value, ok := strings.Cut(kv, ":")
				if !ok || name == "" {
					return Errors{{Field: k, Msg: fmt.Sprintf("bad tag %q; expected NAME:VALUE, e.g. K6_TAGS=env:staging,team:orders", kv)}}
				}
				m.Content = append(m.Content, str(name), str(value))
			}
			set(top, "tags", m)
		case "K6_SUMMARY_TREND_STATS":
			set(top, "summaryTrendStats", list(v))
		case "K6_SYSTEM_TAGS":
			set(top, "systemTags", list(v))
		case "K6_SUMMARY_TIME_UNIT":
			set(top, "summaryTimeUnit", str(v))
		case "K6_USER_AGENT":
			set(top, "userAgent", str(v))
		case "K6_MAX_REDIRECTS":
			set(top, "maxRedirects", scalar(v, "!!int", regexp.MustCompile(`^-?[0-9]+$`)))
		case "K6_INSECURE_SKIP_TLS_VERIFY":
			set(top, "insecureSkipTLSVerify", scalar(v, "!!bool", regexp.MustCompile(`^(true|false)$`)))
		case BreakdownEnv:
			set(top, "summaryBreakdown", str(v)) // the decoder splits it and names an empty key
		case BreakdownLimitEnv:
			set(top, "summaryBreakdownLimit", scalar(v, "!!int", regexp.MustCompile(`^-?[0-9]+$`)))
		}
	}
	return nil
}

// The variables of the summary breakdown options: `tidemark run` sets them from
// --summary-breakdown and --summary-breakdown-limit, over the file's options.
const (
	BreakdownEnv      = "TIDEMARK_SUMMARY_BREAKDOWN"
	BreakdownLimitEnv = "TIDEMARK_SUMMARY_BREAKDOWN_LIMIT"
)

// splitList splits a comma-separated environment value, trimming spaces and dropping
// empty items. p(N) stats contain no commas, so a plain split serves.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// scriptThresholds decodes thresholds on the metrics of reg: built-in ones and the
// script's custom metrics.
func (d *decoder) scriptThresholds(n *yaml.Node, reg *metrics.Registry) map[string][]Threshold {
	f, ok := d.mapping(n, "thresholds", nil)
	if !ok {
		return nil
	}
	if reg == nil {
		reg = builtinRegistry()
	}
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
			d.errorf(e.key, field, "unknown metric %q; expected a k6 built-in metric or a custom metric the init context creates (new Trend(%q)); known: %s%s",
				key.Metric, key.Metric, strings.Join(names, ", "), didYouMean(key.Metric, names))
			continue
		}
		if key.NonIndexable() {
			d.errorf(e.key, field, "vu and iter are not tags in Tidemark, so this sub-metric would match nothing; expected other tags such as scenario, name, status or method")
			continue
		}
		var items []*yaml.Node
		if r := d.resolve(e.val); r != nil && r.Kind == yaml.MappingNode {
			items = []*yaml.Node{r}
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
