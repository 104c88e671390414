package pacer

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRateTotalsAndTimes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		rate   *Rate
		total  int64
		at     map[int64]time.Duration
		counts map[time.Duration]int64
	}{
		{
			name:  "constant 200/s for 10s",
			rate:  NewConstantRate(200, time.Second, 10*time.Second),
			total: 2000,
			at:    map[int64]time.Duration{0: 0, 1: 5 * time.Millisecond, 1999: 9995 * time.Millisecond},
			counts: map[time.Duration]int64{
				-1: 0, 0: 1, 5*time.Millisecond - 1: 1, 5 * time.Millisecond: 2,
				time.Second: 201, 10 * time.Second: 2000, time.Hour: 2000,
			},
		},
		{
			name:   "constant with timeUnit 1m",
			rate:   NewConstantRate(30, time.Minute, time.Minute),
			total:  30,
			at:     map[int64]time.Duration{1: 2 * time.Second, 29: 58 * time.Second},
			counts: map[time.Duration]int64{0: 1, 2 * time.Second: 2, time.Minute: 30},
		},
		{
			name:   "constant fractional total rounds up",
			rate:   NewConstantRate(3, time.Second, 1500*time.Millisecond),
			total:  5, // 0, .333, .667, 1.0, 1.333
			counts: map[time.Duration]int64{1400 * time.Millisecond: 5},
		},
		{
			name:  "ramping flat stage from startRate",
			rate:  NewRampingRate(10, time.Second, []Stage{{10 * time.Second, 10}}),
			total: 100,
			at:    map[int64]time.Duration{0: 100 * time.Millisecond, 99: 10 * time.Second},
			counts: map[time.Duration]int64{
				0: 0, 99 * time.Millisecond: 0, 100 * time.Millisecond: 1, 10 * time.Second: 100,
			},
		},
		{
			name:  "ramping up from 0",
			rate:  NewRampingRate(0, time.Second, []Stage{{10 * time.Second, 10}}),
			total: 50, // area of the triangle
			at: map[int64]time.Duration{
				0:  1414213562 * time.Nanosecond, // t²/2 = 1
				1:  2 * time.Second,              // t²/2 = 2
				49: 10 * time.Second,
			},
			counts: map[time.Duration]int64{2*time.Second - 1: 1, 2 * time.Second: 2, 5 * time.Second: 12},
		},
		{
			name:  "ramping down to 0",
			rate:  NewRampingRate(10, time.Second, []Stage{{10 * time.Second, 0}}),
			total: 50,
			at:    map[int64]time.Duration{49: 10 * time.Second},
			counts: map[time.Duration]int64{
				5 * time.Second: 37, // 10·5 − 5²/2 = 37.5
			},
		},
		{
			name: "k6 load steps 10/30/50 per second",
			rate: NewRampingRate(0, time.Second, []Stage{
				{10 * time.Second, 10}, {20 * time.Second, 10},
				{10 * time.Second, 30}, {20 * time.Second, 30},
			}),
			total:  50 + 200 + 200 + 600,
			counts: map[time.Duration]int64{10 * time.Second: 50, 30 * time.Second: 250, 40 * time.Second: 450},
		},
		{
			name:   "timeUnit scales stage targets",
			rate:   NewRampingRate(60, time.Minute, []Stage{{30 * time.Second, 60}}),
			total:  30,
			counts: map[time.Duration]int64{time.Second: 1, 30 * time.Second: 30},
		},
		{
			name:  "zero-duration stage jumps",
			rate:  NewRampingRate(0, time.Second, []Stage{{0, 100}, {time.Second, 100}}),
			total: 100,
			at:    map[int64]time.Duration{0: 10 * time.Millisecond},
		},
		{name: "zero rate", rate: NewConstantRate(0, time.Second, time.Second), total: 0},
		{name: "no stages", rate: NewRampingRate(5, time.Second, nil), total: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.total, tc.rate.Total())
			for i, want := range tc.at {
				require.InDelta(t, want, tc.rate.At(i), float64(time.Microsecond), "At(%d)", i)
			}
			for at, want := range tc.counts {
				require.Equal(t, want, tc.rate.Count(at), "Count(%s)", at)
			}
		})
	}
}

func TestRateCountConsistentWithAt(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := range 50 {
		var stages []Stage
		for range 1 + rnd.IntN(4) {
			stages = append(stages, Stage{Duration: time.Duration(rnd.IntN(5000)) * time.Millisecond, Target: float64(rnd.IntN(300))})
		}
		var r *Rate
		if n%3 == 0 {
			r = NewConstantRate(float64(1+rnd.IntN(1000)), time.Second, time.Duration(1+rnd.IntN(3000))*time.Millisecond)
		} else {
			r = NewRampingRate(float64(rnd.IntN(100)), time.Second, stages)
		}
		prev := time.Duration(-1)
		for i := range r.Total() {
			at := r.At(i)
			require.GreaterOrEqual(t, at, prev, "arrivals are ordered")
			require.LessOrEqual(t, at, r.Duration())
			require.GreaterOrEqual(t, r.Count(at), i+1)
			if at > prev {
				require.LessOrEqual(t, r.Count(at-1), i)
			}
			prev = at
		}
		require.Equal(t, r.Total(), r.Count(r.Duration()))
	}
}

