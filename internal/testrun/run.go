package testrun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/output"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/runsummary"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Parts are the parts of a run that the command builds from the public edges: the
// outputs (remote write, the exporter, the embedded store), the distributed start and
// summarize-at-end.
type Parts struct {
	// Outputs are started with the run, after the REST API, and stopped after it.
	Outputs []loadtest.Actor
	// Join holds the start until every instance is ready; nil starts at once.
	Join func(ctx context.Context) error
	// AtEnd, when set, prints the whole run's summary on its last instance.
	AtEnd  *runsummary.AtEnd
	IO     IO
	Logger *slog.Logger
}

// Run runs the test o describes, a scenario file or a script alike: it loads the
// source with env under o, waits for the distributed start, executes the run with its
// outputs (Execute) and, with AtEnd, takes part in the whole run's summary. o must be
// resolved (Options.Resolve). Its error is the run's verdict or why it could not run.
func Run(ctx context.Context, o Options, env Env, parts Parts) error {
	logger := parts.Logger
	tags, err := ParsePairs("tag", o.Tags)
	if err != nil {
		return verdict.Invalid(err)
	}
	seg, err := pacer.ParseSegment(o.Segment, o.SegmentSequence)
	if err != nil {
		return verdict.Invalid(err)
	}
	src, err := Load(ctx, o, env, seg, logger)
	if err != nil {
		return err
	}
	if err := selectScenarios(src.Test(), o.Flags.Scenarios); err != nil {
		return err
	}
	if fs, ok := src.(*fileSource); ok && len(fs.replaced) > 0 {
		logger.Warn("The command line or the environment replaces the file's scenarios", "variables", strings.Join(fs.replaced, ","))
	}
	warnRemovedExecutors(src.Test(), logger)
	if o.CPUProfile != "" {
		stop, err := startCPUProfile(o.CPUProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	cfg, err := o.config(src, env, tags, seg, parts, logger)
	if err != nil {
		return err
	}
	ctx = src.Context(ctx)
	if parts.Join != nil {
		if err := parts.Join(ctx); err != nil {
			return err
		}
	}
	execute := func() error { return Execute(ctx, cfg, o.Show, parts.IO) }
	if parts.AtEnd != nil {
		err = parts.AtEnd.Run(ctx, execute, parts.IO.Stdout, logger.With("component", "summarize-at-end"))
	} else {
		err = execute()
	}
	return src.Verdict(err)
}

// config is the run of src as o describes it; the --out file outputs (json, csv) are
// written from the samples the engine pushes.
func (o Options) config(src Source, env Env, tags map[string]string, seg pacer.Segment, parts Parts, logger *slog.Logger) (loadtest.Config, error) {
	test := src.Test()
	userAgent := o.UserAgent
	if _, ok := src.(scriptSource); ok && test.UserAgent != "" && userAgent == o.DefaultUserAgent {
		// The script's userAgent option, unless --user-agent says otherwise.
		userAgent = test.UserAgent
	}
	cfg := loadtest.Config{Test: test, Source: o.File, TestID: o.TestID, Tags: tags, Segment: seg, NoThresholds: o.NoThresholds, MaxSeries: o.MaxSeries,
		InsecureSkipTLSVerify: o.InsecureSkipTLSVerify, UserAgent: userAgent, VUs: src.VUs(), Registry: src.Registry(),
		// The test's httpDebug, under K6_HTTP_DEBUG and --http-debug (k6's precedence).
		HTTP: request.Options{Debug: RequestDebug(cmp.Or(o.HTTPDebug, HTTPDebugMode(src.HTTPDebug())), logger)},
		Env:  env, Actors: parts.Outputs, Logger: logger}
	files, err := o.files(env)
	if err != nil || len(files) == 0 {
		return cfg, verdict.Invalid(err)
	}
	thresholds := map[string][]string{}
	for k, ths := range test.Thresholds {
		for _, th := range ths {
			thresholds[k] = append(thresholds[k], th.Expr)
		}
	}
	opts := output.Options{Thresholds: thresholds, NoSubmetrics: o.NoThresholds && o.Show.NoSummary}
	cfg.Outputs = func(next metrics.Pusher) (loadtest.PusherSink, error) {
		return output.New(next, files, output.Config{Stdout: parts.IO.Stdout, Options: opts})
	}
	return cfg, nil
}

// startCPUProfile writes a Go CPU profile to path until the returned function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, verdict.Invalid(fmt.Errorf("--debug.cpu-profile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(fmt.Errorf("start the CPU profile: %w", err), f.Close())
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// warnRemovedExecutors warns of the scenarios whose executor k6 v2 no longer has:
// externally-controlled was removed in k6 v2.0 (a v2 run refuses it), and Tidemark still
// runs it for the scripts written for k6 v1.
func warnRemovedExecutors(test *scenario.Test, logger *slog.Logger) {
	for _, sc := range test.Scenarios {
		if sc.Executor == scenario.ExternallyControlled {
			logger.Warn("The externally-controlled executor was removed in k6 v2.0, which refuses this script; Tidemark still runs it",
				"scenario", sc.Name)
		}
	}
}
