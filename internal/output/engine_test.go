package output

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestEngineOutputs runs the engine against an in-process target with a JSON and a CSV
// output, as `tidemark run --out json=… --out csv=…` will: both files hold one line per
// request and check, as many as the aggregate store counted.
func TestEngineOutputs(t *testing.T) {
	t.Parallel()
	_, targetURL := targettest.Start(t, target.Config{})
	u, err := scenario.ParseTemplate(targetURL + "/item/1")
	require.NoError(t, err)
	dir := t.TempDir()
	jsonFile, csvFile := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv.gz")
	specs, err := ParseSpecs([]string{"json=" + jsonFile, "csv=" + csvFile}, nil)
	require.NoError(t, err)
	store := aggregate.New()
	fan, err := New(store, specs, Config{Options: Options{Thresholds: map[string][]string{"http_req_duration": {"p(95)<500"}}}})
	require.NoError(t, err)
	eng, err := engine.New(engine.Config{
		Test: &scenario.Test{Scenarios: []*scenario.Scenario{{Name: "default", Executor: scenario.SharedIterations, VUs: 2,
			Iterations: 20, MaxDuration: 10 * time.Second, Flow: scenario.Flow{Steps: []scenario.Step{{Name: "item", URL: u,
				Checks: []scenario.Check{{Name: "is 200", Kind: scenario.CheckStatus, Status: 200}}}}}}}},
		TestID: "out-1", Pusher: fan, Registry: metrics.NewRegistry(),
	})
	require.NoError(t, err)
	fan.Start()
	eng.Run(context.Background())
	require.NoError(t, fan.Stop())

	snap := store.Snapshot()
	reqs, _ := snap.Metric("http_reqs")
	checks, _ := snap.Metric("checks")
	require.InDelta(t, 20, reqs.Count, 0)

	f, err := os.Open(jsonFile)
	require.NoError(t, err)
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct{ Type, Metric string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
		if l.Type == "Point" {
			counts[l.Metric]++
		}
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 20, counts["http_reqs"])
	require.Equal(t, int(checks.Total), counts["checks"])
	require.Zero(t, counts["tidemark_run_info"])
	t.Log(counts)

	g, err := os.Open(csvFile)
	require.NoError(t, err)
	defer g.Close()
	zr, err := gzip.NewReader(g)
	require.NoError(t, err)
	rows, err := csv.NewReader(zr).ReadAll()
	require.NoError(t, err)
	require.Equal(t, strings.Split(CSVHeader, ","), rows[0])
	byMetric := map[string]int{}
	for _, r := range rows[1:] {
		byMetric[r[0]]++
	}
	require.Equal(t, counts, byMetric)
}
