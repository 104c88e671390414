package csv

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/grafana/sobek"
)

// options are the parsing options (k6's csv Options).
type options struct {
	delimiter     rune
	skipFirstLine bool
	fromLine      int64
	toLine        int64 // -1: to the end
	asObjects     bool
}

// readOptions reads the options object v (undefined: the defaults) and checks them
// as k6 documents: asObjects excludes skipFirstLine and fromLine > 0.
func readOptions(v sobek.Value) (options, error) {
	o := options{delimiter: ',', toLine: -1}
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return o, nil
	}
	obj, ok := v.(*sobek.Object)
	if !ok {
		return o, fmt.Errorf("options: expected an object, got %s", v.String())
	}
	if d := obj.Get("delimiter"); present(d) {
		s, ok := d.Export().(string)
		if !ok || utf8.RuneCountInString(s) != 1 {
			return o, fmt.Errorf("options: delimiter must be a single character, got %q", d.String())
		}
		o.delimiter, _ = utf8.DecodeRuneInString(s)
		if o.delimiter == '"' || o.delimiter == '\r' || o.delimiter == '\n' || o.delimiter == utf8.RuneError {
			return o, fmt.Errorf("options: delimiter %q cannot separate fields", s)
		}
	}
	o.skipFirstLine = obj.Get("skipFirstLine") != nil && obj.Get("skipFirstLine").ToBoolean()
	o.asObjects = obj.Get("asObjects") != nil && obj.Get("asObjects").ToBoolean()
	var err error
	if o.fromLine, err = line(obj, "fromLine", 0); err != nil {
		return o, err
	}
	if o.toLine, err = line(obj, "toLine", -1); err != nil {
		return o, err
	}
	switch {
	case o.toLine >= 0 && o.toLine < o.fromLine:
		return o, fmt.Errorf("options: toLine (%d) must not be before fromLine (%d)", o.toLine, o.fromLine)
	case o.asObjects && o.skipFirstLine:
		return o, fmt.Errorf("options: asObjects and skipFirstLine cannot be used together: with asObjects the first line is the header")
	case o.asObjects && o.fromLine > 0:
		return o, fmt.Errorf("options: asObjects and fromLine > 0 cannot be used together: with asObjects the first line is the header")
	}
	return o, nil
}

// present reports whether an option is set.
func present(v sobek.Value) bool {
	return v != nil && !sobek.IsUndefined(v) && !sobek.IsNull(v)
}

// line reads the line-number option name: a whole number, zero or more.
func line(obj *sobek.Object, name string, def int64) (int64, error) {
	v := obj.Get(name)
	if !present(v) {
		return def, nil
	}
	f := v.ToFloat()
	if _, isStr := v.Export().(string); isStr || math.IsNaN(f) || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("options: %s must be a whole number, zero or more, got %s", name, v.String())
	}
	return int64(f), nil
}
