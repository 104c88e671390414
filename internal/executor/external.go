package executor

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Errors of the externally-controlled executor's controls, with k6 v1.8.1's texts.
var (
	// ErrNotExternal is returned by SetPaused and SetVUs of any other executor.
	ErrNotExternal = errors.New("the executor is not externally-controlled")
	// ErrPausedAlready is the answer to a pause of a paused scenario.
	ErrPausedAlready = errors.New("test execution was already paused")
	// ErrNotPaused is the answer to a resume of a scenario that is not paused.
	ErrNotPaused = errors.New("test execution wasn't paused")
)

// VUConfigError is an invalid VU change of an externally-controlled scenario: a
// negative vus, more vus than maxVUs, or maxVUs below its configured value. Its text is
// k6's.
type VUConfigError struct{ msg string }

// Error returns k6's text.
func (e *VUConfigError) Error() string { return e.msg }

// external is the state of an externally-controlled scenario: the VUs it should run,
// the most it may run, whether it is paused, and how long it has run unpaused (the
// scenario's duration counts only that time, as in k6).
type external struct {
	mu       sync.Mutex
	vus      int64 // the active VUs asked for
	first    int64 // the configured vus
	peak     int64 // the most VUs asked for while running unpaused
	maxVUs   int64 // the VUs to allocate
	startMax int64 // the configured maxVUs: maxVUs never goes below it
	paused   bool
	running  bool          // between the scenario's start and its end
	ran      time.Duration // unpaused time before since
	since    time.Time     // start of the current unpaused span; zero while paused or not running
	began    time.Time     // when the scenario started, and ended (zero until then)
	ended    time.Time
	changed  chan struct{} // a change for the running scenario to apply (buffered, 1)
}

func newExternal(vus, maxVUs int64) *external {
	return &external{vus: vus, first: vus, peak: vus, maxVUs: maxVUs, startMax: maxVUs, changed: make(chan struct{}, 1)}
}

func (x *external) notify() {
	select {
	case x.changed <- struct{}{}:
	default:
	}
}

// elapsedLocked is the scenario's unpaused running time; x.mu is held.
func (x *external) elapsedLocked(now time.Time) time.Duration {
	if x.since.IsZero() {
		return x.ran
	}
	return x.ran + now.Sub(x.since)
}

// span returns the configured vus and the most VUs asked for so far while running
// unpaused (the configured vus before the start).
func (x *external) span() (first, peak int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.first, x.peak
}

// pausedTime returns how long the scenario has been paused since its start.
func (x *external) pausedTime() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.began.IsZero() {
		return 0
	}
	end := x.ended
	if end.IsZero() {
		end = time.Now()
	}
	return max(end.Sub(x.began)-x.elapsedLocked(end), 0)
}

