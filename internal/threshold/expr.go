// Package threshold parses and evaluates k6 threshold expressions
// (reference/k6.md §4.2): keys such as `http_req_duration{scenario:spike}` and
// expressions such as `p(95)<500`, with abortOnFail and delayAbortEval.
//
// Units: k6 thresholds on time metrics are written in milliseconds, while Tidemark
// stores time values in seconds (metrics.Time). A Source reports values in Tidemark's
// units (seconds); the Set converts them to milliseconds before comparing, and
// Outcome.Value is in k6's units (milliseconds for time metrics).
package threshold

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Agg is an aggregation method of a threshold expression.
type Agg uint8

// The k6 aggregation methods.
const (
	Count      Agg = iota + 1 // Counter: sum of the values.
	Rate                      // Counter: count per second of the run; Rate: share of non-zero samples.
	Value                     // Gauge: last value.
	Avg                       // Trend: mean.
	Min                       // Trend: minimum.
	Max                       // Trend: maximum.
	Med                       // Trend: median.
	Percentile                // Trend: p(N).
)

// Method is the left-hand side of a threshold expression: an aggregation and, for
// Percentile, its percentile P in [0, 100]. Methods are comparable and can be map keys.
type Method struct {
	Agg Agg
	P   float64
}

// String returns the method as k6 writes it: "count", "avg", "p(95)", "p(99.9)".
func (m Method) String() string {
	if m.Agg == Percentile {
		return "p(" + strconv.FormatFloat(m.P, 'g', -1, 64) + ")"
	}
	if n := m.Agg.name(); n != "" {
		return n
	}
	return fmt.Sprintf("agg(%d)", uint8(m.Agg))
}

// name is k6's name of an aggregation without an argument, "" for Percentile and
// unknown values. parseMethod reads the same table.
func (a Agg) name() string {
	switch a {
	case Count:
		return "count"
	case Rate:
		return "rate"
	case Value:
		return "value"
	case Avg:
		return "avg"
	case Min:
		return "min"
	case Max:
		return "max"
	case Med:
		return "med"
	}
	return ""
}

// ValidFor reports whether k6 allows the method on a metric of type t: counter count
// and rate, gauge value, rate rate, trend avg, min, max, med and p(N).
func (m Method) ValidFor(t metrics.Type) bool {
	switch t {
	case metrics.Counter:
		return m.Agg == Count || m.Agg == Rate
	case metrics.Gauge:
		return m.Agg == Value
	case metrics.Rate:
		return m.Agg == Rate
	case metrics.Trend:
		switch m.Agg {
		case Avg, Min, Max, Med, Percentile:
			return true
		}
	}
	return false
}

// MethodsFor lists the methods k6 allows on a metric of type t, for messages.
func MethodsFor(t metrics.Type) string {
	switch t {
	case metrics.Counter:
		return "count, rate"
	case metrics.Gauge:
		return "value"
	case metrics.Rate:
		return "rate"
	case metrics.Trend:
		return "avg, min, max, med, p(N)"
	}
	return ""
}

// Op is a comparison operator.
type Op uint8

// The k6 operators. Equal is `==` and StrictEqual `===`; both compare numbers.
const (
	Greater Op = iota + 1
	GreaterEqual
	LessEqual
	Less
	Equal
	StrictEqual
	NotEqual
)

type opToken struct {
	tok string
	op  Op
}

// opTokens returns the scan order: a longer token that shares a prefix with a shorter
// one comes first, so `<=` is not read as `<` followed by `=500`.
func opTokens() [7]opToken {
	return [7]opToken{
		{"<=", LessEqual},
		{"<", Less},
		{">=", GreaterEqual},
		{">", Greater},
		{"===", StrictEqual},
		{"==", Equal},
		{"!=", NotEqual},
	}
}

// String returns the operator's token.
func (o Op) String() string {
	for _, t := range opTokens() {
		if t.op == o {
			return t.tok
		}
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Compare reports whether `v op threshold` holds.
func (o Op) Compare(v, threshold float64) bool {
	switch o {
	case Greater:
		return v > threshold
	case GreaterEqual:
		return v >= threshold
	case LessEqual:
		return v <= threshold
	case Less:
		return v < threshold
	case Equal, StrictEqual:
		return v == threshold
	case NotEqual:
		return v != threshold
	}
	return false
}

// Expr is one parsed threshold expression `method op value`.
type Expr struct {
	Method Method
	Op     Op
	Value  float64
	// Source is the expression as written, used as its name in the summary.
	Source string
}

// Pass reports whether the observed value v (in k6's units) satisfies the expression.
func (e Expr) Pass(v float64) bool { return e.Op.Compare(v, e.Value) }

// ErrSyntax is wrapped by every parse error of this package.
var ErrSyntax = errors.New("invalid threshold")

// ParseExpr parses `method op value`, e.g. `p(95)<500`, `rate < 0.01`, `count>=10`.
// Spaces around the method, the operator and the value are ignored.
func ParseExpr(s string) (Expr, error) {
	var (
		lhs, rhs string
		op       Op
	)
	for _, t := range opTokens() {
		if i := strings.Index(s, t.tok); i >= 0 {
			lhs, rhs, op = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(t.tok):]), t.op
			break
		}
	}
	if op == 0 {
		return Expr{}, fmt.Errorf("%w expression %q: no operator; expected `method op value` with op one of > >= <= < == === !=, e.g. 'p(95)<500'", ErrSyntax, s)
	}
	m, err := parseMethod(lhs)
	if err != nil {
		return Expr{}, fmt.Errorf("%w expression %q: %w", ErrSyntax, s, err)
	}
	v, err := parseNumber(rhs)
	if err != nil {
		return Expr{}, fmt.Errorf("%w expression %q: right-hand side %q is not a number", ErrSyntax, s, rhs)
	}
	return Expr{Method: m, Op: op, Value: v, Source: s}, nil
}

// MethodOf returns the method of an expression as written, without parsing or
// validating it: the text before its operator, trimmed ("p(95)<500" → "p(95)",
// " rate < 0.1" → "rate"), or the whole expression trimmed when it has no operator.
// The summaries name a threshold's statistic with it.
func MethodOf(expr string) string {
	if i := strings.IndexAny(expr, "=><!"); i >= 0 {
		return strings.TrimSpace(expr[:i])
	}
	return strings.TrimSpace(expr)
}

// parseNumber accepts decimal numbers only: strconv.ParseFloat would also take NaN,
// Inf, hexadecimal and underscores, none of which makes sense in a threshold.
func parseNumber(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("empty number")
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return 0, fmt.Errorf("invalid character %q", c)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("out of range")
	}
	return v, nil
}

// methodList names the methods for error messages.
const methodList = "count, rate, value, avg, min, max, med, p(N)"

func parseMethod(s string) (Method, error) {
	if s == "" {
		return Method{}, errors.New("missing method; expected one of " + methodList)
	}
	for a := Count; a < Percentile; a++ {
		if a.name() == s {
			return Method{Agg: a}, nil
		}
	}
	if strings.HasPrefix(s, "p(") && strings.HasSuffix(s, ")") {
		in := strings.TrimSpace(s[2 : len(s)-1])
		p, err := parseNumber(in)
		if err != nil || p < 0 || p > 100 {
			return Method{}, fmt.Errorf("percentile %q out of range; expected p(N) with N a number from 0 to 100, e.g. p(95) or p(99.9)", in)
		}
		return Method{Agg: Percentile, P: p}, nil
	}
	return Method{}, fmt.Errorf("unknown method %q; expected one of %s", s, methodList)
}
