package remotewrite_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/remotewrite"
)

// fakeClock is a remotewrite.Clock the test moves by hand: its timers and tickers fire
// only when Advance or fireNext reaches them, so backoff and push intervals take no
// wall time and retry tests do not depend on the scheduler.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{} // pending: not stopped, and not fired if one-shot
}

var _ remotewrite.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.UnixMilli(1_700_000_000_000), timers: map[*fakeTimer]struct{}{}}
}

type fakeTimer struct {
	clock  *fakeClock
	ch     chan time.Time
	at     time.Time
	period time.Duration // tickers only
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	_, ok := t.clock.timers[t]
	delete(t.clock.timers, t)
	return ok
}

// fakeTicker adapts a periodic fakeTimer to remotewrite.Ticker.
type fakeTicker struct{ t *fakeTimer }

func (t fakeTicker) C() <-chan time.Time { return t.t.ch }
func (t fakeTicker) Stop()               { t.t.Stop() }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) remotewrite.Timer { return c.add(d, 0) }

func (c *fakeClock) NewTicker(d time.Duration) remotewrite.Ticker {
	if d <= 0 {
		panic("fakeClock: non-positive ticker interval")
	}
	return fakeTicker{c.add(d, d)}
}

func (c *fakeClock) add(d, period time.Duration) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clock: c, ch: make(chan time.Time, 1), at: c.now.Add(d), period: period}
	c.timers[t] = struct{}{}
	c.fireLocked()
	return t
}

// fireLocked fires every timer that is due. A ticker whose last tick was not received
// misses this one, as with time.Ticker.
func (c *fakeClock) fireLocked() {
	for t := range c.timers {
		if t.at.After(c.now) {
			continue
		}
		select {
		case t.ch <- t.at:
		default:
		}
		if t.period == 0 {
			delete(c.timers, t)
			continue
		}
		for !t.at.After(c.now) {
			t.at = t.at.Add(t.period)
		}
	}
}

// Advance moves the clock by d and fires what is due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fireLocked()
}

// fireNext moves the clock to the earliest pending deadline, fires what is due and
// returns how far the clock moved (0 when nothing is pending).
func (c *fakeClock) fireNext() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next time.Time
	for t := range c.timers {
		if next.IsZero() || t.at.Before(next) {
			next = t.at
		}
	}
	if next.IsZero() {
		return 0
	}
	d := next.Sub(c.now)
	c.now = next
	c.fireLocked()
	return d
}

func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// await waits until at least n timers and tickers are pending: the client is blocked
// on them. A client pushing on a ticker has one pending while idle, and two while it
// waits out a backoff.
func (c *fakeClock) await(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return c.pending() >= n }, 10*time.Second, time.Millisecond, "want %d pending timers", n)
}

// drive fires the earliest pending timer again and again until done holds. Unlike
// await it does not wait for the client to block first, so only use it where the test
// holds whatever the interleaving (the client reads every time off the clock).
func (c *fakeClock) drive(t *testing.T, done func() bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		if done() {
			return true
		}
		c.fireNext()
		return done()
	}, 10*time.Second, time.Millisecond)
}
