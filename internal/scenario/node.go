package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// nodeBudget bounds the nodes one file may expand to through YAML aliases, so that a
// "billion laughs" document fails instead of exhausting memory.
const nodeBudget = 100_000

// decoder walks a yaml.Node tree and collects every problem it finds.
type decoder struct {
	file      string
	errs      Errors
	budget    int
	exhausted bool
	// usedFlows are the flows some scenario runs.
	usedFlows map[string]bool
	// topFlow is true when the file has a top-level flow (the flow named "default").
	topFlow bool
	// limits bound VU counts, rates and iteration counts.
	limits Limits
}

// errorf records a problem at n (its line) in field.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows aliases and charges the node budget. It returns nil when the budget
// is spent.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 100 {
			return nil
		}
		n = n.Alias
	}
	d.budget--
	if d.budget < 0 {
		if !d.exhausted {
			d.exhausted = true
			d.errorf(n, "", "document too large or too deeply aliased; expected at most %d values", nodeBudget)
		}
		return nil
	}
	return n
}

// join appends key to a dotted field path.
func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// index appends [i] to a field path.
func index(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// describe names what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return strconv.Quote(n.Value)
		case "!!bool":
			return n.Value
		default:
			return "the number " + n.Value
		}
	}
	return "an unsupported YAML value"
}

// kv is one entry of a mapping.
type kv struct {
	name     string
	key, val *yaml.Node
}

// fields is a decoded mapping: its entries in order and by name.
type fields struct {
	list []kv
	by   map[string]kv
}

func (f *fields) get(name string) (*yaml.Node, bool) {
	if f == nil {
		return nil, false
	}
	e, ok := f.by[name]
	return e.val, ok
}

// mapping decodes n as a mapping. When known is not nil, keys outside it are reported
// as unknown with a suggestion. Merge keys (`<<: *anchor`) are expanded; a key given
// twice is an error.
func (d *decoder) mapping(n *yaml.Node, field string, known []string) (*fields, bool) {
	return d.mappingWith(n, field, known, nil)
}

// mappingWith is mapping where hint explains keys outside known that are not typos:
// it returns the message for such a key (e.g. a k6 option Tidemark does not support),
// or "" to report the key as unknown.
func (d *decoder) mappingWith(n *yaml.Node, field string, known []string, hint func(string) string) (*fields, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, field, "expected a mapping, got %s", describe(n))
		return nil, false
	}
	f := &fields{by: map[string]kv{}}
	d.addEntries(f, n, field, known, hint, 0)
	return f, true
}

func (d *decoder) addEntries(f *fields, n *yaml.Node, field string, known []string, hint func(string) string, depth int) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.resolve(n.Content[i]), n.Content[i+1]
		if k == nil {
			return
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, field, "expected a plain key, got %s", describe(k))
			continue
		}
		name := k.Value
		if prev, dup := f.by[name]; dup {
			if depth == 0 {
				d.errorf(k, join(field, name), "field given twice (first on line %d)", prev.key.Line)
			}
			continue
		}
		if known != nil && !slices.Contains(known, name) {
			if hint != nil {
				if msg := hint(name); msg != "" {
					d.errorf(k, join(field, name), "%s", msg)
					continue
				}
			}
			d.errorf(k, join(field, name), "unknown field %q; expected one of %s%s", name, strings.Join(known, ", "), didYouMean(name, known))
			continue
		}
		e := kv{name: name, key: k, val: v}
		f.by[name] = e
		f.list = append(f.list, e)
	}
	// Explicit keys win over merged ones, as in YAML's merge key type.
	for _, m := range merges {
		m = d.resolve(m)
		if m == nil {
			return
		}
		if depth > 10 {
			d.errorf(m, field, "merge keys nested too deeply")
			return
		}
		switch m.Kind {
		case yaml.MappingNode:
			d.addEntries(f, m, field, known, hint, depth+1)
		case yaml.SequenceNode:
			for _, c := range m.Content {
				if c = d.resolve(c); c != nil && c.Kind == yaml.MappingNode {
					d.addEntries(f, c, field, known, hint, depth+1)
				} else if c != nil {
					d.errorf(c, field, "merge key expects mappings, got %s", describe(c))
				}
			}
		default:
			d.errorf(m, field, "merge key expects a mapping, got %s", describe(m))
		}
	}
}

// sequence decodes n as a list. A single value where a list is allowed is accepted
// as a list of one when single is true.
func (d *decoder) sequence(n *yaml.Node, field string, single bool) ([]*yaml.Node, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.SequenceNode {
		return n.Content, true
	}
	if single && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		return []*yaml.Node{n}, true
	}
	d.errorf(n, field, "expected a list, got %s", describe(n))
	return nil, false
}

// scalar returns n resolved when it is a non-null scalar, else reports what was
// expected.
func (d *decoder) scalar(n *yaml.Node, field, expected string) (*yaml.Node, bool) {
	n = d.resolve(n)
	if n == nil {
		return nil, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.errorf(n, field, "expected %s, got %s", expected, describe(n))
		return nil, false
	}
	return n, true
}

