package pacer

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"
)

// Segment is this instance's share of every scenario under a k6 execution segment
// (`--execution-segment 1/4:1/2`, with `--execution-segment-sequence 0,1/4,1/2,1`).
// The zero value is the whole test (0:1).
//
// What we match of k6 (lib/execution_segment.go):
//   - parsing: `from:to` with fractions, decimals or percentages; a single value x means
//     0:x; the empty string means 0:1;
//   - without a sequence, the sequence is 0, from, to, 1 (duplicates removed);
//   - striping: the sequence's segments are sorted by length, longest first (stable);
//     over a cycle of L slots (L = least common denominator of the lengths), slot i goes
//     to the first segment whose next due position is ≤ i, where segment j's k-th
//     slot is due at k·L/(len_j·L) (k6's GetStripedOffsets); the cycle repeats;
//   - integers (VUs, iterations, stage targets) scale as k6's ExecutionTuple.ScaleInt64:
//     the number of this segment's slots among global indexes 0..n-1, so the shares of
//     all segments add up to n exactly;
//   - arrival-rate scenarios keep the global timeline and this instance starts exactly
//     the global arrivals whose index falls on its slots.
type Segment struct {
	from, to *big.Rat
	seq      []*big.Rat
	lcd      int64
	slots    []int64 // own slot positions in [0, lcd), ascending
}

// ParseSegment parses an execution segment and an optional segment sequence (a comma
// list of boundaries from 0 to 1 that includes the segment's ends).
func ParseSegment(segment, sequence string) (Segment, error) {
	from, to := new(big.Rat), big.NewRat(1, 1)
	s := strings.TrimSpace(segment)
	if s != "" {
		toStr := s
		if a, b, ok := strings.Cut(s, ":"); ok {
			f, err := parseRat(a)
			if err != nil {
				return Segment{}, fmt.Errorf("parse execution segment %q: %w", segment, err)
			}
			from, toStr = f, b
		}
		t, err := parseRat(toStr)
		if err != nil {
			return Segment{}, fmt.Errorf("parse execution segment %q: %w", segment, err)
		}
		to = t
	}
	if from.Sign() < 0 || from.Cmp(to) >= 0 || to.Cmp(big.NewRat(1, 1)) > 0 {
		return Segment{}, fmt.Errorf("parse execution segment %q: expected 0 <= from < to <= 1", segment)
	}
	var seq []*big.Rat
	if q := strings.TrimSpace(sequence); q != "" {
		for p := range strings.SplitSeq(q, ",") {
			r, err := parseRat(strings.TrimSpace(p))
			if err != nil {
				return Segment{}, fmt.Errorf("parse execution segment sequence %q: %w", sequence, err)
			}
			if n := len(seq); n > 0 && r.Cmp(seq[n-1]) <= 0 {
				return Segment{}, fmt.Errorf("parse execution segment sequence %q: expected strictly increasing values", sequence)
			}
			seq = append(seq, r)
		}
		if seq[0].Sign() != 0 || seq[len(seq)-1].Cmp(big.NewRat(1, 1)) != 0 {
			return Segment{}, fmt.Errorf("parse execution segment sequence %q: expected it to start at 0 and end at 1", sequence)
		}
	} else {
		seq = []*big.Rat{new(big.Rat)}
		for _, r := range []*big.Rat{from, to, big.NewRat(1, 1)} {
			if r.Cmp(seq[len(seq)-1]) > 0 {
				seq = append(seq, r)
			}
		}
	}
	idx := -1
	for i := 0; i+1 < len(seq); i++ {
		if seq[i].Cmp(from) == 0 && seq[i+1].Cmp(to) == 0 {
			idx = i
		}
	}
	if idx < 0 {
		return Segment{}, fmt.Errorf("execution segment %s is not in the sequence %s", ratString(from, to), joinRats(seq))
	}
	sg := Segment{from: from, to: to, seq: seq}
	if err := sg.stripe(idx); err != nil {
		return Segment{}, fmt.Errorf("parse execution segment %q: %w", segment, err)
	}
	return sg, nil
}

