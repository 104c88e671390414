package testrun

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Demo is the load test of `tidemark demo`: a k6 script, run as `tidemark run` runs
// it, or a scenario file, against the simulated cluster's first service (TARGET_URL),
// with the demo's outputs (remote write into its store).
type Demo struct {
	// File is --scenario. A k6 script (.js, .mjs, .cjs, .ts) is loaded from it;
	// anything else is a scenario file, read by the caller into Raw (Name is how it is
	// named in messages).
	File string
	Raw  []byte
	Name string
	// TestID is the run's test id; Target is TARGET_URL, in __ENV and ${__ENV.K}.
	TestID, Target string
	// Outputs are the run's actors that write its series (the demo's remote write).
	Outputs []loadtest.Actor
	Show    Show
	IO      IO
	Logger  *slog.Logger
}

// Script tells whether File is a k6 script (the caller then reads no Raw).
func (d Demo) Script() bool { return js.IsScript(d.File) }

// Run runs the load test and prints it as `tidemark run` does. Its error is the run's
// verdict (crossed thresholds are of kind verdict.ErrThresholds, an invalid scenario
// or script of kind verdict.ErrInvalid) or why it could not run.
func (d Demo) Run(ctx context.Context) error {
	name := d.Name
	if d.Script() {
		name = d.File
	}
	fmt.Fprintf(d.IO.Stdout, "\nRunning %s against %s (testid %s)\n", name, d.Target, d.TestID)
	if !d.Script() {
		test, err := scenario.Parse(d.Name, d.Raw, map[string]string{"TARGET_URL": d.Target})
		if err != nil {
			return verdict.Invalid(err)
		}
		return Execute(ctx, loadtest.Config{Test: test, Source: d.Name, TestID: d.TestID, Actors: d.Outputs, Logger: d.Logger}, d.Show, d.IO)
	}
	// As `tidemark run --testid ID --env TARGET_URL=… FILE` with the process
	// environment in __ENV (its default --include-system-env-vars), so that a script
	// reads the demo's target and the variables it was started with.
	env := ProcessEnv()
	o := Options{File: d.File, TestID: d.TestID, Env: []string{"TARGET_URL=" + d.Target}, Shortcuts: Shortcuts{SystemEnv: true}, Show: d.Show}
	o, err := o.Resolve(env, d.Logger)
	if err != nil {
		return err
	}
	return Run(ctx, o, env, Parts{Outputs: d.Outputs, IO: d.IO, Logger: d.Logger})
}
