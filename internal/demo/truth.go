package demo

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/sim"
)

// Truth is the simulated cluster's ground truth about the answers the load got: what
// it answered, what failed, what failed while some HPA's current replicas exceeded its
// Deployment's Ready replicas (the start-up gap the report reads from
// kube-state-metrics), and what resource made the failures fail. The demo writes it to
// SimulatorFile.
//
// The in-memory simulator judges every failure from its own state at the moment it
// answers it, never from the report's rules (sim.Result.Cause): a pod's OOM kill is
// "memory"; a query that waited for a pool connection longer than pool.timeout is
// "pool"; a connection the database refused at max_connections is "database"; a
// request refused or timed out by a saturated pod (queue full or timed out, the
// request or route timeout, the proxy's overflow) is "memory" while an OOM-killed
// container of its service restarts, "startup" while some HPA's current replicas are
// ahead of Ready, "replicas" while its HPA is at its max replicas, "cpu" when the pod's
// CFS quota or threads held its runnable requests back, and a deadline that passed in
// a pool wait or a query is "pool" or "database"; anything else is "other". Limit is
// the cause of the most failures (the earliest on a tie) and LimitAt the moment its
// first failure was answered. The simulator's clock is the wall clock (sim.Server
// builds its cluster at the clock's time and advances it to the clock), so LimitAt is
// a wall time, comparable with the report's stages.
type Truth struct {
	Answered           int     `json:"answered"`
	Failed             int     `json:"failed"`
	FailedInStartupGap int     `json:"failed_in_startup_gap"`
	StartupGapSeconds  float64 `json:"startup_gap_seconds"`
	// Limit is what the simulator says limited the service (a bottleneck resource of
	// the report, analysis.Resource*): "none" when it answered every request it was
	// sent without a failure (a run that also dropped iterations was limited by the
	// load generator, which the simulator does not see), else the cause of the most
	// failures. When that cause is "other" (a failure neither the simulator nor the
	// process runtime's pods could explain), it is "startup" when at least half of the
	// failures were answered while Ready lagged the HPA's current replicas, else empty.
	Limit string `json:"limit"`
	// LimitAt is when the first failure of Limit's cause was answered (RFC 3339).
	LimitAt *time.Time `json:"limit_at,omitempty"`
	// Causes are the failures by cause, the most first.
	Causes []CauseCount `json:"causes,omitempty"`
	// Failures are the failures by service, reason (sim.Reason*) and cause, in the order
	// their first one was answered.
	Failures []FailureCount `json:"failures,omitempty"`
}

// CauseCount is the failures of one cause and when the first was answered.
type CauseCount struct {
	Cause    string    `json:"cause"`
	Failures int       `json:"failures"`
	First    time.Time `json:"first"`
}

// FailureCount is the failures of one service with one reason and cause.
type FailureCount struct {
	Service  string    `json:"service"`
	Reason   string    `json:"reason"`
	Cause    string    `json:"cause"`
	Failures int       `json:"failures"`
	First    time.Time `json:"first"`
}

// truthLimitShare is the share of failures inside start-up gaps from which the truth of
// a runtime that does not judge causes is "startup": the default of the report's rule
// (bottleneck.startup.failures_in_gap_share), so that the two are compared on one rule.
const truthLimitShare = 0.5

// resource is the report's bottleneck resource of a simulator's cause; false for
// sim.CauseOther.
func resource(cause string) (string, bool) {
	switch cause {
	case sim.CauseCPU:
		return analysis.ResourceCPU, true
	case sim.CauseReplicas:
		return analysis.ResourceReplicas, true
	case sim.CauseStartup:
		return analysis.ResourceStartup, true
	case sim.CauseDatabase:
		return analysis.ResourceDatabase, true
	case sim.CausePool:
		return analysis.ResourcePool, true
	case sim.CauseMemory:
		return analysis.ResourceMemory, true
	}
	return "", false
}

func truthOf(r sim.Responses) Truth {
	t := Truth{Answered: r.Total, Failed: r.Failed, FailedInStartupGap: r.FailedInStartupGap, StartupGapSeconds: r.StartupGap.Seconds()}
	byCause := map[string]*CauseCount{}
	for _, f := range r.Failures {
		t.Failures = append(t.Failures, FailureCount{Service: f.Service, Reason: f.Reason, Cause: f.Cause, Failures: f.Count, First: f.First.UTC()})
		c, ok := byCause[f.Cause]
		if !ok {
			c = &CauseCount{Cause: f.Cause, First: f.First.UTC()}
			byCause[f.Cause] = c
		}
		c.Failures += f.Count
		if f.First.Before(c.First) {
			c.First = f.First.UTC()
		}
	}
	for _, c := range byCause {
		t.Causes = append(t.Causes, *c)
	}
	slices.SortFunc(t.Causes, func(a, b CauseCount) int {
		return cmp.Or(cmp.Compare(b.Failures, a.Failures), a.First.Compare(b.First), cmp.Compare(a.Cause, b.Cause))
	})
	if r.Total > 0 && r.Failed == 0 {
		t.Limit = analysis.ResourceNone
		return t
	}
	if len(t.Causes) > 0 {
		if res, ok := resource(t.Causes[0].Cause); ok {
			t.Limit = res
			at := t.Causes[0].First
			t.LimitAt = &at
			return t
		}
	}
	if r.Failed > 0 && t.InGapShare() >= truthLimitShare {
		t.Limit = analysis.ResourceStartup
	}
	return t
}

// InGapShare is the share of failures answered inside start-up gaps; 0 without failures.
func (t Truth) InGapShare() float64 {
	if t.Failed == 0 {
		return 0
	}
	return float64(t.FailedInStartupGap) / float64(t.Failed)
}

// String is the truth in one sentence.
func (t Truth) String() string {
	if t.Failed == 0 {
		return fmt.Sprintf("%d answers, none failed", t.Answered)
	}
	out := fmt.Sprintf("%d answers, %d failed (%.1f%%); %d of the failures (%.1f%%) while Ready lagged the HPA's current replicas",
		t.Answered, t.Failed, 100*float64(t.Failed)/float64(t.Answered), t.FailedInStartupGap, 100*t.InGapShare())
	if len(t.Causes) > 0 {
		var parts []string
		for _, c := range t.Causes {
			parts = append(parts, fmt.Sprintf("%s %d", c.Cause, c.Failures))
		}
		out += "; by cause: " + strings.Join(parts, ", ")
	}
	if t.LimitAt != nil {
		out += fmt.Sprintf("; limited by %s from %s", t.Limit, t.LimitAt.Format(time.TimeOnly))
	}
	return out
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
