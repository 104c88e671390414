package scenario

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

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
	// and ${__UUID}; it must not be shared between goroutines. A *rand.Rand from
	// math/rand/v2 fits. When nil, the goroutine-safe global source is used.
	Rand interface {
		Int64N(n int64) int64
		Uint64() uint64
	}
}

// Template is a string with ${...} variables, parsed once when the test loads.
// Render is allocation-light and safe for concurrent use.
//
// Variables: ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default} (default when
// NAME is unset or empty), ${__RANDOM_INT(min,max)} (inclusive), ${__RANDOM_STRING(n)}
// (n letters and digits), ${__UUID} (random, version 4). `$${` writes a literal `${`.
//
// Load binds ${__ENV.*} to their values when the file is loaded, so the templates of a
// loaded Test never read Vars.Env.
type Template struct {
	src   string
	parts []part
}

type part struct {
	lit    string
	kind   varKind
	name   string // env name
	def    string // env default
	hasDef bool
	a, b   int64 // random int bounds or string length
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

// maxRandomString bounds ${__RANDOM_STRING(n)} so that a typo cannot ask for
// gigabytes per request.
const maxRandomString = 1 << 20

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
	if t == nil {
		return true
	}
	for _, p := range t.parts {
		if p.kind != varLiteral {
			return false
		}
	}
	return true
}

// variableNames lists the variables for messages.
const variableNames = "${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}"

// ParseTemplate parses s. An unknown variable, an unclosed `${` or bad arguments are
// errors.
func ParseTemplate(s string) (*Template, error) {
	t := &Template{src: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '$')
		if j < 0 {
			lit.WriteString(s[i:])
			break
		}
		lit.WriteString(s[i : i+j])
		i += j
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed %q; expected ${NAME} with NAME one of %s", s[i:], variableNames)
			}
			p, err := parseVar(s[i+2 : i+end])
			if err != nil {
				return nil, err
			}
			flush()
			t.parts = append(t.parts, p)
			i += end + 1
		default:
			lit.WriteByte('$')
			i++
		}
	}
	flush()
	return t, nil
}

func parseVar(v string) (part, error) {
	switch {
	case v == "__VU":
		return part{kind: varVU}, nil
	case v == "__ITER":
		return part{kind: varIter}, nil
	case v == "__UUID":
		return part{kind: varUUID}, nil
	case strings.HasPrefix(v, "__ENV."):
		name, def, hasDef := strings.Cut(v[len("__ENV."):], ":-")
		if !validEnvName(name) {
			return part{}, fmt.Errorf("bad environment variable name %q in ${%s}; expected letters, digits and underscores, not starting with a digit", name, v)
		}
		return part{kind: varEnv, name: name, def: def, hasDef: hasDef}, nil
	case strings.HasPrefix(v, "__RANDOM_INT(") && strings.HasSuffix(v, ")"):
		args := strings.Split(v[len("__RANDOM_INT("):len(v)-1], ",")
		if len(args) != 2 {
			return part{}, fmt.Errorf("bad ${%s}; expected ${__RANDOM_INT(min,max)} with two integers", v)
		}
		a, err1 := strconv.ParseInt(strings.TrimSpace(args[0]), 10, 64)
		b, err2 := strconv.ParseInt(strings.TrimSpace(args[1]), 10, 64)
		if err1 != nil || err2 != nil {
			return part{}, fmt.Errorf("bad ${%s}; expected ${__RANDOM_INT(min,max)} with two integers", v)
		}
		if a > b {
			return part{}, fmt.Errorf("bad ${%s}: min %d is greater than max %d", v, a, b)
		}
		return part{kind: varRandomInt, a: a, b: b}, nil
	case strings.HasPrefix(v, "__RANDOM_STRING(") && strings.HasSuffix(v, ")"):
		n, err := strconv.ParseInt(strings.TrimSpace(v[len("__RANDOM_STRING("):len(v)-1]), 10, 64)
		if err != nil || n < 1 || n > maxRandomString {
			return part{}, fmt.Errorf("bad ${%s}; expected ${__RANDOM_STRING(n)} with n from 1 to %d", v, maxRandomString)
		}
		return part{kind: varRandomString, a: n}, nil
	}
	name := v
	if i := strings.IndexAny(name, "(.:"); i >= 0 {
		name = name[:i]
	}
	return part{}, fmt.Errorf("unknown variable ${%s}; expected one of %s%s", v, variableNames,
		didYouMean(name, []string{"__VU", "__ITER", "__ENV", "__RANDOM_INT", "__RANDOM_STRING", "__UUID"}))
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// bind returns a copy of t with every ${__ENV.NAME} replaced by its value in env (or
// its default when NAME is unset or empty), and the names that are unset and have no
// default (bound to "").
func (t *Template) bind(env map[string]string) (*Template, []string) {
	var missing []string
	out := &Template{src: t.src, parts: make([]part, 0, len(t.parts))}
	// Adjacent literals are joined in lit, so that a bound template has as few parts
	// as possible; a builder keeps that linear in the template's length.
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out.parts = append(out.parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for _, p := range t.parts {
		switch p.kind {
		case varLiteral:
			lit.WriteString(p.lit)
		case varEnv:
			v, ok := env[p.name]
			switch {
			case v != "":
				lit.WriteString(v)
			case p.hasDef:
				lit.WriteString(p.def)
			case !ok:
				missing = append(missing, p.name)
			}
		default:
			flush()
			out.parts = append(out.parts, p)
		}
	}
	flush()
	// The source of a bound template shows the values, so that messages and the
	// default `name` tag show what is actually requested.
	var src strings.Builder
	for _, p := range out.parts {
		if p.kind == varLiteral {
			src.WriteString(strings.ReplaceAll(p.lit, "${", "$${"))
			continue
		}
		src.WriteString(p.source())
	}
	out.src = src.String()
	return out, missing
}

// source returns the ${...} text of a variable part.
func (p part) source() string {
	switch p.kind {
	case varVU:
		return "${__VU}"
	case varIter:
		return "${__ITER}"
	case varUUID:
		return "${__UUID}"
	case varEnv:
		if p.hasDef {
			return "${__ENV." + p.name + ":-" + p.def + "}"
		}
		return "${__ENV." + p.name + "}"
	case varRandomInt:
		return "${__RANDOM_INT(" + strconv.FormatInt(p.a, 10) + "," + strconv.FormatInt(p.b, 10) + ")}"
	case varRandomString:
		return "${__RANDOM_STRING(" + strconv.FormatInt(p.a, 10) + ")}"
	}
	return p.lit
}

// pattern returns the template with every variable written as `${}`, the way k6 names
// requests made with http.url`...`; it keeps the `name` and `url` tags low-cardinality.
func (t *Template) pattern() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.kind == varLiteral {
			b.WriteString(p.lit)
		} else {
			b.WriteString("${}")
		}
	}
	return b.String()
}

