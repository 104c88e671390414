package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
)

// Query limits the Prometheus engine does not have. Its own --query.max-samples is checked
// while a query evaluates, too late for a subquery: the engine sizes a subquery's steps
// before any limit, so `max_over_time(vector(1)[1y:1ms])` (3·10¹⁰ steps) ends the process
// with "runtime: out of memory", even on an empty store. The PromQL parser is not
// cancellable and grows worse than linearly with some inputs (a 40 KB chain of `1+1+…`
// takes seconds, a 400 KB one minutes): the query's length bounds its parse time, and
// concurrent queries are bounded so that a few large ones cannot take every core and all
// memory.
const (
	// defaultMaxQueryLength: the longest generated queries seen in dashboards (a regex of
	// a few hundred pod names) are a few KB; a 64 KiB chain of binary operators still
	// parses in a few seconds on one core.
	defaultMaxQueryLength = 64 * 1024
	// defaultMaxConcurrentQueries is Prometheus' --query.max-concurrency default.
	defaultMaxConcurrentQueries = 20
	// defaultMaxSubquerySteps: about 16 MB of points per series for the largest
	// subquery; a day at a 1 s resolution is 86,400 steps, so a week of 1 s steps fits.
	defaultMaxSubquerySteps = 1_000_000
)

// queryPaths are the endpoints of the HTTP API that parse a query.
var queryPaths = []string{"/api/v1/query", "/api/v1/query_range", "/api/v1/query_exemplars", "/api/v1/format_query", "/api/v1/parse_query"}

// queryGuard checks a query against the store's limits before Prometheus' API sees it,
// and bounds the queries evaluated at once.
type queryGuard struct {
	maxLength   int
	maxSteps    int64
	timeout     time.Duration
	defaultStep func() time.Duration // a subquery without a step uses this (the evaluation interval)
	parser      parser.Parser
	slots       chan struct{}
	next        http.Handler
}

func newQueryGuard(cfg Config, p parser.Parser, defaultStep func() time.Duration, next http.Handler) *queryGuard {
	return &queryGuard{
		maxLength:   cfg.MaxQueryLength,
		maxSteps:    cfg.MaxSubquerySteps,
		timeout:     cfg.QueryTimeout,
		defaultStep: defaultStep,
		parser:      p,
		slots:       make(chan struct{}, cfg.MaxConcurrentQueries),
		next:        next,
	}
}

// ServeHTTP answers a query over the limits with Prometheus' error JSON (400 bad_data for
// its length, 422 execution for its steps, 503 timeout when no slot or parse finished in
// time), and passes every other request on.
func (g *queryGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), g.timeout)
	defer cancel()
	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	case <-ctx.Done():
		apiError(w, http.StatusServiceUnavailable, "timeout", fmt.Sprintf("no query slot free within %s (--query.max-concurrency=%d)", g.timeout, cap(g.slots)))
		return
	}
	// The form is read once here, with its size bounded; Prometheus' handler reads the
	// parsed form again.
	r.Body = http.MaxBytesReader(w, r.Body, int64(2*g.maxLength+64*1024))
	if err := r.ParseForm(); err != nil {
		apiError(w, http.StatusBadRequest, "bad_data", "read the request's form: "+err.Error())
		return
	}
	q := r.Form.Get("query")
	if len(q) > g.maxLength {
		apiError(w, http.StatusBadRequest, "bad_data", fmt.Sprintf("the query is %d bytes, more than --query.max-length=%d", len(q), g.maxLength))
		return
	}
	if q != "" {
		expr, ok := g.parse(ctx, q)
		if !ok {
			apiError(w, http.StatusServiceUnavailable, "timeout", fmt.Sprintf("parsing the query took longer than --query.timeout=%s", g.timeout))
			return
		}
		if expr != nil {
			if steps := g.subquerySteps(expr, querySpan(r)); steps > g.maxSteps {
				apiError(w, http.StatusUnprocessableEntity, "execution", fmt.Sprintf(
					"the query's subqueries would evaluate %d steps, more than --query.max-subquery-steps=%d: use a larger subquery step or a shorter range", steps, g.maxSteps))
				return
			}
		}
	}
	g.next.ServeHTTP(w, r.WithContext(ctx))
}

// parse parses q, giving up when ctx ends (the parse itself runs on; the query's length
// bounds it). A query that does not parse yields a nil expression: Prometheus' API
// answers it with its own error.
func (g *queryGuard) parse(ctx context.Context, q string) (parser.Expr, bool) {
	done := make(chan parser.Expr, 1)
	go func() {
		expr, err := g.parser.ParseExpr(q)
		if err != nil {
			expr = nil
		}
		done <- expr
	}()
	select {
	case expr := <-done:
		return expr, true
	case <-ctx.Done():
		return nil, false
	}
}

// querySpan is the time a query is evaluated over: zero for an instant query, end minus
// start for a range query (zero when they do not parse, for the API to reject).
func querySpan(r *http.Request) time.Duration {
	start, err1 := parseAPITime(r.Form.Get("start"))
	end, err2 := parseAPITime(r.Form.Get("end"))
	if err1 != nil || err2 != nil || end < start {
		return 0
	}
	return time.Duration((end - start) * float64(time.Second))
}

// subquerySteps is the most steps any subquery of expr evaluates. The engine evaluates a
// subquery once over the whole span it is asked for (the query's, or the enclosing
// subquery's) widened by its own range, at its step: a 30-day dashboard of
// max_over_time(x[1h:1m]) is 43,261 steps, while [1y:1ms] is 3·10¹⁰ at any span.
func (g *queryGuard) subquerySteps(expr parser.Expr, span time.Duration) int64 {
	var worst int64
	var walk func(n parser.Node, span time.Duration)
	walk = func(n parser.Node, span time.Duration) {
		if sq, ok := n.(*parser.SubqueryExpr); ok {
			step := sq.Step
			if step <= 0 {
				step = max(g.defaultStep(), time.Millisecond)
			}
			span = min(span+sq.Range, time.Duration(math.MaxInt64/2))
			worst = max(worst, int64(span/step)+1)
		}
		for _, c := range parser.Children(n) {
			walk(c, span)
		}
	}
	walk(expr, span)
	return worst
}

// parseAPITime reads a time as Prometheus' API does: Unix seconds (with a fraction) or
// RFC 3339; in seconds.
func parseAPITime(s string) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	return float64(t.UnixNano()) / 1e9, nil
}

// apiError writes an error in the JSON shape of Prometheus' HTTP API.
func apiError(w http.ResponseWriter, code int, errorType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "error", "errorType": errorType, "error": msg})
}
