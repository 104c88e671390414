package watcher

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/regress"
	"github.com/tidemark/tidemark/internal/report"
)

// Correlator finds and correlates one run; *correlator.Correlator is one.
type Correlator interface {
	FindRun(ctx context.Context, cfg correlator.Config) (correlator.RunWindow, error)
	Correlate(ctx context.Context, cfg correlator.Config) (*correlator.Result, error)
}

var _ Correlator = (*correlator.Correlator)(nil)

// Error kinds of tidemark_exporter_errors_total.
const (
	// ErrorPrometheus: Prometheus could not be reached or failed (the cycle stops and
	// is retried at the next interval).
	ErrorPrometheus = "prometheus"
	// ErrorCorrelate: one run's correlation failed for another reason.
	ErrorCorrelate = "correlate"
	// ErrorReport: one run's report could not be written.
	ErrorReport = "report"
	// ErrorState: the state file could not be written.
	ErrorState = "state"
)

func errorKinds() []string { return []string{ErrorPrometheus, ErrorCorrelate, ErrorReport, ErrorState} }

// maxAttempts is how often a run whose correlation fails (other than for an unavailable
// Prometheus) is tried before it is recorded with its error and left alone.
const maxAttempts = 3

// maxNotes bounds the notes kept per run in memory and state; the report has them all.
const maxNotes = 20

// Config is what the watcher looks for and how it correlates.
type Config struct {
	// Correlation is the template of every correlation (namespace, workload, baseline,
	// cool-down, params, selector, lookback); TestID is set per run.
	Correlation correlator.Config
	// Interval is the time between two looks (default 1m).
	Interval time.Duration
	// Lookback is how far back a look searches for runs (default 1h).
	Lookback time.Duration
	// GroupBy is the label of the runs' series whose value groups comparable runs;
	// empty, or a run without it: regress.Group of the testid.
	GroupBy string
	// StorageDir holds the state file and reports/<testid>/.
	StorageDir string
	// MaxRunsPerGroup is how many of each group's most recent runs /metrics exposes
	// (default 10).
	MaxRunsPerGroup int
	// Retention is how long after its end a run is exposed and compared with (default
	// 30d, at least the lookback plus the cool-down). The state file keeps every run.
	Retention time.Duration
}

// DefaultConfig holds the defaults applied to zero fields.
var DefaultConfig = Config{Interval: time.Minute, Lookback: time.Hour}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Interval < 0 {
		errs = append(errs, fmt.Errorf("interval %s: expected a positive duration such as 1m", c.Interval))
	}
	if c.Lookback < 0 {
		errs = append(errs, fmt.Errorf("lookback %s: expected a positive duration such as 1h", c.Lookback))
	}
	if c.GroupBy != "" && (!labelName.MatchString(c.GroupBy) || c.GroupBy == "testid") {
		errs = append(errs, fmt.Errorf("group-by %q: expected a label name other than testid, such as scenario", c.GroupBy))
	}
	if c.MaxRunsPerGroup < 0 {
		errs = append(errs, fmt.Errorf("max runs per group %d: expected a positive number such as 10", c.MaxRunsPerGroup))
	}
	if c.Retention < 0 {
		errs = append(errs, fmt.Errorf("retention %s: expected a positive duration such as 720h", c.Retention))
	}
	if c.StorageDir == "" {
		errs = append(errs, errors.New("storage path is empty"))
	}
	return errors.Join(errs...)
}

// Watcher finds finished runs, correlates each once and keeps the results.
type Watcher struct {
	cfg     Config
	q       query.Querier
	c       Correlator
	history *History
	logger  *slog.Logger
	now     func() time.Time

	mu          sync.Mutex
	correlated  float64
	errors      map[string]float64
	lastSuccess time.Time
	attempts    map[string]int
}

type options struct {
	now func() time.Time
}

// Option configures a Watcher.
type Option func(*options)