// maxStripeSlots bounds the striping cycle (the least common denominator of the
// sequence's segment lengths): the cycle is walked once and its own slots kept,
// so 0.123456789 (a cycle of 10⁹) would take minutes and gigabytes. Fractions
// of up to a million instances fit.
const maxStripeSlots = 1 << 20

func parseRat(s string) (*big.Rat, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		r, ok := new(big.Rat).SetString(p)
		if !ok {
			return nil, fmt.Errorf("%q is not a valid percentage", s)
		}
		return r.Quo(r, big.NewRat(100, 1)), nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a valid fraction, decimal or percentage", s)
	}
	return r, nil
}

// stripe computes the slots of sequence segment idx (k6's GetStripedOffsets).
func (s *Segment) stripe(idx int) error {
	owners, err := stripeOwners(s.seq)
	if err != nil {
		return err
	}
	s.slots = s.slots[:0]
	for i, o := range owners {
		if o == idx {
			s.slots = append(s.slots, int64(i))
		}
	}
	s.lcd = int64(len(owners))
	return nil
}

// stripeOwners returns, for every slot of the striping cycle of seq, the index
// of the sequence segment that owns it.
func stripeOwners(seq []*big.Rat) ([]int, error) {
	type seg struct {
		idx    int
		length *big.Rat
	}
	segs := make([]seg, 0, len(seq)-1)
	lcd := big.NewInt(1)
	for i := 0; i+1 < len(seq); i++ {
		l := new(big.Rat).Sub(seq[i+1], seq[i])
		segs = append(segs, seg{idx: i, length: l})
		d := l.Denom()
		g := new(big.Int).GCD(nil, nil, lcd, d)
		lcd.Mul(lcd, new(big.Int).Quo(d, g))
	}
	if !lcd.IsInt64() || lcd.Int64() > maxStripeSlots {
		return nil, fmt.Errorf("the fractions need a striping cycle of %s slots; expected at most %d: use coarser fractions, e.g. 1/3 rather than 0.333333333", lcd, maxStripeSlots)
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].length.Cmp(segs[j].length) > 0 })
	L := lcd.Int64()
	num := make([]int64, len(segs))     // slots per cycle
	next := make([]*big.Rat, len(segs)) // next due position
	step := make([]*big.Rat, len(segs))
	for i, sg := range segs {
		num[i] = new(big.Int).Quo(new(big.Int).Mul(sg.length.Num(), lcd), sg.length.Denom()).Int64()
		next[i] = new(big.Rat)
		step[i] = big.NewRat(L, num[i])
	}
	ceil := func(r *big.Rat) int64 {
		q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		return q.Int64()
	}
	owners := make([]int, L)
	for i := range L {
		for j := range segs {
			if i >= ceil(next[j]) {
				next[j].Add(next[j], step[j])
				owners[i] = segs[j].idx
				break
			}
		}
	}
	return owners, nil
}

// Within returns this instance's segment of something of which there are n
// indivisible units shared by the whole sequence, in proportion to the units
// each segment gets: k6 divides a shared-iterations scenario's iterations among
// the segments that got its VUs, in proportion to their VUs
// (ExecutionTuple.GetNewExecutionTupleFromValue). With one VU and the sequence
// 0,1/2,1, segment 0:1/2 gets the VU and so all the iterations, and 1/2:1
// none. ok is false when this segment gets none of the n units.
func (s Segment) Within(n int64) (seg Segment, ok bool) {
	if s.IsFull() {
		return s, n > 0
	}
	if n <= 0 {
		return Segment{}, false
	}
	owners, err := stripeOwners(s.seq)
	if err != nil {
		return Segment{}, false // ParseSegment striped this sequence already
	}
	L := int64(len(owners))
	counts := make([]int64, len(s.seq)-1)
	for i, o := range owners {
		counts[o] += n / L
		if int64(i) < n%L {
			counts[o]++
		}
	}
	idx := -1
	for i := 0; i+1 < len(s.seq); i++ {
		if s.seq[i].Cmp(s.from) == 0 {
			idx = i
		}
	}
	if idx < 0 || counts[idx] == 0 {
		return Segment{}, false
	}
	seq := []*big.Rat{new(big.Rat)}
	var cum int64
	newIdx := 0
	for i, c := range counts {
		if c == 0 {
			continue
		}
		if i == idx {
			newIdx = len(seq) - 1
		}
		cum += c
		seq = append(seq, big.NewRat(cum, n))
	}
	out := Segment{from: seq[newIdx], to: seq[newIdx+1], seq: seq}
	if err := out.stripe(newIdx); err != nil {
		return Segment{}, false
	}
	return out, true
}

