package scenario

import (
	"strconv"
	"strings"
)

// Error is one problem in a scenario file: where it is and what is wrong. Load and Parse
// return every problem they find as Errors; the command maps them to exit code 104.
type Error struct {
	// File is the path or name of the scenario file.
	File string
	// Line is the 1-based line of the offending value; 0 when unknown.
	Line int
	// Field is the dotted path of the offending field, e.g.
	// `scenarios.spike.flow[0].url`; empty for problems with the whole file.
	Field string
	// Msg says what is wrong and what was expected.
	Msg string
	// Err is the underlying error, if any (e.g. a *fs.PathError for a missing file).
	Err error
}

// Error returns `file:line: field: message`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in one scenario file, in line order. It is never
// empty when returned as an error; errors.As finds it and each *Error within it.
type Errors []*Error

// Error returns one problem per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
