package remotewrite

import "time"

// Clock is the time source of a Client: it stamps samples, ticks the push interval and
// times the backoff between retries. The default is the system clock; tests inject one
// they move by hand (WithClock). The final flush timeout stays on the wall clock: it
// bounds real network I/O.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that fires once, d from now (at once when d <= 0).
	NewTimer(d time.Duration) Timer
	// NewTicker returns a ticker that fires every d (d > 0). Like time.Ticker, it
	// drops the ticks of a slow receiver.
	NewTicker(d time.Duration) Ticker
}

// Timer is a one-shot timer of a Clock, as time.Timer.
type Timer interface {
	// C returns the channel on which the timer delivers the time when it fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing. It reports whether it stopped the timer.
	Stop() bool
}

// Ticker is a periodic timer of a Clock, as time.Ticker.
type Ticker interface {
	// C returns the channel on which the ticks are delivered.
	C() <-chan time.Time
	// Stop turns the ticker off; no more ticks are delivered.
	Stop()
}

// systemClock is the Clock of package time.
type systemClock struct{}

func (systemClock) Now() time.Time                   { return time.Now() }
func (systemClock) NewTimer(d time.Duration) Timer   { return systemTimer{time.NewTimer(d)} }
func (systemClock) NewTicker(d time.Duration) Ticker { return systemTicker{time.NewTicker(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }
func (t systemTicker) Stop()               { t.t.Stop() }

var (
	_ Clock  = systemClock{}
	_ Timer  = systemTimer{}
	_ Ticker = systemTicker{}
)
