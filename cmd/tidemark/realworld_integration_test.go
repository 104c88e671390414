//go:build integration

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sitetest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// realWorld is the corpus of scripts no one on this project wrote, and expected.json
// beside them what k6 promises for each.
const realWorld = "../../internal/js/testdata/realworld"

// grpcProtos is the folder of the gRPC target's .proto files, which k6's gRPC examples
// load through GRPC_PROTO_PATH.
const grpcProtos = "../../internal/target/grpctarget/protos"

// TestRealWorldParity runs every script of the real-world corpus (k6's examples/,
// QuickPizza's k6/ scripts and the examples of k6's documentation pages, copied
// unmodified) with the tidemark binary, against sitetest's stand-ins for the public
// hosts the scripts name (reached through HTTP_PROXY/HTTPS_PROXY, as k6 honours them),
// and compares the exit code, iterations, http_reqs, checks and thresholds with the
// record in expected.json: what k6's documentation and each script's own logic promise,
// derived by reading them (no k6 binary is built or run). A record marked `known` is a
// difference another part of the work fixes: it is logged, not failed. `refused`
// records need a module Tidemark lacks; they are run and their exit logged. `skip`
// and `module` records say why a file is not run. Every .js and .ts file of the corpus
// must have a record. The score is logged at the end (go test -v). REALWORLD_ONLY=prefix
// runs only the scripts whose path starts with prefix.
func TestRealWorldParity(t *testing.T) {
	recs := loadRealWorld(t)
	bin := tidemarkBinary(t, "tidemark")
	srv := sitetest.Start(t, t.TempDir())
	var tally parityTally
	var run []rwRecord
	for _, r := range recs {
		if r.Skip != "" || r.Module != "" {
			tally.add("skipped", r.Script, cmpOr(r.Skip, "module: "+r.Module))
			continue
		}
		// REALWORLD_ONLY=prefix runs only the scripts under it (while working on them).
		if only := os.Getenv("REALWORLD_ONLY"); only != "" && !strings.HasPrefix(r.Script, only) {
			continue
		}
		run = append(run, r)
	}
	results := runAll(bin, srv, t.TempDir(), run)
	t.Run("scripts", func(t *testing.T) {
		for i, r := range run {
			t.Run(r.Script, func(t *testing.T) {
				require.NoError(t, results[i].err, "run %s", r.Script)
				judge(t, r, results[i], &tally)
			})
		}
	})
	tally.report(t)
}

// runAll runs the scripts realWorldParallel at a time, in their order (the longest
// first, so that they do not all end up in the last round), each in a directory of its
// own under root. A script with a threshold on a web vital drives the only Chromium
// running (see browserUse); the scripts behind it go ahead meanwhile. It does not use
// t.Parallel: `go test` would admit only GOMAXPROCS of them at once, and most of them
// sleep.
func runAll(bin string, srv *sitetest.Server, root string, recs []rwRecord) []rwResult {
	results := make([]rwResult, len(recs))
	use := make([]browserUse, len(recs))
	for i, r := range recs {
		use[i] = browserUseOf(r)
	}
	var (
		mu        sync.Mutex
		cond      = sync.NewCond(&mu)
		taken     = make([]bool, len(recs))
		browsers  int  // scripts driving Chromium now
		exclusive bool // one of them is alone
	)
	// take hands out the first script not taken that may start now; false: none left.
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		for {
			left, waiting := false, false
			for i := range recs {
				if taken[i] {
					continue
				}
				left = true
				switch {
				case use[i] == browserAlone && browsers > 0:
					waiting = true // the others drain first, none joins them meanwhile
					continue
				case use[i] == browserShared && (exclusive || waiting):
					continue
				}
				taken[i] = true
				if use[i] != browserNone {
					browsers++
					exclusive = use[i] == browserAlone
				}
				return i, true
			}
			if !left {
				return 0, false
			}
			cond.Wait()
		}
	}
	var wg sync.WaitGroup
	for range realWorldParallel() {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				results[i] = runRealWorld(bin, srv, root, recs[i])
				mu.Lock()
				if use[i] != browserNone {
					browsers--
					exclusive = false
				}
				mu.Unlock()
				cond.Broadcast()
			}
		})
	}
	wg.Wait()
	return results
}

