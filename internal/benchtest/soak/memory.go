package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// sample is the server's memory at one moment, in bytes; RSS fields are 0 without -pid.
type sample struct {
	at        time.Duration // since the soak started
	vmRSS     float64
	rssAnon   float64
	heapInuse float64
}

// sampler reads the server's memory every c.sampleDt.
type sampler struct {
	pid     int
	metrics string
	every   time.Duration
	client  *http.Client
	samples []sample
	errs    int
	lastErr string
}

func newSampler(c config, client *http.Client) *sampler {
	return &sampler{pid: c.pid, metrics: c.url + "/metrics", every: c.sampleDt, client: client}
}

func (s *sampler) run(ctx context.Context, start time.Time) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m, err := s.read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.errs++
				s.lastErr = err.Error()
			}
			continue
		}
		m.at = time.Since(start)
		s.samples = append(s.samples, m)
	}
}

func (s *sampler) read(ctx context.Context) (sample, error) {
	var m sample
	if s.pid > 0 {
		f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.pid))
		if err != nil {
			return m, err
		}
		m.vmRSS, m.rssAnon, err = procRSS(f)
		_ = f.Close()
		if err != nil {
			return m, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.metrics, nil)
	if err != nil {
		return m, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	m.heapInuse, err = metricValue(resp.Body, "go_memstats_heap_inuse_bytes")
	return m, err
}

// procRSS returns VmRSS and RssAnon, in bytes, from a /proc/PID/status file.
func procRSS(r io.Reader) (vmRSS, rssAnon float64, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "RssAnon") {
			continue
		}
		f := strings.Fields(rest) // "123456 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("parse %s: %q", name, rest)
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parse %s: %w", name, err)
		}
		if name == "VmRSS" {
			vmRSS = kb * 1024
		} else {
			rssAnon = kb * 1024
		}
	}
	if vmRSS == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc status")
	}
	return vmRSS, rssAnon, sc.Err()
}

// metricValue returns the value of the unlabelled metric name in a text exposition.
func metricValue(r io.Reader, name string) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s in /metrics", name)
}