func TestRatePerSecond(t *testing.T) {
	t.Parallel()
	r := NewRampingRate(60, time.Minute, []Stage{{10 * time.Second, 600}, {10 * time.Second, 600}})
	require.InDelta(t, 1.0, r.PerSecond(0), 1e-9)
	require.InDelta(t, 5.5, r.PerSecond(5*time.Second), 1e-9)
	require.InDelta(t, 10.0, r.PerSecond(15*time.Second), 1e-9)
	require.Zero(t, r.PerSecond(21*time.Second))
	require.InDelta(t, 20.0, NewConstantRate(20, time.Second, time.Second).PerSecond(0), 1e-9)
}

func TestVUSchedule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		start   int64
		stages  []Stage
		targets map[time.Duration]int64
		max     int64
	}{
		{
			name: "ramp up adds a VU at each integer crossing", start: 0,
			stages:  []Stage{{10 * time.Second, 10}},
			targets: map[time.Duration]int64{0: 0, 999 * time.Millisecond: 0, time.Second: 1, 9 * time.Second: 9, 10 * time.Second: 10, time.Hour: 10},
			max:     10,
		},
		{
			name: "ramp down removes at each crossing", start: 10,
			stages:  []Stage{{10 * time.Second, 0}},
			targets: map[time.Duration]int64{500 * time.Millisecond: 10, time.Second: 9, 10 * time.Second: 0},
			max:     10,
		},
		{
			name: "zero duration stage jumps", start: 5,
			stages:  []Stage{{0, 20}, {10 * time.Second, 20}},
			targets: map[time.Duration]int64{0: 20, 5 * time.Second: 20},
			max:     20,
		},
		{
			name: "30 to 300 then hold", start: 30,
			stages:  []Stage{{27 * time.Second, 300}, {10 * time.Second, 300}},
			targets: map[time.Duration]int64{0: 30, 100 * time.Millisecond: 31, 27 * time.Second: 300, 30 * time.Second: 300},
			max:     300,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewVUSchedule(tc.start, tc.stages)
			for at, want := range tc.targets {
				require.Equal(t, want, s.Target(at), "Target(%s)", at)
			}
			require.Equal(t, tc.max, s.Max())
		})
	}
}

func TestSegmentParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seg, seq   string
		wantString string
		wantSeq    string
		wantErr    string
	}{
		{seg: "", wantString: "0:1", wantSeq: "0,1"},
		{seg: "0:1/2", wantString: "0:1/2", wantSeq: "0,1/2,1"},
		{seg: "50%:75%", wantString: "1/2:3/4", wantSeq: "0,1/2,3/4,1"},
		{seg: "0.25", wantString: "0:1/4", wantSeq: "0,1/4,1"},
		{seg: "1/4:1/2", seq: "0,1/4,1/2,1", wantString: "1/4:1/2", wantSeq: "0,1/4,1/2,1"},
		{seg: "1/2:1/4", wantErr: `parse execution segment "1/2:1/4": expected 0 <= from < to <= 1`},
		{seg: "0:2", wantErr: `parse execution segment "0:2": expected 0 <= from < to <= 1`},
		{seg: "x:1", wantErr: `parse execution segment "x:1": "x" is not a valid fraction, decimal or percentage`},
		{seg: "0:1/3", seq: "0,1/2,1", wantErr: "execution segment 0:1/3 is not in the sequence 0,1/2,1"},
		{seg: "0:1/2", seq: "0,1/2", wantErr: `parse execution segment sequence "0,1/2": expected it to start at 0 and end at 1`},
		{seg: "0:1/2", seq: "0,1/2,1/2,1", wantErr: `parse execution segment sequence "0,1/2,1/2,1": expected strictly increasing values`},
		{seg: "0:1/1048576", wantString: "0:1/1048576", wantSeq: "0,1/1048576,1"},
		{seg: "0:0.1234567", wantErr: `parse execution segment "0:0.1234567": the fractions need a striping cycle of 10000000 slots; expected at most 1048576: use coarser fractions, e.g. 1/3 rather than 0.333333333`},
		{seg: "0:1/18446744073709551617", wantErr: `parse execution segment "0:1/18446744073709551617": the fractions need a striping cycle of 18446744073709551617 slots; expected at most 1048576: use coarser fractions, e.g. 1/3 rather than 0.333333333`},
	} {
		t.Run(tc.seg+"|"+tc.seq, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSegment(tc.seg, tc.seq)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantString, s.String())
			require.Equal(t, tc.wantSeq, s.Sequence())
		})
	}
}

