package slo

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/verdict"
)

// The severities of a rule (its labels.severity).
const (
	// SeverityWarning is reported in the summary and the report.
	SeverityWarning = "warning"
	// SeverityError fails the run (exit code 99) once it fires.
	SeverityError = "error"
	// SeverityCritical aborts the run when it fires, as an abortOnFail threshold.
	SeverityCritical = "critical"
)

// Severities are the known severities, mildest first.
func Severities() []string { return []string{SeverityWarning, SeverityError, SeverityCritical} }

// BuiltinPrefix names a shipped rule set instead of a file: builtin:cluster.
const BuiltinPrefix = "builtin:"

// DefaultInterval is how often a group without its own interval is evaluated. A
// Prometheus server's default (1m) would judge a short run once or twice; 5 s is k6's
// push interval, so every push of the run's own series is seen.
const DefaultInterval = 5 * time.Second

// DefaultPushInterval is the push interval assumed when judging a past run (k6's and
// Tidemark's default): no rule window may be shorter.
const DefaultPushInterval = 5 * time.Second

//go:embed rules/*.yaml
var builtinFS embed.FS

// Builtins returns the names of the shipped rule sets (builtin:NAME).
func Builtins() []string {
	entries, _ := fs.ReadDir(builtinFS, "rules") // embedded: cannot fail
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return out
}

// Builtin returns the file of a shipped rule set.
func Builtin(name string) ([]byte, error) {
	b, err := builtinFS.ReadFile(path.Join("rules", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown rule set %s%s: expected one of %s", BuiltinPrefix, name, strings.Join(prefixed(Builtins()), ", "))
	}
	return b, nil
}

func prefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = BuiltinPrefix + n
	}
	return out
}

// Vars are the template variables of a rule's expression, written {{ .name }}.
type Vars struct {
	// TestID is {{ .testid }}, the run's testid label.
	TestID string
	// Namespace is {{ .namespace }}, a regex of the Kubernetes namespaces judged;
	// empty is ".+".
	Namespace string
	// Elapsed is {{ .elapsed }}: the time from the start of the span judged (the run,
	// or a stage after the fact) to the evaluation, as a PromQL duration, never shorter
	// than the push interval. kube-burner names its variable the same.
	Elapsed time.Duration
	// Interval is {{ .interval }}: the rule group's evaluation interval.
	Interval time.Duration
}

// VarNames are the names of the template variables, as written in a rule.
func VarNames() []string { return []string{"testid", "namespace", "elapsed", "interval"} }

func (v Vars) value(name string) (string, bool) {
	switch name {
	case "testid":
		return v.TestID, true
	case "namespace":
		return cmp.Or(v.Namespace, ".+"), true
	case "elapsed":
		return promDuration(v.Elapsed), true
	case "interval":
		return promDuration(v.Interval), true
	}
	return "", false
}

// promDuration is d as a PromQL duration in whole seconds (at least 1s).
func promDuration(d time.Duration) string {
	return model.Duration(max(d.Truncate(time.Second), time.Second)).String()
}

// action is a template action such as {{ .testid }} or {{- .elapsed -}}.
var action = regexp.MustCompile(`\{\{(-?\s*)(.*?)(\s*-?)\}\}`)