// WithClock sets the clock (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// New returns a watcher over q (to list runs) and c (to correlate them), keeping its
// history in the state file under cfg.StorageDir, which it creates.
func New(cfg Config, q query.Querier, c Correlator, logger *slog.Logger, opts ...Option) (*Watcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Interval = cmp.Or(cfg.Interval, DefaultConfig.Interval)
	cfg.Lookback = cmp.Or(cfg.Lookback, DefaultConfig.Lookback)
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	if err := os.MkdirAll(filepath.Join(cfg.StorageDir, ReportsDir), 0o750); err != nil {
		return nil, fmt.Errorf("create storage directory: %w", err)
	}
	// A testid is listed while its series are within the lookback, which ends at most
	// the lookback after the run's end (plus the cool-down before it is correlated):
	// twice that, and a day, is remembered.
	found := cfg.Lookback + max(cfg.Correlation.After, correlator.DefaultConfig.After)
	known := 2*found + 24*time.Hour
	// A run found within the lookback is exposed however old it is.
	retention := max(cmp.Or(cfg.Retention, DefaultHistoryConfig.Retention), found)
	h, err := OpenHistory(cfg.StorageDir, HistoryConfig{MaxRunsPerGroup: cfg.MaxRunsPerGroup, Retention: retention, KnownFor: known}, o.now)
	if err != nil {
		return nil, err
	}
	w := &Watcher{cfg: cfg, q: q, c: c, history: h, logger: logger, now: o.now,
		errors: map[string]float64{}, attempts: map[string]int{}}
	for _, k := range errorKinds() {
		w.errors[k] = 0
	}
	return w, nil
}

// ReportsDir is the directory under the storage path that holds reports/<testid>/.
const ReportsDir = "reports"

// History is the watcher's run history.
func (w *Watcher) History() *History { return w.history }

// Run looks for runs at once and then every interval until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		w.Cycle(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// candidate is a finished run not yet correlated.
type candidate struct {
	testID, group string
	window        correlator.RunWindow
}

// Cycle looks once: it lists the runs seen within the lookback, and correlates, oldest
// end first, each that has ended, whose cool-down is over and that is not in the
// history. It returns the number of runs correlated. Errors are counted and logged; an
// unavailable Prometheus ends the cycle.
func (w *Watcher) Cycle(ctx context.Context) int {
	now := w.now().UTC()
	seen, err := w.list(ctx, now)
	if err != nil {
		w.fail(ErrorPrometheus, "list_runs", err)
		return 0
	}
	var todo []candidate
	for _, s := range seen {
		if w.history.Has(s.testID) {
			continue
		}
		cfg := w.correlation(s.testID)
		rw, err := w.c.FindRun(ctx, cfg)
		switch {
		case errors.Is(err, correlator.ErrRunNotFound):
			continue // it left the lookback between the list and now
		case err != nil:
			if w.unavailable(ctx, err) {
				w.fail(ErrorPrometheus, "find_run", err, "testid", s.testID)
				return 0
			}
			w.failRun(s.testID, s.group, fmt.Errorf("find run: %w", err))
			continue
		case rw.Live:
			w.logger.Debug("Run still live", "testid", s.testID)
			continue
		}
		if wait := rw.Run.To.Add(w.after()).Sub(now); wait > 0 {
			w.logger.Debug("Run in its cool-down", "testid", s.testID, "wait_seconds", wait.Seconds())
			continue
		}
		todo = append(todo, candidate{testID: s.testID, group: s.group, window: rw})
	}
	slices.SortStableFunc(todo, func(a, b candidate) int { return a.window.Run.To.Compare(b.window.Run.To) })
	n := 0
	for _, c := range todo {
		ok, stop := w.correlate(ctx, c)
		if ok {
			n++
		}
		if stop {
			return n
		}
	}
	w.mu.Lock()
	w.lastSuccess = w.now()
	w.mu.Unlock()
	return n
}

// after is the correlation's cool-down as the correlator applies it.
func (w *Watcher) after() time.Duration {
	switch a := w.cfg.Correlation.After; {
	case a < 0:
		return 0
	case a == 0:
		return correlator.DefaultConfig.After
	default:
		return a
	}
}

func (w *Watcher) correlation(testID string) correlator.Config {
	cfg := w.cfg.Correlation
	cfg.TestID = testID
	if cfg.Lookback <= 0 {
		cfg.Lookback = w.cfg.Lookback
	}
	return cfg
}

