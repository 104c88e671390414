// Package metrics is the native `k6/metrics` module: the custom metric constructors
// Counter, Gauge, Rate and Trend (reference/k6-js.md §2.3).
//
// A metric is created in the init context only, in the run's metrics registry, so that
// thresholds may name it: the options-reading init run registers it before thresholds
// are decoded, and every VU's init context gets the same *metrics.Metric back (the
// same name with another type is an error). add(value, [tags]) pushes one sample
// through the VU's pusher with the VU's current tags (run tags, scenario, group) plus
// the sample's own, so custom metrics reach thresholds, the summary and every sink
// exactly as built-in ones do. Names starting with tidemark_ are refused: Tidemark's
// own run metadata uses them, and internal/series sends them without the k6_ prefix.
//
// Values of time metrics (`new Trend(name, true)`, `new Gauge(name, true)`) are
// milliseconds in JavaScript, as in k6; samples carry seconds, the unit of every time
// metric in Tidemark, and the summary and thresholds show and compare milliseconds.
package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	tm "github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/series"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		named := make(map[string]any, 4)
		rt := vu.Runtime()
		for _, k := range []kind{
			{name: "Counter", typ: tm.Counter},
			{name: "Gauge", typ: tm.Gauge, timed: true},
			{name: "Rate", typ: tm.Rate},
			{name: "Trend", typ: tm.Trend, timed: true},
		} {
			named[k.name] = constructor(rt, vu, k)
		}
		return modules.Exports{Named: named}, nil
	})
}

// kind is one of the four constructors.
type kind struct {
	name  string
	typ   tm.Type
	timed bool // whether the second argument isTime is documented
}

// constructor returns the JavaScript constructor of kind k in vu's runtime rt.
func constructor(rt *sobek.Runtime, vu modules.VU, k kind) *sobek.Object {
	var proto *sobek.Object
	ctor := rt.ToValue(func(call sobek.ConstructorCall) *sobek.Object {
		if call.This.Prototype() != proto {
			// Called as a function on some object (metrics.Counter("x")), not with new.
			panic(rt.NewTypeError(fmt.Sprintf("%s is a constructor: use new %s(name)", k.name, k.name)))
		}
		name := call.Argument(0)
		if sobek.IsUndefined(name) || sobek.IsNull(name) {
			modules.Throw(rt, fmt.Errorf("new %s: expected a metric name as the first argument", k.name))
		}
		what := fmt.Sprintf("new %s(%q)", k.name, name.String())
		if err := modules.InitOnly(vu, what); err != nil {
			modules.Throw(rt, fmt.Errorf("%w; metrics must be declared in the init context", err))
		}
		contains := tm.Default
		if k.timed && call.Argument(1).ToBoolean() {
			contains = tm.Time
		}
		if strings.HasPrefix(name.String(), series.OwnPrefix) {
			// series and the summary treat tidemark_* as the run's own metadata: such a
			// metric would lose its k6_ prefix in Prometheus and be hidden in the summary.
			modules.Throw(rt, fmt.Errorf("%s: metric names starting with %q are reserved for Tidemark's run metadata", what, series.OwnPrefix))
		}
		m, err := vu.Registry().New(name.String(), k.typ, contains)
		if err != nil {
			modules.Throw(rt, fmt.Errorf("%s: %w", what, err))
		}
		mt := &metric{vu: vu, m: m, scale: 1}
		if contains == tm.Time {
			mt.scale = 1.0 / 1000 // JavaScript gives milliseconds, samples carry seconds.
		}
		o := call.This
		if err := o.DefineDataProperty("name", rt.ToValue(m.Name), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_TRUE); err != nil {
			modules.Throw(rt, fmt.Errorf("%s: %w", what, err))
		}
		if err := o.DefineDataProperty("add", rt.ToValue(mt.add), sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE); err != nil {
			modules.Throw(rt, fmt.Errorf("%s: %w", what, err))
		}
		return nil // sobek returns call.This
	}).(*sobek.Object)
	proto = ctor.Get("prototype").ToObject(rt)
	return ctor
}

// metric is one custom metric object in one VU.
type metric struct {
	vu    modules.VU
	m     *tm.Metric
	scale float64
	buf   []tm.Sample

	// sets caches the tag sets of add calls with tags of their own, by the VU's tag
	// set and those tags; key and extra are scratch space.
	sets  map[setKey]*tm.TagSet
	key   strings.Builder
	extra []tm.Tag
}

// setKey identifies the tag set of a sample: the VU's current tags and the sample's
// own pairs, encoded.
type setKey struct {
	base  *tm.TagSet
	pairs string
}

// maxCachedSets bounds the tag sets one metric object caches: a script that tags
// samples with unbounded values (an id per request) must not grow a VU without limit;
// past it, tag sets are interned on each call.
const maxCachedSets = 256

// tagged returns the tag set of a sample tagged with the properties of o.
func (mt *metric) tagged(st *modules.State, o *sobek.Object) *tm.TagSet {
	keys := o.Keys()
	base := st.Tags()
	if len(keys) == 0 {
		return base
	}
	mt.key.Reset()
	mt.extra = mt.extra[:0]
	for _, k := range keys {
		v := o.Get(k).String()
		mt.extra = append(mt.extra, tm.Tag{Key: k, Value: v})
		// Lengths make the encoding unambiguous whatever the keys and values hold.
		mt.key.WriteString(strconv.Itoa(len(k)))
		mt.key.WriteByte(':')
		mt.key.WriteString(k)
		mt.key.WriteString(strconv.Itoa(len(v)))
		mt.key.WriteByte(':')
		mt.key.WriteString(v)
	}
	key := setKey{base: base, pairs: mt.key.String()}
	if set, ok := mt.sets[key]; ok {
		return set
	}
	set := st.Env.Pool.With(base, mt.extra...)
	if mt.sets == nil {
		mt.sets = map[setKey]*tm.TagSet{}
	}
	if len(mt.sets) < maxCachedSets {
		mt.sets[key] = set
	}
	return set
}

// errValue is thrown for a value that is neither a number nor a boolean.
var errValue = errors.New("the value must be a number or a boolean")

// add is metric.add(value, [tags]): one sample with the VU's current tags and tags.
func (mt *metric) add(call sobek.FunctionCall) sobek.Value {
	rt := mt.vu.Runtime()
	st := mt.vu.State()
	if err := modules.VUOnly(mt.vu, mt.m.Name+".add"); err != nil {
		modules.Throw(rt, err)
	}
	v := call.Argument(0)
	var x float64
	switch e := v.Export().(type) {
	case bool:
		if e {
			x = 1
		}
	default:
		if sobek.IsUndefined(v) || sobek.IsNull(v) {
			modules.Throw(rt, fmt.Errorf("%s.add(%s): %w", mt.m.Name, v, errValue))
		}
		x = v.ToFloat()
		if math.IsNaN(x) {
			modules.Throw(rt, fmt.Errorf("%s.add(%s): %w", mt.m.Name, v, errValue))
		}
	}
	tags := st.Tags()
	if t := call.Argument(1); !sobek.IsUndefined(t) && !sobek.IsNull(t) {
		tags = mt.tagged(st, t.ToObject(rt))
	}
	mt.buf = append(mt.buf[:0], tm.Sample{Metric: mt.m, Tags: tags, Time: time.Now(), Value: x * mt.scale, Metadata: st.Metadata()})
	st.Env.Pusher.Push(mt.buf)
	return sobek.Undefined()
}
