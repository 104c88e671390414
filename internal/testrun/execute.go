package testrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/buildversion"
	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/progress"
	"github.com/tidemark/tidemark/internal/restapi"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/summary"
	"github.com/tidemark/tidemark/internal/verdict"
	"github.com/tidemark/tidemark/internal/webdash"
)

// webDashboardShutdown bounds how long the end of the process waits for the
// dashboard's requests in flight; its event streams end at once.
const webDashboardShutdown = 5 * time.Second

// IO are the streams a run is shown on.
type IO struct {
	Stdout, Stderr io.Writer
}

// summaryHandler is a script's handleSummary: it reports whether the script has one,
// which then replaces the text summary.
type summaryHandler interface {
	HandleSummary(ctx context.Context, in summary.Input, stdout, stderr io.Writer) (bool, error)
}

// Execute runs a load test and shows it as `tidemark run` does: the REST API and the
// web dashboard when asked for, the header, a live progress line, then the k6 summary
// and the summary files; with show.Linger it then stays up until ctx ends. The actors
// of cfg (outputs) run with the ones show asks for. Its error is the run's verdict or
// why it could not run.
func Execute(ctx context.Context, cfg loadtest.Config, show Show, out IO) error {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if show.NoColor {
		// --no-color: the summary is not coloured, even on a terminal.
		out.Stdout = plainWriter{out.Stdout}
	}
	signals := ctx // --linger ends on SIGINT/SIGTERM only: k6 lingers on after PATCH stopped:true
	api, ctx := newRESTAPI(ctx, cfg.VUs, show, logger)
	dash, err := newDashboard(show.Dashboard, logger)
	if err != nil {
		return err
	}
	defer dash.close() // after lingering: --linger keeps serving the final state
	defer api.linger(signals, show.Linger, logger)
	cfg.Actors = slices.Concat(api.listener(), cfg.Actors, dash.sink(),
		[]loadtest.Actor{loadtest.Hook{Started: func(_ context.Context, p *loadtest.Plan) error {
			printHeader(out.Stdout, cfg.Source, p, show.Quiet)
			return nil
		}}}, api.gate(), dash.started(), progressLine(show, out.Stderr))
	var shown summaryShown
	if !show.NoSummary {
		// The summary comes before the outputs' final flush: a stop that outlives the
		// pod's grace period loses the delivery line, not the summary.
		cfg.Report = func(ctx context.Context, res *loadtest.Result) error {
			var errs []error
			shown, errs = writeSummary(ctx, res.Summary, cfg.VUs, show, out, logger)
			return errors.Join(errs...)
		}
	}
	res, err := loadtest.Run(ctx, cfg)
	if api != nil && api.run.Status().Stopped && errors.Is(err, loadtest.ErrInterrupted) {
		err = verdict.As(verdict.ErrStopped, errors.New("the run was stopped through the REST API"))
	}
	if res != nil {
		shown.delivered(res.Delivery, out.Stdout, logger)
	}
	return err
}

// summaryShown is how the summary was shown: not at all, as text, or by the
// script's handleSummary.
type summaryShown int

const (
	summaryNone summaryShown = iota
	summaryText
	summaryHandled
)

