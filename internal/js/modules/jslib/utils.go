package jslib

import (
	"crypto/rand"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// defaultCharset is randomString's charset when the script gives none. The docs give
// no default; lowercase letters and digits are safe in URLs, names and e-mail addresses.
const defaultCharset = "abcdefghijklmnopqrstuvwxyz0123456789"

// Utils returns the k6-utils module.
func Utils() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		random, ok := sobek.AssertFunction(rt.Get("Math").ToObject(rt).Get("random"))
		if !ok {
			return nil, fmt.Errorf("k6-utils: Math.random is not a function")
		}
		u := &utils{vu: vu, random: random}
		named := map[string]any{
			"randomIntBetween":           u.randomIntBetween,
			"randomItem":                 u.randomItem,
			"randomString":               u.randomString,
			"uuidv4":                     u.uuidv4,
			"findBetween":                u.findBetween,
			"normalDistributionStages":   u.normalDistributionStages,
			"getCurrentStageIndex":       u.getCurrentStageIndex,
			"tagWithCurrentStageIndex":   u.tagWithCurrentStageIndex,
			"tagWithCurrentStageProfile": u.tagWithCurrentStageProfile,
		}
		named["check"] = u.check
		return modules.Exports{Named: named}, nil
	})
}

// check is k6-utils' check(val, sets, [tags]): k6's check for functions that may
// return promises (the browser examples' async checks). Every function runs now;
// once all their results have settled, each adds one `checks` sample (tagged check,
// the group and the extra tags, as k6's check does) and the returned promise
// resolves to whether all passed. A rejected result rejects it.
func (u *utils) check(call sobek.FunctionCall) sobek.Value {
	rt := u.vu.Runtime()
	if err := modules.VUOnly(u.vu, "check"); err != nil {
		modules.Throw(rt, err)
	}
	val, obj, extra := modules.CheckArgs(rt, call)
	names := obj.Keys()
	results := make([]any, 0, len(names))
	for _, name := range names {
		v := obj.Get(name)
		if fn, ok := sobek.AssertFunction(v); ok {
			res, err := fn(sobek.Undefined(), val)
			if err != nil {
				panic(err)
			}
			v = res
		}
		results = append(results, v)
	}
	promise := rt.Get("Promise").ToObject(rt)
	all, _ := sobek.AssertFunction(promise.Get("all"))
	p, err := all(promise, rt.NewArray(results...))
	if err != nil {
		panic(err)
	}
	then, _ := sobek.AssertFunction(p.ToObject(rt).Get("then"))
	out, err := then(p, rt.ToValue(func(c sobek.FunctionCall) sobek.Value {
		st := u.vu.State()
		values := c.Argument(0).ToObject(rt)
		now := time.Now()
		pass := true
		samples := make([]metrics.Sample, 0, len(names))
		for i, name := range names {
			value := 0.0
			if values.Get(strconv.Itoa(i)).ToBoolean() {
				value = 1
			} else {
				pass = false
			}
			tags := st.Env.Pool.With(st.Tags(), append([]metrics.Tag{{Key: "check", Value: name}}, extra...)...)
			// A nanosecond apart, in the script's order, as k6's check.
			samples = append(samples, metrics.Sample{Metric: st.Env.Metrics.Checks, Tags: tags, Time: now.Add(time.Duration(i)), Value: value, Metadata: st.Metadata()})
		}
		if len(samples) > 0 {
			st.Env.Pusher.Push(samples)
		}
		return rt.ToValue(pass)
	}))
	if err != nil {
		panic(err)
	}
	return out
}

type utils struct {
	vu modules.VU
	// random is the runtime's Math.random, so that k6's randomSeed makes these
	// functions repeatable as it does with the script's own Math.random.
	random sobek.Callable
}

// float returns Math.random() of the VU's runtime.
func (u *utils) float() float64 {
	v, err := u.random(sobek.Undefined())
	if err != nil {
		panic(err)
	}
	return v.ToFloat()
}

