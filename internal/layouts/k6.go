package layouts

import (
	"math"
	"strconv"
)

// The k6 side's constants.
const (
	k6URL         = "http://order.shoong.svc.cluster.local/orders"
	k6MaxVUs      = 100   // the scenario's maxVUs: k6_vus_max
	bytesSent     = 180   // per request
	bytesReceived = 920   // per request
	failedLatency = 0.003 // a 503 from the ingress' circuit breaker is immediate
)

// instanceStarts are the k6-operator runners' start offsets: the starter unpauses them one
// after the other, all within a second.
func instanceStarts(k K6Side) []float64 {
	if k == ThreeInstances {
		return []float64{0, 0.4, 0.85}
	}
	return []float64{0}
}

// latency is the response time of successful requests at run offset r: it grows with the
// queue after the load step and levels off.
func latency(r float64) float64 { return 0.15 + math.Max(0, math.Min(r, 300)-LoadStep)/100 }

// writeK6 writes the run's load series and returns its instances.
func writeK6(w *omWriter, o Options, st story, cluster string) []Instance {
	if o.K6 == Tidemark {
		return writeTidemark(w, o, st, cluster)
	}
	starts := instanceStarts(o.K6)
	n := float64(len(starts))
	var out []Instance
	for i, d := range starts {
		id := ""
		run := lbl("testid", o.TestID)
		if o.K6 == ThreeInstances {
			id = strconv.Itoa(i + 1)
			// k6-operator ≥ 1.4: --tag instance_id=<i> --tag testrun_name=<TestRun> (k6.md §5).
			run = append(run, lbl("instance_id", id, "testrun_name", o.TestID)...)
		}
		if cluster != "" {
			run = append(run, label{"cluster", cluster})
		}
		in := Instance{ID: id, From: st.at(d), To: st.at(d + RunSeconds)}
		// This runner's share (an execution segment of 1/n) on its own clock.
		local := func(f func(float64) float64) func(float64) float64 {
			return func(r float64) float64 {
				if r < d || r > d+RunSeconds {
					return 0
				}
				return f(r-d) / n
			}
		}
		target, ok, failed := local(st.target), local(st.ok), local(st.failures)
		in.Requests, in.Failures = integral(target, d, d+RunSeconds), integral(failed, d, d+RunSeconds)

		var pushes []float64
		for k := 1; k <= RunSeconds/K6Step; k++ {
			pushes = append(pushes, d+float64(k*K6Step))
		}
		record := func(r float64) {
			t := st.at(r)
			if in.FirstSample.IsZero() || t.Before(in.FirstSample) {
				in.FirstSample = t
			}
			if t.After(in.LastSample) {
				in.LastSample = t
			}
		}

		// Gauges, emitted every second with the run tags only: one sample per push,
		// stamped with the newest emission, k6GaugeLead before the push.
		gaugeStamps := make([]float64, len(pushes))
		for k, p := range pushes {
			gaugeStamps[k] = p - k6GaugeLead
		}
		vus := func(r float64) (float64, bool) {
			record(r)
			return share(st.vus(r-d), len(starts), i), true
		}
		w.addAt(st, "k6_vus", run, gaugeStamps, vus)
		w.addAt(st, "k6_vus_max", run, gaugeStamps, func(float64) (float64, bool) { return share(k6MaxVUs, len(starts), i), true })

		// Sample-driven series: sent only on pushes after which they got new samples, stamped
		// with the newest sample (just before the push).
		stamps := make([]float64, len(pushes))
		for k, p := range pushes {
			stamps[k] = p - k6StampLead
		}
		scen := append(clone(run), label{"scenario", "spike"})
		counter := func(name string, ls []label, f func(float64) float64, scale float64, also ...func(name string, sent func(float64) bool)) {
			c := Cumulative(f, d)
			last := 0.0
			sent := map[float64]bool{}
			w.addAt(st, name, ls, stamps, func(r float64) (float64, bool) {
				v := c(r)
				if v <= last+1e-9 {
					return 0, false
				}
				last = v
				sent[r] = true
				record(r)
				return v * scale, true
			})
			for _, a := range also {
				a(name, func(r float64) bool { return sent[r] })
			}
		}
		// Trends and rates of the same samples: sent exactly when their counter was.
		follow := func(name string, ls []label, f func(float64) float64) func(string, func(float64) bool) {
			return func(_ string, sent func(float64) bool) {
				w.addAt(st, name, ls, stamps, func(r float64) (float64, bool) { return f(r - d), sent(r) })
			}
		}
		counter("k6_iterations_total", scen, target, 1,
			follow("k6_iteration_duration_p99", scen, func(r float64) float64 { return 1.1*latency(r) + 0.001 }))
		counter("k6_data_sent_total", scen, target, bytesSent)
		counter("k6_data_received_total", scen, target, bytesReceived)
		for _, s := range []struct {
			status, expected string
			rate             func(float64) float64
			latency          func(float64) float64
			failed           float64
		}{
			{"200", "true", ok, func(r float64) float64 { return 1.1 * latency(r) }, 0},
			{"503", "false", failed, func(float64) float64 { return failedLatency }, 1},
		} {
			ls := append(clone(scen), lbl("method", "GET", "name", k6URL, "url", k6URL, "proto", "HTTP/1.1",
				"status", s.status, "expected_response", s.expected)...)
			if s.status >= "400" {
				ls = append(ls, label{"error_code", "1" + s.status}) // 1000 + status (k6.md §1.5)
			}
			failedRate := s.failed
			counter("k6_http_reqs_total", ls, s.rate, 1,
				follow("k6_http_req_duration_p99", ls, s.latency),
				follow("k6_http_req_failed_rate", ls, func(float64) float64 { return failedRate }))
		}
		out = append(out, in)
	}
	return out
}

