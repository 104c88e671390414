package metrics

import (
	"sort"
	"strings"
	"sync"
)

// Tag is one key/value pair of a TagSet.
type Tag struct {
	Key, Value string
}

// TagSet is an immutable set of tags sorted by key, with no empty keys or values.
// Tag sets from one TagPool are unique: equal sets are the same pointer.
type TagSet struct {
	tags []Tag
	key  string
}

// Tags returns the pairs sorted by key. The caller must not modify the slice.
func (s *TagSet) Tags() []Tag {
	if s == nil {
		return nil
	}
	return s.tags
}

// Get returns the value of key and whether it is set.
func (s *TagSet) Get(key string) (string, bool) {
	if s == nil {
		return "", false
	}
	i := sort.Search(len(s.tags), func(i int) bool { return s.tags[i].Key >= key })
	if i < len(s.tags) && s.tags[i].Key == key {
		return s.tags[i].Value, true
	}
	return "", false
}

// TagValue returns the value of key in tags, a list in any order.
func TagValue(tags []Tag, key string) (string, bool) {
	for _, t := range tags {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}

// Contains reports whether every pair of sub is in s (k6's sub-metric rule).
func (s *TagSet) Contains(sub []Tag) bool {
	for _, t := range sub {
		if v, ok := s.Get(t.Key); !ok || v != t.Value {
			return false
		}
	}
	return true
}

// Len returns the number of tags.
func (s *TagSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.tags)
}

// String returns the set as `{k:v, k2:v2}`, the way k6 shows sub-metrics.
func (s *TagSet) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, t := range s.Tags() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.Key)
		b.WriteByte(':')
		b.WriteString(t.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// TagPool interns tag sets. It is safe for concurrent use. Its memory grows with the
// number of distinct tag sets, which the scenario bounds (k6 users keep the `url` tag
// low-cardinality with `name`).
type TagPool struct {
	mu    sync.RWMutex
	sets  map[string]*TagSet
	limit int
	// drop are keys no set of the pool keeps (k6's system tags left out of
	// systemTags).
	drop map[string]bool
}

// NewTagPool returns an empty pool.
func NewTagPool() *TagPool {
	return &TagPool{sets: map[string]*TagSet{}}
}

// NewBoundedTagPool returns an empty pool that keeps at most limit sets (0 or less: no
// limit). Past it, Intern returns sets it does not keep: equal sets are then no longer
// the same pointer, so a store keyed by them must have a cap of its own
// (aggregate.WithMaxSeries), which folds them.
func NewBoundedTagPool(limit int) *TagPool {
	return &TagPool{sets: map[string]*TagSet{}, limit: limit}
}

// Intern returns the pool's TagSet equal to tags. Pairs with an empty key or value are
// dropped; for a repeated key the last value wins. tags may be reordered in place;
// the pool does not retain the slice.
func (p *TagPool) Intern(tags []Tag) *TagSet {
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].Key < tags[j].Key })
	n := 0
	for _, t := range tags {
		if t.Key == "" || t.Value == "" || p.drop[t.Key] {
			continue
		}
		if n > 0 && tags[n-1].Key == t.Key {
			tags[n-1] = t
			continue
		}
		tags[n] = t
		n++
	}
	tags = tags[:n]
	key := encodeKey(tags)
	p.mu.RLock()
	s, ok := p.sets[key]
	p.mu.RUnlock()
	if ok {
		return s
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.sets[key]; ok {
		return s
	}
	s = &TagSet{tags: append([]Tag(nil), tags...), key: key}
	if p.limit <= 0 || len(p.sets) < p.limit {
		p.sets[key] = s
	}
	return s
}

// With returns the pool's TagSet of base plus the given pairs (which win on conflict).
func (p *TagPool) With(base *TagSet, extra ...Tag) *TagSet {
	tags := make([]Tag, 0, base.Len()+len(extra))
	tags = append(tags, base.Tags()...)
	tags = append(tags, extra...)
	return p.Intern(tags)
}

// Len returns the number of distinct tag sets interned.
func (p *TagPool) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.sets)
}

// encodeKey makes an unambiguous map key: keys and values cannot contain NUL in
// practice, and a NUL inside one would only make two sets share a key if both the
// separator positions and the bytes agree, which the length prefix rules out.
func encodeKey(tags []Tag) string {
	var b strings.Builder
	for _, t := range tags {
		writeLen(&b, len(t.Key))
		b.WriteString(t.Key)
		writeLen(&b, len(t.Value))
		b.WriteString(t.Value)
	}
	return b.String()
}

func writeLen(b *strings.Builder, n int) {
	for n >= 0x80 {
		b.WriteByte(byte(n) | 0x80)
		n >>= 7
	}
	b.WriteByte(byte(n))
}

// CompareTags orders sorted tag sets pair by pair (key, then value), a shorter prefix
// first: the order in which a snapshot lists a metric's series.
func CompareTags(a, b []Tag) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// DropKeys makes the pool's sets never hold the keys drop (the system tags a test's
// systemTags leaves out, which k6 does not attach to samples) and returns p. Call it
// before the pool interns any set.
func (p *TagPool) DropKeys(drop []string) *TagPool {
	if len(drop) > 0 {
		p.drop = map[string]bool{}
		for _, k := range drop {
			p.drop[k] = true
		}
	}
	return p
}