// randomIntBetween is randomIntBetween(min, max): an integer in [min, max], both ends
// included.
func (u *utils) randomIntBetween(call sobek.FunctionCall) sobek.Value {
	lo := math.Ceil(call.Argument(0).ToFloat())
	hi := math.Floor(call.Argument(1).ToFloat())
	if math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		modules.Throw(u.vu.Runtime(), fmt.Errorf("randomIntBetween(%s, %s): expected two numbers, min ≤ max", call.Argument(0), call.Argument(1)))
	}
	return u.vu.Runtime().ToValue(math.Floor(u.float()*(hi-lo+1) + lo))
}

// randomItem is randomItem(array): one of its elements.
func (u *utils) randomItem(call sobek.FunctionCall) sobek.Value {
	rt := u.vu.Runtime()
	a := call.Argument(0)
	if sobek.IsUndefined(a) || sobek.IsNull(a) {
		modules.Throw(rt, fmt.Errorf("randomItem: expected an array, got %s", a))
	}
	o := a.ToObject(rt)
	n := o.Get("length").ToInteger()
	if n <= 0 {
		return sobek.Undefined()
	}
	return o.Get(fmt.Sprint(int64(u.float() * float64(n))))
}

// randomString is randomString(length, [charset]): length characters drawn from
// charset; a character repeated in charset is drawn more often.
func (u *utils) randomString(call sobek.FunctionCall) sobek.Value {
	rt := u.vu.Runtime()
	n := call.Argument(0).ToInteger()
	if n < 0 {
		modules.Throw(rt, fmt.Errorf("randomString: expected a length of at least 0, got %s", call.Argument(0)))
	}
	charset := defaultCharset
	if c := call.Argument(1); !sobek.IsUndefined(c) && !sobek.IsNull(c) {
		charset = c.String()
	}
	chars := []rune(charset)
	if len(chars) == 0 {
		modules.Throw(rt, fmt.Errorf("randomString: the charset is empty"))
	}
	var b strings.Builder
	b.Grow(int(n))
	for range n {
		b.WriteRune(chars[int(u.float()*float64(len(chars)))])
	}
	return rt.ToValue(b.String())
}

// uuidv4 is uuidv4([secure]): a random (version 4) UUID. Tidemark always draws it
// from crypto/rand, so secure changes nothing.
func (u *utils) uuidv4(sobek.FunctionCall) sobek.Value {
	return u.vu.Runtime().ToValue(newUUID())
}

// newUUID returns a version 4, variant 10 UUID in its canonical form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24).
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// findBetween is findBetween(content, left, right, [repeat]): the text between the
// first left and the next right, or "" when there is none; with repeat, an array of
// every such text, scanning on after each right.
func (u *utils) findBetween(call sobek.FunctionCall) sobek.Value {
	rt := u.vu.Runtime()
	content, left, right := call.Argument(0).String(), call.Argument(1).String(), call.Argument(2).String()
	repeat := call.Argument(3).ToBoolean()
	var found []string
	for rest := content; ; {
		_, after, ok := strings.Cut(rest, left)
		if !ok {
			break
		}
		between, tail, ok := strings.Cut(after, right)
		if !ok {
			break
		}
		found = append(found, between)
		if !repeat {
			break
		}
		rest = tail
	}
	if repeat {
		out := make([]any, len(found))
		for i, s := range found {
			out[i] = s
		}
		return rt.ToValue(rt.NewArray(out...))
	}
	if len(found) == 0 {
		return rt.ToValue("")
	}
	return rt.ToValue(found[0])
}

