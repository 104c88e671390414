package scenario

import "regexp"

// Regexp is a compiled regular expression that remembers its source.
type Regexp struct {
	*regexp.Regexp
}

// Vars are the values a Template can refer to when one VU renders it.
type Vars struct {
	VU   int64             // ${__VU}: 1-based VU number within the scenario.
	Iter int64             // ${__ITER}: 0-based iteration of this VU.
	Env  map[string]string // ${__ENV.NAME}.
	// Rand is the VU's random source for ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}
	// and ${__UUID}; it must not be shared between goroutines.
	Rand interface {
		Int64N(n int64) int64
		Uint64() uint64
	}
}

// Template is a string with ${...} variables, parsed once when the test loads.
// Render is allocation-light and safe for concurrent use.
type Template struct {
	src   string
	parts []part
}

type part struct {
	lit  string
	kind varKind
	name string // env name
	a, b int64  // random int bounds or string length
}

type varKind uint8

const (
	varLiteral varKind = iota
	varVU
	varIter
	varEnv
	varRandomInt
	varRandomString
	varUUID
)

// String returns the template's source text.
func (t *Template) String() string {
	if t == nil {
		return ""
	}
	return t.src
}

// Static reports whether the template has no variables; then Render always returns the
// source.
func (t *Template) Static() bool {
	for _, p := range t.parts {
		if p.kind != varLiteral {
			return false
		}
	}
	return true
}
