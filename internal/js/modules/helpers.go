package modules

import (
	"errors"
	"fmt"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Describe names the type of a JavaScript value for error messages: "undefined",
// "null", "an object of class Array", "int64 42".
func Describe(v sobek.Value) string {
	switch {
	case v == nil || sobek.IsUndefined(v):
		return "undefined"
	case sobek.IsNull(v):
		return "null"
	}
	if o, ok := v.(*sobek.Object); ok {
		return "an object of class " + o.ClassName()
	}
	return fmt.Sprintf("%s %s", v.ExportType(), v.String())
}

// MetricSpec is a built-in metric a module registers in the init context (so that
// thresholds may name it): where to keep it, its name and its types.
type MetricSpec struct {
	Dst   **metrics.Metric
	Name  string
	Type  metrics.Type
	Value metrics.ValueType
}

// RegisterMetrics registers every spec in reg and keeps each metric in its Dst.
func RegisterMetrics(reg *metrics.Registry, specs ...MetricSpec) error {
	for _, s := range specs {
		m, err := reg.New(s.Name, s.Type, s.Value)
		if err != nil {
			return fmt.Errorf("register %s: %w", s.Name, err)
		}
		*s.Dst = m
	}
	return nil
}

// CheckArgs reads the arguments of k6's check(val, sets, tags) and of k6-utils' async
// check: the value, the object of named checks and the extra tags. It throws in rt
// when sets is missing.
func CheckArgs(rt *sobek.Runtime, call sobek.FunctionCall) (val sobek.Value, sets *sobek.Object, extra []metrics.Tag) {
	s := call.Argument(1)
	if sobek.IsUndefined(s) || sobek.IsNull(s) {
		Throw(rt, errors.New("check: expected an object of named checks as the second argument"))
	}
	if t := call.Argument(2); !sobek.IsUndefined(t) && !sobek.IsNull(t) {
		to := t.ToObject(rt)
		for _, k := range to.Keys() {
			extra = append(extra, metrics.Tag{Key: k, Value: to.Get(k).String()})
		}
	}
	return call.Argument(0), s.ToObject(rt), extra
}