// browserUse is how a script shares Chromium with the others running.
type browserUse int

const (
	browserNone   browserUse = iota // no browser
	browserShared                   // alongside other browser scripts
	// browserAlone: its thresholds on web vitals (QuickPizza's browser_web_vital_fcp
	// p(95) < 1000) measure a page's paint, which other Chromiums starting on two
	// cores delay by seconds.
	browserAlone
)

// browserUseOf says whether a script drives Chromium (it imports k6/browser or a
// scenario asks for the chromium type: 12.modularization.js imports k6/browser in
// lib/) and whether its record has thresholds on web vitals.
func browserUseOf(r rwRecord) browserUse {
	src, err := os.ReadFile(filepath.Join(realWorld, r.Script))
	if err != nil || (!strings.Contains(string(src), "k6/browser") && !strings.Contains(string(src), "chromium")) {
		return browserNone
	}
	for metric := range r.Thresholds {
		if strings.HasPrefix(metric, "browser_web_vital_") {
			return browserAlone
		}
	}
	return browserShared
}

// realWorldParallel is how many scripts run at once (REALWORLD_PARALLEL, default 8):
// most of them sleep, so more than the cores fit.
func realWorldParallel() int {
	if n, err := strconv.Atoi(os.Getenv("REALWORLD_PARALLEL")); err == nil && n > 0 {
		return n
	}
	return 8
}

// rwRecord is one line of expected.json.
type rwRecord struct {
	// Script is the path under realworld/; a glob for groups with one verdict.
	Script string `json:"script"`
	// Args are extra `tidemark run` flags, recorded only where the script's own
	// duration is shortened (with why saying so), where its comment gives the flags
	// k6 runs it with ({{SCRIPT_DIR}} is the script's directory), or to point a gRPC
	// example at the gRPC target through the variables it reads ({grpc}: its address,
	// {protos}: the folder of its .proto files).
	Args []string `json:"args,omitempty"`
	// Direct runs the script with -e BASE_URL=<the local site>, reached without the
	// proxy (QuickPizza's scripts take their host from BASE_URL).
	Direct bool `json:"direct,omitempty"`
	// Exit is k6's exit code; ExitAny lists the codes a random script may end with.
	Exit    *int  `json:"exit,omitempty"`
	ExitAny []int `json:"exit_any,omitempty"`
	// Iterations, HTTPReqs and the checks are counts: "7", "4*iterations+1" (k
	// times the run's own iterations plus c), or ">=N"; empty is not compared.
	Iterations string    `json:"iterations,omitempty"`
	HTTPReqs   string    `json:"http_reqs,omitempty"`
	Checks     *rwChecks `json:"checks,omitempty"`
	// Errors counts the iterations that end with an uncaught exception (k6 logs each):
	// for scripts without checks, the only sign that an action failed.
	Errors string `json:"errors,omitempty"`
	// IterationMinMS is the least iteration_duration min (ms) k6 can report, where
	// every iteration of the script sleeps at least that long.
	IterationMinMS float64 `json:"iteration_duration_min_ms,omitempty"`
	// Started is iterations plus dropped_iterations: what an arrival-rate executor
	// schedules, whether or not a VU was free for each (how many are dropped depends
	// on the machine).
	Started string `json:"started,omitempty"`
	// Thresholds maps a metric (as the script names it) to each expression and
	// whether k6 passes it.
	Thresholds map[string]map[string]bool `json:"thresholds,omitempty"`
	// Known names the item of issue 25 that makes Tidemark differ today.
	Known   string `json:"known,omitempty"`
	Refused string `json:"refused,omitempty"`
	Skip    string `json:"skip,omitempty"`
	Module  string `json:"module,omitempty"`
	Why     string `json:"why,omitempty"`
	// Seconds is about how long the script runs, when that is 10s or more: the
	// longest start first.
	Seconds int `json:"seconds,omitempty"`
}

type rwChecks struct {
	Passes string `json:"passes,omitempty"`
	Fails  string `json:"fails,omitempty"`
	Total  string `json:"total,omitempty"`
}

