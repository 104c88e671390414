package engine

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
)

// VUsMax returns the run's vus-max as k6 v1.8.1 reports it (REST API and the vus_max
// metric). Before the start it is the VUs k6 initializes then: the most planned VUs
// (executor.Executor.PlannedVUs) of the scenarios that can run at the same time, a
// scenario holding its VUs from its startTime until its duration and gracefulStop have
// passed, so that scenarios one after another share theirs. From the start on it adds
// the VUs arrival-rate scenarios allocated beyond their preAllocatedVUs.
func (e *Engine) VUsMax() int64 {
	type edge struct {
		at    time.Duration
		delta int64
	}
	edges := make([]edge, 0, 2*len(e.scens))
	var extra int64
	for _, s := range e.scens {
		planned := s.exec.PlannedVUs()
		extra += max(s.exec.Stats().VUsMax-planned, 0)
		start, end := s.exec.StartTime(), s.exec.MaxEnd()
		if s.exec.Kind() == scenario.ExternallyControlled && s.exec.Duration() == 0 {
			end = math.MaxInt64 // runs until stopped
		}
		if end <= start {
			end = start + 1 // it still initializes its VUs
		}
		edges = append(edges, edge{start, planned}, edge{end, -planned})
	}
	// A scenario ending when another starts hands its VUs over: ends come first.
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta))
	})
	var now, peak int64
	for _, ed := range edges {
		now += ed.delta
		peak = max(peak, now)
	}
	return peak + extra
}
