package watcher

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/facts"
	"github.com/tidemark/tidemark/internal/regress"
)

// StateFile is the name of the state file under the storage directory: the compacted
// history, one JSON document.
const StateFile = "state.json"

// LogFile is the name of the state log under the storage directory: the runs added
// since the last compaction, one JSON object a line.
const LogFile = "state.log"

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
	CorrelatedAt time.Time        `json:"correlated_at"`
	Facts        []facts.KeyFact  `json:"facts"`
	Changes      []regress.Change `json:"changes,omitempty"`
	// Bottleneck is what limited the run (analysis.Resource*: cpu, startup, …, none,
	// unknown); empty for runs correlated before it existed or not correlated.
	Bottleneck string `json:"bottleneck,omitempty"`
	// Notes are the correlation's notes about missing sources and facts.
	Notes []string `json:"notes,omitempty"`
	// Report is the run's report directory, relative to the reports directory; empty
	// when none was written.
	Report string `json:"report,omitempty"`
	// Error is set for a run that could not be correlated; it is not tried again.
	Error string `json:"error,omitempty"`
}

// sortTime orders runs: their end, or for a run given up on (no window) when it was.
func (r Run) sortTime() time.Time {
	if r.To.IsZero() {
		return r.CorrelatedAt
	}
	return r.To
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
	bottleneck    string
}

// HistoryConfig bounds what a History holds in memory. The state file keeps every run.
type HistoryConfig struct {
	// MaxRunsPerGroup is how many of each group's most recent runs are exposed
	// (default 10). Memory holds at least regress.HistoryWindow of them, what
	// regress.Detect compares a new run with.
	MaxRunsPerGroup int
	// Retention drops runs that ended longer ago from memory and /metrics (default 30d):
	// they are neither exposed nor compared with.
	Retention time.Duration
	// KnownFor is how long a testid is remembered in memory after its run ended (or was
	// given up on), so that it is not correlated again; it must exceed the time a run's
	// series stay within the watcher's lookback (default 24h).
	KnownFor time.Duration
	// CompactAfter is how many runs the log takes before it is merged into the state
	// file (default 64; for a history of more than 16 × 64 runs a sixteenth of it, at
	// most 16 × CompactAfter).
	CompactAfter int
}

// DefaultHistoryConfig holds the defaults applied to zero fields.
var DefaultHistoryConfig = HistoryConfig{MaxRunsPerGroup: 10, Retention: 30 * 24 * time.Hour, KnownFor: 24 * time.Hour, CompactAfter: 64}

// History is the watcher's run history. On disk it keeps every run: the state file,
// rewritten only when the log is compacted, plus the log, appended to and fsynced for
// every run. In memory it keeps, per group, the last runs within the retention, and the
// testids of recent runs. It is safe for concurrent use.
type History struct {
	dir string
	cfg HistoryConfig
	now func() time.Time

	mu     sync.RWMutex
	in     *interner
	groups map[string][]*record // each oldest end first
	known  map[string]time.Time // testid → its run's sortTime
	total  int                  // runs on disk
	logged int                  // runs in the log

	// fileMu serialises reading and writing the files.
	fileMu sync.Mutex
}

// OpenHistory loads the history from dir's state file and log; missing files are an
// empty history. A log line torn by a crash while it was written (the last line,
// incomplete) is dropped: its run had not been saved.
func OpenHistory(dir string, cfg HistoryConfig, now func() time.Time) (*History, error) {
	cfg.MaxRunsPerGroup = cmp.Or(cfg.MaxRunsPerGroup, DefaultHistoryConfig.MaxRunsPerGroup)
	cfg.Retention = cmp.Or(cfg.Retention, DefaultHistoryConfig.Retention)
	cfg.KnownFor = cmp.Or(cfg.KnownFor, DefaultHistoryConfig.KnownFor)
	cfg.CompactAfter = cmp.Or(cfg.CompactAfter, DefaultHistoryConfig.CompactAfter)
	if now == nil {
		now = time.Now
	}
	h := &History{dir: dir, cfg: cfg, now: now, in: newInterner(), groups: map[string][]*record{}, known: map[string]time.Time{}}
	logged, err := h.readLog(true)
	if err != nil {
		return nil, err
	}
	if err := h.readState(func(r Run) {
		if _, ok := logged[r.TestID]; !ok {
			h.total++
			h.add(r)
		}
	}); err != nil {
		return nil, err
	}
	for _, r := range sortedRuns(logged) {
		h.total++
		h.add(r)
	}
	h.logged = len(logged)
	return h, nil
}

