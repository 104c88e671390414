package jslib

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/summary"
)

// Summary returns the k6-summary module: textSummary(data, [{indent, enableColors}])
// and jUnit(data, [{name, classname}]).
//
// textSummary writes the text jslib's textSummary writes (summary.WriteLegacyText: the
// layout of k6's end-of-test summary before v1.0, which jslib k6-summary 0.0.1 to
// 0.1.0 produce), from the data it is given: every number is the data's own, so a
// handleSummary that edits the data sees its edits.
func Summary() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		stringify, ok := sobek.AssertFunction(rt.Get("JSON").ToObject(rt).Get("stringify"))
		if !ok {
			return nil, errors.New("k6-summary: JSON.stringify is not a function")
		}
		s := &summaryModule{vu: vu, stringify: stringify}
		return modules.Exports{Named: map[string]any{
			"textSummary": s.textSummary,
			"jUnit":       s.jUnit,
		}}, nil
	})
}

type summaryModule struct {
	vu        modules.VU
	stringify sobek.Callable
}

// data is the part of handleSummary's data the summaries read.
type data struct {
	RootGroup dataGroup `json:"root_group"`
	Options   struct {
		SummaryTrendStats []string `json:"summaryTrendStats"`
		SummaryTimeUnit   string   `json:"summaryTimeUnit"`
	} `json:"options"`
	State struct {
		TestRunDurationMs float64 `json:"testRunDurationMs"`
	} `json:"state"`
	Metrics map[string]dataMetric `json:"metrics"`
}

type dataGroup struct {
	Name   string      `json:"name"`
	Path   string      `json:"path"`
	Groups []dataGroup `json:"groups"`
	Checks []struct {
		Name   string  `json:"name"`
		Passes float64 `json:"passes"`
		Fails  float64 `json:"fails"`
	} `json:"checks"`
}

type dataMetric struct {
	Type       string             `json:"type"`
	Contains   string             `json:"contains"`
	Values     map[string]float64 `json:"values"`
	Thresholds thresholds         `json:"thresholds"`
}

// thresholds are a metric's threshold results in the order of the data's keys.
type thresholds []summary.Threshold

// UnmarshalJSON decodes {"expr": {"ok": bool}, ...} keeping the keys' order.
func (t *thresholds) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("thresholds: expected an object, got %v", tok)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var v struct {
			OK bool `json:"ok"`
		}
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("threshold %v: %w", key, err)
		}
		*t = append(*t, summary.Threshold{Expr: fmt.Sprint(key), OK: v.OK})
	}
	return nil
}

// decode reads handleSummary's data from the script's value.
func (s *summaryModule) decode(what string, v sobek.Value) *data {
	rt := s.vu.Runtime()
	if sobek.IsUndefined(v) || sobek.IsNull(v) {
		modules.Throw(rt, fmt.Errorf("%s: expected handleSummary's data as the first argument", what))
	}
	text, err := s.stringify(sobek.Undefined(), v)
	if err != nil {
		panic(err)
	}
	var d data
	if err := json.Unmarshal([]byte(text.String()), &d); err != nil {
		modules.Throw(rt, fmt.Errorf("%s: read handleSummary's data: %w", what, err))
	}
	return &d
}

// textSummary is textSummary(data, [{indent, enableColors}]): the end-of-test summary
// as text, every line starting with indent (default "") and four spaces, ANSI colours
// only with enableColors (default false).
func (s *summaryModule) textSummary(call sobek.FunctionCall) sobek.Value {
	rt := s.vu.Runtime()
	d := s.decode("textSummary", call.Argument(0))
	indent, color := "", false
	if o := call.Argument(1); !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		opts := o.ToObject(rt)
		if v := opts.Get("indent"); v != nil && !sobek.IsUndefined(v) {
			indent = v.String()
		}
		if v := opts.Get("enableColors"); v != nil {
			color = v.ToBoolean()
		}
	}
	ld, err := legacyOf(d)
	if err != nil {
		modules.Throw(rt, fmt.Errorf("textSummary: %w", err))
	}
	var b strings.Builder
	if err := summary.WriteLegacyText(&b, ld, indent, color); err != nil {
		modules.Throw(rt, fmt.Errorf("textSummary: %w", err))
	}
	return rt.ToValue(b.String())
}

