// Command gohttp is the Go ceiling of the load benchmarks: a plain net/http loop of N
// goroutines doing keep-alive GETs for a fixed time, with no instrumentation beyond a
// request counter. scripts/bench-load.sh compares `tidemark run` against it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8099/", "URL to GET")
	conc := flag.Int("c", 50, "concurrent goroutines (one keep-alive connection each)")
	dur := flag.Duration("d", 10*time.Second, "duration")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				if err := f.Close(); err != nil {
					fmt.Fprintln(os.Stderr, "write CPU profile:", err)
				}
			}()
		}
	}
	code := run(*url, *conc, *dur)
	if code != 0 {
		os.Exit(code)
	}
}

func run(url string, conc int, dur time.Duration) int {
	tr := &http.Transport{MaxIdleConnsPerHost: conc, DisableCompression: true}
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var ok, errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if err != nil {
					errs.Add(1)
					return
				}
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	fmt.Printf("requests=%d errors=%d seconds=%.3f rps=%.1f\n", ok.Load(), errs.Load(), el, float64(ok.Load())/el)
	return 0
}
