package scenario

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse loads arbitrary documents: nothing may panic, every failure must be
// Errors with at least one *Error naming the file, and a loaded test must be usable
// (its templates render, its checks evaluate, its thresholds build).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	for _, p := range files {
		if strings.HasPrefix(filepath.Base(p), "cluster-") {
			continue
		}
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"",
		"vus: 1\nduration: 1s" + flow,
		"iterations: 3\nvus: 2" + flow,
		"stages: [{duration: 1s, target: 2}]" + flow,
		`{"scenarios": {"a": {"executor": "constant-arrival-rate", "rate": 5, "duration": "1s", "preAllocatedVUs": 1}}, "flow": [{"url": "http://h/"}]}`,
		"flow: [{url: 'http://h/${__VU}', body: {a: [1, null]}, checks: [{jsonPath: 'a[0]', equals: 1}], sleep: 1s-2s}]",
		"thresholds: {'http_req_duration{a:b}': [{threshold: 'p(99.9)<1', abortOnFail: true}]}" + flow,
		"a: &a [*a]",
		"x: &x {<<: *x}",
		"scenarios: {s: &s {<<: *s, executor: shared-iterations}}" + flow,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tst, err := Parse("f.yaml", data, map[string]string{"TARGET_URL": "http://127.0.0.1:1"})
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not Errors: %v", err)
			}
			for _, e := range es {
				if e.File != "f.yaml" || e.Msg == "" {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}
		if len(tst.Scenarios) == 0 {
			t.Fatal("a loaded test has no scenarios")
		}
		v := &Vars{VU: 1, Rand: rand.New(rand.NewPCG(1, 2))}
		for _, sc := range tst.Scenarios {
			if len(sc.Flow.Steps) == 0 {
				t.Fatalf("scenario %s has no steps", sc.Name)
			}
			for _, st := range sc.Flow.Steps {
				_ = st.URL.Render(nil, v)
				_ = st.Body.Render(nil, v)
				for _, h := range st.Headers {
					_ = h.Render(nil, v)
				}
				r := &Response{Status: 200, Body: []byte(`{"a":[1]}`)}
				for i := range st.Checks {
					_ = st.Checks[i].Eval(r)
				}
			}
		}
		if _, err := tst.ThresholdSet(nil); err != nil {
			t.Fatalf("thresholds passed Load but not NewSet: %v", err)
		}
	})
}