// loadRealWorld reads expected.json, expands its globs (an explicit record wins over a
// glob) and fails when a script of the corpus has no record.
func loadRealWorld(t *testing.T) []rwRecord {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(realWorld, "expected.json"))
	require.NoError(t, err)
	var in []rwRecord
	require.NoError(t, json.Unmarshal(raw, &in))
	byPath := map[string]rwRecord{}
	for _, r := range in {
		if !strings.ContainsAny(r.Script, "*?[") {
			_, err := os.Stat(filepath.Join(realWorld, r.Script))
			require.NoError(t, err, "expected.json names a missing script")
			byPath[r.Script] = r
		}
	}
	for _, r := range in {
		if !strings.ContainsAny(r.Script, "*?[") {
			continue
		}
		matches, err := filepath.Glob(filepath.Join(realWorld, r.Script))
		require.NoError(t, err)
		require.NotEmpty(t, matches, "glob %s matches nothing", r.Script)
		for _, m := range matches {
			rel, _ := filepath.Rel(realWorld, m)
			if _, ok := byPath[rel]; !ok {
				g := r
				g.Script = rel
				byPath[rel] = g
			}
		}
	}
	var missing []string
	require.NoError(t, filepath.WalkDir(realWorld, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".js") && !strings.HasSuffix(p, ".ts")) {
			return err
		}
		rel, _ := filepath.Rel(realWorld, p)
		if _, ok := byPath[rel]; !ok {
			missing = append(missing, rel)
		}
		return nil
	}))
	require.Empty(t, missing, "scripts without a record in expected.json")
	out := make([]rwRecord, 0, len(byPath))
	for _, r := range byPath {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b rwRecord) int {
		if a.Seconds != b.Seconds {
			return b.Seconds - a.Seconds
		}
		return strings.Compare(a.Script, b.Script)
	})
	return out
}

// rwResult is what one tidemark run gave.
type rwResult struct {
	exit                     int
	iterations, reqs         float64
	passes, fails            float64
	iterationMin, dropped    float64
	thresholds               map[string]map[string]bool // metric → expr → failed
	output                   string
	exported                 bool
	timedOut                 bool
	iterationsSeen, reqsSeen bool
	err                      error // the run could not be made or read
}

// runRealWorld runs one script in a directory of its own (handleSummary writes there).
func runRealWorld(bin string, srv *sitetest.Server, root string, r rwRecord) rwResult {
	dir, err := os.MkdirTemp(root, "run-")
	if err != nil {
		return rwResult{err: err}
	}
	export := filepath.Join(dir, "summary-export.json")
	script, err := filepath.Abs(filepath.Join(realWorld, r.Script))
	if err != nil {
		return rwResult{err: err}
	}
	args := []string{"run", "--no-embedded-store", "--summary-export", export}
	protos, err := filepath.Abs(grpcProtos)
	if err != nil {
		return rwResult{err: err}
	}
	for _, a := range r.Args {
		// {{SCRIPT_DIR}} is the script's directory: files an example's flags name
		// (k6's secrets example: --secret-source=file=file.secret); {grpc} is the gRPC
		// target's address, {protos} the folder of its .proto files.
		args = append(args, strings.NewReplacer("{{SCRIPT_DIR}}", filepath.Dir(script), "{grpc}", srv.GRPCAddr, "{protos}", protos).Replace(a))
	}
	if r.Direct {
		args = append(args, "-e", "BASE_URL="+srv.URL)
	}
	args = append(args, script)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = realWorldEnv(srv)
	out, err := cmd.CombinedOutput()
	res := rwResult{output: string(out), timedOut: ctx.Err() != nil}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		res.exit = ee.ExitCode()
	} else if err != nil {
		res.err = err
		return res
	}
	res.err = readRWExport(export, &res)
	return res
}

