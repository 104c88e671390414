package threshold

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/metrics"
)

func TestParseExpr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    Expr
		wantErr string
	}{
		{in: "p(95)<500", want: Expr{Method: Method{Agg: Percentile, P: 95}, Op: Less, Value: 500}},
		{in: "p(99.9) <= 1.5", want: Expr{Method: Method{Agg: Percentile, P: 99.9}, Op: LessEqual, Value: 1.5}},
		{in: " p( 0 )>=0", want: Expr{Method: Method{Agg: Percentile, P: 0}, Op: GreaterEqual, Value: 0}},
		{in: "p(100)>1e3", want: Expr{Method: Method{Agg: Percentile, P: 100}, Op: Greater, Value: 1000}},
		{in: "rate<0.01", want: Expr{Method: Method{Agg: Rate}, Op: Less, Value: 0.01}},
		{in: "count == 10", want: Expr{Method: Method{Agg: Count}, Op: Equal, Value: 10}},
		{in: "value===3", want: Expr{Method: Method{Agg: Value}, Op: StrictEqual, Value: 3}},
		{in: "avg!=-2", want: Expr{Method: Method{Agg: Avg}, Op: NotEqual, Value: -2}},
		{in: "min>1", want: Expr{Method: Method{Agg: Min}, Op: Greater, Value: 1}},
		{in: "max<+.5", want: Expr{Method: Method{Agg: Max}, Op: Less, Value: 0.5}},
		{in: "med<=200", want: Expr{Method: Method{Agg: Med}, Op: LessEqual, Value: 200}},
		{in: "p(95)", wantErr: `invalid threshold expression "p(95)": no operator; expected ` + "`method op value`" + ` with op one of > >= <= < == === !=, e.g. 'p(95)<500'`},
		{in: "", wantErr: `invalid threshold expression "": no operator; expected ` + "`method op value`" + ` with op one of > >= <= < == === !=, e.g. 'p(95)<500'`},
		{in: "<500", wantErr: `invalid threshold expression "<500": missing method; expected one of count, rate, value, avg, min, max, med, p(N)`},
		{in: "p95<500", wantErr: `invalid threshold expression "p95<500": unknown method "p95"; expected one of count, rate, value, avg, min, max, med, p(N)`},
		{in: "p(101)<500", wantErr: `invalid threshold expression "p(101)<500": percentile "101" out of range; expected p(N) with N a number from 0 to 100, e.g. p(95) or p(99.9)`},
		{in: "p(-1)<500", wantErr: `invalid threshold expression "p(-1)<500": percentile "-1" out of range; expected p(N) with N a number from 0 to 100, e.g. p(95) or p(99.9)`},
		{in: "p(NaN)<500", wantErr: `invalid threshold expression "p(NaN)<500": percentile "NaN" out of range; expected p(N) with N a number from 0 to 100, e.g. p(95) or p(99.9)`},
		{in: "p(95)<500ms", wantErr: `invalid threshold expression "p(95)<500ms": right-hand side "500ms" is not a number`},
		{in: "p(95)<Inf", wantErr: `invalid threshold expression "p(95)<Inf": right-hand side "Inf" is not a number`},
		{in: "p(95)<1e999", wantErr: `invalid threshold expression "p(95)<1e999": right-hand side "1e999" is not a number`},
		{in: "avg<>1", wantErr: `invalid threshold expression "avg<>1": right-hand side ">1" is not a number`},
		{in: "avg<", wantErr: `invalid threshold expression "avg<": right-hand side "" is not a number`},
		{in: "AVG<1", wantErr: `invalid threshold expression "AVG<1": unknown method "AVG"; expected one of count, rate, value, avg, min, max, med, p(N)`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseExpr(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrSyntax)
				return
			}
			require.NoError(t, err)
			tc.want.Source = tc.in
			require.Equal(t, tc.want, got)
		})
	}
}

func TestOpCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op               Op
		less, eq, greate bool
	}{
		{Greater, false, false, true},
		{GreaterEqual, false, true, true},
		{LessEqual, true, true, false},
		{Less, true, false, false},
		{Equal, false, true, false},
		{StrictEqual, false, true, false},
		{NotEqual, true, false, true},
	} {
		t.Run(tc.op.String(), func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.less, tc.op.Compare(1, 2), "1 %s 2", tc.op)
			require.Equal(t, tc.eq, tc.op.Compare(2, 2), "2 %s 2", tc.op)
			require.Equal(t, tc.greate, tc.op.Compare(3, 2), "3 %s 2", tc.op)
			e, err := ParseExpr("avg" + tc.op.String() + "2")
			require.NoError(t, err)
			require.Equal(t, tc.op, e.Op)
		})
	}
	require.False(t, Op(0).Compare(1, 1))
	require.Equal(t, "op(0)", Op(0).String())
}

func TestMethodValidFor(t *testing.T) {
	t.Parallel()
	all := []Method{{Agg: Count}, {Agg: Rate}, {Agg: Value}, {Agg: Avg}, {Agg: Min}, {Agg: Max}, {Agg: Med}, {Agg: Percentile, P: 90}}
	want := map[metrics.Type][]string{
		metrics.Counter: {"count", "rate"},
		metrics.Gauge:   {"value"},
		metrics.Rate:    {"rate"},
		metrics.Trend:   {"avg", "min", "max", "med", "p(90)"},
	}
	for typ, ok := range want {
		var got []string
		for _, m := range all {
			if m.ValidFor(typ) {
				got = append(got, m.String())
			}
		}
		require.Equal(t, ok, got, typ.String())
	}
	require.Equal(t, "p(99.9)", Method{Agg: Percentile, P: 99.9}.String())
	require.Equal(t, "agg(0)", Method{}.String())
	for _, m := range []Method{{Agg: Count}, {Agg: Rate}, {Agg: Value}, {Agg: Avg}, {Agg: Min}, {Agg: Max}, {Agg: Med}, {Agg: Percentile, P: 99.9}} {
		back, err := parseMethod(m.String())
		require.NoError(t, err)
		require.Equal(t, m, back, "String and parseMethod read one table")
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	tag := func(k, v string) metrics.Tag { return metrics.Tag{Key: k, Value: v} }
	for _, tc := range []struct {
		in      string
		want    Key
		wantID  string
		wantErr string
	}{
		{in: "http_req_duration", want: Key{Metric: "http_req_duration", Name: "http_req_duration"}, wantID: "http_req_duration"},
		{in: " http_reqs ", want: Key{Metric: "http_reqs", Name: "http_reqs"}, wantID: "http_reqs"},
		{
			in:     "http_req_duration{scenario:spike}",
			want:   Key{Metric: "http_req_duration", Tags: []metrics.Tag{tag("scenario", "spike")}, Name: "http_req_duration{scenario:spike}", Suffix: "scenario:spike"},
			wantID: "http_req_duration{scenario:spike}",
		},
		{
			in:     `http_req_duration{ "status" : '200', method:GET }`,
			want:   Key{Metric: "http_req_duration", Tags: []metrics.Tag{tag("method", "GET"), tag("status", "200")}, Name: `http_req_duration{"status" : '200', method:GET}`, Suffix: `"status" : '200', method:GET`},
			wantID: "http_req_duration{method:GET,status:200}",
		},
		{
			in:     "group_duration{group:::individualRequests}",
			want:   Key{Metric: "group_duration", Tags: []metrics.Tag{tag("group", "::individualRequests")}, Name: "group_duration{group:::individualRequests}", Suffix: "group:::individualRequests"},
			wantID: "group_duration{group:::individualRequests}",
		},
		{in: "", wantErr: "invalid threshold metric: empty name"},
		{in: "http req", wantErr: `invalid threshold metric "http req": a name has no spaces`},
		{in: "m{a:1", wantErr: `invalid threshold metric "m{a:1": unmatched curly brace; expected metric{tag:value,...}`},
		{in: "m}a:1", wantErr: `invalid threshold metric "m}a:1": unmatched curly brace; expected metric{tag:value,...}`},
		{in: "m}a:1{", wantErr: `invalid threshold metric "m}a:1{": curly brace in the wrong place; expected metric{tag:value,...}`},
		{in: "m{a:1}x", wantErr: `invalid threshold metric "m{a:1}x": curly brace in the wrong place; expected metric{tag:value,...}`},
		{in: "{a:1}", wantErr: `invalid threshold metric "{a:1}": bad metric name ""`},
		{in: "m{ }", wantErr: `invalid threshold metric "m{ }": empty tag selector; expected metric{tag:value,...}`},
		{in: "m{a}", wantErr: `invalid threshold metric "m{a}": malformed tag "a"; expected tag:value`},
		{in: "m{a:}", wantErr: `invalid threshold metric "m{a:}": malformed tag "a:"; expected tag:value`},
		{in: "m{a:1,}", wantErr: `invalid threshold metric "m{a:1,}": malformed tag ""; expected tag:value`},
		{in: "m{:1}", wantErr: `invalid threshold metric "m{:1}": malformed tag ":1"; expected tag:value`},
		{in: "m{a:1,a:2}", wantErr: `invalid threshold metric "m{a:1,a:2}": tag "a" given twice`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKey(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.ErrorIs(t, err, ErrSyntax)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantID, got.ID())
		})
	}
}

