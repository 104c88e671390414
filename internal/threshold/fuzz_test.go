package threshold

import (
	"testing"
	"time"
)

// FuzzThreshold parses arbitrary keys and expressions and evaluates whatever parses;
// nothing may panic, and a parsed expression must print a method that parses again.
func FuzzThreshold(f *testing.F) {
	for _, s := range [][2]string{
		{"http_req_duration", "p(95)<500"},
		{"http_req_duration{scenario:spike}", "p(99.9) <= 1.5"},
		{`http_req_duration{ "status" : '200', method:GET }`, "avg!=2"},
		{"group_duration{group:::x}", "med===1"},
		{"http_reqs", "count>=10"},
		{"http_reqs", "rate>1e3"},
		{"vus", "value==1"},
		{"http_req_failed", "rate<0.01"},
		{"m{a:1,}", "p(101)<1"},
		{"m}{", "<"},
	} {
		f.Add(s[0], s[1], int64(time.Second))
	}
	types := builtinTypes()
	f.Fuzz(func(t *testing.T, key, expr string, elapsed int64) {
		if k, err := ParseKey(key); err == nil {
			_ = k.ID()
			_ = k.Match(nil)
		}
		e, err := ParseExpr(expr)
		if err == nil {
			if _, err := parseMethod(e.Method.String()); err != nil {
				t.Fatalf("method %q of %q does not parse again: %v", e.Method, expr, err)
			}
		}
		s, err := NewSet([]Def{{Key: key, Expr: expr, AbortOnFail: true}}, types)
		if err != nil {
			return
		}
		src := fake{{Agg: Count}: 1, {Agg: Rate}: 0.5, {Agg: Value}: 2, {Agg: Avg}: 3, {Agg: Min}: 1, {Agg: Max}: 9, {Agg: Med}: 3, e.Method: 4}
		for _, final := range []bool{false, true} {
			r := s.Evaluate(time.Duration(elapsed), final, func(*Key) Source { return src })
			_ = r.Err()
			_ = s.Evaluate(time.Duration(elapsed), final, func(*Key) Source { return nil }).Err()
		}
	})
}
