package js

import (
	"errors"
	"testing"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/threshold"
)

// FuzzOptions decodes arbitrary `export const options` JSON (its corpus is in
// testdata/fuzz/FuzzOptions): decoding never panics, fails only with scenario.Errors,
// and what it accepts an executor can run and a threshold set can evaluate.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"vus":10,"duration":"30s"}`,
		`{"vus":2,"iterations":10,"thresholds":{"checks":["rate>0.9"],"orders":["p(95)<200"]}}`,
		`{"stages":[{"duration":"10s","target":5},{"duration":"5s","target":0}]}`,
		`{"scenarios":{"a":{"executor":"ramping-arrival-rate","preAllocatedVUs":5,"maxVUs":10,"timeUnit":"1m","stages":[{"duration":"1m","target":60}],"exec":"api"}}}`,
		`{"scenarios":{"b":{"executor":"constant-arrival-rate","rate":10,"duration":"1m","preAllocatedVUs":2,"startTime":"10s","gracefulStop":"0s"}},"setupTimeout":"5s"}`,
		`{"thresholds":{"http_req_duration{scenario:b}":[{"threshold":"p(99)<1000","abortOnFail":true,"delayAbortEval":"10s"}]}}`,
		`{"tags":{"env":"staging"},"summaryTrendStats":["avg","p(99.9)"],"systemTags":["status"]}`,
	} {
		f.Add([]byte(s))
	}
	reg := metrics.NewRegistry()
	metrics.RegisterBuiltin(reg)
	if _, err := reg.New("orders", metrics.Trend, metrics.Time); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.ParseScript("s.js", data, scenario.ScriptConfig{Registry: reg})
		if err != nil {
			if _, ok := errors.AsType[scenario.Errors](err); !ok {
				t.Fatalf("error %T is not scenario.Errors: %v", err, err)
			}
			return
		}
		if len(s.Test.Scenarios) == 0 {
			t.Fatal("no scenarios")
		}
		for _, sc := range s.Test.Scenarios {
			if len(sc.Flow.Steps) > 0 {
				t.Fatalf("scenario %q has a flow", sc.Name)
			}
			if s.ExecOf(sc.Name) == "" {
				t.Fatalf("scenario %q has no exec function", sc.Name)
			}
			if _, err := executor.New(executor.Config{Scenario: sc, NewVU: func(int64) executor.VU { return nil }}); err != nil {
				t.Fatalf("accepted scenario %q cannot run: %v", sc.Name, err)
			}
		}
		if _, err := s.Test.ThresholdSet(threshold.RegistryTypes(reg)); err != nil {
			t.Fatalf("accepted thresholds cannot be evaluated: %v", err)
		}
	})
}
