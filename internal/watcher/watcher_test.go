package watcher

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
)

// vectorQuerier answers every instant query with its vector and records the queries.
type vectorQuerier struct {
	vec     model.Vector
	queries []string
}

func (q *vectorQuerier) Query(_ context.Context, expr string, _ time.Time) (model.Value, v1.Warnings, error) {
	q.queries = append(q.queries, expr)
	return q.vec, nil, nil
}

func (q *vectorQuerier) QueryRange(context.Context, string, v1.Range) (model.Value, v1.Warnings, error) {
	return model.Matrix{}, nil, nil
}

func probe(labels ...string) *model.Sample {
	m := model.Metric{}
	for i := 0; i+1 < len(labels); i += 2 {
		m[model.LabelName(labels[i])] = model.LabelValue(labels[i+1])
	}
	return &model.Sample{Metric: m, Value: 1}
}

// TestListGroups: a run Tidemark made is grouped by its test's identity on
// tidemark_run_info (so two runs of one scenario file with unrelated testids are one
// group), a run k6 made by regress.Group of its testid, and --group-by wins over both.
func TestListGroups(t *testing.T) {
	t.Parallel()
	// What `group by (testid, test_file, test_hash[, team])` returns: a Tidemark run has
	// one row from tidemark_run_info (with its identity) and one from k6_vus (without).
	vec := model.Vector{
		probe("testid", "monday-smoke", "test_file", "spike-50.yaml", "test_hash", "3f2a9c1b07e4", "team", "a"),
		probe("testid", "monday-smoke", "team", "a"),
		probe("testid", "release-1.4", "test_file", "spike-50.yaml", "test_hash", "3f2a9c1b07e4"),
		probe("testid", "release-1.4"),
		probe("testid", "spike-50-20260528", "test_file", "spike-50.yaml", "test_hash", "9999aaaabbbb"),
		probe("testid", "k6-spike-20260528", "team", "b"),
		probe("testid", "k6-spike-20260529"),
	}
	for _, tc := range []struct {
		name, groupBy string
		want          map[string]string
	}{
		{name: "default", want: map[string]string{
			"monday-smoke":      "spike-50@3f2a9c1b07e4",
			"release-1.4":       "spike-50@3f2a9c1b07e4",
			"spike-50-20260528": "spike-50@9999aaaabbbb", // another load shape: another group
			"k6-spike-20260528": "k6-spike",
			"k6-spike-20260529": "k6-spike",
		}},
		{name: "group-by wins where the label is set", groupBy: "team", want: map[string]string{
			"monday-smoke":      "a",
			"release-1.4":       "spike-50@3f2a9c1b07e4",
			"spike-50-20260528": "spike-50@9999aaaabbbb",
			"k6-spike-20260528": "b",
			"k6-spike-20260529": "k6-spike",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := &vectorQuerier{vec: vec}
			w, err := New(Config{GroupBy: tc.groupBy, StorageDir: t.TempDir()}, q, nil, promslog.NewNopLogger())
			require.NoError(t, err)
			seen, err := w.list(context.Background(), time.Now())
			require.NoError(t, err)
			got := map[string]string{}
			for _, s := range seen {
				got[s.testID] = s.group
			}
			require.Equal(t, tc.want, got)
			by := "testid, test_file, test_hash"
			if tc.groupBy != "" {
				by += ", " + tc.groupBy
			}
			var parts []string
			for _, name := range []string{"tidemark_run_info", "k6_vus", "k6_iterations_total"} {
				parts = append(parts, `group by (`+by+`) (count_over_time(`+name+`{testid!=""}[1h]))`)
			}
			require.Equal(t, []string{strings.Join(parts, " or ")}, q.queries, "one selector per probe name")
		})
	}
}

func TestIdentityGroup(t *testing.T) {
	t.Parallel()
	require.Equal(t, "spike-50@3f2a9c1b07e4", IdentityGroup("spike-50.yaml", "3f2a9c1b07e4"))
	require.Equal(t, "checkout.test@ab", IdentityGroup("checkout.test.js", "ab"))
	require.Equal(t, "test@ab", IdentityGroup("", "ab"))
}