// realWorldEnv is the test's environment without proxies or K6_ settings, plus the
// site server's proxy and CA. A direct script reaches QuickPizza at BASE_URL on
// loopback, which neither Go nor Chromium sends through a proxy; any other host it
// names (02.cookies.js opens https://example.org/) goes through the proxy, as for
// every other script.
func realWorldEnv(srv *sitetest.Server) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(strings.ToUpper(k), "_PROXY") || k == "SSL_CERT_FILE" || k == "SSL_CERT_DIR" || strings.HasPrefix(k, "K6_") {
			continue
		}
		env = append(env, kv)
	}
	if srv != nil {
		// Chromium honours the proxy variables but trusts its own certificate store,
		// not SSL_CERT_FILE: k6/browser scripts reach the stand-ins with the switch a
		// user behind a TLS-inspecting proxy would set (k6's K6_BROWSER_ARGS).
		env = append(env, srv.Env()...)
		env = append(env, "K6_BROWSER_ARGS=ignore-certificate-errors")
	}
	return env
}

// readRWExport reads the counts and thresholds of --summary-export (k6's legacy shape).
func readRWExport(path string, res *rwResult) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var exp struct {
		Metrics map[string]map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		return fmt.Errorf("summary export: %w", err)
	}
	res.exported = true
	num := func(metric, key string) (float64, bool) {
		v, ok := exp.Metrics[metric][key].(float64)
		return v, ok
	}
	res.iterations, res.iterationsSeen = num("iterations", "count")
	res.reqs, res.reqsSeen = num("http_reqs", "count")
	res.iterationMin, _ = num("iteration_duration", "min")
	res.dropped, _ = num("dropped_iterations", "count")
	res.passes, _ = num("checks", "passes")
	res.fails, _ = num("checks", "fails")
	res.thresholds = map[string]map[string]bool{}
	for name, m := range exp.Metrics {
		th, ok := m["thresholds"].(map[string]any)
		if !ok {
			continue
		}
		res.thresholds[name] = map[string]bool{}
		for expr, failed := range th {
			b, _ := failed.(bool)
			res.thresholds[name][expr] = b
		}
	}
	return nil
}

// judge compares a run with its record and tallies it.
func judge(t *testing.T, r rwRecord, got rwResult, tally *parityTally) {
	t.Helper()
	if r.Refused != "" {
		tally.add("refused", r.Script, fmt.Sprintf("%s (tidemark exit %d)", r.Refused, got.exit))
		return
	}
	diffs := compareRun(r, got)
	switch {
	case len(diffs) == 0 && r.Known == "":
		tally.add("pass", r.Script, "")
	case len(diffs) == 0:
		tally.add("pass", r.Script, "")
		t.Logf("%s now gives k6's result: remove its `known` (%s) from expected.json", r.Script, r.Known)
	case r.Known != "":
		tally.add("known", r.Script, r.Known+": "+strings.Join(diffs, "; "))
	default:
		tally.add("differs", r.Script, strings.Join(diffs, "; "))
		t.Errorf("%s differs from k6: %s\n%s", r.Script, strings.Join(diffs, "; "), tail(got.output, 3000))
	}
}

// compareRun lists how a run differs from its record.
func compareRun(r rwRecord, got rwResult) []string {
	var diffs []string
	if got.timedOut {
		diffs = append(diffs, "timed out")
	}
	if want := r.exitCodes(); !slices.Contains(want, got.exit) {
		diffs = append(diffs, fmt.Sprintf("exit %d, k6 %v", got.exit, want))
	}
	count := func(name, expr string, v float64) {
		if expr == "" {
			return
		}
		ok, want, err := countMatches(expr, v, got.iterations)
		switch {
		case err != nil:
			diffs = append(diffs, fmt.Sprintf("%s: bad record %q: %v", name, expr, err))
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s %g, k6 %s", name, v, want))
		}
	}
	count("iterations", r.Iterations, got.iterations)
	count("http_reqs", r.HTTPReqs, got.reqs)
	count("iterations+dropped_iterations", r.Started, got.iterations+got.dropped)
	count("iterations ending in an exception", r.Errors, float64(strings.Count(got.output, `msg="Exception in iteration"`)))
	if r.Checks != nil {
		count("checks passes", r.Checks.Passes, got.passes)
		count("checks fails", r.Checks.Fails, got.fails)
		count("checks total", r.Checks.Total, got.passes+got.fails)
	}
	if r.IterationMinMS > 0 && got.iterationMin < r.IterationMinMS {
		diffs = append(diffs, fmt.Sprintf("iteration_duration min %gms, k6 >= %gms", got.iterationMin, r.IterationMinMS))
	}
	for metric, exprs := range r.Thresholds {
		for expr, ok := range exprs {
			failed, seen := got.thresholds[metric][expr]
			switch {
			case !seen:
				diffs = append(diffs, fmt.Sprintf("threshold %s %q not in the summary export", metric, expr))
			case failed == ok:
				diffs = append(diffs, fmt.Sprintf("threshold %s %q ok=%v, k6 ok=%v", metric, expr, !failed, ok))
			}
		}
	}
	return diffs
}

