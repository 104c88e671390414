// Package watchertest builds the exporter's integration fixtures: copies of story 1's
// spike (internal/layouts) under their own testids, a number of days after the
// original, optionally with every scale-up of the HPA later or with only the load
// series (the cluster's sources missing), loaded into a real Prometheus through
// promtool.
package watchertest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/promtest"
)

// Run is one copy of story 1's spike.
type Run struct {
	TestID string
	// Day moves every sample this many days after story 1's run.
	Day int
	// ScaleUpDelay delays every change of the HPA's and the Deployment's replica series
	// (desired, current, spec and ready replicas) by this much, a multiple of the
	// kube-state-metrics interval (15 s): every scale-up, and the readiness that follows
	// it, comes that much later.
	ScaleUpDelay time.Duration
	// LoadOnly keeps only the load series (k6_*, tidemark_*): kube-state-metrics,
	// cAdvisor and RDS are missing.
	LoadOnly bool
	// RunInfo are labels added to the run's tidemark_run_info series, such as the test
	// identity a run Tidemark made carries (test_file, test_hash).
	RunInfo map[string]string
	// DropLabels removes these labels from the load series (k6_*, tidemark_*), as
	// --remote-write.drop-label does: without scenario, k6_vus and k6_iterations_total
	// carry the same labels.
	DropLabels []string
}

// delayed are the series ScaleUpDelay moves.
var delayed = map[string]bool{
	"kube_horizontalpodautoscaler_status_desired_replicas": true,
	"kube_horizontalpodautoscaler_status_current_replicas": true,
	"kube_deployment_spec_replicas":                        true,
	"kube_deployment_status_replicas_ready":                true,
}

// OpenMetrics returns the run's OpenMetrics text and its fixture (whose Truth is story
// 1's, before Day and ScaleUpDelay are applied).
func OpenMetrics(r Run) (string, *layouts.Fixture, error) {
	f, err := layouts.Story1(layouts.Options{TestID: r.TestID})
	if err != nil {
		return "", nil, err
	}
	step := int(r.ScaleUpDelay / (layouts.KSMStep * time.Second))
	if r.ScaleUpDelay%(layouts.KSMStep*time.Second) != 0 {
		return "", nil, fmt.Errorf("scale-up delay %s is not a multiple of %ds", r.ScaleUpDelay, layouts.KSMStep)
	}
	shift := float64(r.Day * 86400)
	lines := strings.Split(strings.TrimSuffix(f.OpenMetrics(), "\n"), "\n")
	// Each series' values in order, for the delay.
	values := map[string][]string{}
	type sample struct{ series, value, ts string }
	var out []string
	parsed := make([]sample, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		ts := strings.LastIndexByte(l, ' ')
		val := strings.LastIndexByte(l[:ts], ' ')
		s := sample{series: l[:val], value: l[val+1 : ts], ts: l[ts+1:]}
		parsed[i] = s
		values[s.series] = append(values[s.series], s.value)
	}
	seen := map[string]int{}
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			out = append(out, l)
			continue
		}
		s := parsed[i]
		name := s.series
		if j := strings.IndexByte(name, '{'); j >= 0 {
			name = name[:j]
		}
		if r.LoadOnly && !strings.HasPrefix(name, "k6_") && !strings.HasPrefix(name, "tidemark_") {
			continue
		}
		v := s.value
		if delayed[name] {
			n := seen[s.series]
			seen[s.series]++
			v = values[s.series][max(0, n-step)]
		}
		t, err := strconv.ParseFloat(s.ts, 64)
		if err != nil {
			return "", nil, fmt.Errorf("parse timestamp of %q: %w", l, err)
		}
		series := s.series
		if strings.HasPrefix(name, "k6_") || strings.HasPrefix(name, "tidemark_") {
			series = dropLabels(series, r.DropLabels)
		}
		if name == "tidemark_run_info" && len(r.RunInfo) > 0 {
			var extra strings.Builder
			for _, k := range slices.Sorted(maps.Keys(r.RunInfo)) {
				fmt.Fprintf(&extra, "%s=%q,", k, r.RunInfo[k])
			}
			series = strings.Replace(series, "{", "{"+extra.String(), 1)
		}
		out = append(out, series+" "+v+" "+strconv.FormatFloat(t+shift, 'f', 3, 64))
	}
	return strings.Join(out, "\n") + "\n", f, nil
}

// dropLabels removes the named labels from an OpenMetrics series name{labels}.
func dropLabels(series string, names []string) string {
	for _, n := range names {
		re := regexp.MustCompile(`([{,])` + regexp.QuoteMeta(n) + `="(?:[^"\\]|\\.)*",?`)
		series = re.ReplaceAllString(series, "$1")
		series = strings.Replace(series, ",}", "}", 1)
	}
	return series
}

// From is the start of the run r as loaded (story 1's start plus r.Day days).
func From(t testing.TB, r Run) time.Time {
	t.Helper()
	_, f, err := OpenMetrics(r)
	if err != nil {
		t.Fatalf("watchertest: %v", err)
	}
	return f.Truth.RunFrom.AddDate(0, 0, r.Day)
}

// Load starts a Prometheus holding the runs and returns once each run's k6 series
// answer queries.
func Load(t testing.TB, runs []Run, opts ...promtest.Option) *promtest.Server {
	t.Helper()
	dir := t.TempDir()
	var files []string
	var starts []time.Time
	for i, r := range runs {
		om, f, err := OpenMetrics(r)
		if err != nil {
			t.Fatalf("watchertest: %v", err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%02d-%s.om", i, r.TestID))
		if err := os.WriteFile(path, []byte(om), 0o600); err != nil {
			t.Fatalf("watchertest: write fixture: %v", err)
		}
		files = append(files, path)
		starts = append(starts, f.Truth.RunFrom.AddDate(0, 0, r.Day))
	}
	prom := layoutstest.LoadFiles(t, files, opts...)
	for i, r := range runs {
		layoutstest.WaitForRun(t, prom, r.TestID, starts[i].Add(time.Minute))
	}
	return prom
}
