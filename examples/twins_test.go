package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js"
	"github.com/tidemark/tidemark/internal/scenario"
)

// TestJavaScriptTwins: every load-test example exists as a k6 script too, and the
// script's options decode into the same test as its YAML file: the same scenarios with
// the same executors, stages, rates, VUs and durations, the same thresholds, tags and
// summary options. Only what an iteration does differs in form (a flow, a function).
func TestJavaScriptTwins(t *testing.T) {
	t.Parallel()
	yamls, err := filepath.Glob("*.yaml")
	require.NoError(t, err)
	env := map[string]string{"TARGET_URL": "http://127.0.0.1:8099"}
	var checked int
	for _, y := range yamls {
		if strings.HasPrefix(y, "cluster-") { // simulator profiles, not load tests
			continue
		}
		name := strings.TrimSuffix(y, ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			jsPath := name + ".js"
			_, err := os.Stat(jsPath)
			require.NoError(t, err, "%s has no JavaScript twin %s", y, jsPath)
			want, err := scenario.Load(y, env)
			require.NoError(t, err)
			r, err := js.New(js.Config{Script: jsPath, Env: env, Logger: promslog.NewNopLogger()})
			require.NoError(t, err)
			got := r.Test()
			require.Equal(t, withoutForm(want), withoutForm(got))
		})
		checked++
	}
	require.Positive(t, checked)
}

// withoutForm is a test without what differs by form: the source file, lines, flows.
func withoutForm(t *scenario.Test) scenario.Test {
	c := *t
	c.Source = ""
	c.Env = nil
	c.Scenarios = nil
	for _, sc := range t.Scenarios {
		s := *sc
		s.Flow, s.Line = scenario.Flow{}, 0
		c.Scenarios = append(c.Scenarios, &s)
	}
	c.Thresholds = map[string][]scenario.Threshold{}
	for k, ths := range t.Thresholds {
		for _, th := range ths {
			th.Line = 0
			c.Thresholds[k] = append(c.Thresholds[k], th)
		}
	}
	return c
}