func (r rwRecord) exitCodes() []int {
	if len(r.ExitAny) > 0 {
		return r.ExitAny
	}
	if r.Exit != nil {
		return []int{*r.Exit}
	}
	return []int{0}
}

// countMatches says whether v fits expr: ">=N", or a sum of terms "N", "iterations"
// and "K*iterations"; want is the expected value as text.
func countMatches(expr string, v, iterations float64) (ok bool, want string, err error) {
	if n, found := strings.CutPrefix(expr, ">="); found {
		least, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return v >= least, expr, err
	}
	var sum float64
	for term := range strings.SplitSeq(expr, "+") {
		term = strings.TrimSpace(term)
		k, rest, mul := strings.Cut(term, "*")
		switch {
		case term == "iterations":
			sum += iterations
		case mul && strings.TrimSpace(rest) == "iterations":
			f, err := strconv.ParseFloat(strings.TrimSpace(k), 64)
			if err != nil {
				return false, "", err
			}
			sum += f * iterations
		default:
			f, err := strconv.ParseFloat(term, 64)
			if err != nil {
				return false, "", err
			}
			sum += f
		}
	}
	want = strconv.FormatFloat(sum, 'f', -1, 64)
	if expr != want {
		want += " (" + expr + ")"
	}
	return math.Abs(v-sum) < 1e-9, want, nil
}

// parityTally counts the verdicts and keeps one line per script for the report.
type parityTally struct {
	mu    sync.Mutex
	lines map[string][]string
}

func (p *parityTally) add(verdict, script, note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lines == nil {
		p.lines = map[string][]string{}
	}
	line := script
	if note != "" {
		line += ": " + note
	}
	p.lines[verdict] = append(p.lines[verdict], line)
}

// report logs the score and every known difference, refusal and skip.
func (p *parityTally) report(t *testing.T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	n := func(v string) int { return len(p.lines[v]) }
	fmt.Fprintf(&b, "real-world parity: %d give k6's result, %d known differences, %d differ, %d refused (missing modules), %d not run (recorded reasons)\n",
		n("pass"), n("known"), n("differs"), n("refused"), n("skipped"))
	for _, v := range []string{"differs", "known", "refused", "skipped"} {
		slices.Sort(p.lines[v])
		for _, l := range p.lines[v] {
			fmt.Fprintf(&b, "  %-8s %s\n", v, l)
		}
	}
	t.Log(b.String())
	if path := os.Getenv("REALWORLD_REPORT"); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestOwnCorpusParity runs every script of the corpus we wrote from k6's documentation
// (internal/js/testdata/corpus) against the built-in target and compares its exit code,
// http_reqs and checks rate with what k6 v1.8.1 gave for the same script, recorded once
// as data (k6-v1.8.1.tsv; no k6 binary is run here).
func TestOwnCorpusParity(t *testing.T) {
	const dir = "../../internal/js/testdata/corpus"
	raw, err := os.ReadFile(filepath.Join(dir, "k6-v1.8.1.tsv"))
	require.NoError(t, err)
	bin := tidemarkBinary(t, "tidemark")
	sem := make(chan struct{}, realWorldParallel()) // timed scripts (seed-*) need their CPU
	for line := range strings.SplitSeq(string(raw), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || strings.HasPrefix(line, "#") {
			continue
		}
		script, exit, reqs, checks := f[0], f[1], f[2], f[3]
		t.Run(script, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, base := targettest.Start(t, target.Config{})
			work := t.TempDir()
			export := filepath.Join(work, "export.json")
			args := []string{"run", "-q", "--no-embedded-store", "-e", "BASE_URL=" + base, "-e", "SUMMARY_DIR=" + work, "--summary-export", export}
			if script == "env.js" {
				args = append(args, "-e", "CORPUS_GREETING=hello", "-e", "CORPUS_NUMBER=42")
			}
			abs, err := filepath.Abs(filepath.Join(dir, script))
			require.NoError(t, err)
			cmd := exec.Command(bin, append(args, abs)...)
			cmd.Dir = work
			cmd.Env = realWorldEnv(nil)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, exit, strconv.Itoa(code), "exit code; k6 v1.8.1 gave %s\n%s", exit, tail(string(out), 3000))
			var res rwResult
			require.NoError(t, readRWExport(export, &res))
			if reqs != "-" {
				require.Equal(t, reqs, strconv.FormatFloat(res.reqs, 'f', -1, 64), "http_reqs")
			}
			if checks != "-" {
				rate := math.Round(res.passes/(res.passes+res.fails)*1000) / 1000
				require.Equal(t, checks, strconv.FormatFloat(rate, 'g', -1, 64), "checks rate")
			}
		})
	}
}