// str decodes a string. Numbers and booleans are taken as their text.
func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n, ok := d.scalar(n, field, "a string")
	if !ok {
		return "", false
	}
	return n.Value, true
}

// integer decodes a whole number, or a string of one in base 10 as k6's options
// take it ({vus: "1"}: QuickPizza's 12.modularization.js).
func (d *decoder) integer(n *yaml.Node, field string) (int, bool) {
	n, ok := d.scalar(n, field, "a whole number")
	if !ok {
		return 0, false
	}
	switch n.ShortTag() {
	case "!!str":
		if v, err := strconv.ParseInt(n.Value, 10, 64); err == nil && v == int64(int(v)) {
			return int(v), true
		}
	case "!!int":
		var v int64
		if err := n.Decode(&v); err == nil {
			return int(v), true
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int(f), true
		}
	}
	d.errorf(n, field, "expected a whole number, got %s", describe(n))
	return 0, false
}

// number decodes a finite number.
func (d *decoder) number(n *yaml.Node, field string) (float64, bool) {
	n, ok := d.scalar(n, field, "a number")
	if !ok {
		return 0, false
	}
	if t := n.ShortTag(); t == "!!int" || t == "!!float" {
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
	}
	d.errorf(n, field, "expected a number, got %s", describe(n))
	return 0, false
}

// boolean decodes true or false.
func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	n, ok := d.scalar(n, field, "true or false")
	if !ok {
		return false, false
	}
	if n.ShortTag() == "!!bool" {
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	}
	d.errorf(n, field, "expected true or false, got %s", describe(n))
	return false, false
}

const durationForms = `a duration such as "30s", "1m30s", "2h" or "500ms", or a number of milliseconds`

// duration decodes a k6 duration: a string with units, or a number of milliseconds.
func (d *decoder) duration(n *yaml.Node, field string) (time.Duration, bool) {
	return d.durationUnit(n, field, time.Millisecond, durationForms)
}

// durationUnit decodes a duration where a bare number counts unit.
func (d *decoder) durationUnit(n *yaml.Node, field string, unit time.Duration, forms string) (time.Duration, bool) {
	n, ok := d.scalar(n, field, forms)
	if !ok {
		return 0, false
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			break
		}
		dur, err := msDuration(f * float64(unit) / float64(time.Millisecond))
		if err != nil {
			d.errorf(n, field, "bad duration %s: %v; expected %s", n.Value, err, forms)
			return 0, false
		}
		return dur, true
	case "!!str":
		dur, err := ParseDuration(n.Value)
		if err != nil {
			d.errorf(n, field, "bad duration %q: %v; expected %s", n.Value, err, forms)
			return 0, false
		}
		return dur, true
	}
	d.errorf(n, field, "expected %s, got %s", forms, describe(n))
	return 0, false
}

// stringMap decodes a mapping of strings (tags, env, headers).
func (d *decoder) stringMap(n *yaml.Node, field string) map[string]string {
	f, ok := d.mapping(n, field, nil)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(f.list))
	for _, e := range f.list {
		if v, ok := d.str(e.val, join(field, e.name)); ok {
			out[e.name] = v
		}
	}
	return out
}

// stringList decodes a list of strings.
func (d *decoder) stringList(n *yaml.Node, field string) []string {
	items, ok := d.sequence(n, field, false)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		if s, ok := d.str(it, index(field, i)); ok {
			out = append(out, s)
		}
	}
	return out
}

// jsonValue writes n as JSON, keeping the order of mapping keys.
func (d *decoder) jsonValue(b *strings.Builder, n *yaml.Node, field string) bool {
	n = d.resolve(n)
	if n == nil {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		f, ok := d.mapping(n, field, nil)
		if !ok {
			return false
		}
		b.WriteByte('{')
		for i, e := range f.list {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, e.name)
			b.WriteByte(':')
			if !d.jsonValue(b, e.val, join(field, e.name)) {
				return false
			}
		}
		b.WriteByte('}')
		return true
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if !d.jsonValue(b, c, index(field, i)) {
				return false
			}
		}
		b.WriteByte(']')
		return true
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			b.WriteString("null")
			return true
		case "!!bool":
			var v bool
			if err := n.Decode(&v); err == nil {
				b.WriteString(strconv.FormatBool(v))
				return true
			}
		case "!!int", "!!float":
			var v float64
			if err := n.Decode(&v); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
				if n.ShortTag() == "!!int" {
					var i int64
					if err := n.Decode(&i); err == nil {
						b.WriteString(strconv.FormatInt(i, 10))
						return true
					}
				}
				b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				return true
			}
			d.errorf(n, field, "number %s cannot be written as JSON", n.Value)
			return false
		default:
			writeJSONString(b, n.Value)
			return true
		}
	}
	d.errorf(n, field, "expected a JSON value, got %s", describe(n))
	return false
}

// writeJSONString writes s as a JSON string without escaping <, > and &, so that
// bodies read as written.
func writeJSONString(b *strings.Builder, s string) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // A string always encodes.
	b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
}