// delivered shows the outputs' delivery lines, known only after their final flush:
// after the text summary as its last lines, else in the log (a handleSummary owns
// stdout).
func (s summaryShown) delivered(lines []string, stdout io.Writer, logger *slog.Logger) {
	if len(lines) == 0 || s == summaryNone {
		return
	}
	if s == summaryHandled {
		for _, l := range lines {
			logger.Info("Delivery", "result", l)
		}
		return
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("\n")
	_, _ = io.WriteString(stdout, b.String())
}

// writeSummary prints the summary (or the script's handleSummary) and its files. As in
// k6, a handleSummary that fails is logged and leaves the run's exit code as it is (0,
// or 99 for crossed thresholds).
func writeSummary(ctx context.Context, in summary.Input, vus any, show Show, out IO, logger *slog.Logger) (summaryShown, []error) {
	in.Color = progress.IsTerminal(out.Stdout)
	in.StdoutTTY, in.StderrTTY = in.Color, progress.IsTerminal(out.Stderr)
	in.Mode = show.SummaryMode
	if od, ok := vus.(interface{ OnDemand() js.OnDemand }); ok {
		in.SetupData = od.OnDemand().SetupData() // k6's setup_data
	}
	var errs []error
	shown := summaryText
	if h, ok := vus.(summaryHandler); ok {
		handled, herr := h.HandleSummary(ctx, in, out.Stdout, out.Stderr)
		if herr != nil {
			logger.Error("Failed to handle the end-of-test summary", "err", herr)
			if errors.Is(verdict.KindOf(herr), verdict.ErrInterrupted) {
				errs = append(errs, herr) // a signal: the run ends as interrupted (105)
			}
		}
		if handled {
			shown = summaryHandled
		}
	}
	if shown == summaryText {
		if werr := summary.WriteText(out.Stdout, in); werr != nil {
			errs = append(errs, fmt.Errorf("write the summary: %w", werr))
		}
	}
	return shown, append(errs, runsummary.WriteFiles(in, show.SummaryExport, show.SummaryFile)...)
}

// progressLine shows the run's progress on w from its start to the end of its
// iterations, unless quiet.
func progressLine(show Show, w io.Writer) []loadtest.Actor {
	if show.Quiet {
		return nil
	}
	var prog *progress.Printer
	return []loadtest.Actor{loadtest.Hook{
		Started: func(_ context.Context, p *loadtest.Plan) error {
			prog = progress.New(w, progress.IsTerminal(w), show.ProgressPeriod, p.Engine.Status)
			prog.Start()
			return nil
		},
		Ended: func() { prog.Stop() },
	}}
}

// printHeader prints the run's header: the banner (not with -q, as k6), script,
// testid, segment, scenarios.
func printHeader(w io.Writer, source string, plan *loadtest.Plan, quiet bool) {
	st := plan.Engine.Status()
	names := make([]string, 0, len(st))
	for _, s := range st {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if !quiet {
		fmt.Fprintf(w, "\n  tidemark %s\n\n", buildversion.Current().Version)
	}
	fmt.Fprintf(w, "     script: %s\n", source)
	fmt.Fprintf(w, "     testid: %s\n", plan.TestID)
	if !plan.Segment.IsFull() {
		fmt.Fprintf(w, "    segment: %s of %s\n", plan.Segment, plan.Segment.Sequence())
	}
	fmt.Fprintf(w, "  scenarios: %d scenario(s), %s max duration (incl. graceful stop): %s\n\n",
		len(st), plan.Engine.MaxDuration(), strings.Join(names, ", "))
}

// restAPI is k6's REST API for the run (--address or --paused): its controller, and
// its listener once the run has started (stopped by linger, after the summary).
type restAPI struct {
	addr   string
	paused bool
	logger *slog.Logger
	run    *restapi.Run
	pause  *restapi.Pause
	srv    *restapi.Server
}

// newRESTAPI returns the run's REST API (nil without --address and --paused) and the
// context the run must use: PATCH /v1/status {"stopped": true} ends it.
func newRESTAPI(ctx context.Context, vus any, show Show, logger *slog.Logger) (*restAPI, context.Context) {
	addr := show.Address
	if addr == "" && show.Paused {
		addr = restapi.DefaultAddress
	}
	if addr == "" {
		return nil, ctx
	}
	ctx, stop := context.WithCancel(ctx)
	gate := restapi.NewPause(show.Paused)
	var opts []restapi.RunOption
	if od, ok := vus.(interface{ OnDemand() js.OnDemand }); ok {
		// A script's setup() and teardown() on demand: POST/PUT /v1/setup, POST /v1/teardown.
		opts = append(opts, restapi.WithSetup(od.OnDemand()), restapi.WithTeardown(od.OnDemand()))
	}
	return &restAPI{addr: addr, paused: show.Paused, logger: logger, run: restapi.NewRun(gate, stop, opts...), pause: gate}, ctx
}

// listener serves the API once the run's store exists; a port it cannot listen on is
// of kind verdict.ErrListen (exit code 106).
func (a *restAPI) listener() []loadtest.Actor {
	if a == nil {
		return nil
	}
	return []loadtest.Actor{loadtest.Hook{Started: func(_ context.Context, p *loadtest.Plan) error {
		a.run.SetStore(p.Store)
		srv, err := restapi.Listen(a.addr, restapi.NewHandler(a.run, a.logger), a.logger)
		if err != nil {
			return verdict.As(verdict.ErrListen, err)
		}
		a.srv = srv
		a.logger.Info("REST API listening", "address", srv.Addr().String(), "paused", a.paused)
		return nil
	}}}
}

// gate holds a paused run until PATCH /v1/status {"paused": false}, and reports the
// run's start and the end of its iterations.
func (a *restAPI) gate() []loadtest.Actor {
	if a == nil {
		return nil
	}
	return []loadtest.Actor{loadtest.Hook{
		Started: func(ctx context.Context, p *loadtest.Plan) error {
			a.run.SetEngine(p.Engine)
			if a.paused {
				a.logger.Info("The run is paused: resume it with PATCH /v1/status {\"data\":{\"attributes\":{\"paused\":false}}}")
			}
			if a.pause.Wait(ctx) == nil {
				a.run.Started(time.Now())
			}
			return nil
		},
		Ended: a.run.Ended,
	}}
}

// linger keeps the process up after the run until ctx ends (--linger: SIGINT or
// SIGTERM; as in k6 v1.8.1, PATCH /v1/status stopped:true does not end it), then stops
// the REST API's listener, which --linger keeps serving the finished run.
func (a *restAPI) linger(ctx context.Context, linger bool, logger *slog.Logger) {
	if linger {
		logger.Info("The run is over; lingering until SIGINT or SIGTERM (--linger)")
		<-ctx.Done()
	}
	if a != nil && a.srv != nil {
		_ = a.srv.Stop(context.Background())
	}
}

// dashboard is the run's web dashboard, nil when it is off.
type dashboard struct {
	d      *webdash.Dashboard
	export string
}

// newDashboard serves the web dashboard when cfg is set: the page listens now (a busy
// port is a configuration error before the run).
func newDashboard(cfg *webdash.Config, logger *slog.Logger) (*dashboard, error) {
	if cfg == nil {
		return nil, nil
	}
	logger = logger.With("component", "webdash")
	if len(cfg.Ignored) > 0 {
		logger.Warn("These web-dashboard parameters are not k6's and have no effect; the parameters are host, port, period, open and export",
			"parameters", strings.Join(cfg.Ignored, ","))
	}
	if cfg.Open {
		logger.Warn("The web dashboard does not open a browser (K6_WEB_DASHBOARD_OPEN, open): open its address yourself")
	}
	d, err := webdash.New(*cfg, logger)
	if err != nil {
		return nil, verdict.Invalid(err)
	}
	if err := d.Listen(); err != nil {
		return nil, verdict.Invalid(err)
	}
	if u := d.URL(); u != "" {
		logger.Info("Web dashboard listening", "url", u, "period", cfg.Period)
	}
	return &dashboard{d: d, export: cfg.Export}, nil
}

// sink reads the run's store from its start and, stopped with the run's outputs,
// writes the final state and the export.
func (w *dashboard) sink() []loadtest.Actor {
	if w == nil {
		return nil
	}
	return []loadtest.Actor{w}
}

// Start attaches the run's store and starts the page's ticker.
func (w *dashboard) Start(_ context.Context, p *loadtest.Plan) error {
	w.d.Attach(p.Store, p.RunTags[series.LabelTestID], p.Test.Scenarios)
	w.d.Start()
	return nil
}

// Stop writes the final state and the export.
func (w *dashboard) Stop() error { return w.d.Stop() }

// SummaryLines say where the page is and where its export went.
func (w *dashboard) SummaryLines() []string {
	var out []string
	if u := w.d.URL(); u != "" {
		out = append(out, "web dashboard: served on "+u)
	}
	if w.export != "" {
		out = append(out, "web dashboard: report written to "+w.export)
	}
	return out
}

// started gives the page the engine's status once the run has started (after a
// paused start).
func (w *dashboard) started() []loadtest.Actor {
	if w == nil {
		return nil
	}
	return []loadtest.Actor{loadtest.Hook{Started: func(_ context.Context, p *loadtest.Plan) error {
		w.d.Started(p.Engine)
		return nil
	}}}
}

// close stops serving the page.
func (w *dashboard) close() {
	if w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), webDashboardShutdown)
	defer cancel()
	_ = w.d.Close(ctx)
}

var (
	_ loadtest.Actor      = (*dashboard)(nil)
	_ loadtest.Summarizer = (*dashboard)(nil)
)

// plainWriter hides that its writer is a terminal (--no-color).
type plainWriter struct{ io.Writer }
