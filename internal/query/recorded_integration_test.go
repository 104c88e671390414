//go:build integration

package query_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
	"github.com/tidemark/tidemark/internal/query"
)

// recorded is one exporter's recording (scripts/record-db-exporters.sh) as OpenMetrics
// with the labels of a static scrape job, and what the server said at each scrape.
type recorded struct {
	times []time.Time
	truth []float64
}

// recordingToOpenMetrics parses a recording's expositions with Prometheus' own text
// parser and writes their samples, each series' together, stamped with its scrape's time
// and labelled job and instance as a static scrape job would.
func recordingToOpenMetrics(t *testing.T, path, out, job, instance string) recorded {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rec recorded
	lines := map[string][]string{} // series → sample lines
	types := map[string]string{}   // family → TYPE line
	var block strings.Builder
	flush := func() {
		if len(rec.times) == 0 {
			return
		}
		ts := rec.times[len(rec.times)-1]
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(block.String()))
		require.NoError(t, err, "%s at %s", path, ts)
		for name, fam := range fams {
			typ := strings.ToLower(fam.GetType().String())
			if typ == "untyped" {
				typ = "unknown" // OpenMetrics' name for it
			}
			types[name] = fmt.Sprintf("# TYPE %s %s", name, typ)
			for _, m := range fam.GetMetric() {
				ls := []string{fmt.Sprintf("job=%q", job), fmt.Sprintf("instance=%q", instance)}
				for _, l := range m.GetLabel() {
					ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				slices.Sort(ls)
				key := name + "{" + strings.Join(ls, ",") + "}"
				v := m.GetGauge().GetValue() + m.GetUntyped().GetValue() + m.GetCounter().GetValue()
				lines[key] = append(lines[key], fmt.Sprintf("%s %s %d.%03d", key, strconv.FormatFloat(v, 'g', -1, 64), ts.Unix(), ts.Nanosecond()/1e6))
			}
		}
		block.Reset()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# scrape "); ok {
			flush()
			fields := strings.Fields(rest)
			require.Len(t, fields, 3, line)
			ms, err := strconv.ParseInt(fields[0], 10, 64)
			require.NoError(t, err)
			n, err := strconv.ParseFloat(fields[2], 64)
			require.NoError(t, err)
			rec.times, rec.truth = append(rec.times, time.UnixMilli(ms)), append(rec.truth, n)
			continue
		}
		if len(rec.times) > 0 {
			block.WriteString(line + "\n")
		}
	}
	require.NoError(t, sc.Err())
	flush()
	var b strings.Builder
	for _, fam := range slices.Sorted(func(yield func(string) bool) {
		for k := range types {
			if !yield(k) {
				return
			}
		}
	}) {
		b.WriteString(types[fam] + "\n")
		for _, key := range slices.Sorted(func(yield func(string) bool) {
			for k := range lines {
				if strings.HasPrefix(k, fam+"{") && !yield(k) {
					return
				}
			}
		}) {
			b.WriteString(strings.Join(lines[key], "\n") + "\n")
		}
	}
	b.WriteString("# EOF\n")
	require.NoError(t, os.WriteFile(out, []byte(b.String()), 0o644))
	return rec
}

// TestIntegrationCatalogOnRecordedExporters loads what Debian's postgres_exporter 0.11 and
// mysqld_exporter 0.14 exposed over a real PostgreSQL and MariaDB (internal/analysis/
// testdata) into a real Prometheus, as static jobs named as Debian's prometheus.yml names
// them, and checks the catalog's queries against what the servers said at each scrape:
// the probes find the sources, pg_connections is pg_stat_activity's backends (the
// asking psql's own gone by the scrape: one fewer), mysql_connections Threads_connected.
func TestIntegrationCatalogOnRecordedExporters(t *testing.T) {
	dir := t.TempDir()
	pgFile, myFile := filepath.Join(dir, "pg.om"), filepath.Join(dir, "my.om")
	pg := recordingToOpenMetrics(t, "../analysis/testdata/postgres-exporter.prom", pgFile, "postgres", "localhost:9187")
	my := recordingToOpenMetrics(t, "../analysis/testdata/mysqld-exporter.prom", myFile, "mysqld", "localhost:9104")
	prom := layoutstest.LoadFiles(t, []string{pgFile, myFile})
	q, err := query.NewPrometheus(prom.URL, nil, query.WithTimeout(30*time.Second))
	require.NoError(t, err)
	cat, err := query.Default()
	require.NoError(t, err)
	r := query.NewRunner(q, cat, promslog.NewNopLogger())
	ctx := context.Background()
	v := query.Vars{Namespace: ".+"}

	// The data is there once the first scrape answers.
	require.Eventually(t, func() bool {
		res, err := r.Instant(ctx, query.QMySQLMaxConnections, v, my.times[0])
		return err == nil && len(res.Set) == 1
	}, 30*time.Second, 200*time.Millisecond)

	for _, tc := range []struct {
		name, conns, max string
		rec              recorded
		maxConns         float64
		offset           float64 // the exporter's count minus the server's
		server           map[string]string
	}{
		{"postgres_exporter", query.QPGConnections, query.QPGMaxConnections, pg, 50, -1, map[string]string{"instance": "localhost:9187", "server": "127.0.0.1:55432"}},
		{"mysqld_exporter", query.QMySQLConnections, query.QMySQLMaxConnections, my, 60, 0, map[string]string{"instance": "localhost:9104"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, at := range tc.rec.times {
				res, err := r.Instant(ctx, tc.conns, v, at)
				require.NoError(t, err)
				require.Len(t, res.Set, 1, "one server at %s", at)
				require.Equal(t, tc.server, res.Set[0].Labels)
				want := tc.rec.truth[i] + tc.offset
				if i == 0 && tc.offset < 0 {
					// The first scrape came before the exporter's own two connections were
					// open when the server was asked: they are in the exporter's count only.
					want += 2
				}
				require.InDelta(t, want, res.Set[0].Points[0].V, 0, "scrape %d at %s", i, at)
				mx, err := r.Instant(ctx, tc.max, v, at)
				require.NoError(t, err)
				require.Len(t, mx.Set, 1)
				require.InDelta(t, tc.maxConns, mx.Set[0].Points[0].V, 0)
			}
		})
	}
}