// TestRealWorldCompare shows the comparison finds each kind of difference a record can
// state, so TestRealWorldParity cannot pass by construction.
func TestRealWorldCompare(t *testing.T) {
	t.Parallel()
	zero, ninetyNine := 0, 99
	rec := rwRecord{Exit: &zero, Iterations: "3", HTTPReqs: "2*iterations+1", Checks: &rwChecks{Passes: "iterations", Fails: "0", Total: ">=3"},
		Thresholds: map[string]map[string]bool{"http_req_duration": {"p(95)<500": true}}, IterationMinMS: 1000, Started: "4"}
	same := rwResult{iterations: 3, dropped: 1, reqs: 7, passes: 3, iterationMin: 1000.5, thresholds: map[string]map[string]bool{"http_req_duration": {"p(95)<500": false}}}
	require.Empty(t, compareRun(rec, same))
	for name, c := range map[string]struct {
		change func(*rwResult)
		want   string
	}{
		"exit":          {func(r *rwResult) { r.exit = 99 }, "exit 99, k6 [0]"},
		"iterations":    {func(r *rwResult) { r.iterations, r.passes = 4, 4 }, "http_reqs 7, k6 9 (2*iterations+1)"},
		"requests":      {func(r *rwResult) { r.reqs = 6 }, "http_reqs 6, k6 7 (2*iterations+1)"},
		"check fails":   {func(r *rwResult) { r.fails = 1 }, "checks fails 1, k6 0"},
		"at least":      {func(r *rwResult) { r.iterations, r.reqs, r.passes = 1, 3, 1 }, "checks total 1, k6 >=3"},
		"threshold":     {func(r *rwResult) { r.thresholds["http_req_duration"]["p(95)<500"] = true }, `threshold http_req_duration "p(95)<500" ok=false, k6 ok=true`},
		"no threshold":  {func(r *rwResult) { r.thresholds = nil }, `threshold http_req_duration "p(95)<500" not in the summary export`},
		"iteration min": {func(r *rwResult) { r.iterationMin = 0.1 }, "iteration_duration min 0.1ms, k6 >= 1000ms"},
		"timed out":     {func(r *rwResult) { r.timedOut = true }, "timed out"},
		"started":       {func(r *rwResult) { r.dropped = 0 }, "iterations+dropped_iterations 3, k6 4"},
	} {
		got := same
		got.thresholds = map[string]map[string]bool{"http_req_duration": {"p(95)<500": false}}
		c.change(&got)
		require.Contains(t, compareRun(rec, got), c.want, name)
	}
	rec.Exit, rec.ExitAny = &ninetyNine, []int{0, 99}
	require.Empty(t, compareRun(rec, same), "exit_any wins over exit")
	_, _, err := countMatches("two*iterations", 1, 1)
	require.Error(t, err)
}
