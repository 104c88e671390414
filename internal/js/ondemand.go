package js

import (
	"context"
	gojson "encoding/json"
	"errors"
)

// OnDemand runs a script's setup() and teardown() when asked, as k6's REST API does
// (POST and PUT /v1/setup, POST /v1/teardown), beside the run's own calls at its start
// and end. It is safe for concurrent use: the calls wait for each other and for the
// run's setup, teardown and handleSummary.
//
// As in k6, noSetup (--no-setup) only keeps the run from calling setup() at its start
// and noTeardown (--no-teardown) teardown() at its end; without noSetup the run calls
// setup() again at its start and its result replaces what was set here. k6-operator
// therefore passes --no-setup and --no-teardown to runners it gives setup data.
type OnDemand struct{ r *Runner }

// OnDemand returns the runner's setup and teardown on demand.
func (r *Runner) OnDemand() OnDemand { return OnDemand{r: r} }

// Setup runs the script's setup() now and keeps its result as the setup data of every
// VU that has not started its first iteration yet, and of teardown. It returns the data
// as JSON, nil for none. Without an exported setup() it runs nothing and returns the
// current data. An exception is a *ScriptError.
func (o OnDemand) Setup(ctx context.Context) (gojson.RawMessage, error) {
	r := o.r
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	data, ran, err := r.setup(ctx)
	if err != nil {
		return nil, err
	}
	if ran {
		r.setSetupJSON(string(data))
	}
	return o.SetupData(), nil
}

// SetupData returns the setup data as JSON, nil for none. The caller may keep it.
func (o OnDemand) SetupData() gojson.RawMessage {
	if d := o.r.setupData(); d != "" {
		return gojson.RawMessage(d)
	}
	return nil
}

// SetSetupData replaces the setup data (k6's PUT /v1/setup) with data, one JSON value;
// nil or empty clears it. VUs that already started their first iteration keep their
// copy. Data that is not JSON is an error and changes nothing.
func (o OnDemand) SetSetupData(data gojson.RawMessage) error {
	if len(data) > 0 && !gojson.Valid(data) {
		return errors.New("set setup data: not a JSON value")
	}
	o.r.setSetupJSON(string(data))
	return nil
}

// Teardown runs the script's teardown(data) now with the current setup data, also when
// noTeardown is set or the run already ran it (as k6's POST /v1/teardown does). Without
// an exported teardown() it does nothing. An exception is a *ScriptError.
func (o OnDemand) Teardown(ctx context.Context) error {
	r := o.r
	r.lifeMu.Lock()
	defer r.lifeMu.Unlock()
	_, _, err := r.lifecycle(ctx, "teardown", r.script.TeardownTimeout, r.aux.copyData())
	return err
}