// TestRunsPage: /runs lists the history newest first with links to the reports, escapes
// what the runs carry (testids, notes and change texts come from the runs' labels),
// pages through the whole history on disk, and says what is wrong with a bad request.
func TestRunsPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := syntheticRun(4).To.Add(time.Hour)
	w, err := New(Config{StorageDir: dir, MaxRunsPerGroup: 1}, &vectorQuerier{}, nil, promslog.NewNopLogger(),
		WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	for i := range 4 {
		require.NoError(t, w.History().Add(syntheticRun(i)))
	}
	evil := syntheticRun(4)
	evil.TestID = `<script>alert("x")</script>`
	evil.Report = reportDir(evil.TestID)
	evil.Notes = []string{`rds: no <b>RDS</b> series & no "CloudWatch"`}
	evil.Changes = []regress.Change{{Fact: facts.KeyFact{Name: "hpa_reaction_seconds"}, Regression: true, Text: "HPA reaction <i>a</i>: 55 s, was 25 s"}}
	require.NoError(t, w.History().Add(evil))
	failed := Run{TestID: "broken-20260101", Group: "broken", CorrelatedAt: syntheticRun(0).To.Add(-time.Minute), Error: "find run: <no data>"}
	require.NoError(t, w.History().Add(failed))

	srv := httptest.NewServer(w.Handler())
	t.Cleanup(srv.Close)
	get := func(path string) (int, string, string) {
		resp, err := http.Get(srv.URL + path) //nolint:noctx // a test against loopback
		require.NoError(t, err)
		defer resp.Body.Close()
		var b strings.Builder
		_, err = io.Copy(&b, resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b.String()
	}

	code, ctype, page := get("/runs")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "text/html; charset=utf-8", ctype)
	require.Contains(t, page, "Runs 1–6 of 6, newest first.")
	require.NotContains(t, page, "<script>")
	require.Contains(t, page, "<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td>")
	require.Contains(t, page, `<div>rds: no &lt;b&gt;RDS&lt;/b&gt; series &amp; no &#34;CloudWatch&#34;</div>`)
	require.Contains(t, page, `<div class="reg">HPA reaction &lt;i&gt;a&lt;/i&gt;: 55 s, was 25 s</div>`)
	require.Contains(t, page, `<span class="reg">not correlated: find run: &lt;no data&gt;</span>`)
	require.Contains(t, page, `<a href="reports/`+evil.Report+`/report.html">HTML</a>`)
	require.Contains(t, page, `<a href="reports/spike-50-20260101/report.md">Markdown</a>`)
	require.Contains(t, page, "2026-01-01 03:50:00 → 04:00:00", "window in UTC")
	// Newest first: the run that ended last, then back to the first, the failed one last.
	iEvil, i3, i0, iFailed := strings.Index(page, "&lt;script"), strings.Index(page, "spike-50-20260104"),
		strings.Index(page, "spike-50-20260101"), strings.Index(page, "broken-20260101")
	require.True(t, iEvil < i3 && i3 < i0 && i0 < iFailed, "newest first: %d %d %d %d", iEvil, i3, i0, iFailed)
	require.NotContains(t, page, ">newer<")
	require.NotContains(t, page, ">older<")

	// Pages go through the history on disk, beyond what memory and /metrics hold.
	code, _, page = get("/runs?offset=2&limit=2")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, page, "Runs 3–4 of 6, newest first.")
	require.Contains(t, page, `<a href="runs?offset=0&amp;limit=2">newer</a>`)
	require.Contains(t, page, `<a href="runs?offset=4&amp;limit=2">older</a>`)
	require.Contains(t, page, "spike-50-20260102")
	require.NotContains(t, page, "spike-50-20260104")

	code, ctype, body := get("/runs?format=json&offset=4")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "application/json", ctype)
	var got runsJSON
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Equal(t, 6, got.Total)
	require.Equal(t, 4, got.Offset)
	require.Equal(t, defaultRunsLimit, got.Limit)
	require.Len(t, got.Runs, 2)
	require.Equal(t, syntheticRun(0), got.Runs[0])
	require.Equal(t, failed.TestID, got.Runs[1].TestID)

	code, _, body = get("/runs?offset=99")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, "No runs here (6 in the history)")

	for path, want := range map[string]string{
		"/runs?format=xml":   "format xml: expected html or json",
		"/runs?limit=5000":   `limit "5000": expected an integer from 0 to 1000`,
		"/runs?offset=-1":    `offset "-1": expected an integer from 0 to`,
		"/runs?offset=first": `offset "first": expected an integer`,
	} {
		code, _, body := get(path)
		require.Equal(t, http.StatusBadRequest, code, path)
		require.Contains(t, body, want, path)
	}
	code, _, _ = get("/reports/")
	require.Equal(t, http.StatusNotFound, code, "no directory listing")
}

// TestCollectorKindAndBounds: tidemark_fact_regression carries kind (regression or
// improvement), and /metrics shows each group's last MaxRunsPerGroup runs only, however
// long the history.
func TestCollectorKindAndBounds(t *testing.T) {
	t.Parallel()
	now := syntheticRun(19).To.Add(time.Hour)
	w, err := New(Config{StorageDir: t.TempDir(), MaxRunsPerGroup: 2}, &vectorQuerier{}, nil, promslog.NewNopLogger(),
		WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	for i := range 20 {
		r := syntheticRun(i)
		if i == 19 {
			r.Changes = append(r.Changes, regress.Change{Fact: r.Facts[2], BaselineTestID: "spike-50-20260101", Delta: -0.5, Text: "better"})
			r.Changes[0].Regression = true
		}
		require.NoError(t, w.History().Add(r))
	}
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(w.Collector()))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	testids := map[string]bool{}
	kinds := map[string]float64{}
	bottlenecks := map[string]string{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if id := labels["testid"]; id != "" {
				testids[id] = true
			}
			if mf.GetName() == correlator.BottleneckMetric && m.GetGauge().GetValue() == 1 {
				bottlenecks[labels["testid"]] = labels["resource"]
			}
			if mf.GetName() == regress.RegressionMetric && labels["testid"] == syntheticRun(19).TestID {
				kinds[labels["kind"]+" "+labels["fact"]] = m.GetGauge().GetValue()
			}
		}
	}
	require.Equal(t, map[string]bool{syntheticRun(18).TestID: true, syntheticRun(19).TestID: true}, testids)
	require.Equal(t, map[string]float64{"regression hpa_reaction_seconds": 5, "improvement error_ratio": -0.5}, kinds)
	require.Equal(t, map[string]string{syntheticRun(18).TestID: "startup", syntheticRun(19).TestID: "startup"}, bottlenecks, "tidemark_run_bottleneck{testid,resource}")
	require.Equal(t, 20, w.History().Len(), "tidemark_exporter_runs counts the whole history")
}
