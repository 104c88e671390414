package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startupGaps records, after every step, whether the cluster is in a start-up gap as its
// Deployments show it (some HPA's CurrentReplicas above ReadyReplicas), by simulated time.
type startupGaps map[time.Time]bool

func (g startupGaps) observe(c *Cluster) {
	for _, name := range c.Services() {
		d, _ := c.Deployment(name)
		if d.HPA != nil && int32(d.ReadyReplicas) < d.HPA.CurrentReplicas {
			g[c.Now()] = true
			return
		}
	}
}

// groundTruth checks Snapshot.Responses against the outcomes of a drive that every
// request was answered in: the same totals, and the same failures in a start-up gap when
// each answer is placed at its moment (sent + latency) on the recorded gaps. It returns
// the responses.
func groundTruth(t *testing.T, c *Cluster, outs []*outcome, gaps startupGaps) Responses {
	t.Helper()
	var failed, inGap int
	for _, o := range outs {
		require.NotZero(t, o.res.Status, "request sent at %s never answered", o.at.Sub(simStart))
		if o.res.Status >= 500 {
			failed++
			if gaps[o.at.Add(o.res.Latency)] {
				inGap++
			}
		}
	}
	r := c.Snapshot().Responses
	require.Equal(t, len(outs), r.Total)
	require.Equal(t, failed, r.Failed)
	require.Equal(t, inGap, r.FailedInStartupGap)
	require.Equal(t, StepDuration*time.Duration(len(gaps)), r.StartupGap)
	return r
}

// failuresBetween counts the failed outcomes answered in [from, to) after the start.
func failuresBetween(outs []*outcome, from, to time.Duration) int {
	n := 0
	for _, o := range outs {
		at := o.at.Add(o.res.Latency).Sub(simStart)
		if o.res.Status >= 500 && at >= from && at < to {
			n++
		}
	}
	return n
}

// TestStory1SpikeScalesOrderToFive drives the story-1 profile with 10 RPS, a spike to
// 50 RPS and a drop to 0, in simulated time, and checks what the story reports: the HPA
// scales order 2→4→5 within syncs of the spike, the new replicas become Ready only after
// their start-up, failures (the Istio proxy's route timeouts) fall while they are not
// Ready, in the two minutes after the spike, mostly while a Deployment's Ready replicas
// lag its HPA's current replicas, the 10 RPS baseline is clean, and scale-in waits for
// the 5-minute stabilisation window.
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
	gaps := startupGaps{}
	outs := openLoop(t, c, "order", 15*time.Minute, func(d time.Duration) float64 {
		switch {
		case d < spikeAt:
			return 10
		case d < dropAt:
			return 50
		}
		return 0
	}, func() {
		gaps.observe(c)
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

	// The simulator's ground truth: failures in the 2 minutes after the spike, most of
	// them while Ready lagged, none in the baseline, none once scaled out.
	truth := groundTruth(t, c, outs, gaps)
	t.Logf("story 1: %d requests, %d failed (%.1f%%), %.0f%% in the 2 minutes after the spike, %.0f%% in start-up gaps (%s of gaps)",
		truth.Total, truth.Failed, 100*float64(truth.Failed)/float64(truth.Total),
		100*float64(failuresBetween(outs, spikeAt, spikeAt+2*time.Minute))/float64(truth.Failed),
		100*float64(truth.FailedInStartupGap)/float64(truth.Failed), truth.StartupGap)
	require.Positive(t, truth.Failed)
	require.Zero(t, failuresBetween(outs, 0, spikeAt), "the 10 RPS baseline is clean")
	require.Greater(t, float64(failuresBetween(outs, spikeAt, spikeAt+2*time.Minute))/float64(truth.Failed), 0.9)
	require.Greater(t, float64(truth.FailedInStartupGap)/float64(truth.Failed), 0.5)
	require.Zero(t, failuresBetween(outs, allReady+time.Minute, 15*time.Minute), "no failures once scaled out")

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

// TestDemoSpikeFailsInsideStartupGaps drives the story-1 profile with the compressed
// spike of examples/demo-spike.yaml (10/s for 30s, 5s ramp to 50/s, 100s at 50/s, 5s
// down to 10/s, 30s at 10/s) in simulated time: requests fail, most of the failures are
// answered inside start-up gaps, and the baseline and the recovery are clean.
func TestDemoSpikeFailsInsideStartupGaps(t *testing.T) {
	t.Parallel()
	c, err := NewCluster(mustLoad(t, "../../examples/cluster-shoong.yaml"), simStart)
	require.NoError(t, err)
	const spikeAt, downAt, end = 30 * time.Second, 135 * time.Second, 170 * time.Second
	ramp := func(from, to float64, d, over time.Duration) float64 {
		return from + (to-from)*d.Seconds()/over.Seconds()
	}
	gaps := startupGaps{}
	// As examples/demo-spike.yaml drives it: ramping-arrival-rate with maxVUs 200 and a
	// 10 s client timeout.
	outs, dropped := arrivalLoop(t, c, "order", end, func(d time.Duration) float64 {
		switch {
		case d < spikeAt:
			return 10
		case d < spikeAt+5*time.Second:
			return ramp(10, 50, d-spikeAt, 5*time.Second)
		case d < downAt:
			return 50
		case d < downAt+5*time.Second:
			return ramp(50, 10, d-downAt, 5*time.Second)
		}
		return 10
	}, 200, 10*time.Second, func() { gaps.observe(c) })
	c.Advance(c.Now().Add(10 * time.Second)) // the last requests are answered
	truth := groundTruth(t, c, outs, gaps)
	t.Logf("demo: %d requests, %d failed (%.1f%%), %.0f%% in start-up gaps (%s of gaps), %d dropped",
		truth.Total, truth.Failed, 100*float64(truth.Failed)/float64(truth.Total),
		100*float64(truth.FailedInStartupGap)/float64(truth.Failed), truth.StartupGap, dropped)
	// With 200 VUs the latency cannot pass 200 ÷ throughput (about 5 s while two pods
	// serve 40/s): the proxy's 5 s route timeout fails the requests that wait longest,
	// from when the queue has built up until enough new pods are Ready, so most of the
	// failures fall while Ready lags the HPA's current replicas.
	require.Positive(t, truth.Failed)
	require.Greater(t, float64(truth.FailedInStartupGap)/float64(truth.Failed), 0.5)
	require.Positive(t, dropped, "the VUs run out while the latency is high, as in story 1")
	require.Zero(t, failuresBetween(outs, 0, spikeAt), "the baseline is clean")
	require.Zero(t, failuresBetween(outs, downAt, end+10*time.Second), "the recovery is clean")
}