func (h *History) statePath() string { return filepath.Join(h.dir, StateFile) }
func (h *History) logPath() string   { return filepath.Join(h.dir, LogFile) }

// readState calls fn with every run of the state file, in its order (oldest end first).
func (h *History) readState(fn func(Run)) error {
	f, err := os.Open(h.statePath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read state: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	bad := func(err error) error {
		return fmt.Errorf("parse state file %s: %w (move it away to start with an empty history)", h.statePath(), err)
	}
	dec := json.NewDecoder(bufio.NewReader(f))
	if err := expectDelim(dec, '{'); err != nil {
		return bad(err)
	}
	version := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		switch tok {
		case "version":
			if err := dec.Decode(&version); err != nil {
				return bad(err)
			}
		case "runs":
			if version != stateVersion {
				return fmt.Errorf("state file %s has version %d, expected %d", h.statePath(), version, stateVersion)
			}
			if err := expectDelim(dec, '['); err != nil {
				return bad(err)
			}
			for dec.More() {
				var r Run
				if err := dec.Decode(&r); err != nil {
					return bad(err)
				}
				fn(r)
			}
			if err := expectDelim(dec, ']'); err != nil {
				return bad(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err)
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return bad(err)
	}
	if version != stateVersion {
		return fmt.Errorf("state file %s has version %d, expected %d", h.statePath(), version, stateVersion)
	}
	return nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("found %v, expected %v", tok, d)
	}
	return nil
}

// readLog returns the runs of the log by testid (a later line wins). With repair, a
// torn last line is cut off the file.
func (h *History) readLog(repair bool) (map[string]Run, error) {
	out := map[string]Run{}
	f, err := os.Open(h.logPath())
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state log: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	rd := bufio.NewReader(f)
	var good int64
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) > 0 && repair {
				// The last line without its newline: torn by a crash.
				if err := os.Truncate(h.logPath(), good); err != nil {
					return nil, fmt.Errorf("cut torn line off state log: %w", err)
				}
			}
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read state log: %w", err)
		}
		var r Run
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("parse state log %s line %d: %w (move it away to lose the runs since the last compaction)", h.logPath(), n, err)
		}
		out[r.TestID] = r
		good += int64(len(line))
	}
}

// sortedRuns returns the runs oldest first.
func sortedRuns(m map[string]Run) []Run {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b Run) int {
		return cmp.Or(a.sortTime().Compare(b.sortTime()), strings.Compare(a.TestID, b.TestID))
	})
	return out
}

// Has reports whether the run testid is in the history (correlated or given up on) and
// recent enough to be remembered in memory (HistoryConfig.KnownFor).
func (h *History) Has(testID string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	_, ok := h.known[testID]
	return ok
}

// Len is the number of runs in the history on disk.
func (h *History) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.total
}

// Add saves a run (appends it to the log, fsynced, and compacts the log into the state
// file when it is long) and holds it in memory. A run whose testid is in the history
// already replaces it. When the run cannot be saved it is not added.
func (h *History) Add(r Run) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", r.TestID, err)
	}
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	if err := appendLine(h.logPath(), b); err != nil {
		return err
	}
	h.mu.Lock()
	if _, ok := h.known[r.TestID]; !ok {
		h.total++ // a testid older than KnownFor counts again: it cannot be listed again
	}
	h.add(r)
	h.logged++
	compact := h.logged >= h.compactEvery()
	h.mu.Unlock()
	if compact {
		return h.compact()
	}
	return nil
}

func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("write state log: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("write state log: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync state log: %w", err)
	}
	return f.Close()
}

