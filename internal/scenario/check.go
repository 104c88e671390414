package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// pathElem is one element of a JSON path: a key, or an index when key is empty and
// isIndex is set.
type pathElem struct {
	key     string
	idx     int
	isIndex bool
}

// parseJSONPath parses a dotted path with [i] indexes: `data.items[0].id`, `[2]`,
// `a.b`. Keys cannot contain '.', '[' or ']'.
func parseJSONPath(s string) ([]pathElem, error) {
	if s == "" {
		return nil, errors.New("empty path")
	}
	var out []pathElem
	for i, seg := range strings.Split(s, ".") {
		if seg == "" {
			return nil, errors.New("empty key")
		}
		key, rest, _ := strings.Cut(seg, "[")
		if strings.ContainsRune(key, ']') {
			return nil, errors.New("unmatched ]")
		}
		if key != "" {
			out = append(out, pathElem{key: key})
		} else if i > 0 && rest == "" {
			return nil, errors.New("empty key")
		}
		if len(seg) > len(key) {
			rest = seg[len(key):]
			for rest != "" {
				if rest[0] != '[' {
					return nil, errors.New("expected [ after ]")
				}
				end := strings.IndexByte(rest, ']')
				if end < 0 {
					return nil, errors.New("unclosed [")
				}
				n, err := strconv.Atoi(rest[1:end])
				if err != nil || n < 0 {
					return nil, errors.New("index " + strconv.Quote(rest[1:end]) + " is not a number from 0")
				}
				out = append(out, pathElem{idx: n, isIndex: true})
				rest = rest[end+1:]
			}
		}
	}
	return out, nil
}

// dottedPath writes a parsed path with indexes as plain numbers: data.items.0.id.
func dottedPath(path []pathElem) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		if p.isIndex {
			b.WriteString(strconv.Itoa(p.idx))
		} else {
			b.WriteString(p.key)
		}
	}
	return b.String()
}

// decodeJSON decodes data (known to be valid JSON) to the representation that
// encoding/json uses for `any`, with numbers as float64.
func decodeJSON(data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil
	}
	return v
}

// lookup follows path into v.
func lookup(v any, path []pathElem) (any, bool) {
	for _, p := range path {
		if p.isIndex {
			a, ok := v.([]any)
			if !ok || p.idx >= len(a) {
				return nil, false
			}
			v = a[p.idx]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p.key]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Response is what checks read of one HTTP response. The checks of a step share
// it, so that its body is decoded as JSON at most once, by the first JSON check that
// reads it. A Response is not safe for concurrent use; make a new one (a stack value
// does) for each response.
type Response struct {
	Status int
	Header http.Header
	// Body is the whole response body; the Response does not copy it, so the caller
	// must not change it while checks read it.
	Body []byte

	doc     any  // Body decoded, when decoded and isJSON
	decoded bool // Body was decoded (or found not to be JSON)
	isJSON  bool
}

// json returns the body decoded as JSON, decoding it on first use.
func (r *Response) json() (any, bool) {
	if !r.decoded {
		// A local, not &r.doc, keeps a stack-allocated Response on the stack.
		var doc any
		r.decoded, r.isJSON = true, json.Unmarshal(r.Body, &doc) == nil
		r.doc = doc
	}
	return r.doc, r.isJSON
}

// Eval reports whether r passes the check, by the rules docs/scenarios.md states: a
// JSON check fails on a body that is not JSON or lacks the field, passes on a present
// field when it has no expected value, and otherwise compares JSON values (the number
// 42 is not the string "42"). Eval only reads c, so one Check may be evaluated by many
// goroutines, each with its own Response.
func (c *Check) Eval(r *Response) bool {
	switch c.Kind {
	case CheckStatus:
		return r.Status == c.Status
	case CheckBodyContains:
		return bytes.Contains(r.Body, []byte(c.Value))
	case CheckBodyRegex:
		return c.Regex != nil && c.Regex.Regexp != nil && c.Regex.Match(r.Body)
	case CheckJSON:
		doc, ok := r.json()
		if !ok {
			return false
		}
		v, ok := lookup(doc, c.path)
		if !ok {
			return false
		}
		return !c.hasWant || reflect.DeepEqual(v, c.want)
	case CheckHeader:
		vals := r.Header.Values(c.Path)
		if len(vals) == 0 {
			return false
		}
		return !c.hasWant || slices.Contains(vals, c.Value)
	}
	return false
}
