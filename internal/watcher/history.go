package watcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/regress"
)

// StateFile is the name of the state file under the storage directory.
const StateFile = "state.json"

// stateVersion is the version of the state file's shape.
const stateVersion = 1

// Run is one correlated run as the state file and /runs?format=json hold it.
type Run struct {
	TestID string `json:"testid"`
	// Group names the series of comparable runs the run belongs to.
	Group string    `json:"group"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
	// CorrelatedAt is when the exporter correlated the run.
	CorrelatedAt time.Time            `json:"correlated_at"`
	Facts        []correlator.KeyFact `json:"facts"`
	Changes      []regress.Change     `json:"changes,omitempty"`
	// Notes are the correlation's notes about missing sources and facts.
	Notes []string `json:"notes,omitempty"`
	// Report is the run's report directory, relative to the reports directory; empty
	// when none was written.
	Report string `json:"report,omitempty"`
	// Error is set for a run that could not be correlated; it is not tried again.
	Error string `json:"error,omitempty"`
}

type stateJSON struct {
	Version int   `json:"version"`
	Runs    []Run `json:"runs"`
}

// record is a run in memory: compact facts and changes.
type record struct {
	testID, group string
	from, to      time.Time
	correlatedAt  time.Time
	facts         []fact
	changes       []change
	notes         []string
	report        string
	err           string
}

// History holds the correlated runs, ordered by their end, and persists them in the
// state file under its directory. It is safe for concurrent use.
type History struct {
	path string

	mu   sync.RWMutex
	in   *interner
	runs []*record
	byID map[string]*record
}

// OpenHistory loads the history from dir's state file; a missing file is an empty
// history.
func OpenHistory(dir string) (*History, error) {
	h := &History{path: filepath.Join(dir, StateFile), in: newInterner(), byID: map[string]*record{}}
	b, err := os.ReadFile(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	var st stateJSON
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("parse state file %s: %w (move it away to start with an empty history)", h.path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state file %s has version %d, expected %d", h.path, st.Version, stateVersion)
	}
	for _, r := range st.Runs {
		h.add(r)
	}
	return h, nil
}

// Has reports whether the run testid is in the history (correlated or given up on).
func (h *History) Has(testID string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.byID[testID]
	return ok
}

// Len is the number of runs in the history.
func (h *History) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.runs)
}

// Add adds a run, replacing one with the same testid. Save persists it.
func (h *History) Add(r Run) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.add(r)
}

func (h *History) add(r Run) {
	rec := &record{testID: r.TestID, group: r.Group, from: r.From, to: r.To, correlatedAt: r.CorrelatedAt,
		notes: slices.Clip(r.Notes), report: r.Report, err: r.Error}
	if len(r.Facts) > 0 {
		rec.facts = make([]fact, len(r.Facts))
		for i, kf := range r.Facts {
			rec.facts[i] = h.in.fact(kf)
		}
	}
	if len(r.Changes) > 0 {
		rec.changes = make([]change, len(r.Changes))
		for i, c := range r.Changes {
			rec.changes[i] = change{fact: h.in.fact(c.Fact), baseline: c.BaselineTestID, baseValue: c.Baseline,
				delta: c.Delta, regression: c.Regression, resolution: c.Resolution, median: c.Median, spread: c.Spread,
				historyRuns: c.HistoryRuns, text: c.Text}
		}
	}
	if old, ok := h.byID[r.TestID]; ok {
		h.runs = slices.DeleteFunc(h.runs, func(x *record) bool { return x == old })
	}
	h.byID[r.TestID] = rec
	i, _ := slices.BinarySearchFunc(h.runs, rec, func(a, b *record) int {
		if c := a.to.Compare(b.to); c != 0 {
			return c
		}
		return 1 // after runs with the same end
	})
	h.runs = slices.Insert(h.runs, i, rec)
}

// Runs returns every run, oldest end first.
func (h *History) Runs() []Run {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]Run, len(h.runs))
	for i, r := range h.runs {
		out[i] = r.run()
	}
	return out
}

func (r *record) run() Run {
	out := Run{TestID: r.testID, Group: r.group, From: r.from, To: r.to, CorrelatedAt: r.correlatedAt,
		Notes: r.notes, Report: r.report, Error: r.err}
	if len(r.facts) > 0 {
		out.Facts = make([]correlator.KeyFact, len(r.facts))
		for i, f := range r.facts {
			out.Facts[i] = f.keyFact()
		}
	}
	for _, c := range r.changes {
		out.Changes = append(out.Changes, regress.Change{Fact: c.fact.keyFact(), TestID: r.testID, BaselineTestID: c.baseline,
			Baseline: c.baseValue, Delta: c.delta, Regression: c.regression, Resolution: c.resolution, Median: c.median,
			Spread: c.spread, HistoryRuns: c.historyRuns, Text: c.text})
	}
	return out
}

// Before returns the correlated runs of group that ended before end, oldest first, as
// regress.Detect takes its history.
func (h *History) Before(group string, end time.Time) []regress.Run {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []regress.Run
	for _, r := range h.runs {
		if r.group != group || r.err != "" || !r.to.Before(end) {
			continue
		}
		rr := regress.Run{TestID: r.testID, Group: r.group, End: r.to, Facts: make([]correlator.KeyFact, len(r.facts))}
		for i, f := range r.facts {
			rr.Facts[i] = f.keyFact()
		}
		out = append(out, rr)
	}
	return out
}

// Save writes the history to the state file atomically: a temporary file in the same
// directory, fsynced, renamed over the old one, and the directory fsynced, so a crash
// (kill -9, power loss) leaves the old state or the new one, never a torn file.
func (h *History) Save() error {
	h.mu.RLock()
	st := stateJSON{Version: stateVersion, Runs: make([]Run, len(h.runs))}
	for i, r := range h.runs {
		st.Runs[i] = r.run()
	}
	h.mu.RUnlock()
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return writeAtomic(h.path, b)
}

func writeAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("replace state: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync state directory: %w", err)
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return fmt.Errorf("sync state directory: %w", err)
	}
	return d.Close()
}