// add holds r in memory, then drops what the bounds no longer keep. h.mu is held.
func (h *History) add(r Run) {
	now := h.now()
	if t := r.sortTime(); now.Sub(t) <= h.cfg.KnownFor {
		h.known[r.TestID] = t
	}
	for id, t := range h.known {
		if now.Sub(t) > h.cfg.KnownFor {
			delete(h.known, id)
		}
	}
	h.dropFromGroups(r.TestID)
	if r.Error == "" && now.Sub(r.To) <= h.cfg.Retention {
		rec := h.record(r)
		g := h.groups[r.Group]
		i, _ := slices.BinarySearchFunc(g, rec, func(a, b *record) int {
			if c := a.to.Compare(b.to); c != 0 {
				return c
			}
			return 1 // after runs with the same end
		})
		g = slices.Insert(g, i, rec)
		if keep := h.keep(); len(g) > keep {
			g = slices.Delete(g, 0, len(g)-keep)
		}
		h.groups[r.Group] = g
	}
	h.expire(now)
}

// compactEvery is how many runs the log takes before it is compacted: CompactAfter, or
// for a long history a sixteenth of it (each compaction rewrites the whole state file,
// so the cost per run stays bounded), at most 16 × CompactAfter (the log is read whole).
// h.mu is held.
func (h *History) compactEvery() int {
	return min(max(h.cfg.CompactAfter, h.total/16), 16*h.cfg.CompactAfter)
}

// keep is how many runs of a group memory holds.
func (h *History) keep() int { return max(h.cfg.MaxRunsPerGroup, regress.HistoryWindow) }

// dropFromGroups removes a testid's run from memory (when it is replaced).
func (h *History) dropFromGroups(testID string) {
	for g, recs := range h.groups {
		if i := slices.IndexFunc(recs, func(x *record) bool { return x.testID == testID }); i >= 0 {
			h.groups[g] = slices.Delete(recs, i, i+1)
			if len(h.groups[g]) == 0 {
				delete(h.groups, g)
			}
			return
		}
	}
}

// expire drops the runs that ended before the retention, and the groups left empty.
func (h *History) expire(now time.Time) {
	for g, recs := range h.groups {
		i := 0
		for i < len(recs) && now.Sub(recs[i].to) > h.cfg.Retention {
			i++
		}
		switch {
		case i == len(recs):
			delete(h.groups, g)
		case i > 0:
			h.groups[g] = slices.Delete(recs, 0, i)
		}
	}
}

func (h *History) record(r Run) *record {
	rec := &record{testID: r.TestID, group: r.Group, from: r.From, to: r.To, correlatedAt: r.CorrelatedAt,
		notes: slices.Clip(r.Notes), report: r.Report, err: r.Error, bottleneck: r.Bottleneck}
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
	return rec
}

// Runs returns the runs held in memory (each group's last runs within the retention),
// oldest end first. Page reads the whole history.
func (h *History) Runs() []Run {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []Run
	for _, recs := range h.groups {
		for _, r := range recs {
			out = append(out, r.run())
		}
	}
	slices.SortStableFunc(out, func(a, b Run) int {
		return cmp.Or(a.To.Compare(b.To), strings.Compare(a.TestID, b.TestID))
	})
	return out
}

// exposed calls fn with each group's last MaxRunsPerGroup runs within the retention:
// what /metrics shows. h.mu is held for reading.
func (h *History) exposed(fn func(*record)) {
	now := h.now()
	for _, recs := range h.groups {
		for _, r := range recs[max(0, len(recs)-h.cfg.MaxRunsPerGroup):] {
			if now.Sub(r.to) <= h.cfg.Retention {
				fn(r)
			}
		}
	}
}

