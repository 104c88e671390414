package main

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/buildversion"
	"github.com/tidemark/tidemark/internal/testrun"
)

// k6Flags are k6's shortcut and summary flags as inspect and archive bind them; run
// binds testrun.Shortcuts.
type k6Flags struct {
	vus, duration, iterations string
	stages                    []string
	trendStats, timeUnit      string
	noSummary                 bool
	summaryMode               string
	systemEnv                 bool
	throw                     bool
	noSetup, noTeardown       bool
}

func (f k6Flags) shortcuts() testrun.Shortcuts {
	return testrun.Shortcuts{VUs: f.vus, Duration: f.duration, Iterations: f.iterations, Stages: f.stages,
		TrendStats: f.trendStats, TimeUnit: f.timeUnit, NoSummary: f.noSummary, SummaryMode: f.summaryMode,
		SystemEnv: f.systemEnv, Throw: f.throw, NoSetup: f.noSetup, NoTeardown: f.noTeardown}
}

// defaultUserAgent is --user-agent's default.
func defaultUserAgent() string { return "tidemark/" + buildversion.Current().Version }

// httpDebugFlag is k6's --http-debug[=full] (K6_HTTP_DEBUG): "" unset, "off"
// (--no-http-debug), "headers" or "full". k6 turns it on for any value; only full
// logs the bodies.
type httpDebugFlag string

// Set implements kingpin.Value: the bare flag is "true", --no-http-debug "false".
func (f *httpDebugFlag) Set(v string) error {
	if v == "false" {
		*f = "off" // over K6_HTTP_DEBUG
		return nil
	}
	*f = httpDebugFlag(testrun.HTTPDebugMode(v))
	return nil
}

func (f *httpDebugFlag) String() string { return string(*f) }

// IsBoolFlag lets --http-debug stand alone, so that it does not take the script as
// its value; --http-debug=VALUE reaches the flag through httpDebugArgs.
func (*httpDebugFlag) IsBoolFlag() bool { return true }

// httpDebugValue is the hidden --http-debug.value that --http-debug=VALUE becomes.
type httpDebugValue struct{ *httpDebugFlag }

// IsBoolFlag makes --http-debug.value take its value.
func (httpDebugValue) IsBoolFlag() bool { return false }

// Set implements kingpin.Value: as in k6, any value turns the dumps on.
func (v httpDebugValue) Set(s string) error {
	*v.httpDebugFlag = httpDebugFlag(testrun.HTTPDebugMode(s))
	return nil
}

// stdinScript is the script argument of `run -`: no file can have this name.
const stdinScript = "\x00stdin"

// httpDebugArgs rewrites --http-debug=VALUE (before a --) as --http-debug.value=VALUE:
// kingpin has no flag with an optional value, and its boolean --http-debug would
// leave VALUE as a positional argument.
func httpDebugArgs(args []string) []string {
	out := slices.Clone(args)
	if len(out) > 1 && out[0] == "run" && out[len(out)-1] == "-" {
		// k6's `run -` (the script on stdin): kingpin would take a lone - as no argument.
		out[len(out)-1] = stdinScript
	}
	for i, a := range out {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--http-debug="); ok {
			out[i] = "--http-debug.value=" + v
		}
	}
	return out
}
