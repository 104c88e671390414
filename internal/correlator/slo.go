package correlator

import (
	"context"
	"fmt"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/slo"
)

// judge judges the run by cfg.SLO over its window and in each stage, with the run's
// testid and the namespaces correlated.
func judge(ctx context.Context, q query.Querier, cfg Config, res *Result) (*slo.Report, error) {
	run := slo.Span{Name: "run", From: res.Window.Run.From, To: res.Window.Run.To}
	var stages []slo.Span
	for _, st := range res.Load.Stages {
		name := fmt.Sprintf("stage %d", st.Index)
		if st.Scenario != "" {
			name += " (" + st.Scenario + ")"
		}
		stages = append(stages, slo.Span{Name: name, From: st.From, To: st.To})
	}
	rep, err := cfg.SLO.Judge(ctx, q, slo.Vars{TestID: cfg.TestID, Namespace: cfg.Namespace}, run, stages)
	if err != nil {
		return nil, fmt.Errorf("judge the run by its server-side rules: %w", err)
	}
	return rep, nil
}
