package js

import (
	"context"
	gojson "encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/restapi"
)

var (
	_ restapi.SetupRunner    = OnDemand{}
	_ restapi.TeardownRunner = OnDemand{}
)

// onDemandScript names each call and the data it saw as a check, so that a test reads
// which function ran with what.
const onDemandScript = `
import { check } from 'k6';
export const options = { vus: 1, iterations: 1 };
let calls = 0;
export function setup() { calls++; check(null, { ['setup ' + calls]: () => true }); return { token: 'from-setup', calls: calls }; }
export default function (data) { check(null, { ['default ' + JSON.stringify(data)]: () => true }); }
export function teardown(data) { check(null, { ['teardown ' + JSON.stringify(data)]: () => true }); }
`

// checkNames are the check tags of h's checks samples, in order.
func checkNames(h *harness) []string {
	var out []string
	for _, s := range h.c.of("checks") {
		name, _ := s.Tags.Get("check")
		out = append(out, name)
	}
	return out
}

// TestOnDemandSetupThenPut plays k6-operator's setup: POST /v1/setup runs setup() and
// returns its data, PUT /v1/setup replaces it; with noSetup the run does not call
// setup() again, its VUs and teardown get the PUT data, and POST /v1/teardown runs
// teardown() although noTeardown is set (as k6 v1.8.1 does).
func TestOnDemandSetupThenPut(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": onDemandScript})
	h.r.script.NoSetup, h.r.script.NoTeardown = true, true // --no-setup --no-teardown
	v := h.vus(t, 1)[0]
	od := h.r.OnDemand()
	require.Nil(t, od.SetupData(), "no data before setup")

	data, err := od.Setup(bg())
	require.NoError(t, err)
	require.JSONEq(t, `{"token":"from-setup","calls":1}`, string(data))
	require.JSONEq(t, `{"token":"from-setup","calls":1}`, string(od.SetupData()))

	require.NoError(t, od.SetSetupData(gojson.RawMessage(`{"token":"put"}`)))
	require.JSONEq(t, `{"token":"put"}`, string(od.SetupData()))

	require.NoError(t, h.r.Setup(bg()), "the run's setup (noSetup: VUs only)")
	require.True(t, v.Iterate(bg()))
	require.NoError(t, h.r.Teardown(bg()), "the run's teardown (noTeardown: nothing)")
	require.NoError(t, od.Teardown(bg()))
	require.Equal(t, []string{"setup 1", `default {"token":"put"}`, `teardown {"token":"put"}`}, checkNames(h))
}

// TestOnDemandSetupRunsAgainAtStart: without noSetup the run calls setup() at its start
// as k6 does, and its result replaces the data set over the REST API.
func TestOnDemandSetupRunsAgainAtStart(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": onDemandScript})
	v := h.vus(t, 1)[0]
	od := h.r.OnDemand()
	_, err := od.Setup(bg())
	require.NoError(t, err)
	require.NoError(t, od.SetSetupData(gojson.RawMessage(`{"token":"put"}`)))
	require.NoError(t, h.r.Setup(bg()))
	require.JSONEq(t, `{"token":"from-setup","calls":2}`, string(od.SetupData()))
	require.True(t, v.Iterate(bg()))
	require.NoError(t, h.r.Teardown(bg()))
	require.Equal(t, []string{"setup 1", "setup 2", `default {"calls":2,"token":"from-setup"}`, `teardown {"calls":2,"token":"from-setup"}`}, checkNames(h))
}

