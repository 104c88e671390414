package sim

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var simStart = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

type outcome struct {
	at  time.Time // when the request was sent
	res Result
}

// openLoop drives service at rate(t) requests per second (t from the start) for d,
// spacing arrivals evenly, and calls observe after every step. It returns every outcome.
func openLoop(t *testing.T, c *Cluster, service string, d time.Duration, rate func(time.Duration) float64, observe func()) []*outcome {
	t.Helper()
	var out []*outcome
	acc := 0.0
	begin := c.Now()
	for c.Now().Sub(begin) < d {
		acc += rate(c.Now().Sub(begin)) * StepDuration.Seconds()
		for acc >= 1 {
			acc--
			o := &outcome{at: c.Now()}
			out = append(out, o)
			require.NoError(t, c.Submit(service, func(r Result) { o.res = r }))
		}
		c.Step()
		if observe != nil {
			observe()
		}
	}
	return out
}

// closedLoop runs users virtual users that each send a request, wait for the answer
// (or clientTimeout), sleep think, and repeat, for d. It returns the outcomes.
func closedLoop(t *testing.T, c *Cluster, service string, users int, d, think, clientTimeout time.Duration) []*outcome {
	t.Helper()
	type vu struct {
		next time.Time
		cur  *outcome
	}
	vus := make([]*vu, users)
	for i := range vus {
		// spread the first requests over one think time
		vus[i] = &vu{next: c.Now().Add(time.Duration(i) * think / time.Duration(users))}
	}
	var out []*outcome
	end := c.Now().Add(d)
	for c.Now().Before(end) {
		for _, v := range vus {
			if v.cur != nil {
				switch {
				case v.cur.res.Status != 0:
					v.next = v.cur.at.Add(v.cur.res.Latency + think)
					v.cur = nil
				case c.Now().Sub(v.cur.at) >= clientTimeout:
					v.cur.res = Result{Status: 0, Latency: clientTimeout, Reason: "client_timeout"}
					v.next = c.Now().Add(think)
					v.cur = nil
				}
			}
			if v.cur == nil && !c.Now().Before(v.next) {
				o := &outcome{at: c.Now()}
				out = append(out, o)
				v.cur = o
				require.NoError(t, c.Submit(service, func(r Result) {
					if o.res.Reason != "client_timeout" {
						o.res = r
					}
				}))
			}
		}
		c.Step()
	}
	return out
}

func percentile(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), lat...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	idx := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(idx, 0)]
}

func mustLoad(t *testing.T, path string) *Profile {
	t.Helper()
	p, err := LoadProfile(path)
	require.NoError(t, err)
	return p
}

// arrivalLoop is openLoop as k6's arrival-rate executors drive it: each arrival needs a
// free VU, of which there are maxVUs; a VU is busy until its answer or clientTimeout,
// and an arrival without a free VU is dropped (dropped_iterations). It returns the
// outcomes and the number dropped.
func arrivalLoop(t *testing.T, c *Cluster, service string, d time.Duration, rate func(time.Duration) float64, maxVUs int, clientTimeout time.Duration, observe func()) ([]*outcome, int) {
	t.Helper()
	var (
		out     []*outcome
		busy    []*outcome
		dropped int
		acc     float64
	)
	begin := c.Now()
	for c.Now().Sub(begin) < d {
		busy = slices.DeleteFunc(busy, func(o *outcome) bool {
			if o.res.Status == 0 && c.Now().Sub(o.at) >= clientTimeout {
				o.res = Result{Latency: clientTimeout, Reason: "client_timeout"}
			}
			return o.res.Status != 0 || o.res.Reason == "client_timeout"
		})
		acc += rate(c.Now().Sub(begin)) * StepDuration.Seconds()
		for acc >= 1 {
			acc--
			if len(busy) >= maxVUs {
				dropped++
				continue
			}
			o := &outcome{at: c.Now()}
			out, busy = append(out, o), append(busy, o)
			require.NoError(t, c.Submit(service, func(r Result) {
				if o.res.Reason != "client_timeout" {
					o.res = r
				}
			}))
		}
		c.Step()
		if observe != nil {
			observe()
		}
	}
	return out, dropped
}
