// Package progress prints a running test's progress: on a terminal, a live display
// redrawn in place with one line per scenario (elapsed of total, VUs, iterations/s,
// dropped); elsewhere, plain lines at a slower pace, so CI logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/tidemark/tidemark/internal/engine"
)

// Source returns the scenarios' current status.
type Source func() []engine.ScenarioStatus

// Intervals between redraws.
const (
	TTYInterval   = 500 * time.Millisecond
	PlainInterval = 10 * time.Second
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Printer draws progress until stopped.
type Printer struct {
	w        io.Writer
	tty      bool
	interval time.Duration
	src      Source

	lines    int // lines drawn last time (TTY)
	prev     map[string]int64
	prevTime time.Time

	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// New returns a printer writing to w; tty selects the live display. An interval of
// 0 takes TTYInterval or PlainInterval.
func New(w io.Writer, tty bool, interval time.Duration, src Source) *Printer {
	if interval <= 0 {
		interval = PlainInterval
		if tty {
			interval = TTYInterval
		}
	}
	return &Printer{w: w, tty: tty, interval: interval, src: src, prev: map[string]int64{}, stop: make(chan struct{})}
}

// Start begins drawing in the background. It does not block.
func (p *Printer) Start() {
	p.prevTime = time.Now()
	p.wg.Go(func() {
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-t.C:
				p.draw(now, false)
			}
		}
	})
}

// Stop draws the final state and waits. It is safe to call more than once.
func (p *Printer) Stop() {
	p.once.Do(func() {
		close(p.stop)
		p.wg.Wait()
		p.draw(time.Now(), true)
	})
}

func (p *Printer) draw(now time.Time, final bool) {
	st := p.src()
	dt := now.Sub(p.prevTime).Seconds()
	p.prevTime = now
	var b strings.Builder
	if p.tty && p.lines > 0 {
		// Back to the first line of the previous drawing.
		fmt.Fprintf(&b, "\r\033[%dA", p.lines)
	}
	for _, s := range st {
		rate := 0.0
		if dt > 0 {
			rate = float64(s.Iterations-p.prev[s.Name]) / dt
		}
		p.prev[s.Name] = s.Iterations
		if p.tty {
			b.WriteString("\r\033[K")
		}
		b.WriteString(Line(s, rate))
		b.WriteByte('\n')
	}
	p.lines = len(st)
	if !p.tty && final {
		return // the summary follows; the last periodic lines are enough
	}
	_, _ = io.WriteString(p.w, b.String())
}

// Line formats one scenario's status, e.g.
// `spike [ 40%] 12s/30s  vus=10/50  iters=2400 (200.0/s)  dropped=0  target=200.0 iterations/s`.
func Line(s engine.ScenarioStatus, rate float64) string {
	pct := 0.0
	if s.Duration > 0 {
		pct = 100 * float64(s.Elapsed) / float64(s.Duration)
	}
	state := fmt.Sprintf("[%3.0f%%]", pct)
	switch {
	case s.Done:
		state = "[done]"
	case s.Paused:
		// An externally-controlled scenario paused over the REST API.
		state = "[paused]"
	}
	unit := "VUs"
	if s.Unit == "iterations_per_second" {
		unit = "iters/s"
	}
	line := fmt.Sprintf("%s %s %s/%s  vus=%d/%d  iters=%d (%.1f/s)  dropped=%d  target=%.1f %s",
		s.Name, state, s.Elapsed.Truncate(time.Second), s.Duration.Truncate(time.Second),
		s.VUs, s.VUsMax, s.Iterations, rate, s.Dropped, s.Target, unit)
	if s.Interrupted > 0 {
		line += fmt.Sprintf("  interrupted=%d", s.Interrupted)
	}
	return line
}
