package query

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// ParseSelector parses extra label matchers as a flag gives them, for [Vars.Selector]:
// comma-separated name=value pairs, a value optionally double-quoted as in PromQL
// (`cluster=prod`, `cluster="prod",region=eu-west-1`). Only equality is accepted; names
// must be valid label names and may not repeat. An empty string is no matcher.
func ParseSelector(s string) (map[string]string, error) {
	out := map[string]string{}
	s = strings.TrimSpace(s)
	if s == "" {
		return out, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		name, value, ok := strings.Cut(part, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("parse selector %q: %q is not name=value", s, part)
		}
		if strings.HasSuffix(name, "!") || strings.HasPrefix(value, "~") {
			return nil, fmt.Errorf("parse selector %q: %q: only equality (name=value) is supported", s, part)
		}
		if !model.LegacyValidation.IsValidLabelName(name) {
			return nil, fmt.Errorf("parse selector %q: %q is not a valid label name", s, name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("parse selector %q: label %q given twice", s, name)
		}
		if strings.HasPrefix(value, `"`) {
			v, err := strconv.Unquote(value)
			if err != nil {
				return nil, fmt.Errorf("parse selector %q: value %s: %w", s, value, err)
			}
			value = v
		}
		out[name] = value
	}
	return out, nil
}

// selectorText renders extra matchers as PromQL, sorted by name and escaped:
// `cluster="prod", region="eu-west-1"`.
func selectorText(m map[string]string) (string, error) {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !model.LegacyValidation.IsValidLabelName(k) {
			return "", fmt.Errorf("selector label %q is not a valid label name", k)
		}
		parts = append(parts, fmt.Sprintf(`%s="%s"`, k, escape(m[k])))
	}
	return strings.Join(parts, ", "), nil
}

// joinMatchers ANDs two lists of matchers written without braces.
func joinMatchers(a, b string) string {
	switch {
	case b == "":
		return a
	case strings.TrimSpace(a) == "":
		return b
	}
	return a + ", " + b
}

// WithSelectors returns a copy of the catalog whose sources named in selectors have those
// selectors (templates in the catalog's syntax, such as
// `job="kubernetes-service-endpoints", namespace=~"{{.Namespace}}"`), validated as a
// loaded catalog is. The copy's [Catalog.YAML] is a catalog file with them. c is not
// changed.
func (c *Catalog) WithSelectors(selectors map[string]string) (*Catalog, error) {
	cp := *c
	cp.Sources = maps.Clone(c.Sources)
	for _, n := range slices.Sorted(maps.Keys(selectors)) {
		s, ok := cp.Sources[n]
		if !ok {
			return nil, fmt.Errorf("set selector of source %q: not in the catalog", n)
		}
		s.Selector = selectors[n]
		cp.Sources[n] = s
	}
	b, err := cp.YAML()
	if err != nil {
		return nil, err
	}
	out, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("set selectors: %w", err)
	}
	return out, nil
}

// YAML returns the catalog as a file for --catalog.file. A parsed catalog keeps the text
// it was parsed from, comments included, with each source's selector set to the
// catalog's; any other catalog is marshalled afresh.
func (c *Catalog) YAML() ([]byte, error) {
	if c.raw == nil {
		b, err := yaml.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("marshal catalog: %w", err)
		}
		return b, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(c.raw, &doc); err != nil {
		return nil, fmt.Errorf("decode catalog: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, fmt.Errorf("decode catalog: not one YAML document")
	}
	sources := mappingValue(doc.Content[0], "sources")
	if sources == nil || sources.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("decode catalog: no sources mapping")
	}
	for _, n := range slices.Sorted(maps.Keys(c.Sources)) {
		src := mappingValue(sources, n)
		if src == nil || src.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("decode catalog: source %q is not a mapping", n)
		}
		want := c.Sources[n].Selector
		if sel := mappingValue(src, "selector"); sel != nil {
			if sel.Value != want {
				sel.Kind, sel.Tag, sel.Style, sel.Value = yaml.ScalarNode, "!!str", yaml.SingleQuotedStyle, want
			}
			continue
		}
		src.Content = append(src.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "selector"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.SingleQuotedStyle, Value: want})
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("encode catalog: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode catalog: %w", err)
	}
	return b.Bytes(), nil
}

// mappingValue returns the value of key in a YAML mapping node, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