// unavailable tells whether err is about Prometheus (or the exporter stopping) rather
// than the run.
func (w *Watcher) unavailable(ctx context.Context, err error) bool {
	return errors.Is(err, query.ErrUnavailable) || ctx.Err() != nil
}

// correlate correlates one run, writes its report, detects its changes and saves the
// history. ok is set when the run was added; stop when the cycle must end.
func (w *Watcher) correlate(ctx context.Context, c candidate) (ok, stop bool) {
	res, err := w.c.Correlate(ctx, w.correlation(c.testID))
	if err != nil {
		if w.unavailable(ctx, err) {
			w.fail(ErrorPrometheus, "correlate", err, "testid", c.testID)
			return false, true
		}
		w.failRun(c.testID, c.group, err)
		return false, false
	}
	facts := correlator.KeyFacts(res)
	current := regress.Run{TestID: res.TestID, Group: c.group, End: res.Window.Run.To, Facts: facts}
	changes := regress.Detect(w.history.Before(c.group, current.End), current)
	run := Run{TestID: res.TestID, Group: c.group, From: res.Window.Run.From, To: res.Window.Run.To,
		CorrelatedAt: w.now().UTC(), Facts: facts, Notes: notes(res.Notes), Bottleneck: res.Bottleneck.Resource}
	run.Changes = changes
	dir := reportDir(res.TestID)
	if _, err := report.WriteFiles(filepath.Join(w.cfg.StorageDir, ReportsDir, dir), "report", document(res, changes), res); err != nil {
		// The facts are kept; the run is listed without a report.
		w.fail(ErrorReport, "write_report", err, "testid", c.testID)
	} else {
		run.Report = dir
	}
	if err := w.history.Add(run); err != nil {
		// Not in the history: correlated again at the next look.
		w.fail(ErrorState, "save_state", err, "testid", c.testID)
		return false, true
	}
	w.mu.Lock()
	w.correlated++
	delete(w.attempts, c.testID)
	w.mu.Unlock()
	regressions := 0
	for _, ch := range changes {
		if ch.Regression {
			regressions++
		}
	}
	w.logger.Info("Correlated run", "testid", c.testID, "group", c.group, "facts", len(facts),
		"changes", len(changes), "regressions", regressions, "notes", len(res.Notes))
	return true, false
}

// document is the run's report, with its changes against the group's history first.
func document(res *correlator.Result, changes []regress.Change) *report.Document {
	return report.FromCorrelation(res, report.WithRegressions(changes))
}

// notes returns the texts of a result's notes about missing or partial data.
func notes(ns []analysis.Note) []string {
	var out []string
	for _, n := range ns {
		if n.Level == analysis.NoteInfo || len(out) == maxNotes {
			continue
		}
		out = append(out, strings.TrimSpace(n.Section+" "+n.Object)+": "+n.Text)
	}
	return out
}

// failRun counts a failed correlation of one run and, after maxAttempts, records the run
// with its error so that it is not tried again.
func (w *Watcher) failRun(testID, group string, err error) {
	w.fail(ErrorCorrelate, "correlate", err, "testid", testID)
	w.mu.Lock()
	w.attempts[testID]++
	n := w.attempts[testID]
	w.mu.Unlock()
	if n < maxAttempts {
		return
	}
	if err := w.history.Add(Run{TestID: testID, Group: group, CorrelatedAt: w.now().UTC(), Error: err.Error()}); err != nil {
		w.fail(ErrorState, "save_state", err, "testid", testID)
		return
	}
	w.mu.Lock()
	delete(w.attempts, testID)
	w.mu.Unlock()
	w.logger.Warn("Giving up on run", "testid", testID, "attempts", n)
}

// fail counts an error of kind and logs it with the operation that failed.
func (w *Watcher) fail(kind, op string, err error, kv ...any) {
	w.mu.Lock()
	w.errors[kind]++
	w.mu.Unlock()
	w.logger.Warn("Exporter operation failed", append(kv, "op", op, "kind", kind, "err", err)...)
}

// seenRun is a testid seen in Prometheus, with its group.
type seenRun struct{ testID, group string }

