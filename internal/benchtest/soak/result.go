package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// result is what one soak measured.
type result struct {
	elapsed               time.Duration
	acked, gaveUp, stored int64
	requests, retries     int64
	lastWriteErr          string
	queries, queryErrs    int64
	lastQueryErr          string
	samples               []sample
	sampleErrs            int
	lastSampleErr         string
	checks                []memCheck
}

// memCheck compares one memory measure in the first and the last window.
type memCheck struct {
	name        string
	first, last float64 // medians, bytes
	limit       float64 // the most last may be
}

func (m memCheck) ok() bool { return m.last <= m.limit }

func (r *result) collect(ws []*writer, qs []*querier, s *sampler) {
	for _, w := range ws {
		r.acked += w.acked
		r.gaveUp += w.gaveUp
		r.requests += w.requests
		r.retries += w.retries
		if w.lastErr != "" {
			r.lastWriteErr = w.lastErr
		}
	}
	for _, q := range qs {
		r.queries += q.ok
		r.queryErrs += q.failed
		if q.lastErr != "" {
			r.lastQueryErr = q.lastErr
		}
	}
	r.samples, r.sampleErrs, r.lastSampleErr = s.samples, s.errs, s.lastErr
}

// judgeMemory sets r.checks from r.samples.
func (r *result) judgeMemory(c config) {
	r.checks = judge(r.samples, c.warmup, c.window, r.elapsed, c.tolerance, c.slackMiB*(1<<20))
}

// judge compares the first window after warmup with the last window of the samples: the
// last window's median may exceed the first's by tolerance (a fraction) plus slack
// bytes. Before warmup (the longest query range) the queries' working set still grows
// with the data their windows hold: 42.5 → 65.1 MiB of heap from the first to the last
// minute of a 10-minute soak, most of it the 5-minute windows filling.
func judge(samples []sample, warmup, window, elapsed time.Duration, tolerance, slack float64) []memCheck {
	measures := []struct {
		name string
		get  func(sample) float64
	}{
		{"go_memstats_heap_inuse_bytes", func(s sample) float64 { return s.heapInuse }},
		{"VmRSS", func(s sample) float64 { return s.vmRSS }},
		{"RssAnon", func(s sample) float64 { return s.rssAnon }},
	}
	var out []memCheck
	for _, m := range measures {
		var first, last []float64
		for _, s := range samples {
			v := m.get(s)
			if v == 0 {
				continue
			}
			if s.at > warmup && s.at <= warmup+window {
				first = append(first, v)
			}
			if s.at > elapsed-window {
				last = append(last, v)
			}
		}
		if len(first) == 0 || len(last) == 0 {
			continue
		}
		f := median(first)
		out = append(out, memCheck{name: m.name, first: f, last: median(last), limit: f*(1+tolerance) + slack})
	}
	return out
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ok reports whether nothing was lost, no query failed and memory stayed flat.
func (r *result) ok() bool {
	if r.stored != r.acked || r.gaveUp != 0 || r.queryErrs != 0 || len(r.checks) == 0 {
		return false
	}
	for _, c := range r.checks {
		if !c.ok() {
			return false
		}
	}
	return true
}

func (r *result) report(c config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %s, %d writers x %d series every %s, %d queriers, run=%s\n",
		r.elapsed.Round(time.Second), c.writers, c.series, c.interval, c.queriers, c.run)
	fmt.Fprintf(&b, "writes:  %d requests acknowledged, %d samples (%.0f/s), %d retried attempts, %d samples never acknowledged\n",
		r.requests, r.acked, float64(r.acked)/r.elapsed.Seconds(), r.retries, r.gaveUp)
	if r.lastWriteErr != "" {
		fmt.Fprintf(&b, "         last write error: %s\n", r.lastWriteErr)
	}
	fmt.Fprintf(&b, "queries: %d answered (%.1f/s), %d failed\n", r.queries, float64(r.queries)/r.elapsed.Seconds(), r.queryErrs)
	if r.lastQueryErr != "" {
		fmt.Fprintf(&b, "         last query error: %s\n", r.lastQueryErr)
	}
	fmt.Fprintf(&b, "stored:  %d samples counted by PromQL, acknowledged %d: %s\n", r.stored, r.acked, verdict(r.stored == r.acked && r.gaveUp == 0))
	fmt.Fprintf(&b, "memory:  %d samples (%d failed), median of the %s after a %s warm-up vs the last %s, limit first x %.2f + %.0f MiB\n",
		len(r.samples), r.sampleErrs, c.window, c.warmup, c.window, 1+c.tolerance, c.slackMiB)
	for _, m := range r.checks {
		fmt.Fprintf(&b, "  %-30s %8.1f MiB -> %8.1f MiB (%+.1f%%, limit %.1f MiB): %s\n", m.name,
			m.first/(1<<20), m.last/(1<<20), 100*(m.last-m.first)/m.first, m.limit/(1<<20), verdict(m.ok()))
	}
	b.WriteString(timeline(r.samples, c.window))
	fmt.Fprintf(&b, "result:  %s\n", verdict(r.ok()))
	return b.String()
}

// timeline returns the medians of the memory measures per window, to show whether
// memory levels off.
func timeline(samples []sample, window time.Duration) string {
	if window <= 0 || len(samples) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  per window (MiB):  until      heap   RssAnon     VmRSS\n")
	for from := time.Duration(0); from < samples[len(samples)-1].at; from += window {
		var heap, anon, rss []float64
		for _, s := range samples {
			if s.at > from && s.at <= from+window {
				heap, anon, rss = append(heap, s.heapInuse), append(anon, s.rssAnon), append(rss, s.vmRSS)
			}
		}
		if len(heap) > 0 {
			fmt.Fprintf(&b, "  %25s %9.1f %9.1f %9.1f\n", from+window, median(heap)/(1<<20), median(anon)/(1<<20), median(rss)/(1<<20))
		}
	}
	return b.String()
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAILED"
}
