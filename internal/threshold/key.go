package threshold

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Key is the metric a threshold applies to: a metric name and, for a sub-metric, the
// tags a sample must carry to count (`http_req_duration{scenario:spike,method:GET}`).
type Key struct {
	// Metric is the metric name.
	Metric string
	// Tags are the sub-metric's tags sorted by key; nil for the whole metric.
	Tags []metrics.Tag
	// Name is the key as k6 names the (sub-)metric: the metric name, then the tag
	// selector as written (trimmed), e.g. `http_req_duration{scenario:spike}`.
	Name string
	// Suffix is the selector between the braces as written (trimmed), shown by the
	// summary as `{ scenario:spike }`; empty for the whole metric.
	Suffix string
}

// ParseKey parses a threshold key `metric` or `metric{tag:value,...}`. As in k6, keys
// and values are trimmed of spaces and of `"` and `'`, and a value may itself contain
// `:` (`group:::login` is the group `::login`).
func ParseKey(s string) (Key, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '{')
	closing := strings.LastIndexByte(s, '}')
	switch {
	case open < 0 && closing < 0:
		if s == "" {
			return Key{}, fmt.Errorf("%w metric: empty name", ErrSyntax)
		}
		if strings.ContainsAny(s, " \t\r\n") {
			return Key{}, fmt.Errorf("%w metric %q: a name has no spaces", ErrSyntax, s)
		}
		return Key{Metric: s, Name: s}, nil
	case open < 0 || closing < 0:
		return Key{}, fmt.Errorf("%w metric %q: unmatched curly brace; expected metric{tag:value,...}", ErrSyntax, s)
	case closing < open || closing != len(s)-1:
		return Key{}, fmt.Errorf("%w metric %q: curly brace in the wrong place; expected metric{tag:value,...}", ErrSyntax, s)
	}
	name := strings.TrimSpace(s[:open])
	if name == "" || strings.ContainsAny(name, " \t\r\n{}") {
		return Key{}, fmt.Errorf("%w metric %q: bad metric name %q", ErrSyntax, s, name)
	}
	suffix := strings.TrimSpace(s[open+1 : closing])
	if suffix == "" {
		return Key{}, fmt.Errorf("%w metric %q: empty tag selector; expected metric{tag:value,...}", ErrSyntax, s)
	}
	byKey := map[string]string{}
	for kv := range strings.SplitSeq(suffix, ",") {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if !ok || k == "" || v == "" {
			return Key{}, fmt.Errorf("%w metric %q: malformed tag %q; expected tag:value", ErrSyntax, s, strings.TrimSpace(kv))
		}
		if prev, dup := byKey[k]; dup && prev != v {
			return Key{}, fmt.Errorf("%w metric %q: tag %q given twice", ErrSyntax, s, k)
		}
		byKey[k] = v
	}
	tags := make([]metrics.Tag, 0, len(byKey))
	for k, v := range byKey {
		tags = append(tags, metrics.Tag{Key: k, Value: v})
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	return Key{Metric: name, Tags: tags, Name: name + "{" + suffix + "}", Suffix: suffix}, nil
}

// ID is the canonical form of the key, equal for keys that select the same samples
// whatever the order and quoting of their tags: `metric` or `metric{a:1,b:2}`.
func (k Key) ID() string {
	if len(k.Tags) == 0 {
		return k.Metric
	}
	var b strings.Builder
	b.WriteString(k.Metric)
	b.WriteByte('{')
	for i, t := range k.Tags {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.Key)
		b.WriteByte(':')
		b.WriteString(t.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// Match reports whether a sample of the key's metric with tags ts counts toward the
// key: it carries every tag of the sub-metric (k6's `sample.Tags.Contains`).
func (k Key) Match(ts *metrics.TagSet) bool {
	if len(k.Tags) == 0 {
		return true
	}
	return ts.Contains(k.Tags)
}

// NonIndexable reports whether the key selects on `vu` or `iter`, which are never tags
// in Tidemark (k6 only warns); such a sub-metric matches no sample.
func (k Key) NonIndexable() bool {
	for _, t := range k.Tags {
		if t.Key == "vu" || t.Key == "iter" {
			return true
		}
	}
	return false
}