func TestKeyMatch(t *testing.T) {
	t.Parallel()
	p := metrics.NewTagPool()
	ts := p.Intern([]metrics.Tag{{Key: "scenario", Value: "spike"}, {Key: "method", Value: "GET"}})
	k, err := ParseKey("http_req_duration{scenario:spike}")
	require.NoError(t, err)
	require.True(t, k.Match(ts))
	k2, err := ParseKey("http_req_duration{scenario:load}")
	require.NoError(t, err)
	require.False(t, k2.Match(ts))
	whole, err := ParseKey("http_req_duration")
	require.NoError(t, err)
	require.True(t, whole.Match(nil))
	require.False(t, k.Match(nil))
	vu, err := ParseKey("http_reqs{vu:1}")
	require.NoError(t, err)
	require.True(t, vu.NonIndexable())
	require.False(t, k.NonIndexable())
}

func builtinTypes() TypeFunc {
	r := metrics.NewRegistry()
	metrics.RegisterBuiltin(r)
	return RegistryTypes(r)
}

// fake is a Source with fixed values in Tidemark units.
type fake map[Method]float64

func (f fake) Value(m Method) (float64, bool) { v, ok := f[m]; return v, ok }

func TestNewSetErrors(t *testing.T) {
	t.Parallel()
	_, err := NewSet([]Def{
		{Key: "http_req_duration", Expr: "rate<1"},
		{Key: "http_reqs", Expr: "p(95)<1"},
		{Key: "vus", Expr: "count>1"},
		{Key: "checks", Expr: "count>1"},
		{Key: "http_req_durations", Expr: "p(95)<1"},
		{Key: "http_reqs{a", Expr: "count>1"},
		{Key: "http_reqs", Expr: "count>"},
		{Key: "http_reqs", Expr: "count>1", DelayAbortEval: -time.Second},
		{Key: "http_reqs", Expr: "count>1", Window: 500 * time.Millisecond},
	}, builtinTypes())
	require.EqualError(t, err, `invalid threshold "rate<1" on http_req_duration: method rate is not valid for a trend metric; expected one of avg, min, max, med, p(N)
invalid threshold "p(95)<1" on http_reqs: method p(95) is not valid for a counter metric; expected one of count, rate
invalid threshold "count>1" on vus: method count is not valid for a gauge metric; expected one of value
invalid threshold "count>1" on checks: method count is not valid for a rate metric; expected one of rate
invalid threshold on http_req_durations: no metric named "http_req_durations"
invalid threshold metric "http_reqs{a": unmatched curly brace; expected metric{tag:value,...}
http_reqs: invalid threshold expression "count>": right-hand side "" is not a number
invalid threshold on http_reqs: delayAbortEval -1s is negative
invalid threshold "count>1" on http_reqs: window 500ms is shorter than 1s; windows are evaluated every second`)
}