// legacyOf is the data as summary.WriteLegacyText reads it: metrics typed by the data,
// groups and checks in the data's order.
func legacyOf(d *data) (summary.LegacyData, error) {
	out := summary.LegacyData{TrendStats: d.Options.SummaryTrendStats, TimeUnit: d.Options.SummaryTimeUnit, Root: legacyGroup(d.RootGroup)}
	for key, m := range d.Metrics {
		typ, ok := metrics.ParseType(m.Type)
		if !ok {
			return out, fmt.Errorf("metric %s: unknown type %q", key, m.Type)
		}
		contains, ok := metrics.ParseValueType(m.Contains)
		if !ok {
			contains = metrics.Default
		}
		out.Metrics = append(out.Metrics, summary.LegacyMetric{Key: key, Type: typ, Contains: contains, Values: m.Values, Thresholds: m.Thresholds})
	}
	return out, nil
}

func legacyGroup(g dataGroup) summary.LegacyGroup {
	out := summary.LegacyGroup{Name: g.Name}
	for _, c := range g.Checks {
		out.Checks = append(out.Checks, summary.LegacyCheck{Name: c.Name, Passes: c.Passes, Fails: c.Fails})
	}
	for _, sub := range g.Groups {
		out.Groups = append(out.Groups, legacyGroup(sub))
	}
	return out
}

// jUnit is jUnit(data, [{name, classname}]): JUnit XML with one testcase per threshold,
// failed when the threshold failed. The layout is Tidemark's: one testsuite named
// name (default "k6 thresholds"), testcases named "<metric> - <expression>" in metric
// order, of class classname (default "k6").
func (s *summaryModule) jUnit(call sobek.FunctionCall) sobek.Value {
	rt := s.vu.Runtime()
	d := s.decode("jUnit", call.Argument(0))
	name, class := "k6 thresholds", "k6"
	if o := call.Argument(1); !sobek.IsUndefined(o) && !sobek.IsNull(o) {
		opts := o.ToObject(rt)
		if v := opts.Get("name"); v != nil && !sobek.IsUndefined(v) {
			name = v.String()
		}
		if v := opts.Get("classname"); v != nil && !sobek.IsUndefined(v) {
			class = v.String()
		}
	}
	keys := make([]string, 0, len(d.Metrics))
	for k := range d.Metrics {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var cases strings.Builder
	tests, failures := 0, 0
	for _, k := range keys {
		for _, th := range d.Metrics[k].Thresholds {
			tests++
			fmt.Fprintf(&cases, "    <testcase name=%s classname=%s>", attr(k+" - "+th.Expr), attr(class))
			if !th.OK {
				failures++
				fmt.Fprintf(&cases, "<failure message=%s></failure>", attr(fmt.Sprintf("%s threshold %s failed", k, th.Expr)))
			}
			cases.WriteString("</testcase>\n")
		}
	}
	var out strings.Builder
	out.WriteString(xml.Header)
	fmt.Fprintf(&out, "<testsuites tests=\"%d\" failures=\"%d\">\n", tests, failures)
	fmt.Fprintf(&out, "  <testsuite name=%s tests=\"%d\" failures=\"%d\">\n", attr(name), tests, failures)
	out.WriteString(cases.String())
	out.WriteString("  </testsuite>\n</testsuites>\n")
	return rt.ToValue(out.String())
}

// attr is s as a quoted XML attribute value.
func attr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	_ = xml.EscapeText(&b, []byte(s)) // A strings.Builder does not fail.
	b.WriteByte('"')
	return b.String()
}
