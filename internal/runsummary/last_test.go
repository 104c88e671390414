package runsummary

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

func TestLater(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_700_000_000, 0)
	require.True(t, Later(Finish{"0", at.Add(time.Millisecond)}, Finish{"9", at}), "the later end wins")
	require.True(t, Later(Finish{"10", at}, Finish{"9", at}), "a tie goes to the greater index, as numbers")
	require.False(t, Later(Finish{"9", at}, Finish{"10", at}))
	require.True(t, Later(Finish{"b", at}, Finish{"a", at}), "ids that are not numbers compare as strings")
	// Within the same millisecond the end times are equal: they are written to the ms.
	require.True(t, Later(Finish{"1", at.Add(400 * time.Microsecond)}, Finish{"0", at.Add(900 * time.Microsecond)}))
	last, ok := LastOf(map[string]time.Time{"0": at, "1": at, "2": at.Add(-time.Second)})
	require.True(t, ok)
	require.Equal(t, "1", last.ID)
	_, ok = LastOf(nil)
	require.False(t, ok)
}

// board is a shared tidemark_instance_done in memory.
type board struct {
	mu   sync.Mutex
	done map[string]time.Time
}

func (b *board) announce(id string) AnnounceDoneFunc {
	return func(_ context.Context, at time.Time) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.done[id] = at
		return nil
	}
}

func (b *board) read(context.Context) (map[string]time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.done), nil
}

// TestWaitLastExactlyOne: three instances, two of which end in the same millisecond,
// decide on one last instance between them, the same for all, whatever order they
// announce in; an old run's done sample with the same testid is ignored.
func TestWaitLastExactlyOne(t *testing.T) {
	t.Parallel()
	at := time.Now().Truncate(time.Millisecond)
	since := at.Add(-time.Minute)
	ends := map[string]time.Time{"0": at, "1": at.Add(-2 * time.Second), "2": at}
	for round := range 5 {
		b := &board{done: map[string]time.Time{"7": at.Add(-time.Hour)}} // a previous run's
		outs := map[string]LastOutcome{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for id, end := range ends {
			wg.Go(func() {
				time.Sleep(time.Duration(round*len(id)) * time.Millisecond) // vary the order
				out, err := WaitLast(context.Background(), LastConfig{Instances: 3, Self: Finish{id, end}, Since: since,
					Poll: 2 * time.Millisecond, Timeout: 10 * time.Second}, b.announce(id), b.read, promslog.NewNopLogger())
				require.NoError(t, err)
				mu.Lock()
				outs[id] = out
				mu.Unlock()
			})
		}
		wg.Wait()
		var last []string
		for id, o := range outs {
			require.True(t, o.Complete)
			require.Equal(t, 3, o.Seen, "every instance decides on all three")
			if o.Last {
				last = append(last, id)
			}
			require.NotEqual(t, "7", o.Winner.ID)
		}
		require.Equal(t, []string{"2"}, last, "round %d: the tie at the latest end goes to instance 2", round)
		for id, o := range outs {
			require.Equal(t, "2", o.Winner.ID, "instance %s names the last", id)
		}
	}
}

// TestWaitLastTimeout: with one of three instances never finishing, the latest of the
// two that did is the last after the timeout, and says so (Complete false).
func TestWaitLastTimeout(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_700_000_000, 0)
	now := at
	clock := WithLastClock(func() time.Time { return now }, func(d time.Duration) <-chan time.Time {
		now = now.Add(d)
		c := make(chan time.Time, 1)
		c <- now
		return c
	})
	b := &board{done: map[string]time.Time{"0": at.Add(-time.Second)}}
	reads := 0
	read := func(ctx context.Context) (map[string]time.Time, error) {
		reads++
		if reads == 2 {
			return nil, errors.New("backend down")
		}
		return b.read(ctx)
	}
	out, err := WaitLast(context.Background(), LastConfig{Instances: 3, Self: Finish{"1", at}, Since: at.Add(-time.Minute),
		Poll: time.Second, Timeout: 30 * time.Second}, b.announce("1"), read, promslog.NewNopLogger(), clock)
	require.NoError(t, err)
	require.Equal(t, LastOutcome{Last: true, Winner: Finish{"1", at}, Seen: 2}, out)
	require.Equal(t, at.Add(30*time.Second), now, "gives up at the timeout")
	require.Equal(t, 31, reads, "one read per poll interval, the first at once")

	_, err = WaitLast(context.Background(), LastConfig{Instances: 1}, b.announce("1"), read, promslog.NewNopLogger())
	require.Error(t, err)
}
