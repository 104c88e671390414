package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// fakeRun is a Controller with every optional capability, behaving as k6 v1.8.1 did
// in the recorded sessions: one scenario of kind, paused before the start when gate
// is closed, externally controlled when ext is set.
type fakeRun struct {
	mu         sync.Mutex
	gate       *Pause
	kind, name string
	ext        bool
	started    bool
	st         Status
	// vus and vusMax are the configured VUs (k6 validates against them).
	vus, vusMax int64
	metrics     []Metric
	groups      *Group
	setup       func() (json.RawMessage, error)
	setupData   json.RawMessage
	teardowns   int
}

var (
	_ Controller     = (*fakeRun)(nil)
	_ MetricsSource  = (*fakeRun)(nil)
	_ GroupsSource   = (*fakeRun)(nil)
	_ SetupRunner    = (*fakeRun)(nil)
	_ TeardownRunner = (*fakeRun)(nil)
)

func newFakeRun(kind string, vus, vusMax int64, paused bool) *fakeRun {
	return &fakeRun{
		gate: NewPause(paused), kind: kind, name: "default", ext: kind == "externally-controlled",
		vus: vus, vusMax: vusMax,
		st: Status{Stage: StatusPausedBeforeRun, Paused: paused, VUsMax: vusMax},
	}
}

// start is what the run does once the gate opens: the scenarios run.
func (f *fakeRun) start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = true
	f.st.Stage, f.st.Running, f.st.VUs, f.st.VUsMax = StatusRunning, true, f.vus, f.vusMax
}

func (f *fakeRun) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fakeRun) SetStatus(_ context.Context, u StatusUpdate) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u.Stopped != nil {
		f.st.Stopped = *u.Stopped
		return nil
	}
	if u.Paused != nil {
		if err := f.setPaused(*u.Paused); err != nil {
			return err
		}
	}
	if u.VUs != nil || u.VUsMax != nil {
		if !f.ext {
			return ExecutionConfigError(ErrNotExternallyControlled)
		}
		vus, vusMax := f.vus, f.vusMax
		if u.VUs != nil {
			vus = *u.VUs
		}
		if u.VUsMax != nil {
			vusMax = *u.VUsMax
		}
		if err := CheckVUs(vus, vusMax); err != nil {
			return err
		}
		f.vus, f.vusMax = vus, vusMax
		if f.started {
			f.st.VUsMax = vusMax
			if !f.st.Paused {
				f.st.VUs = vus
			}
		}
	}
	return nil
}

// setPaused pauses or resumes; f.mu is held.
func (f *fakeRun) setPaused(paused bool) error {
	switch {
	case !f.started && paused:
		if f.gate.Paused() {
			return PauseError(ErrAlreadyPaused)
		}
		return PauseError(errors.New("pausing after resuming before the start is not recorded"))
	case !f.started:
		f.gate.Resume()
		f.st.Paused = false
	case !f.ext:
		return NotPausableError(f.kind, f.name)
	case paused && f.st.Paused:
		return PauseError(ErrPausedAlready)
	case paused:
		f.st.Paused, f.st.VUs = true, 0
	case !f.st.Paused:
		return PauseError(ErrNotPaused)
	default:
		f.st.Paused, f.st.VUs = false, f.vus
	}
	return nil
}

func (f *fakeRun) Metrics() []Metric {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.metrics
}

func (f *fakeRun) Groups() *Group {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.groups
}

func (f *fakeRun) Setup(context.Context) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.setup == nil {
		return nil, nil
	}
	data, err := f.setup()
	if err != nil {
		return nil, err
	}
	f.setupData = data
	return data, nil
}

func (f *fakeRun) SetupData() json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.setupData
}

func (f *fakeRun) SetSetupData(data json.RawMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setupData = data
	return nil
}

func (f *fakeRun) Teardown(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.teardowns++
	return nil
}
