package demo

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/sim"
)

// Truth is the simulated cluster's ground truth about the answers the load got: what
// it answered, what failed, and what failed while some HPA's current replicas exceeded
// its Deployment's Ready replicas (the start-up gap the report reads from
// kube-state-metrics). The demo writes it to SimulatorFile.
type Truth struct {
	Answered           int     `json:"answered"`
	Failed             int     `json:"failed"`
	FailedInStartupGap int     `json:"failed_in_startup_gap"`
	StartupGapSeconds  float64 `json:"startup_gap_seconds"`
	// Limit is what the simulator's own counts say limited the service (a bottleneck
	// resource of the report, analysis.Resource*): "none" when it answered every request
	// it was sent without a failure (whatever else broke a stage, the service did not),
	// "startup" when at least half of its failures were answered while Ready lagged the
	// HPA's current replicas, and empty when its counts do not tell.
	Limit string `json:"limit"`
}

// truthLimitShare is the share of failures inside start-up gaps from which the
// simulator's truth is "startup": the default of the report's rule
// (bottleneck.startup.failures_in_gap_share), so that the two are compared on one rule.
const truthLimitShare = 0.5

func truthOf(r sim.Responses) Truth {
	t := Truth{Answered: r.Total, Failed: r.Failed, FailedInStartupGap: r.FailedInStartupGap, StartupGapSeconds: r.StartupGap.Seconds()}
	switch {
	case r.Total > 0 && r.Failed == 0:
		t.Limit = analysis.ResourceNone
	case r.Failed > 0 && t.InGapShare() >= truthLimitShare:
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
	return fmt.Sprintf("%d answers, %d failed (%.1f%%); %d of the failures (%.1f%%) while Ready lagged the HPA's current replicas",
		t.Answered, t.Failed, 100*float64(t.Failed)/float64(t.Answered), t.FailedInStartupGap, 100*t.InGapShare())
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
