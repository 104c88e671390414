package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStory1SpikeScalesOrderToFive drives the story-1 profile with 10 RPS, a spike to
// 50 RPS and a drop to 0, in simulated time, and checks what the story reports: the HPA
// scales order 2→4→5 within syncs of the spike, the new replicas become Ready only after
// their start-up, failures fall before they are Ready, and scale-in waits for the
// 5-minute stabilisation window.
func TestStory1SpikeScalesOrderToFive(t *testing.T) {
	t.Parallel()
	p := mustLoad(t, "../../examples/cluster-shoong.yaml")
	c, err := NewCluster(p, simStart)
	require.NoError(t, err)

	const spikeAt, dropAt = 3 * time.Minute, 8 * time.Minute
	type change struct {
		at    time.Duration
		spec  int
		ready time.Duration // when ready replicas first reached spec (0: not yet)
	}
	var changes []*change
	lastSpec := 2
	var allReady time.Duration // first time order has 5 Ready replicas
	var scaleIn time.Duration  // first time order's spec drops after the spike
	var connsBefore, connsPeak float64
	outs := openLoop(t, c, "order", 15*time.Minute, func(d time.Duration) float64 {
		switch {
		case d < spikeAt:
			return 10
		case d < dropAt:
			return 50
		}
		return 0
	}, func() {
		now := c.Now().Sub(simStart)
		d, _ := c.Deployment("order")
		if now == spikeAt || now == dropAt {
			db := c.Snapshot().Database
			require.True(t, db.Published)
			if now == spikeAt {
				connsBefore = db.CloudWatch.DatabaseConnections
			} else {
				connsPeak = db.CloudWatch.DatabaseConnections
			}
		}
		if d.SpecReplicas != lastSpec {
			if d.SpecReplicas < lastSpec && scaleIn == 0 {
				scaleIn = now
			}
			lastSpec = d.SpecReplicas
			changes = append(changes, &change{at: now, spec: d.SpecReplicas})
		}
		for _, ch := range changes {
			if ch.ready == 0 && d.ReadyReplicas >= ch.spec && d.SpecReplicas >= ch.spec {
				ch.ready = now
			}
		}
		if d.ReadyReplicas == 5 && allReady == 0 {
			allReady = now
		}
	})

	// 2 → 4 (legacy scale-up limit max(2×2, 4)) → 5 (maxReplicas), then back to 2.
	require.GreaterOrEqual(t, len(changes), 3)
	require.Equal(t, 4, changes[0].spec)
	require.Equal(t, 5, changes[1].spec)
	require.Equal(t, 2, changes[len(changes)-1].spec)
	// First reaction: metrics-server resolution + window + one HPA sync after the spike.
	require.Greater(t, changes[0].at, spikeAt)
	require.Less(t, changes[0].at, spikeAt+45*time.Second)
	require.Less(t, changes[1].at, changes[0].at+45*time.Second)
	// Replicas are Ready only after their start-up time: a gap after every scale-up.
	for _, ch := range changes[:2] {
		require.NotZero(t, ch.ready, "scale to %d never became ready", ch.spec)
		gap := ch.ready - ch.at
		require.Greater(t, gap, 2*time.Second, "scale to %d", ch.spec)
		require.Less(t, gap, 90*time.Second, "scale to %d", ch.spec)
	}
	require.NotZero(t, allReady)

	// Failures concentrate in the requests sent before all replicas were Ready.
	var failBefore, failAfter, after int
	for _, o := range outs {
		sent := o.at.Sub(simStart)
		if sent >= allReady {
			after++
		}
		if o.res.Status == 200 {
			continue
		}
		require.NotZero(t, o.res.Status, "request sent at %s never answered", sent)
		if sent < allReady {
			failBefore++
		} else {
			failAfter++
		}
	}
	require.Positive(t, failBefore, "the spike must cause failures before the new pods are Ready")
	require.Greater(t, float64(failBefore)/float64(failBefore+failAfter), 0.8)
	require.Less(t, float64(failAfter)/float64(after), 0.01)

	// DB connections grow with replicas (Prisma pools of 5 per pod), as CloudWatch shows.
	require.Greater(t, connsPeak, connsBefore+10)

	// Scale-in only after the downscale stabilisation window (5 m) past the drop.
	require.NotZero(t, scaleIn)
	require.Greater(t, scaleIn, dropAt+5*time.Minute)
	require.Less(t, scaleIn, dropAt+7*time.Minute)
}

// onsetUsers ramps closed-loop users (think time 1 s, as k6's sleep(1)) in steps of 5 and
// returns the first concurrency whose throttled-period ratio reaches 25%
// (kubernetes-mixin's CPUThrottlingHigh threshold), and the p95 latency per level.
func onsetUsers(t *testing.T, profile string) (int, map[int]time.Duration, int) {
	t.Helper()
	c, err := NewCluster(mustLoad(t, profile), simStart)
	require.NoError(t, err)
	onset := 0
	p95 := map[int]time.Duration{}
	errs := 0
	for users := 5; users <= 60; users += 5 {
		before := c.Snapshot().Pods[0].CFS
		outs := closedLoop(t, c, "api", users, time.Minute, time.Second, 10*time.Second)
		after := c.Snapshot().Pods[0].CFS
		var lat []time.Duration
		for _, o := range outs {
			if o.res.Status == 200 {
				lat = append(lat, o.res.Latency)
			} else if o.res.Status != 0 || o.res.Reason == "client_timeout" {
				errs++
			}
		}
		p95[users] = percentile(lat, 0.95)
		ratio := float64(after.ThrottledPeriods-before.ThrottledPeriods) / float64(after.Periods-before.Periods)
		if onset == 0 && ratio >= 0.25 {
			onset = users
		}
	}
	return onset, p95, errs
}

// TestStory3ThrottlingOnsetDoublesWithLimit reproduces story 3: latency grows with
// concurrency under CFS throttling while no request fails, and doubling the CPU limit
// doubles the concurrency at which throttling starts.
func TestStory3ThrottlingOnsetDoublesWithLimit(t *testing.T) {
	t.Parallel()
	onset500, p95at500, errs500 := onsetUsers(t, "../../examples/cluster-throttle-500m.yaml")
	onset1000, p95at1000, errs1000 := onsetUsers(t, "../../examples/cluster-throttle-1000m.yaml")
	require.Zero(t, errs500)
	require.Zero(t, errs1000)
	require.Equal(t, 20, onset500)
	require.Equal(t, 40, onset1000)
	// Clean below the onset, over a 500 ms SLO well past it.
	require.Less(t, p95at500[10], 100*time.Millisecond)
	require.Greater(t, p95at500[40], time.Second)
	require.Less(t, p95at1000[30], 100*time.Millisecond)
	require.Less(t, p95at1000[40], p95at500[40]/4)
}