// TestOnDemandPutWithoutSetupFunction: a script without setup() keeps the data PUT
// set, also through the run's start (k6 v1.8.1); empty data clears it; data that is
// not JSON is refused and changes nothing.
func TestOnDemandPutWithoutSetupFunction(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
import { check } from 'k6';
export const options = { vus: 1, iterations: 1 };
export default function (data) { check(null, { ['default ' + JSON.stringify(data)]: () => true }); }
`})
	vus := h.vus(t, 2)
	od := h.r.OnDemand()
	data, err := od.Setup(bg())
	require.NoError(t, err)
	require.Nil(t, data)
	require.NoError(t, od.SetSetupData(gojson.RawMessage(`[1,"two"]`)))
	require.EqualError(t, od.SetSetupData(gojson.RawMessage(`{nope`)), "set setup data: not a JSON value")
	require.NoError(t, h.r.Setup(bg()))
	require.True(t, vus[0].Iterate(bg()))
	require.NoError(t, od.SetSetupData(nil))
	require.Nil(t, od.SetupData())
	require.True(t, vus[0].Iterate(bg()), "a VU keeps the copy it started with")
	require.True(t, vus[1].Iterate(bg()))
	require.NoError(t, od.Teardown(bg()), "no teardown(): nothing to run")
	require.Equal(t, []string{`default [1,"two"]`, `default [1,"two"]`, "default undefined"}, checkNames(h))
}

// TestOnDemandSetupError: an exception in setup() over the REST API is a script error
// and keeps the data as it was.
func TestOnDemandSetupError(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": `
export const options = { vus: 1, iterations: 1 };
export function setup() { throw new Error('no token'); }
export default function () {}
`})
	h.vus(t, 1)
	od := h.r.OnDemand()
	require.NoError(t, od.SetSetupData(gojson.RawMessage(`"kept"`)))
	_, err := od.Setup(bg())
	var se *ScriptError
	require.ErrorAs(t, err, &se)
	require.ErrorContains(t, err, "no token")
	require.JSONEq(t, `"kept"`, string(od.SetupData()))
}

// TestOnDemandConcurrent: REST calls from several goroutines while VUs iterate are
// serialized (run with -race).
func TestOnDemandConcurrent(t *testing.T) {
	t.Parallel()
	h := start(t, map[string]string{"script.js": onDemandScript})
	vus := h.vus(t, 4)
	od := h.r.OnDemand()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			_, err := od.Setup(context.Background())
			require.NoError(t, err)
			require.NoError(t, od.SetSetupData(gojson.RawMessage(`{"token":"put"}`)))
			require.True(t, vus[i].Iterate(bg()))
			require.NoError(t, od.Teardown(bg()))
		})
	}
	wg.Wait()
	require.Len(t, checkNames(h), 12)
}

// TestNoSetupEnv: K6_NO_SETUP and K6_NO_TEARDOWN (run's --no-setup, --no-teardown)
// win over the script's options; a value that is not a boolean is exit 104 naming it.
func TestNoSetupEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, options           string
		environ                 map[string]string
		wantSetup, wantTeardown bool
		wantErr                 string
	}{
		{name: "none", options: "{}"},
		{name: "flags", options: "{}", environ: map[string]string{"K6_NO_SETUP": "true", "K6_NO_TEARDOWN": "true"}, wantSetup: true, wantTeardown: true},
		{name: "env over the script", options: "{ noSetup: true, noTeardown: true }", environ: map[string]string{"K6_NO_SETUP": "false"}, wantTeardown: true},
		{name: "script", options: "{ noSetup: true }", wantSetup: true},
		{name: "not a boolean", options: "{}", environ: map[string]string{"K6_NO_TEARDOWN": "yes please"}, wantErr: `K6_NO_TEARDOWN="yes please": expected true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, map[string]string{"script.js": "export const options = " + tc.options + ";\nexport default function () {}\n"})
			r, err := New(Config{Script: filepath.Join(dir, "script.js"), Environ: tc.environ, Logger: promslog.NewNopLogger()})
			if tc.wantErr != "" {
				require.EqualError(t, err, filepath.Join(dir, "script.js")+": "+tc.wantErr)
				require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantSetup, r.script.NoSetup, "noSetup")
			require.Equal(t, tc.wantTeardown, r.script.NoTeardown, "noTeardown")
		})
	}
}
