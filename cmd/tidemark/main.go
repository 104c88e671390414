// Command tidemark runs k6-style load tests against services on Kubernetes, emits
// k6-compatible metrics through Prometheus remote write, and correlates a run with the
// cluster's autoscaling, CPU throttling and database metrics.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: it registers its flags on the application and returns the
// function that runs it once the command line has been parsed. The returned function
// gives the process exit code.
type command func(app *kingpin.Application, g *globals) (*kingpin.CmdClause, func() int)

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
	}
}

// run parses args, runs the chosen subcommand and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("tidemark", "Load tests with k6 semantics, and the Kubernetes facts behind their numbers.")
	app.Version(version.Print("tidemark"))
	app.HelpFlag.Short('h')
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	// --help, help COMMAND and --version print and must then stop: kingpin calls this
	// instead of os.Exit, and parsing goes on, so remember it and return below.
	terminated, termCode := false, 0
	app.Terminate(func(code int) { terminated, termCode = true, code })
	g := newGlobals(app, stdout, stderr)

	actions := map[string]func() int{}
	for _, c := range commands() {
		clause, action := c(app, g)
		actions[clause.FullCommand()] = action
	}
	selected, err := app.Parse(args)
	if terminated {
		return termCode
	}
	if err != nil {
		fmt.Fprintf(stderr, "tidemark: error: %v, try --help\n", err)
		return exitInvalidConfig
	}
	action, ok := actions[selected]
	if !ok {
		fmt.Fprintf(stderr, "tidemark: unknown command %q, try --help\n", selected)
		return exitInvalidConfig
	}
	return action()
}
