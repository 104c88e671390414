package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
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

// Eval reports whether a response passes the check. body is the whole response body;
// a JSON check decodes it (a body that is not JSON fails). Eval is safe for
// concurrent use.
func (c *Check) Eval(status int, header http.Header, body []byte) bool {
	switch c.Kind {
	case CheckStatus:
		return status == c.Status
	case CheckBodyContains:
		return bytes.Contains(body, []byte(c.Value))
	case CheckBodyRegex:
		return c.Regex != nil && c.Regex.Match(body)
	case CheckJSON:
		var doc any
		if err := json.Unmarshal(body, &doc); err != nil {
			return false
		}
		v, ok := lookup(doc, c.path)
		if !ok {
			return false
		}
		if !c.hasWant {
			return true
		}
		return reflect.DeepEqual(v, c.want)
	case CheckHeader:
		vals := header.Values(c.Path)
		if len(vals) == 0 {
			return false
		}
		if !c.hasWant {
			return true
		}
		for _, v := range vals {
			if v == c.Value {
				return true
			}
		}
		return false
	}
	return false
}