// list returns the testids of the runs whose probe series (the catalog's k6 probe:
// tidemark_run_info, or k6_vus and k6_iterations_total for a run k6 made) have samples
// within the lookback, with their group.
func (w *Watcher) list(ctx context.Context, now time.Time) ([]seenRun, error) {
	by := "testid, " + engine.RunInfoTestFileLabel + ", " + engine.RunInfoTestHashLabel
	if w.cfg.GroupBy != "" {
		by += ", " + w.cfg.GroupBy
	}
	var sel strings.Builder
	sel.WriteString(`testid!=""`)
	for _, n := range slices.Sorted(maps.Keys(w.cfg.Correlation.Selector)) {
		fmt.Fprintf(&sel, ", %s=%q", n, w.cfg.Correlation.Selector[n])
	}
	// One range selector per probe name: count_over_time drops the name, so one selector
	// over the three names fails ("vector cannot contain metrics with the same labelset")
	// when a run's k6_vus and k6_iterations_total carry the same labels (a run written
	// with --remote-write.drop-label scenario), and no run would be listed.
	var parts []string
	for _, name := range []string{engine.RunInfoMetric, "k6_vus", "k6_iterations_total"} {
		parts = append(parts, fmt.Sprintf("group by (%s) (count_over_time(%s{%s}[%s]))", by, name, sel.String(), model.Duration(w.cfg.Lookback)))
	}
	expr := strings.Join(parts, " or ")
	v, _, err := w.q.Query(ctx, expr, now)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("list runs: %s returned %s, expected a vector", expr, v.Type())
	}
	groups := map[string]groupChoice{}
	for _, s := range vec {
		id := string(s.Metric["testid"])
		c := groupOf(s.Metric, w.cfg.GroupBy)
		if old, ok := groups[id]; !ok || c.rank < old.rank || (c.rank == old.rank && c.group < old.group) {
			groups[id] = c // several values: the first in order, stable
		}
	}
	out := make([]seenRun, 0, len(groups))
	for _, id := range slices.Sorted(maps.Keys(groups)) {
		out = append(out, seenRun{testID: id, group: groups[id].group})
	}
	return out, nil
}

// groupChoice is a run's group and where it came from (groupRank*: the lowest wins).
type groupChoice struct {
	rank  int
	group string
}

// Where a run's group comes from, in the order they win.
const (
	groupRankLabel    = iota // the --group-by label
	groupRankIdentity        // the test's identity on tidemark_run_info (a run Tidemark made)
	groupRankTestID          // regress.Group of the testid
)

// groupOf is the group one probe series gives its run: the value of the groupBy label
// when it is set and the series has it; else, on a tidemark_run_info series of a run
// Tidemark made, the test's identity (IdentityGroup); else regress.Group of the testid.
func groupOf(m model.Metric, groupBy string) groupChoice {
	type c = groupChoice
	if v := m[model.LabelName(groupBy)]; groupBy != "" && v != "" {
		return c{groupRankLabel, string(v)}
	}
	if hash := m[engine.RunInfoTestHashLabel]; hash != "" {
		return c{groupRankIdentity, IdentityGroup(string(m[engine.RunInfoTestFileLabel]), string(hash))}
	}
	return c{groupRankTestID, regress.Group(string(m["testid"]))}
}

// IdentityGroup is the group of the runs Tidemark made of one test: the test file's name
// without its extension and the test's hash (engine.TestHash), "spike-50@3f2a9c1b07e4",
// so that two runs of one unchanged scenario file are one group whatever their testids,
// and a changed load shape starts a new one.
func IdentityGroup(file, hash string) string {
	stem := strings.TrimSuffix(file, filepath.Ext(file))
	return cmp.Or(stem, "test") + "@" + hash
}

var unsafePath = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// reportDir is a run's report directory name: the testid where it is a safe file name,
// else the testid made safe with a hash of it appended, so that two testids never share
// one.
func reportDir(testID string) string {
	safe := unsafePath.ReplaceAllString(testID, "_")
	if safe == testID && safe != "." && safe != ".." {
		return safe
	}
	sum := sha256.Sum256([]byte(testID))
	return cmp.Or(strings.Trim(safe, "."), "run") + "-" + hex.EncodeToString(sum[:4])
}
