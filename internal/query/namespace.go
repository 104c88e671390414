package query

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	promlabels "github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

func isExportedNamespace(m *promlabels.Matcher) bool { return m.Name == ExportedNamespace }

// ExportedNamespace is where a scrape without honor_labels puts an exporter's own
// namespace label when the target has one too (prom-layouts.md §2): kube-state-metrics
// scraped by the prometheus chart 15.0.0–15.8.0, or through GMP's PodMonitoring. The
// object's namespace is then exported_namespace, and namespace is the exporter's.
const ExportedNamespace = "exported_namespace"

// NamespaceLabel is the label that holds the object's namespace in the series a selector
// (matchers without braces) selects: [ExportedNamespace] when the selector matches on it,
// else namespace.
func NamespaceLabel(selector string) string {
	ms, err := parser.NewParser(parser.Options{}).ParseMetricSelector("{" + selector + "}")
	if err != nil {
		return "namespace"
	}
	if slices.ContainsFunc(ms, isExportedNamespace) {
		return ExportedNamespace
	}
	return "namespace"
}

// ReadExportedNamespace rewrites a PromQL expression so that every selector that matches
// on [ExportedNamespace] is read with it as its namespace: the selector (or the range
// function over it) is wrapped in label_replace(…, "namespace", "$1",
// "exported_namespace", "(.+)"), so that grouping, joins on namespace (to cAdvisor's
// series, which carry the pod's own) and the objects' names see the object's namespace.
// Every other part of the expression is kept as written. An expression without such a
// selector is returned unchanged.
func ReadExportedNamespace(expr string) (string, error) {
	if !strings.Contains(expr, ExportedNamespace) {
		return expr, nil
	}
	root, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return "", fmt.Errorf("read %s: parse %q: %w", ExportedNamespace, expr, err)
	}
	type span struct{ start, end int }
	var spans []span
	parser.Inspect(root, func(n parser.Node, path []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok || !slices.ContainsFunc(vs.LabelMatchers, isExportedNamespace) {
			return nil
		}
		wrap, up := parser.Node(vs), path
		if len(up) >= 2 {
			if _, ok := up[len(up)-1].(*parser.MatrixSelector); ok {
				// A range selector cannot be relabelled: its function's result is.
				wrap, up = up[len(up)-2], up[:len(up)-2]
			}
		}
		if len(up) > 0 && readsExportedNamespace(up[len(up)-1]) {
			return nil // rewritten already
		}
		pr := wrap.PositionRange()
		spans = append(spans, span{int(pr.Start), int(pr.End)})
		return nil
	})
	if len(spans) == 0 {
		return expr, nil
	}
	// Insert from the end so that earlier offsets stay valid. Text inserted later at one
	// offset lands before what is there: opening first puts a span's end before the
	// next one's start.
	type insert struct {
		at    int
		close bool
	}
	var ins []insert
	for _, s := range spans {
		ins = append(ins, insert{s.start, false}, insert{s.end, true})
	}
	slices.SortStableFunc(ins, func(a, b insert) int {
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		if a.close == b.close {
			return 0
		}
		if a.close {
			return 1
		}
		return -1
	})
	out := expr
	for _, in := range ins {
		text := "label_replace("
		if in.close {
			text = `, "namespace", "$1", "` + ExportedNamespace + `", "(.+)")`
		}
		out = out[:in.at] + text + out[in.at:]
	}
	if _, err := parser.NewParser(parser.Options{}).ParseExpr(out); err != nil {
		return "", fmt.Errorf("read %s: the rewrite of %q does not parse: %w", ExportedNamespace, expr, err)
	}
	return out, nil
}

// readsExportedNamespace reports whether n is the label_replace [ReadExportedNamespace]
// wraps selectors in.
func readsExportedNamespace(n parser.Node) bool {
	c, ok := n.(*parser.Call)
	if !ok || c.Func.Name != "label_replace" || len(c.Args) != 5 {
		return false
	}
	want := []string{"namespace", "$1", ExportedNamespace, "(.+)"}
	for i, w := range want {
		s, ok := c.Args[i+1].(*parser.StringLiteral)
		if !ok || s.Val != w {
			return false
		}
	}
	return true
}