// SetPaused pauses or resumes an externally-controlled scenario, before or during its
// run. Paused, it starts no iteration and its running iterations finish; its duration
// does not count the paused time. It returns ErrNotExternal for other executors,
// ErrPausedAlready or ErrNotPaused when there is nothing to change.
func (e *Executor) SetPaused(paused bool) error {
	x := e.ext
	if x == nil {
		return ErrNotExternal
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch {
	case paused && x.paused:
		return ErrPausedAlready
	case !paused && !x.paused:
		return ErrNotPaused
	}
	x.paused = paused
	if x.running {
		now := time.Now()
		if paused {
			x.ran, x.since = x.elapsedLocked(now), time.Time{}
		} else {
			x.since = now
		}
	}
	x.notify()
	return nil
}

// SetVUs changes an externally-controlled scenario's active VUs and its maximum; a nil
// value keeps the current one. vus must lie in [0, maxVUs], and maxVUs may grow but not
// fall below its configured value (*VUConfigError otherwise, with k6's text). Removed
// VUs have their running iteration interrupted (the executor has no gracefulStop);
// added VUs start at once unless the scenario is paused. A larger maxVUs is allocated
// at once while the scenario runs, else at its start. It returns ErrNotExternal for
// other executors.
func (e *Executor) SetVUs(vus, maxVUs *int64) error {
	x := e.ext
	if x == nil {
		return ErrNotExternal
	}
	x.mu.Lock()
	nv, nm := x.vus, x.maxVUs
	if vus != nil {
		nv = *vus
	}
	if maxVUs != nil {
		nm = *maxVUs
	}
	switch {
	case nv < 0:
		x.mu.Unlock()
		return &VUConfigError{"invalid configuration supplied: the number of VUs can't be negative"}
	case nv > nm:
		x.mu.Unlock()
		return &VUConfigError{fmt.Sprintf("invalid configuration supplied: the number of active VUs (%d) must be less than or equal to the number of maxVUs (%d)", nv, nm)}
	case nm < x.startMax:
		x.mu.Unlock()
		return &VUConfigError{fmt.Sprintf("the new number of max VUs cannot be lower than the starting number of max VUs (%d)", x.startMax)}
	}
	x.vus, x.maxVUs = nv, nm
	x.notify()
	if x.running {
		// k6 reports the new vus-max in its answer: allocate now, not when the
		// scenario's goroutine gets to it. x.mu stays held so that the scenario
		// cannot end (and close its VUs) before these exist.
		e.mu.Lock()
		for int64(len(e.vus)) < nm {
			e.allocLocked()
		}
		e.mu.Unlock()
	}
	x.mu.Unlock()
	return nil
}

// externalStats fills the VU count of an externally-controlled scenario: the VUs asked
// for while it runs unpaused (k6 reports 0 at once on a pause, and the new count at
// once on a change), else 0.
func (e *Executor) externalStats(st *Stats) {
	x := e.ext
	x.mu.Lock()
	defer x.mu.Unlock()
	st.Paused = x.paused
	st.VUs = 0
	if x.running && !x.paused {
		st.VUs = min(x.vus, st.VUsMax)
	}
}

// externalTarget is the configured VUs while the scenario runs unpaused, else 0.
func (e *Executor) externalTarget() float64 {
	x := e.ext
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.running || x.paused {
		return 0
	}
	return float64(x.vus)
}

// externalElapsed is the scenario's unpaused running time, capped at its duration.
func (e *Executor) externalElapsed() time.Duration {
	x := e.ext
	x.mu.Lock()
	defer x.mu.Unlock()
	el := x.elapsedLocked(time.Now())
	if e.dur > 0 {
		el = min(el, e.dur)
	}
	return el
}

// runExternal runs an externally-controlled scenario: the VUs asked for loop
// iterations until the duration (unpaused time; 0 runs until stopped) or a stop, and
// every change from SetVUs or SetPaused is applied as it comes.
func (e *Executor) runExternal(s *stopper) {
	x := e.ext
	var (
		hs  []*handle
		cur int
		wg  sync.WaitGroup
	)
	// Every loop returns once the scenario stops; handles are added only here, so
	// wg.Wait below sees them all.
	defer wg.Wait()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	x.mu.Lock()
	x.running, x.began = true, time.Now()
	if !x.paused {
		x.since = x.began
	}
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		x.ended = time.Now()
		x.ran, x.since, x.running = x.elapsedLocked(x.ended), time.Time{}, false
		x.mu.Unlock()
	}()

	apply := func() {
		x.mu.Lock()
		want, maxVUs, paused := x.vus, x.maxVUs, x.paused
		el := x.elapsedLocked(time.Now())
		if !paused {
			x.peak = max(x.peak, want)
		}
		x.mu.Unlock()
		if e.dur > 0 {
			if paused {
				timer.Stop()
			} else {
				if el >= e.dur {
					s.stop()
				}
				timer.Reset(e.dur - el)
			}
		}
		if paused {
			want = 0
		}
		for int64(len(hs)) < maxVUs && !s.isStopping() {
			h := &handle{vu: e.vu(int64(len(hs))), wake: make(chan struct{}, 1)}
			hs = append(hs, h)
			wg.Go(func() { e.loop(h, s) })
		}
		want = min(want, int64(len(hs)))
		for ; int64(cur) < want; cur++ {
			hs[cur].activate()
		}
		for int64(cur) > want {
			cur--
			if paused {
				// A pause lets the running iteration finish.
				hs[cur].deactivate(-1)
			} else {
				hs[cur].deactivate(0)
			}
		}
	}
	apply()
	for {
		select {
		case <-s.stopping:
			return
		case <-timer.C:
			s.stop()
		case <-x.changed:
			apply()
		}
	}
}