func TestSetEvaluate(t *testing.T) {
	t.Parallel()
	s, err := NewSet([]Def{
		{Key: "http_req_duration", Expr: "p(95)<500"},
		{Key: "http_req_duration", Expr: "avg<200"},
		{Key: "http_req_failed", Expr: "rate<0.01"},
		{Key: "http_reqs", Expr: "rate>=10"},
		{Key: "http_reqs", Expr: "count>100"},
		{Key: "vus", Expr: "value<=5"},
		{Key: "http_req_duration{scenario:spike}", Expr: "max<1000", AbortOnFail: true, DelayAbortEval: 10 * time.Second},
		{Key: "data_received", Expr: "count>1000"},
	}, builtinTypes())
	require.NoError(t, err)
	require.Nil(t, s.Last())

	sources := map[string]Source{
		"data_received":                     fake{{Agg: Count}: 2000},
		"http_req_duration":                 fake{{Agg: Percentile, P: 95}: 0.4, {Agg: Avg}: 0.25},
		"http_req_duration{scenario:spike}": fake{{Agg: Max}: 1.5},
		"http_req_failed":                   fake{{Agg: Rate}: 0.001},
		"http_reqs":                         fake{{Agg: Count}: 200},
		"vus":                               fake{{Agg: Value}: 5},
	}
	lookup := func(k *Key) Source { return sources[k.ID()] }

	// At 5 s the spike threshold fails, but its delayAbortEval (10 s) has not passed.
	r := s.Evaluate(5*time.Second, false, lookup)
	var order []string
	for _, o := range r.Outcomes {
		order = append(order, o.Threshold.Key.Name+" "+o.Threshold.Expr.Source)
	}
	require.Equal(t, []string{
		"data_received count>1000", "http_req_duration p(95)<500", "http_req_duration avg<200", "http_req_duration{scenario:spike} max<1000",
		"http_req_failed rate<0.01", "http_reqs rate>=10", "http_reqs count>100", "vus value<=5",
	}, order, "outcomes by (sub-)metric name, then definition")
	require.Equal(t, []string{"http_req_duration", "http_req_duration{scenario:spike}"}, r.Crossed)
	require.False(t, r.Abort)
	require.Same(t, r, s.Last())
	byExpr := map[string]Outcome{}
	for _, o := range r.Outcomes {
		byExpr[o.Threshold.Key.Name+" "+o.Threshold.Expr.Source] = o
	}
	require.InDelta(t, 400, byExpr["http_req_duration p(95)<500"].Value, 1e-9, "seconds become milliseconds")
	require.True(t, byExpr["http_req_duration p(95)<500"].Passed)
	require.InDelta(t, 250, byExpr["http_req_duration avg<200"].Value, 1e-9)
	require.False(t, byExpr["http_req_duration avg<200"].Passed)
	require.InDelta(t, 40, byExpr["http_reqs rate>=10"].Value, 1e-9, "count / elapsed seconds")
	require.True(t, byExpr["http_reqs rate>=10"].Passed)
	require.InDelta(t, 0.001, byExpr["http_req_failed rate<0.01"].Value, 1e-12, "rates are not scaled")
	require.InDelta(t, 2000, byExpr["data_received count>1000"].Value, 1e-9, "bytes are not scaled")
	require.EqualError(t, r.Err(), "thresholds on metrics 'http_req_duration, http_req_duration{scenario:spike}' have been crossed")

	// At 10 s the delay has not yet been exceeded (k6 aborts when delay < elapsed).
	require.False(t, s.Evaluate(10*time.Second, false, lookup).Abort)
	r = s.Evaluate(11*time.Second, false, lookup)
	require.True(t, r.Abort)
	require.EqualError(t, r.Err(), "thresholds on metrics 'http_req_duration, http_req_duration{scenario:spike}' were crossed; at least one has abortOnFail enabled, stopping test prematurely")
	var ce *CrossedError
	require.ErrorAs(t, r.Err(), &ce)

	// The final evaluation never aborts.
	r = s.Evaluate(11*time.Second, true, lookup)
	require.False(t, r.Abort)
	require.True(t, r.Final)

	// All passing.
	sources["http_req_duration"] = fake{{Agg: Percentile, P: 95}: 0.1, {Agg: Avg}: 0.1}
	sources["http_req_duration{scenario:spike}"] = fake{{Agg: Max}: 0.999}
	r = s.Evaluate(11*time.Second, true, lookup)
	require.Empty(t, r.Crossed)
	require.NoError(t, r.Err())
}