// alnum is the alphabet of ${__RANDOM_STRING(n)}.
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// Render appends the template, with variables replaced using v, to buf and returns the
// extended buffer. It does not allocate beyond growing buf. v may be nil.
func (t *Template) Render(buf []byte, v *Vars) []byte {
	if t == nil {
		return buf
	}
	for i := range t.parts {
		p := &t.parts[i]
		switch p.kind {
		case varLiteral:
			buf = append(buf, p.lit...)
		case varVU:
			if v != nil {
				buf = strconv.AppendInt(buf, v.VU, 10)
			} else {
				buf = append(buf, '0')
			}
		case varIter:
			if v != nil {
				buf = strconv.AppendInt(buf, v.Iter, 10)
			} else {
				buf = append(buf, '0')
			}
		case varEnv:
			val := ""
			if v != nil {
				val = v.Env[p.name]
			}
			if val == "" && p.hasDef {
				val = p.def
			}
			buf = append(buf, val...)
		case varRandomInt:
			buf = strconv.AppendInt(buf, randomInt(v, p.a, p.b), 10)
		case varRandomString:
			for range p.a {
				buf = append(buf, alnum[int64n(v, int64(len(alnum)))])
			}
		case varUUID:
			buf = appendUUID(buf, uint64n(v), uint64n(v))
		}
	}
	return buf
}

func int64n(v *Vars, n int64) int64 {
	if v != nil && v.Rand != nil {
		return v.Rand.Int64N(n)
	}
	return rand.Int64N(n)
}

func uint64n(v *Vars) uint64 {
	if v != nil && v.Rand != nil {
		return v.Rand.Uint64()
	}
	return rand.Uint64()
}

// randomInt returns a uniform integer in [a, b].
func randomInt(v *Vars, a, b int64) int64 {
	span := uint64(b-a) + 1
	switch {
	case span == 0: // the whole int64 range
		return int64(uint64n(v))
	case span <= 1<<63-1:
		return a + int64n(v, int64(span))
	default:
		// More than half the int64 range: rejection sampling keeps it uniform and
		// needs fewer than two draws on average.
		for {
			if r := uint64n(v); r < span {
				return a + int64(r)
			}
		}
	}
}

const hexDigits = "0123456789abcdef"

// appendUUID appends a version 4 (random) UUID made of hi and lo.
func appendUUID(buf []byte, hi, lo uint64) []byte {
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	var b [16]byte
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return buf
}
