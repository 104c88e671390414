// Command soak is the soak check of `make bench` (scripts/bench-soak.sh): it holds a
// running `tidemark serve` under concurrent remote-write writers and PromQL queries for a
// long time, samples the server's memory (VmRSS and RssAnon from /proc/PID/status,
// go_memstats_heap_inuse_bytes from its /metrics), and at the end counts with PromQL
// every sample the writers got a 2xx for. It fails (exit 1) when a sample is missing or
// extra, a query fails, or memory in the last window exceeds the first window's by more
// than the tolerance.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// config holds the knobs of one soak.
type config struct {
	url       string
	pid       int
	duration  time.Duration
	writers   int
	series    int
	interval  time.Duration
	queriers  int
	sampleDt  time.Duration
	window    time.Duration
	warmup    time.Duration
	tolerance float64
	slackMiB  float64
	run       string
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "", "base URL of the tidemark serve under test, e.g. http://127.0.0.1:19391")
	fs.IntVar(&c.pid, "pid", 0, "process ID of the server, for VmRSS and RssAnon (0: heap only)")
	fs.DurationVar(&c.duration, "duration", 10*time.Minute, "how long to write and query")
	fs.IntVar(&c.writers, "writers", 4, "concurrent remote-write writers")
	fs.IntVar(&c.series, "series", 1000, "series per writer; each request carries one sample of each")
	fs.DurationVar(&c.interval, "interval", 500*time.Millisecond, "time between two requests of one writer")
	fs.IntVar(&c.queriers, "queriers", 2, "concurrent PromQL clients, each querying without pause")
	fs.DurationVar(&c.sampleDt, "sample-every", 5*time.Second, "memory sampling interval")
	fs.DurationVar(&c.window, "window", time.Minute, "first and last window compared (at most a quarter of -duration)")
	fs.DurationVar(&c.warmup, "warmup", 5*time.Minute, "the first window starts after this: the longest query range, once the queries' "+
		"windows are full of data (0 in runs shorter than it and two windows)")
	fs.Float64Var(&c.tolerance, "tolerance", 0.20, "allowed growth of the last window's median over the first's, as a fraction")
	fs.Float64Var(&c.slackMiB, "slack-mib", 8, "allowed growth in MiB on top of -tolerance (small processes)")
	fs.StringVar(&c.run, "run", "", "run label of the generated series (default: soak-<unix time>)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.url == "" || c.writers < 1 || c.series < 1 || c.duration <= 0 || c.interval <= 0 {
		return c, fmt.Errorf("need -url, and positive -writers, -series, -duration and -interval")
	}
	c.window = min(c.window, c.duration/4)
	if c.warmup+2*c.window > c.duration {
		c.warmup = 0
	}
	if c.run == "" {
		c.run = fmt.Sprintf("soak-%d", time.Now().Unix())
	}
	return c, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := soak(ctx, c, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		fmt.Fprintln(stderr, "soak:", err)
		return 1
	}
	fmt.Fprint(stdout, res.report(c))
	if !res.ok() {
		return 1
	}
	return 0
}

// soak writes, queries and samples memory for c.duration, then counts what was written.
func soak(ctx context.Context, c config, client *http.Client) (*result, error) {
	res := &result{}
	runCtx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	ws := make([]*writer, c.writers)
	for i := range ws {
		ws[i] = newWriter(c, i, client)
		wg.Go(func() { ws[i].run(runCtx, ctx) })
	}
	qs := make([]*querier, c.queriers)
	for i := range qs {
		qs[i] = newQuerier(c, client)
		wg.Go(func() { qs[i].run(runCtx) })
	}
	mem := newSampler(c, client)
	wg.Go(func() { mem.run(runCtx, start) })
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	res.elapsed = time.Since(start)
	res.collect(ws, qs, mem)
	res.judgeMemory(c)
	got, err := countStored(ctx, c, client, start)
	if err != nil {
		return nil, err
	}
	res.stored = got
	return res, nil
}
