package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzCluster checks that no profile and no load makes the simulator panic or break its
// invariants. Inputs: a profile (YAML), a request rate (below 1000/s), a duration in
// simulated seconds (below 20) and a service index; profiles with more than 20 pods are
// skipped so one iteration stays short. The seed corpus is in testdata/fuzz/FuzzCluster.
func FuzzCluster(f *testing.F) {
	f.Add([]byte(minimal), uint16(50), uint8(10), uint8(0))
	f.Fuzz(func(t *testing.T, profile []byte, rate uint16, seconds uint8, svcIdx uint8) {
		p, err := ParseProfile(profile, "fuzz.yaml")
		if err != nil {
			return
		}
		total := 0
		for _, s := range p.Services {
			n := s.Replicas
			if s.HPA != nil {
				n = max(n, s.HPA.MaxReplicas)
			}
			total += n
		}
		if total > 20 {
			t.Skip("too many pods for a fuzz iteration")
		}
		c, err := NewCluster(p, simStart)
		if err != nil {
			return
		}
		names := c.Services()
		target := names[int(svcIdx)%len(names)]
		sent, answered := 0, 0
		acc := 0.0
		d := time.Duration(seconds%20) * time.Second
		for c.Now().Sub(simStart) < d {
			acc += float64(rate%1000) * StepDuration.Seconds()
			for ; acc >= 1; acc-- {
				sent++
				require.NoError(t, c.Submit(target, func(r Result) {
					answered++
					require.GreaterOrEqual(t, r.Latency, time.Duration(0))
					require.Contains(t, []int{200, 500, 502, 503, 504}, r.Status)
				}))
			}
			c.Step()
		}
		require.LessOrEqual(t, answered, sent)
		s := c.Snapshot()
		for _, dep := range s.Deployments {
			require.LessOrEqual(t, dep.ReadyReplicas, dep.Replicas)
			if dep.HPA != nil {
				require.LessOrEqual(t, dep.SpecReplicas, max(int(dep.HPA.MaxReplicas), p.Services[0].Replicas, 1000))
			}
		}
		for _, pd := range s.Pods {
			require.LessOrEqual(t, pd.CFS.ThrottledPeriods, pd.CFS.Periods)
			require.GreaterOrEqual(t, pd.CPUUsageSeconds, 0.0)
			if pd.CFSQuota > 0 {
				// Usage never exceeds quota per period (plus the current period).
				require.LessOrEqual(t, pd.CFS.Usage, time.Duration(pd.CFS.Periods+1)*pd.CFSQuota)
			}
		}
		if s.Database != nil {
			require.GreaterOrEqual(t, s.Database.CPUCreditBalance, 0.0)
			require.LessOrEqual(t, s.Database.Connections, p.Database.MaxConnections+p.Database.BaseConnections)
		}
	})
}
