package modules

import (
	"fmt"

	"github.com/grafana/sobek"
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
