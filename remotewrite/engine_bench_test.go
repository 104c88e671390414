package remotewrite_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/benchtest"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
	"github.com/tidemark/tidemark/remotewrite"
)

// BenchmarkEngineRemoteWrite compares the engine's closed-model throughput against an
// in-process target with remote write off and on. The run has about 1,000 series (20
// request names × every HTTP metric at the default trend stats); remote write pushes
// every second, five times as often as the default, to a receiver on this machine.
// Rounds alternate off/on so drifting load on a shared box hits both alike; on/off is
// the ratio of the median throughputs (goal ≥ 0.95) and cpu_off/on the ratio of the
// CPU time per request.
func BenchmarkEngineRemoteWrite(b *testing.B) {
	_, targetURL := targettest.Start(b, target.Config{})
	rw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rw.Close()
	rwURL, err := url.Parse(rw.URL + "/api/v1/write")
	if err != nil {
		b.Fatal(err)
	}

	var steps []scenario.Step
	for i := range 20 {
		u, err := scenario.ParseTemplate(fmt.Sprintf("%s/item/%d", targetURL, i))
		if err != nil {
			b.Fatal(err)
		}
		steps = append(steps, scenario.Step{Name: fmt.Sprintf("item-%d", i), URL: u})
	}
	const round = 3 * time.Second
	run := func(withRW bool) (rps, cpuPerReq float64, nseries int) {
		cpu0 := benchtest.ProcessCPU()
		store := aggregate.New()
		eng, err := engine.New(engine.Config{
			Test: &scenario.Test{Scenarios: []*scenario.Scenario{{Name: "closed", Executor: scenario.ConstantVUs, VUs: 8,
				Duration: round, GracefulStop: 5 * time.Second, Flow: scenario.Flow{Steps: steps}}}},
			TestID: "bench", Pusher: store, Registry: metrics.NewRegistry(),
		})
		if err != nil {
			b.Fatal(err)
		}
		var c *remotewrite.Client
		if withRW {
			cfg := remotewrite.DefaultConfig
			cfg.URL = &config.URL{URL: rwURL}
			cfg.PushInterval = model.Duration(time.Second)
			if c, err = remotewrite.NewClient(cfg, series.FromAggregate(store), promslog.NewNopLogger(), nil); err != nil {
				b.Fatal(err)
			}
			c.Start()
		}
		res := eng.Run(context.Background())
		if c != nil {
			if err := c.Stop(); err != nil {
				b.Fatal(err)
			}
		}
		cpu := benchtest.ProcessCPU() - cpu0
		snap := store.Snapshot()
		reqs, _ := snap.Metric("http_reqs")
		m, _ := series.NewMapper(series.DefaultConfig)
		return reqs.Count / res.End.Sub(res.Start).Seconds(), float64(cpu.Microseconds()) / reqs.Count,
			len(m.Map(nil, series.FromAggregate(store).Snapshot()))
	}
	for range b.N {
		var off, on, cpuOff, cpuOn []float64
		var n int
		for i := range 6 {
			withRW := i%2 == 1
			rps, cpu, ns := run(withRW)
			if withRW {
				on, cpuOn = append(on, rps), append(cpuOn, cpu)
			} else {
				off, cpuOff = append(off, rps), append(cpuOff, cpu)
			}
			n = ns
		}
		b.ReportMetric(benchtest.Median(off), "reqs/s_off")
		b.ReportMetric(benchtest.Median(on), "reqs/s_on")
		b.ReportMetric(benchtest.Median(on)/benchtest.Median(off), "on/off")
		// CPU per request (whole process: engine, target, receiver) is steadier than
		// throughput on a shared box; off/on ≥ 0.95 means remote write costs ≤ 5%.
		b.ReportMetric(benchtest.Median(cpuOff), "cpu_us/req_off")
		b.ReportMetric(benchtest.Median(cpuOn), "cpu_us/req_on")
		b.ReportMetric(benchtest.Median(cpuOff)/benchtest.Median(cpuOn), "cpu_off/on")
		b.ReportMetric(float64(n), "series")
	}
}
