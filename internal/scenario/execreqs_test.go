package scenario

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExecutionRequirements: the most VUs planned at once and the longest the run can
// take, for scenarios alone, in sequence and overlapping (k6 v1.8.1's numbers for the
// scripts of cmd/tidemark/testdata/execreqs are checked by TestExecutionRequirementsMatchK6).
func TestExecutionRequirements(t *testing.T) {
	t.Parallel()
	s := time.Second
	for _, tc := range []struct {
		name      string
		scenarios []*Scenario
		wantVUs   uint64
		wantTotal time.Duration
	}{
		{name: "constant-vus with gracefulStop", wantVUs: 10, wantTotal: 60 * s, scenarios: []*Scenario{
			{Name: "a", Executor: ConstantVUs, VUs: 10, Duration: 30 * s, GracefulStop: 30 * s}}},
		{name: "one ends as the next starts", wantVUs: 7, wantTotal: 20 * s, scenarios: []*Scenario{
			{Name: "a", Executor: ConstantVUs, VUs: 5, Duration: 10 * s},
			{Name: "b", Executor: ConstantVUs, VUs: 7, Duration: 10 * s, StartTime: 10 * s}}},
		{name: "overlapping", wantVUs: 12, wantTotal: 15 * s, scenarios: []*Scenario{
			{Name: "a", Executor: ConstantVUs, VUs: 5, Duration: 10 * s},
			{Name: "b", Executor: ConstantVUs, VUs: 7, Duration: 10 * s, StartTime: 5 * s}}},
		{name: "externally-controlled until stopped", wantVUs: 5, wantTotal: 10 * s, scenarios: []*Scenario{
			{Name: "a", Executor: ExternallyControlled, VUs: 1, MaxVUs: 3},
			{Name: "b", Executor: ConstantVUs, VUs: 2, Duration: 10 * s}}},
		{name: "ramping-vus", wantVUs: 10, wantTotal: 40 * s, scenarios: []*Scenario{
			{Name: "a", Executor: RampingVUs, GracefulStop: 30 * s, Stages: []Stage{{Duration: 10 * s, Target: 10}}}}},
		// VU 10 would start at 10 s, when the scenario ends.
		{name: "ramping-vus without gracefulStop", wantVUs: 9, wantTotal: 10 * s, scenarios: []*Scenario{
			{Name: "a", Executor: RampingVUs, Stages: []Stage{{Duration: 10 * s, Target: 10}}}}},
		{name: "arrival rate holds its most VUs", wantVUs: 20, wantTotal: 40 * s, scenarios: []*Scenario{
			{Name: "a", Executor: ConstantArrivalRate, Duration: 10 * s, GracefulStop: 30 * s, PreAllocatedVUs: 5, MaxVUs: 20}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vus, total := (&Test{Scenarios: tc.scenarios}).ExecutionRequirements()
			require.Equal(t, tc.wantVUs, vus)
			require.Equal(t, tc.wantTotal, total)
		})
	}
}
