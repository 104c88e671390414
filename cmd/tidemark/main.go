// Command tidemark runs k6-style load tests against services on Kubernetes, emits
// k6-compatible metrics through Prometheus remote write, and correlates a run with the
// cluster's autoscaling, CPU throttling and database metrics.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/buildversion"
	"github.com/tidemark/tidemark/internal/exitcode"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// action runs a subcommand once the command line has been parsed. ctx ends at the first
// SIGINT or SIGTERM. Its error decides the exit code (exitcode.Of) and is printed.
type action func(ctx context.Context) error

// command is one subcommand: it registers its flags on the application and returns the
// action that runs it.
type command func(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action)

// commands lists every subcommand, one file each. Order is the order shown in --help.
func commands() []command {
	return []command{
		// Each subcommand adds one line here.
		runCmd,
		targetCmd,
		serveCmd,
		dashboardsCmd,
		simulateCmd,
		correlateCmd,
		compareCmd,
		demoCmd,
		inspectCmd,
		archiveCmd,
		summarizeCmd,
		exporterCmd,
		newCmd,
	}
}

// run parses args, runs the chosen subcommand and returns the process exit code. The name
// the binary was invoked by does not matter: the image links /usr/bin/k6 to it, and
// k6-operator's `k6 run …` runs this same CLI.
func run(args []string, stdout, stderr io.Writer) int {
	// k6 has a version command besides --version (k6-operator's checks run `k6 version`).
	// Both print the version alone: kingpin's --version goes on parsing after printing and
	// printed the whole usage below it.
	// The version falls back on what Go recorded in the binary (go build, go install).
	if len(args) == 1 && (args[0] == "version" || args[0] == "--version") {
		fmt.Fprintln(stdout, buildversion.Current())
		return exitcode.OK
	}
	if len(args) == 2 && args[0] == "version" && args[1] == "--json" {
		fmt.Fprintln(stdout, buildversion.Current().JSON())
		return exitcode.OK
	}
	app := kingpin.New("tidemark", "Load tests with k6 semantics, and the Kubernetes facts behind their numbers.")
	app.Version(buildversion.Current().String())
	app.HelpFlag.Short('h')
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	// --help, help COMMAND and --version print and must then stop: kingpin calls this
	// instead of os.Exit, and parsing goes on, so remember it and return below.
	terminated, termCode := false, 0
	app.Terminate(func(code int) { terminated, termCode = true, code })
	g := newGlobals(app, stdout, stderr)

	actions := map[string]action{}
	for _, c := range commands() {
		clause, act := c(app, g)
		actions[clause.FullCommand()] = act
	}
	selected, err := app.Parse(httpDebugArgs(args))
	if terminated {
		return termCode
	}
	if err != nil {
		fmt.Fprintf(stderr, "tidemark: error: %v, try --help\n", err)
		return exitcode.InvalidConfig
	}
	act, ok := actions[selected]
	if !ok {
		fmt.Fprintf(stderr, "tidemark: unknown command %q, try --help\n", selected)
		return exitcode.InvalidConfig
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, a second one kills the process the default way.
	context.AfterFunc(ctx, stop)
	err = act(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "tidemark %s: %v\n", selected, err)
	}
	return exitcode.Of(err)
}
