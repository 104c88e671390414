package hist

// page holds the buckets of one octave: keys o*128 .. o*128+127.
type page struct {
	total   uint64
	buckets [perOctave]uint64
}

// store is a sparse bucket store: pages[i] is the octave base+i, nil while empty.
// Memory is bounded by the number of octaves the values span (2,100 for all of float64),
// each a pointer plus 1 KiB when used.
type store struct {
	base  int32
	pages []*page
	sum   uint64
}

func (s *store) total() uint64 { return s.sum }

// page returns the page of octave o, allocating it and growing the range as needed.
func (s *store) page(o int32) *page {
	switch {
	case len(s.pages) == 0:
		s.base = o
		s.pages = append(s.pages, nil)
	case o < s.base:
		grown := make([]*page, int(s.base-o)+len(s.pages))
		copy(grown[s.base-o:], s.pages)
		s.pages = grown
		s.base = o
	case int(o-s.base) >= len(s.pages):
		s.pages = append(s.pages, make([]*page, int(o-s.base)+1-len(s.pages))...)
	}
	p := s.pages[o-s.base]
	if p == nil {
		p = &page{}
		s.pages[o-s.base] = p
	}
	return p
}

func (s *store) add(k int32, n uint64) {
	p := s.page(k >> Schema)
	p.buckets[k&(perOctave-1)] += n
	p.total += n
	s.sum += n
}

// find returns the key of the bucket holding the r-th observation (0-based) counting
// from the lowest key, or from the highest when descending. ok is false when the store
// has no more than r observations.
func (s *store) find(r uint64, descending bool) (int32, bool) {
	if r >= s.sum {
		return 0, false
	}
	n := len(s.pages)
	for i := range n {
		pi := i
		if descending {
			pi = n - 1 - i
		}
		p := s.pages[pi]
		if p == nil {
			continue
		}
		if r >= p.total {
			r -= p.total
			continue
		}
		for j := range perOctave {
			bj := j
			if descending {
				bj = perOctave - 1 - j
			}
			c := p.buckets[bj]
			if r < c {
				return (s.base+int32(pi))<<Schema | int32(bj), true
			}
			r -= c
		}
	}
	return 0, false
}

// first returns the lowest non-empty key.
func (s *store) first() (int32, bool) { return s.find(0, false) }

// last returns the highest non-empty key.
func (s *store) last() (int32, bool) { return s.find(0, true) }

// each calls fn for every non-empty bucket in ascending key order.
func (s *store) each(fn func(k int32, c uint64)) {
	for i, p := range s.pages {
		if p == nil || p.total == 0 {
			continue
		}
		for j, c := range p.buckets {
			if c != 0 {
				fn((s.base+int32(i))<<Schema|int32(j), c)
			}
		}
	}
}

func (s *store) nonEmpty() int {
	n := 0
	s.each(func(int32, uint64) { n++ })
	return n
}

// clone copies s with its non-empty pages in one allocation (snapshots copy every
// changed histogram, so the number of allocations matters more than their size).
func (s *store) clone() store {
	c := store{base: s.base, sum: s.sum}
	if s.pages == nil {
		return c
	}
	used := 0
	for _, p := range s.pages {
		if p != nil && p.total > 0 {
			used++
		}
	}
	c.pages = make([]*page, len(s.pages))
	slab := make([]page, used)
	for i, p := range s.pages {
		if p != nil && p.total > 0 {
			slab[0] = *p
			c.pages[i] = &slab[0]
			slab = slab[1:]
		}
	}
	return c
}

func (s *store) reset() {
	for _, p := range s.pages {
		if p != nil {
			*p = page{}
		}
	}
	s.sum = 0
}

func (s *store) merge(o *store) {
	for i, op := range o.pages {
		if op == nil || op.total == 0 {
			continue
		}
		p := s.page(o.base + int32(i))
		for j, c := range op.buckets {
			p.buckets[j] += c
		}
		p.total += op.total
	}
	s.sum += o.sum
}

// covers reports whether every bucket of o has at most as many observations as in s.
func (s *store) covers(o *store) bool {
	for i, op := range o.pages {
		if op == nil || op.total == 0 {
			continue
		}
		oct := o.base + int32(i)
		if oct < s.base || int(oct-s.base) >= len(s.pages) || s.pages[oct-s.base] == nil {
			return false
		}
		p := s.pages[oct-s.base]
		for j, c := range op.buckets {
			if c > p.buckets[j] {
				return false
			}
		}
	}
	return true
}

// sub subtracts o, which s must cover.
func (s *store) sub(o *store) {
	for i, op := range o.pages {
		if op == nil || op.total == 0 {
			continue
		}
		p := s.pages[o.base+int32(i)-s.base]
		for j, c := range op.buckets {
			p.buckets[j] -= c
		}
		p.total -= op.total
	}
	s.sum -= o.sum
}