// variable is an action that names a variable.
var variable = regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_]*)$`)

// expand replaces the known variables of text with their values; unknown actions
// stay as they are (annotations keep Prometheus' own {{ $value }}).
func expand(text string, v Vars) string {
	return action.ReplaceAllStringFunc(text, func(a string) string {
		m := action.FindStringSubmatch(a)
		if vm := variable.FindStringSubmatch(strings.TrimSpace(m[2])); vm != nil {
			if val, ok := v.value(vm[1]); ok {
				return val
			}
		}
		return a
	})
}

// checkActions returns an error for the first template action of an expression that
// is not a known variable.
func checkActions(expr string) error {
	for _, m := range action.FindAllStringSubmatch(expr, -1) {
		vm := variable.FindStringSubmatch(strings.TrimSpace(m[2]))
		if vm == nil {
			return fmt.Errorf("template action %s: expected a variable such as {{ .testid }}", m[0])
		}
		if _, ok := (Vars{}).value(vm[1]); !ok {
			return fmt.Errorf("unknown template variable %s: expected one of %s", m[0], knownVars())
		}
	}
	if strings.Contains(action.ReplaceAllString(expr, ""), "{{") {
		return errors.New("unclosed template action {{: expected {{ .name }}")
	}
	return nil
}

func knownVars() string {
	var out []string
	for _, n := range VarNames() {
		out = append(out, "{{ ."+n+" }}")
	}
	return strings.Join(out, ", ")
}

// usesVar reports whether expr uses the variable name.
func usesVar(expr, name string) bool {
	for _, m := range action.FindAllStringSubmatch(expr, -1) {
		if vm := variable.FindStringSubmatch(strings.TrimSpace(m[2])); vm != nil && vm[1] == name {
			return true
		}
	}
	return false
}

// Rule is one alerting rule of a rule file, validated.
type Rule struct {
	// File and Line are where the rule is (its alert field).
	File string
	Line int
	// Group is the rule group's name; Interval its evaluation interval (zero: the
	// default).
	Group    string
	Interval time.Duration
	// Name is the alert's name.
	Name string
	// Severity is labels.severity: one of Severities.
	Severity string
	// Expr is the expression as written, with its template variables.
	Expr string
	// For and KeepFiringFor are Prometheus': how long the expression must return a
	// series before the alert fires, and how long it keeps firing after.
	For, KeepFiringFor time.Duration
	// Labels and Annotations are the rule's.
	Labels, Annotations map[string]string
}

// Render returns the rule's expression with v's values.
func (r Rule) Render(v Vars) string { return expand(r.Expr, v) }

// Every returns the rule's evaluation interval: its group's, else def, else
// DefaultInterval.
func (r Rule) Every(def time.Duration) time.Duration {
	return cmp.Or(r.Interval, def, DefaultInterval)
}

// Rules are the rules of one or more rule files.
type Rules struct {
	// Sources are the files (or builtin:NAME) they came from.
	Sources []string
	Rules   []Rule
}

// Fatal reports whether some rule fails the run when it fires (error or critical).
func (rs *Rules) Fatal() bool {
	return slices.ContainsFunc(rs.Rules, func(r Rule) bool { return r.Severity != SeverityWarning })
}

// Error is a mistake in a rule file: where, in which rule and field, and what.
type Error struct {
	File  string
	Line  int
	Group string
	Rule  string
	Field string
	Err   error
}

// Error returns "FILE:LINE: group G, rule R, field F: what".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(":")
	if e.Group != "" {
		fmt.Fprintf(&b, " group %q,", e.Group)
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, " rule %q,", e.Rule)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, " field %s:", e.Field)
	}
	return b.String() + " " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Load reads and validates the rule files at sources (paths, or builtin:NAME). No
// window of a rule (its for, a range or subquery of its expression, its group's
// interval) may be shorter than pushInterval, the interval the run's series are
// written at. Its errors are *Error, joined, of kind verdict.ErrInvalid (exit code 104).
func Load(sources []string, pushInterval time.Duration) (*Rules, error) {
	rs := &Rules{}
	var errs []error
	for _, src := range sources {
		var b []byte
		var err error
		if name, ok := strings.CutPrefix(src, BuiltinPrefix); ok {
			b, err = Builtin(name)
		} else {
			b, err = os.ReadFile(src)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read rule file: %w", err))
			continue
		}
		rules, err := Parse(src, b, pushInterval)
		errs = append(errs, err)
		rs.Sources = append(rs.Sources, src)
		rs.Rules = append(rs.Rules, rules...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, verdict.Invalid(err)
	}
	if len(rs.Rules) == 0 {
		return nil, verdict.Invalid(fmt.Errorf("rule files %s: no alerting rules", strings.Join(sources, ", ")))
	}
	return rs, nil
}

// ruleNodes are the positions of one rule's fields.
type ruleNodes struct {
	rule   *yaml.Node
	fields map[string]*yaml.Node // key → value
	labels map[string]*yaml.Node
}

// groupNodes are the positions of one group's fields and rules.
type groupNodes struct {
	group  *yaml.Node
	fields map[string]*yaml.Node
	rules  []ruleNodes
}

// mapping returns the key → value nodes of a mapping node.
func mapping(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

// positions reads the groups and rules of a rule file as YAML nodes; a file that is
// not in the shape of a rule file gives what could be read (rulefmt names the rest).
func positions(b []byte) []groupNodes {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	var out []groupNodes
	groups := mapping(doc.Content[0])["groups"]
	if groups == nil || groups.Kind != yaml.SequenceNode {
		return nil
	}
	for _, g := range groups.Content {
		gn := groupNodes{group: g, fields: mapping(g)}
		if rules := gn.fields["rules"]; rules != nil && rules.Kind == yaml.SequenceNode {
			for _, r := range rules.Content {
				f := mapping(r)
				gn.rules = append(gn.rules, ruleNodes{rule: r, fields: f, labels: mapping(f["labels"])})
			}
		}
		out = append(out, gn)
	}
	return out
}

// validationVars are the values the variables take when a file is checked: an
// elapsed time long enough for any window.
func validationVars(interval time.Duration) Vars {
	return Vars{TestID: "validation", Elapsed: time.Hour, Interval: interval}
}

// Parse validates the rule file content (named name in errors) with Prometheus'
// rulefmt after expanding the variables of every expression, and returns its rules.
// See Load for pushInterval.
func Parse(name string, content []byte, pushInterval time.Duration) ([]Rule, error) {
	nodes := positions(content)
	var errs []error
	fail := func(line int, group, rule, field string, err error) {
		errs = append(errs, &Error{File: name, Line: line, Group: group, Rule: rule, Field: field, Err: err})
	}
	// The variables first: an unknown one would otherwise be a PromQL syntax error.
	for _, g := range nodes {
		for _, r := range g.rules {
			if e := r.fields["expr"]; e != nil {
				if err := checkActions(e.Value); err != nil {
					fail(e.Line, nodeValue(g.fields["name"]), nodeValue(r.fields["alert"]), "expr", err)
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Expanded in place, so that rulefmt's lines are the file's. The group intervals
	// are not known yet: {{ .interval }} is checked with the push interval.
	expanded := []byte(expand(string(content), validationVars(pushInterval)))
	groups, perrs := rulefmt.Parse(expanded, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	for _, err := range perrs {
		errs = append(errs, rulefmtError(name, nodes, err))
	}
	// rulefmt's validation errors come with the groups it read: the checks below still
	// run, so that one pass names every mistake of the file.
	if groups == nil {
		return nil, errors.Join(errs...)
	}
	var out []Rule
	for gi, g := range groups.Groups {
		var gn groupNodes
		if gi < len(nodes) {
			gn = nodes[gi]
		}
		line := func(n *yaml.Node, fallback *yaml.Node) int {
			if n != nil {
				return n.Line
			}
			if fallback != nil {
				return fallback.Line
			}
			return 0
		}
		interval := time.Duration(g.Interval)
		if interval > 0 && interval < pushInterval {
			fail(line(gn.fields["interval"], gn.group), g.Name, "", "interval",
				fmt.Errorf("%s is shorter than the push interval %s: expected at least %s", interval, pushInterval, pushInterval))
		}
		for ri, r := range g.Rules {
			var rn ruleNodes
			if ri < len(gn.rules) {
				rn = gn.rules[ri]
			}
			if r.Record != "" {
				fail(line(rn.fields["record"], rn.rule), g.Name, r.Record, "record",
					errors.New("recording rules are not evaluated: write an alerting rule (alert, expr, for, labels.severity)"))
				continue
			}
			at := func(field string) int { return line(rn.fields[field], rn.rule) }
			sev, ok := r.Labels["severity"]
			switch {
			case !ok:
				fail(line(rn.fields["labels"], rn.rule), g.Name, r.Alert, "labels.severity",
					fmt.Errorf("missing: expected one of %s", strings.Join(Severities(), ", ")))
			case !slices.Contains(Severities(), sev):
				fail(line(rn.labels["severity"], rn.rule), g.Name, r.Alert, "labels.severity",
					fmt.Errorf("unknown severity %q: expected one of %s", sev, strings.Join(Severities(), ", ")))
			}
			if f := time.Duration(r.For); f > 0 && f < pushInterval {
				fail(at("for"), g.Name, r.Alert, "for",
					fmt.Errorf("%s is shorter than the push interval %s: expected 0 or at least %s", f, pushInterval, pushInterval))
			}
			// The expression as written (rulefmt saw it expanded).
			expr := r.Expr
			if e := rn.fields["expr"]; e != nil {
				expr = e.Value
			}
			vars := validationVars(cmp.Or(interval, DefaultInterval, pushInterval))
			if err := checkWindows(expand(expr, vars), pushInterval); err != nil {
				fail(at("expr"), g.Name, r.Alert, "expr", err)
			}
			// The annotations as written too: their variables are expanded when shown.
			annotations := r.Annotations
			if raw := mapping(rn.fields["annotations"]); len(raw) == len(annotations) {
				annotations = map[string]string{}
				for k, n := range raw {
					annotations[k] = n.Value
				}
			}
			out = append(out, Rule{File: name, Line: at("alert"), Group: g.Name, Interval: interval, Name: r.Alert, Severity: sev,
				Expr: expr, For: time.Duration(r.For), KeepFiringFor: time.Duration(r.KeepFiringFor), Labels: r.Labels, Annotations: annotations})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func nodeValue(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

// checkWindows returns an error for a range or subquery of expr shorter than min: it
// would hold fewer than one sample of the run's series. An expression that does not
// parse has none (rulefmt reports it).
func checkWindows(expr string, minimum time.Duration) error {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil //nolint:nilerr // rulefmt names the parse error already: one message per mistake.
	}
	var errs []error
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		var r time.Duration
		switch n := n.(type) {
		case *parser.MatrixSelector:
			r = n.Range
		case *parser.SubqueryExpr:
			r = n.Range
		default:
			return nil
		}
		if r > 0 && r < minimum {
			errs = append(errs, fmt.Errorf("window [%s] is shorter than the push interval %s: expected at least [%s]",
				model.Duration(r), minimum, model.Duration(minimum)))
		}
		return nil
	})
	return errors.Join(errs...)
}

// yamlLine finds the line yaml's messages name ("line 7: field x not found").
var yamlLine = regexp.MustCompile(`line (\d+):`)

// rulefmtError is an error of rulefmt as an *Error: the line of the field it is about,
// where it can tell.
func rulefmtError(file string, nodes []groupNodes, err error) *Error {
	out := &Error{File: file, Err: err}
	var re *rulefmt.Error
	if !errors.As(err, &re) {
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			out.Line, _ = strconv.Atoi(m[1])
		}
		return out
	}
	out.Group, out.Rule = re.Group, re.RuleName
	out.Err = errors.Unwrap(&re.Err)
	if out.Err == nil {
		out.Err = err
	}
	msg := out.Err.Error()
	for _, f := range []struct{ prefix, field string }{
		{"could not parse expression", "expr"}, {"field 'expr'", "expr"}, {"label", "labels"},
		{"annotation", "annotations"}, {"invalid field 'for'", "for"}, {"one of 'record' or 'alert'", "alert"},
		{"only one of 'record' and 'alert'", "alert"}, {"invalid recording rule name", "record"}, {"braces present", "record"},
	} {
		if strings.HasPrefix(msg, f.prefix) {
			out.Field = f.field
			break
		}
	}
	for _, g := range nodes {
		if nodeValue(g.fields["name"]) != re.Group || re.Rule < 1 || re.Rule > len(g.rules) {
			continue
		}
		r := g.rules[re.Rule-1]
		out.Line = r.rule.Line
		if n := r.fields[out.Field]; n != nil {
			out.Line = n.Line
		}
		break
	}
	return out
}