func TestSetEvaluateEmpty(t *testing.T) {
	t.Parallel()
	s, err := NewSet([]Def{
		{Key: "http_req_failed", Expr: "rate<0.01"},
		{Key: "http_req_failed", Expr: "rate>0.5"},
		{Key: "http_reqs", Expr: "count>0"},
		{Key: "http_reqs", Expr: "rate<1"},
		{Key: "iteration_duration", Expr: "p(95)>1"},
		{Key: "vus", Expr: "value>0", AbortOnFail: true},
	}, builtinTypes())
	require.NoError(t, err)
	none := func(*Key) Source { return nil }

	// During the run, empty metrics are skipped.
	r := s.Evaluate(time.Minute, false, none)
	require.Empty(t, r.Crossed)
	require.False(t, r.Abort)
	for _, o := range r.Outcomes {
		require.True(t, o.Skipped)
		require.True(t, o.Passed)
	}

	// At the end they are evaluated as empty sinks: counter 0, trend 0, gauge 0, and a
	// rate without samples has no value and passes.
	r = s.Evaluate(time.Minute, true, none)
	require.Equal(t, []string{"http_reqs", "iteration_duration", "vus"}, r.Crossed)
	require.False(t, r.Abort)
	require.False(t, r.Outcomes[0].HasValue)
	require.True(t, r.Outcomes[0].Passed)
	require.True(t, r.Outcomes[1].Passed)

	// A source that lacks a value passes too; a counter rate before any time passed has
	// no value.
	r = s.Evaluate(0, false, func(*Key) Source { return fake{} })
	require.Empty(t, r.Crossed)
}

func TestSetEvaluateWindow(t *testing.T) {
	t.Parallel()
	s, err := NewSet([]Def{
		{Key: "http_req_duration", Expr: "p(95)<500", AbortOnFail: true},
		{Key: "http_req_failed", Expr: "rate<0.01"},
		{Key: "http_reqs", Expr: "rate>=5"},
	}, builtinTypes())
	require.NoError(t, err)
	final := s.Evaluate(time.Minute, true, func(*Key) Source { return nil })

	// A 20 s window: empty metrics are evaluated as at the final evaluation, a counter's
	// rate divides by the window, nothing aborts, and the run's last result stays.
	for _, tc := range []struct {
		name    string
		sources map[string]Source
		crossed []string
	}{
		{name: "empty window", crossed: []string{"http_reqs"}},
		{name: "a window over its SLO", sources: map[string]Source{
			"http_req_duration": fake{{Agg: Percentile, P: 95}: 0.812},
			"http_req_failed":   fake{{Agg: Rate}: 0},
			"http_reqs":         fake{{Agg: Count}: 200},
		}, crossed: []string{"http_req_duration"}},
	} {
		r := s.EvaluateWindow(20*time.Second, func(k *Key) Source { return tc.sources[k.ID()] })
		require.Equal(t, tc.crossed, r.Crossed, tc.name)
		require.False(t, r.Abort, tc.name)
		for _, o := range r.Outcomes {
			require.False(t, o.Skipped, tc.name)
		}
		if tc.sources != nil {
			require.InDelta(t, 10, r.Outcomes[2].Value, 1e-9, "200 requests in the 20 s window")
			require.InDelta(t, 812, r.Outcomes[0].Value, 1e-9)
		}
		require.Same(t, final, s.Last(), "a window's evaluation is not the run's")
	}
	require.Equal(t, metrics.Trend, final.Outcomes[0].Threshold.Type)
	require.Equal(t, metrics.Time, final.Outcomes[0].Threshold.Contains)
}

func TestMethodOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"p(95)<500":   "p(95)",
		" rate < 0.1": "rate",
		"count>=10":   "count",
		"avg!=3":      "avg",
		"value===1":   "value",
		"med":         "med",
	} {
		require.Equal(t, want, MethodOf(in), in)
	}
}

// windowAt serves a windowed threshold's windows: the p(95) (seconds) and the count of
// the window that ends at each elapsed second.
type windowAt struct {
	now  time.Duration
	p95  map[time.Duration]float64
	seen []time.Duration
}

func (w *windowAt) fn(_ *Key, win time.Duration) (Source, time.Duration, bool) {
	w.seen = append(w.seen, win)
	if w.now < win {
		return nil, 0, false
	}
	v, ok := w.p95[w.now]
	if !ok {
		return nil, 0, false
	}
	return fake{{Agg: Percentile, P: 95}: v, {Agg: Count}: 10 * win.Seconds()}, win, true
}

func TestSetEvaluateLiveWindowed(t *testing.T) {
	t.Parallel()
	s, err := NewSet([]Def{
		{Key: "http_req_duration", Expr: "p(95)<500"},
		{Key: "http_req_duration", Expr: "p(95)<500", Window: 30 * time.Second, AbortOnFail: true},
		{Key: "http_reqs", Expr: "rate>5", Window: 10 * time.Second},
	}, builtinTypes())
	require.NoError(t, err)
	require.True(t, s.Windowed())
	ths := s.Thresholds()
	require.Equal(t, "p(95)<500", ths[0].Name())
	require.Equal(t, "p(95)<500 over 30s", ths[1].Name())
	require.Equal(t, "rate>5 over 10s", ths[2].Name())

	whole := func(*Key) Source {
		return fake{{Agg: Percentile, P: 95}: 0.3, {Agg: Count}: 1000}
	}
	w := &windowAt{p95: map[time.Duration]float64{
		30 * time.Second: 0.2, 31 * time.Second: 0.6, 32 * time.Second: 0.9, 33 * time.Second: 0.4,
		40 * time.Second: 0.7, 41 * time.Second: 0.1,
	}}

	// Before the first full window, only the whole-run threshold is judged.
	w.now = 20 * time.Second
	r := s.EvaluateLive(w.now, false, whole, w.fn)
	require.Empty(t, r.Crossed)
	require.True(t, r.Outcomes[1].Skipped)
	require.Equal(t, 0, r.Outcomes[1].Window.Evaluated)

	w.now = 30 * time.Second
	r = s.EvaluateLive(w.now, false, whole, w.fn)
	require.Empty(t, r.Crossed)
	require.False(t, r.Outcomes[1].Skipped)
	require.InDelta(t, 200, r.Outcomes[1].Value, 1e-9)

	// The window ending at 31 s fails: the run aborts though the whole run passes.
	w.now = 31 * time.Second
	r = s.EvaluateLive(w.now, false, whole, w.fn)
	require.Equal(t, []string{"http_req_duration"}, r.Crossed)
	require.True(t, r.Outcomes[0].Passed, "the whole-run p95 passes")
	require.False(t, r.Outcomes[1].Passed)
	require.True(t, r.Abort)
	require.InDelta(t, 600, r.Outcomes[1].Value, 1e-9)
	require.InDelta(t, 10, r.Outcomes[2].Value, 1e-9, "100 requests in the 10 s window")

	for _, now := range []time.Duration{32 * time.Second, 33 * time.Second, 40 * time.Second, 41 * time.Second} {
		w.now = now
		r = s.EvaluateLive(now, false, whole, w.fn)
	}
	require.False(t, r.Abort, "the window ending at 41 s passes")

	r = s.EvaluateLive(41*time.Second, true, whole, w.fn)
	require.False(t, r.Abort, "the final evaluation never aborts")
	require.Equal(t, []string{"http_req_duration"}, r.Crossed, "a failed window fails the run")
	o := r.Outcomes[1]
	require.False(t, o.Passed)
	require.InDelta(t, 900, o.Value, 1e-9, "the worst window's value")
	rec := o.Window
	require.Equal(t, 30*time.Second, rec.Window)
	require.Equal(t, 7, rec.Evaluated)
	require.Equal(t, WindowValue{Start: 2 * time.Second, End: 32 * time.Second, Value: 900, HasValue: true}, rec.Worst)
	require.Equal(t, WindowValue{Start: time.Second, End: 31 * time.Second, Value: 600, HasValue: true}, rec.FirstFailure)
	require.Equal(t, []Span{{First: 31 * time.Second, Last: 32 * time.Second}, {First: 40 * time.Second, Last: 40 * time.Second}}, rec.Fails)
	require.True(t, rec.FailedBetween(30*time.Second, 31*time.Second))
	require.True(t, rec.FailedBetween(35*time.Second, 45*time.Second))
	require.False(t, rec.FailedBetween(32*time.Second, 39*time.Second))
	require.Equal(t, rec.Worst, s.Records()[ths[1]].Worst)
	require.True(t, r.Outcomes[2].Passed)

	// A stage's window leaves windowed thresholds to their record.
	r = s.EvaluateWindow(10*time.Second, whole)
	require.Empty(t, r.Crossed)
	require.True(t, r.Outcomes[1].Skipped)
	require.True(t, r.Outcomes[1].Window.Failed)

	// Evaluate (no WindowFunc) skips windowed thresholds during the run.
	r = s.Evaluate(50*time.Second, false, whole)
	require.True(t, r.Outcomes[1].Skipped)
	require.False(t, r.Abort)
}

func TestWindowWorst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		a, b WindowValue
		want bool
	}{
		{"p(95)<500", WindowValue{Value: 600}, WindowValue{Value: 700}, false},
		{"p(95)<500", WindowValue{Value: 700}, WindowValue{Value: 600}, true},
		{"rate>5", WindowValue{Value: 1}, WindowValue{Value: 3}, true},
		{"rate>5", WindowValue{Value: 1, Passed: true}, WindowValue{Value: 3}, false},
		{"value==5", WindowValue{Value: 1}, WindowValue{Value: 6}, true},
		{"value!=5", WindowValue{Value: 5}, WindowValue{Value: 6}, true},
	} {
		e, err := ParseExpr(tc.expr)
		require.NoError(t, err)
		require.Equal(t, tc.want, worse(e, tc.a, tc.b), "%s %v %v", tc.expr, tc.a, tc.b)
	}
	require.Equal(t, "30s", FormatWindow(30*time.Second))
	require.Equal(t, "2m", FormatWindow(2*time.Minute))
	require.Equal(t, "1m30s", FormatWindow(90*time.Second))
	require.Equal(t, "1h", FormatWindow(time.Hour))
}