// share is runner i's part of v VUs over n runners (execution segments: the first runners
// get the remainder), so that the parts sum to v.
func share(v float64, n, i int) float64 {
	whole := int(v)
	s := whole / n
	if i < whole%n {
		s++
	}
	return float64(s)
}

// writeTidemark writes the run as `tidemark run` does: run info and scenario targets, and
// every k6 series re-sent at every push from the first, one interval after the start.
func writeTidemark(w *omWriter, o Options, st story, cluster string) []Instance {
	run := float64(RunSeconds)
	inRun := func(f func(float64) float64) series {
		return func(r float64) (float64, bool) { return f(r), r >= 0 && r <= run }
	}
	k6 := func(kv ...string) []label {
		ls := append(lbl("testid", o.TestID), lbl(kv...)...)
		if cluster != "" {
			ls = append(ls, label{"cluster", cluster})
		}
		return ls
	}
	add := func(name string, ls []label, f series) { w.add(st, name, ls, 0, run, K6Step, K6Step, f) }
	add("tidemark_run_info", k6("instance_id", "1", "version", "dev"), inRun(func(float64) float64 { return 1 }))
	add("tidemark_scenario_target", k6("scenario", "spike", "unit", "iterations_per_second"), inRun(st.target))
	req := func(status, expected string) []label {
		return k6("scenario", "spike", "method", "GET", "name", "order", "status", status, "expected_response", expected)
	}
	add("k6_http_reqs_total", req("200", "true"), inRun(Cumulative(st.ok, 0)))
	failed := Cumulative(st.failures, 0)
	add("k6_http_reqs_total", req("503", "false"), func(r float64) (float64, bool) {
		v := failed(r)
		return v, r <= run && v > 0
	})
	add("k6_iterations_total", k6("scenario", "spike"), inRun(Cumulative(st.target, 0)))
	add("k6_vus", k6(), inRun(st.vus))
	add("k6_http_req_duration_p95", req("200", "true"), inRun(latency))
	return []Instance{{
		ID: "1", From: st.at(0), To: st.at(run), FirstSample: st.at(K6Step), LastSample: st.at(run),
		Requests: integral(st.target, 0, run), Failures: integral(st.failures, 0, run),
	}}
}
