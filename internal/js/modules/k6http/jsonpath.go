package k6http

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grafana/sobek"
)

// selectPath evaluates a path of gjson's syntax on v, a parsed JSON value, as
// k6's Response.json(selector) does. The subset: keys separated by dots (`a.b`),
// `\.` for a dot in a key, array indexes (`items.0`), `#` for an array's length
// (last) or to collect the rest of the path over its elements (`items.#.id`), `*`
// and `?` wildcards in keys (the first key that matches), and queries
// `#(field op value)` (the first match) and `#(field op value)#` (every match),
// with == != < <= > >= % (like, with wildcards) and !%, or a field alone (it
// exists). Modifiers (`@reverse`) and pipes are not supported: they match
// nothing.
func selectPath(rt *sobek.Runtime, v sobek.Value, p string) (sobek.Value, bool) {
	return walk(rt, v, splitPath(p))
}

// splitPath splits a path at its dots, outside queries and escapes.
func splitPath(p string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			if depth > 0 {
				cur.WriteByte('\\')
			}
			cur.WriteByte(p[i])
		case c == '(':
			depth++
			cur.WriteByte(c)
		case c == ')' && depth > 0:
			depth--
			cur.WriteByte(c)
		case c == '.' && depth == 0:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

func walk(rt *sobek.Runtime, v sobek.Value, comps []string) (sobek.Value, bool) {
	if len(comps) == 0 {
		return v, true
	}
	c, rest := comps[0], comps[1:]
	o, ok := v.(*sobek.Object)
	if !ok || c == "" || strings.HasPrefix(c, "@") || strings.Contains(c, "|") {
		return nil, false
	}
	if o.ClassName() != "Array" {
		if strings.ContainsAny(c, "*?") {
			for _, k := range o.Keys() {
				if wildcard(c, k) {
					return walk(rt, o.Get(k), rest)
				}
			}
			return nil, false
		}
		x := o.Get(c)
		if x == nil {
			return nil, false
		}
		return walk(rt, x, rest)
	}
	n := int(o.Get("length").ToInteger())
	elem := func(i int) sobek.Value { return o.Get(strconv.Itoa(i)) }
	switch {
	case c == "#":
		if len(rest) == 0 {
			return rt.ToValue(n), true
		}
		return collect(rt, n, elem, nil, rest), true
	case strings.HasPrefix(c, "#(") && (strings.HasSuffix(c, ")") || strings.HasSuffix(c, ")#")):
		all := strings.HasSuffix(c, ")#")
		cond := strings.TrimPrefix(c, "#(")
		if all {
			cond = strings.TrimSuffix(cond, ")#")
		} else {
			cond = strings.TrimSuffix(cond, ")")
		}
		q := parseQuery(cond)
		if all {
			return collect(rt, n, elem, q, rest), true
		}
		for i := range n {
			if q.match(rt, elem(i)) {
				return walk(rt, elem(i), rest)
			}
		}
		return nil, false
	}
	i, err := strconv.Atoi(c)
	if err != nil || i < 0 || i >= n {
		return nil, false
	}
	return walk(rt, elem(i), rest)
}

// collect is the rest of the path over the array's elements that match q (all
// when q is nil), as an array of the results found.
func collect(rt *sobek.Runtime, n int, elem func(int) sobek.Value, q *query, rest []string) sobek.Value {
	out := []any{}
	for i := range n {
		e := elem(i)
		if q != nil && !q.match(rt, e) {
			continue
		}
		if r, ok := walk(rt, e, rest); ok {
			out = append(out, r)
		}
	}
	return rt.NewArray(out...)
}

// query is the condition of #(…).
type query struct {
	path  []string // of the field tested; none tests the element itself
	op    string   // "" tests that the field exists
	value any      // a JSON literal, or the raw text
}

func parseQuery(s string) *query {
	q := &query{}
	inStr := false
	depth := 0 // of a nested query, whose operators are its own
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inStr = !inStr
		case c == '\\':
			i++
		case inStr:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth > 0:
		case strings.ContainsRune("=!<>%", rune(c)):
			op := string(c)
			if i+1 < len(s) && (s[i+1] == '=' || (c == '!' && s[i+1] == '%')) {
				op += string(s[i+1])
			}
			if op == "!" || op == "=" {
				continue
			}
			if left := strings.TrimSpace(s[:i]); left != "" {
				q.path = splitPath(left)
			}
			q.op = op
			raw := strings.TrimSpace(s[i+len(op):])
			if err := json.Unmarshal([]byte(raw), &q.value); err != nil {
				q.value = raw
			}
			return q
		}
	}
	q.path = splitPath(strings.TrimSpace(s))
	return q
}

func (q *query) match(rt *sobek.Runtime, e sobek.Value) bool {
	v, ok := e, true
	if len(q.path) > 0 {
		v, ok = walk(rt, e, q.path)
	}
	if !ok {
		return false
	}
	if q.op == "" {
		return true
	}
	got := v.Export()
	switch want := q.value.(type) {
	case float64:
		f, isNum := toFloat(got)
		return isNum && compare(q.op, cmp.Compare(f, want))
	case string:
		s, isStr := got.(string)
		if !isStr {
			return false
		}
		switch q.op {
		case "%":
			return wildcard(want, s)
		case "!%":
			return !wildcard(want, s)
		}
		return compare(q.op, strings.Compare(s, want))
	case bool:
		b, isBool := got.(bool)
		if !isBool {
			return false
		}
		eq := b == want
		return (q.op == "==" && eq) || (q.op == "!=" && !eq)
	case nil:
		eq := got == nil
		return (q.op == "==" && eq) || (q.op == "!=" && !eq)
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// wildcard matches s against pattern, where * is any run of characters and ?
// any one character (gjson's wildcards).
func wildcard(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if wildcard(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(s)
			pattern, s = pattern[1:], s[n:]
		default:
			if s == "" || s[0] != pattern[0] {
				return false
			}
			pattern, s = pattern[1:], s[1:]
		}
	}
	return s == ""
}

func compare(op string, c int) bool {
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}
