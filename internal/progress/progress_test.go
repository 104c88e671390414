package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLine(t *testing.T) {
	t.Parallel()
	s := engine.ScenarioStatus{Name: "spike", Elapsed: 12 * time.Second, Duration: 30 * time.Second, Target: 200, Unit: "iterations_per_second",
		Stats: executor.Stats{VUs: 10, VUsMax: 50, Iterations: 2400, Dropped: 3}}
	require.Equal(t, "spike [ 40%] 12s/30s  vus=10/50  iters=2400 (200.0/s)  dropped=3  target=200.0 iters/s", Line(s, 200))
	s.Done, s.Interrupted = true, 2
	require.Equal(t, "spike [done] 12s/30s  vus=10/50  iters=2400 (0.0/s)  dropped=3  target=200.0 iters/s  interrupted=2", Line(s, 0))
	ext := engine.ScenarioStatus{Name: "ext", Elapsed: 3 * time.Second, Duration: 10 * time.Second, Unit: "vus", Stats: executor.Stats{VUsMax: 5, Iterations: 7, Paused: true}}
	require.Equal(t, "ext [paused] 3s/10s  vus=0/5  iters=7 (0.0/s)  dropped=0  target=0.0 VUs", Line(ext, 0))
}

func TestPrinter(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		var buf syncBuf
		var mu sync.Mutex
		iters := int64(0)
		p := New(&buf, tty, 20*time.Millisecond, func() []engine.ScenarioStatus {
			mu.Lock()
			defer mu.Unlock()
			iters += 10
			return []engine.ScenarioStatus{{Name: "a", Stats: executor.Stats{Iterations: iters}}, {Name: "b"}}
		})
		p.Start()
		require.Eventually(t, func() bool { return strings.Count(buf.String(), "a [") >= 2 }, 5*time.Second, 10*time.Millisecond)
		p.Stop()
		p.Stop()
		out := buf.String()
		require.Equal(t, tty, strings.Contains(out, "\033[2A"), "the live display redraws two lines in place")
		require.Contains(t, out, "b [  0%]")
	}
	require.False(t, IsTerminal(&bytes.Buffer{}))
}
