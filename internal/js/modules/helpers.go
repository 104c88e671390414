package modules

import (
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