// normalDistributionStages is normalDistributionStages(maxVUs, durationSeconds,
// [numberOfStages = 10]): stages whose targets follow a bell curve, as documented.
// The shape is Tidemark's own: numberOfStages stages of equal duration whose targets
// are maxVUs·e^(−z²/2) at z evenly spread over [−2, 2] (the middle stage of an odd
// count reaches maxVUs), then one more stage of that duration back to 0 VUs. The
// stages together last durationSeconds, rounded down to whole seconds per stage.
func (u *utils) normalDistributionStages(call sobek.FunctionCall) sobek.Value {
	rt := u.vu.Runtime()
	maxVUs := call.Argument(0).ToFloat()
	duration := call.Argument(1).ToFloat()
	n := int64(10)
	if a := call.Argument(2); !sobek.IsUndefined(a) {
		n = a.ToInteger()
	}
	if math.IsNaN(maxVUs) || maxVUs < 0 || math.IsNaN(duration) || duration <= 0 || n < 1 {
		modules.Throw(rt, fmt.Errorf("normalDistributionStages(%s, %s): expected maxVUs ≥ 0, durationSeconds > 0 and numberOfStages ≥ 1", call.Argument(0), call.Argument(1)))
	}
	step := math.Floor(duration / float64(n+1))
	stage := func(target float64) any {
		o := rt.NewObject()
		_ = o.Set("duration", fmt.Sprintf("%gs", step)) // Setting a fresh object's property cannot fail.
		_ = o.Set("target", target)
		return o
	}
	out := make([]any, 0, n+1)
	for i := range n {
		z := 0.0
		if n > 1 {
			z = -2 + 4*float64(i)/float64(n-1)
		}
		out = append(out, stage(math.Round(maxVUs*math.Exp(-z*z/2))))
	}
	out = append(out, stage(0))
	return rt.NewArray(out...)
}

// currentStage is the index of the VU's scenario's stage running now, and the scenario:
// the first stage whose end (from the scenario's start) is still ahead, else the last.
// It throws outside an iteration or in a scenario without stages.
func (u *utils) currentStage(fn string) (int, *scenario.Scenario) {
	rt := u.vu.Runtime()
	st := u.vu.State()
	if st == nil || st.Scenario == nil || st.Exec == nil || st.Exec.TestStart().IsZero() {
		modules.Throw(rt, fmt.Errorf("k6-utils %s: only in an iteration of a scenario", fn))
	}
	sc := st.Scenario
	if len(sc.Stages) == 0 {
		modules.Throw(rt, fmt.Errorf("k6-utils %s: the scenario %q has no stages (only ramping-vus and ramping-arrival-rate have them)", fn, sc.Name))
	}
	elapsed := time.Since(st.Exec.TestStart().Add(sc.StartTime))
	var end time.Duration
	for i, stage := range sc.Stages {
		end += stage.Duration
		if elapsed < end {
			return i, sc
		}
	}
	return len(sc.Stages) - 1, sc
}

// getCurrentStageIndex is getCurrentStageIndex(): the index of the running stage in
// the scenario's stages.
func (u *utils) getCurrentStageIndex(sobek.FunctionCall) sobek.Value {
	i, _ := u.currentStage("getCurrentStageIndex")
	return u.vu.Runtime().ToValue(i)
}

// tagWithCurrentStageIndex is tagWithCurrentStageIndex(): the VU's tag stage is the
// running stage's index, on every sample from then on.
func (u *utils) tagWithCurrentStageIndex(sobek.FunctionCall) sobek.Value {
	i, _ := u.currentStage("tagWithCurrentStageIndex")
	u.vu.State().SetVUTag("stage", strconv.Itoa(i), false)
	return sobek.Undefined()
}

// tagWithCurrentStageProfile is tagWithCurrentStageProfile(): the VU's tag
// stage_profile is ramp-up, steady or ramp-down as the running stage's target is
// above, equal to or below the previous stage's (the scenario's start VUs or start
// rate before the first).
func (u *utils) tagWithCurrentStageProfile(sobek.FunctionCall) sobek.Value {
	i, sc := u.currentStage("tagWithCurrentStageProfile")
	prev := float64(sc.StartVUs)
	if sc.Executor == scenario.RampingArrivalRate {
		prev = sc.StartRate
	}
	if i > 0 {
		prev = sc.Stages[i-1].Target
	}
	profile := "steady"
	switch target := sc.Stages[i].Target; {
	case target > prev:
		profile = "ramp-up"
	case target < prev:
		profile = "ramp-down"
	}
	u.vu.State().SetVUTag("stage_profile", profile, false)
	return sobek.Undefined()
}
