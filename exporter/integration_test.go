//go:build integration

package exporter_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/exporter"
	"github.com/tidemark/tidemark/internal/series"
)

const promtool = "/usr/bin/promtool"

// TestPromtoolCheckMetrics: the exposition passes `promtool check metrics` (Debian
// prometheus 2.42) with the default trend stats, native histograms and the run
// metadata. The trend stats count and sum are named k6_<trend>_count and _sum by k6's
// contract, which promtool flags for gauges; those are the only findings allowed.
func TestPromtoolCheckMetrics(t *testing.T) {
	_, err := os.Stat(promtool)
	require.NoError(t, err, "promtool is required (apt-get install --no-install-recommends prometheus)")
	for _, tc := range []struct {
		name  string
		stats []string
		want  []string
	}{
		{name: "default stats", stats: series.DefaultTrendStats},
		{name: "every stat", stats: []string{"count", "sum", "min", "max", "avg", "med", "p(90)", "p(95)", "p(99)", "p(99.9)"}, want: []string{
			`k6_http_req_duration_count non-histogram and non-summary metrics should not have "_count" suffix`,
			`k6_http_req_duration_sum non-histogram and non-summary metrics should not have "_sum" suffix`,
			`k6_payload_size_count non-histogram and non-summary metrics should not have "_count" suffix`,
			`k6_payload_size_sum non-histogram and non-summary metrics should not have "_sum" suffix`,
			`k6_wait_time_count non-histogram and non-summary metrics should not have "_count" suffix`,
			`k6_wait_time_sum non-histogram and non-summary metrics should not have "_sum" suffix`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, _ := source()
			c, err := exporter.NewCollector(src, series.Config{TrendStats: tc.stats, NativeHistograms: true, TestID: "run-1", InstanceID: "0"}, time.Now())
			require.NoError(t, err)
			reg := prometheus.NewPedanticRegistry()
			require.NoError(t, reg.Register(c))
			mfs, err := reg.Gather()
			require.NoError(t, err)
			var buf bytes.Buffer
			enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
			for _, mf := range mfs {
				require.NoError(t, enc.Encode(mf))
			}
			cmd := exec.Command(promtool, "check", "metrics")
			cmd.Stdin = &buf
			out, _ := cmd.CombinedOutput()
			var got []string
			for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
				if l != "" {
					got = append(got, l)
				}
			}
			require.Equal(t, tc.want, got, "promtool check metrics:\n%s", out)
		})
	}
}