// IsFull reports whether the segment is the whole test.
func (s Segment) IsFull() bool {
	return s.slots == nil || (s.lcd == 1 && len(s.slots) == 1)
}

// Scale returns this instance's share of n indivisible things (VUs, iterations): the
// number of its slots among global indexes 0..n-1.
func (s Segment) Scale(n int64) int64 {
	if s.IsFull() || n <= 0 {
		return max(n, 0)
	}
	per := int64(len(s.slots))
	c := (n / s.lcd) * per
	rem := n % s.lcd
	c += int64(sort.Search(len(s.slots), func(i int) bool { return s.slots[i] >= rem }))
	return c
}

// Global returns the global index of this instance's k-th (0-based) own index.
func (s Segment) Global(k int64) int64 {
	if s.IsFull() {
		return k
	}
	per := int64(len(s.slots))
	return (k/per)*s.lcd + s.slots[k%per]
}

// String returns the segment as `from:to`.
func (s Segment) String() string {
	if s.from == nil {
		return "0:1"
	}
	return ratString(s.from, s.to)
}

// Sequence returns the segment sequence as a comma list.
func (s Segment) Sequence() string {
	if s.seq == nil {
		return "0,1"
	}
	return joinRats(s.seq)
}

func ratString(from, to *big.Rat) string { return from.RatString() + ":" + to.RatString() }

func joinRats(rs []*big.Rat) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.RatString())
	}
	return strings.Join(parts, ",")
}

// Arrivals is an arrival schedule as one instance sees it.
type Arrivals interface {
	// Total returns the number of arrivals of the whole schedule.
	Total() int64
	// Count returns the number of arrivals due by t since the start.
	Count(t time.Duration) int64
	// At returns the time of arrival i (0-based).
	At(i int64) time.Duration
}

var (
	_ Arrivals = (*Rate)(nil)
	_ Arrivals = Striped{}
)

// Striped is a Rate restricted to one execution segment: the instance's k-th arrival
// is the global arrival Seg.Global(k), at the same time it has in the whole test.
type Striped struct {
	Rate *Rate
	Seg  Segment
}

// Total returns the number of this instance's arrivals.
func (s Striped) Total() int64 { return s.Seg.Scale(s.Rate.Total()) }

// Count returns the number of this instance's arrivals due by t.
func (s Striped) Count(t time.Duration) int64 { return s.Seg.Scale(s.Rate.Count(t)) }

// At returns the time of this instance's arrival k.
func (s Striped) At(k int64) time.Duration { return s.Rate.At(s.Seg.Global(k)) }

// Fraction returns the segment's length (to − from) as a float, the share of a
// scenario's rate this instance targets.
func (s Segment) Fraction() float64 {
	if s.from == nil {
		return 1
	}
	f, _ := new(big.Rat).Sub(s.to, s.from).Float64()
	return f
}

// SegmentOf returns the execution segment of instance i of n and the sequence of all
// n: i/n:(i+1)/n and 0,1/n,…,(n-1)/n,1, as k6-operator passes them.
func SegmentOf(i, n int) (segment, sequence string) {
	frac := func(k int) string {
		switch k {
		case 0:
			return "0"
		case n:
			return "1"
		}
		return fmt.Sprintf("%d/%d", k, n)
	}
	seq := make([]string, 0, n+1)
	for k := 0; k <= n; k++ {
		seq = append(seq, frac(k))
	}
	return frac(i) + ":" + frac(i+1), strings.Join(seq, ",")
}