func TestSegmentStriping(t *testing.T) {
	t.Parallel()
	// Worked by hand from k6's algorithm: lengths sorted 1/2, 1/4, 1/4 over L=4 slots.
	seq := "0,1/4,1/2,1"
	require.Equal(t, []int64{1}, mustSegment("0:1/4", seq).slots)
	require.Equal(t, []int64{3}, mustSegment("1/4:1/2", seq).slots)
	require.Equal(t, []int64{0, 2}, mustSegment("1/2:1", seq).slots)

	for _, tc := range []struct {
		seq  string
		segs []string
	}{
		{seq: "0,1/2,1", segs: []string{"0:1/2", "1/2:1"}},
		{seq: "0,1/3,2/3,1", segs: []string{"0:1/3", "1/3:2/3", "2/3:1"}},
		{seq: "0,1/4,1/2,1", segs: []string{"0:1/4", "1/4:1/2", "1/2:1"}},
		{seq: "0,0.1,0.35,0.7,1", segs: []string{"0:0.1", "0.1:0.35", "0.35:0.7", "0.7:1"}},
	} {
		t.Run(tc.seq, func(t *testing.T) {
			t.Parallel()
			segs := make([]Segment, len(tc.segs))
			for i, s := range tc.segs {
				segs[i] = mustSegment(s, tc.seq)
			}
			// Every global index belongs to exactly one segment, and the scaled
			// counts of all segments add up to n.
			owner := map[int64]int{}
			for i, s := range segs {
				for k := range s.Scale(400) {
					g := s.Global(k)
					_, dup := owner[g]
					require.False(t, dup, "index %d owned twice", g)
					owner[g] = i
				}
			}
			require.Len(t, owner, 400)
			for n := range int64(200) {
				var sum int64
				for _, s := range segs {
					sum += s.Scale(n)
				}
				require.Equal(t, n, sum)
			}
		})
	}
	half := mustSegment("0:1/2", "")
	require.Equal(t, int64(5), half.Scale(10))
	require.Equal(t, int64(1), half.Scale(1), "the first VU goes to the first half")
	require.Equal(t, int64(0), mustSegment("1/2:1", "").Scale(1))
	require.Equal(t, int64(7), Segment{}.Scale(7))
}

func TestStripedArrivals(t *testing.T) {
	t.Parallel()
	r := NewConstantRate(100, time.Second, time.Second)
	a := Striped{Rate: r, Seg: mustSegment("0:1/2", "")}
	b := Striped{Rate: r, Seg: mustSegment("1/2:1", "")}
	require.Equal(t, int64(50), a.Total())
	require.Equal(t, int64(50), b.Total())
	require.Equal(t, time.Duration(0), a.At(0))
	require.Equal(t, 10*time.Millisecond, b.At(0))
	require.Equal(t, int64(1), a.Count(5*time.Millisecond))
	require.Equal(t, int64(0), b.Count(5*time.Millisecond))
	require.Equal(t, int64(100), a.Count(time.Second)+b.Count(time.Second))
}

func TestVUScheduleScaled(t *testing.T) {
	t.Parallel()
	s := NewVUSchedule(0, []Stage{{10 * time.Second, 10}})
	a := s.Scaled(mustSegment("0:1/2", ""))
	b := s.Scaled(mustSegment("1/2:1", ""))
	for _, at := range []time.Duration{0, time.Second, 2 * time.Second, 5500 * time.Millisecond, 10 * time.Second} {
		require.Equal(t, s.Target(at), a.Target(at)+b.Target(at))
	}
	require.Equal(t, int64(1), a.Target(time.Second))
	require.Equal(t, int64(5), a.Max())
}

// mustSegment is ParseSegment for constants in tests; it panics on error.
func mustSegment(segment, sequence string) Segment {
	s, err := ParseSegment(segment, sequence)
	if err != nil {
		panic(err)
	}
	return s
}

func TestSegmentWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seq   string
		segs  []string
		vus   int64
		iters int64
		want  []int64 // iterations of each segment
	}{
		{seq: "0,1/2,1", segs: []string{"0:1/2", "1/2:1"}, vus: 1, iters: 10, want: []int64{10, 0}},
		{seq: "0,1/2,1", segs: []string{"0:1/2", "1/2:1"}, vus: 3, iters: 11, want: []int64{7, 4}},
		{seq: "0,1/2,1", segs: []string{"0:1/2", "1/2:1"}, vus: 4, iters: 10, want: []int64{5, 5}},
		{seq: "0,1/3,2/3,1", segs: []string{"0:1/3", "1/3:2/3", "2/3:1"}, vus: 2, iters: 9, want: []int64{5, 4, 0}},
		{seq: "0,1", segs: []string{"0:1"}, vus: 1, iters: 10, want: []int64{10}},
	} {
		var sum int64
		for i, s := range tc.segs {
			var got int64
			if w, ok := mustSegment(s, tc.seq).Within(tc.vus); ok {
				got = w.Scale(tc.iters)
			}
			require.Equal(t, tc.want[i], got, "%s of %s, %d VUs", s, tc.seq, tc.vus)
			sum += got
		}
		require.Equal(t, tc.iters, sum, "every iteration goes to one segment")
	}
}