// Page returns the runs of the whole history on disk, newest first, from offset on, at
// most limit of them, and how many runs there are. It reads the files as it goes and
// holds offset+limit runs at a time.
func (h *History) Page(offset, limit int) ([]Run, int, error) {
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	logged, err := h.readLog(false)
	if err != nil {
		return nil, 0, err
	}
	k := offset + limit
	var top []Run // newest first, at most k
	total := 0
	keep := func(r Run) {
		total++
		if k <= 0 {
			return
		}
		newer := func(a, b Run) int {
			return cmp.Or(b.sortTime().Compare(a.sortTime()), strings.Compare(a.TestID, b.TestID))
		}
		if len(top) == k && newer(r, top[k-1]) >= 0 {
			return
		}
		i, _ := slices.BinarySearchFunc(top, r, newer)
		top = slices.Insert(top, i, r)
		if len(top) > k {
			top = top[:k]
		}
	}
	if err := h.readState(func(r Run) {
		if _, ok := logged[r.TestID]; !ok {
			keep(r)
		}
	}); err != nil {
		return nil, 0, err
	}
	for _, r := range logged {
		keep(r)
	}
	if offset >= len(top) {
		return nil, total, nil
	}
	return top[offset:], total, nil
}

func (r *record) run() Run {
	out := Run{TestID: r.testID, Group: r.group, From: r.from, To: r.to, CorrelatedAt: r.correlatedAt,
		Notes: r.notes, Report: r.report, Error: r.err, Bottleneck: r.bottleneck}
	if len(r.facts) > 0 {
		out.Facts = make([]facts.KeyFact, len(r.facts))
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

// Before returns the correlated runs of group held in memory that ended before end,
// oldest first, as regress.Detect takes its history: the group's last runs within the
// retention (at least regress.HistoryWindow).
func (h *History) Before(group string, end time.Time) []regress.Run {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []regress.Run
	for _, r := range h.groups[group] {
		if !r.to.Before(end) {
			continue
		}
		rr := regress.Run{TestID: r.testID, Group: r.group, End: r.to, Facts: make([]facts.KeyFact, len(r.facts))}
		for i, f := range r.facts {
			rr.Facts[i] = f.keyFact()
		}
		out = append(out, rr)
	}
	return out
}

// Compact merges the log into the state file and empties the log. Add calls it when
// the log is long.
func (h *History) Compact() error {
	h.fileMu.Lock()
	defer h.fileMu.Unlock()
	return h.compact()
}

// compact rewrites the state file with the log's runs merged in (a temporary file,
// fsynced, renamed over the old one, the directory fsynced), then empties the log. A
// crash before the rename leaves the old state file and the log; after it, the log's
// runs are in both, and the log's copy wins when they are read. h.fileMu is held.
func (h *History) compact() error {
	logged, err := h.readLog(false)
	if err != nil {
		return err
	}
	pending := sortedRuns(logged)
	tmp, err := os.CreateTemp(h.dir, "."+StateFile+".*")
	if err != nil {
		return fmt.Errorf("compact state: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	fmt.Fprintf(bw, `{"version":%d,"runs":[`, stateVersion)
	n := 0
	var werr error
	write := func(r Run) {
		if werr != nil {
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			werr = fmt.Errorf("encode run %s: %w", r.TestID, err)
			return
		}
		if n > 0 {
			_ = bw.WriteByte(',')
		}
		_, _ = bw.Write(b)
		n++
	}
	if err := h.readState(func(r Run) {
		if _, ok := logged[r.TestID]; ok {
			return
		}
		for len(pending) > 0 && pending[0].sortTime().Before(r.sortTime()) {
			write(pending[0])
			pending = pending[1:]
		}
		write(r)
	}); err != nil {
		return err
	}
	for _, r := range pending {
		write(r)
	}
	if werr != nil {
		return werr
	}
	_, _ = bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("compact state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("compact state: %w", err)
	}
	done = true
	if err := os.Rename(tmp.Name(), h.statePath()); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("replace state: %w", err)
	}
	if err := syncDir(h.dir); err != nil {
		return err
	}
	if err := emptyFile(h.logPath()); err != nil {
		return err
	}
	h.mu.Lock()
	h.logged = 0
	h.mu.Unlock()
	return nil
}

func syncDir(dir string) error {
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

// emptyFile truncates path, if it exists, and fsyncs it.
func emptyFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("empty state log: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		_ = f.Close()
		return fmt.Errorf("empty state log: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync state log: %w", err)
	}
	return f.Close()
}
