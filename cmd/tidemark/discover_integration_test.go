//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/layouts"
	"github.com/tidemark/tidemark/internal/layouts/layoutstest"
)

// TestIntegrationDiscoverThenCatalog: on the prometheus-community chart's layout (job
// names the catalog does not know), `tidemark correlate --discover` prints where each
// source was found and a catalog with those selectors; passed back as --catalog.file it
// gives the same report as correlating with discovery.
func TestIntegrationDiscoverThenCatalog(t *testing.T) {
	f, err := layouts.Story1(layouts.Options{Layout: layouts.PrometheusChart, DBExporter: layouts.PostgresExporter, Pool: layouts.Prisma})
	require.NoError(t, err)
	prom := layoutstest.Load(t, []*layouts.Fixture{f})
	dir := t.TempDir()
	lookback := (time.Since(f.Truth.RunFrom) + time.Hour).Round(time.Hour).String()
	base := []string{"correlate", "--testid", f.TestID(), "--namespace", f.Namespace(), "--prometheus.url", prom.URL,
		"--lookback", lookback, "--no-write-back"}

	var stdout, stderr bytes.Buffer
	code := run(append(base, "--discover"), &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	out := stdout.String()
	require.Contains(t, out, "kubernetes-service-endpoints", "kube-state-metrics found under the chart's job")
	require.Contains(t, out, "kubernetes-nodes-cadvisor", "cAdvisor found under the chart's job")
	catalog := filepath.Join(dir, "catalog.yaml")
	require.NoError(t, os.WriteFile(catalog, stdout.Bytes(), 0o644))

	report := func(extra ...string) *correlator.Result {
		t.Helper()
		outDir := filepath.Join(dir, "r"+string(rune('0'+len(extra))))
		var stdout, stderr bytes.Buffer
		code := run(append(append(base, "--output.dir", outDir), extra...), &stdout, &stderr)
		require.Equal(t, exitcode.OK, code, stderr.String())
		b, err := os.ReadFile(filepath.Join(outDir, "report.json"))
		require.NoError(t, err)
		var res correlator.Result
		require.NoError(t, json.Unmarshal(b, &res))
		return &res
	}
	discovered := report()
	pinned := report("--catalog.file", catalog)
	for _, s := range pinned.Sources {
		switch s.Name {
		case "k6":
		case "mysql":
			require.Equal(t, "none", s.Found, "the fixture's database is PostgreSQL")
		default:
			require.Equal(t, "catalog", s.Found, "%s: the catalog file's selector finds it", s.Name)
		}
	}
	// The same facts: everything but when it was generated, the sources' provenance and
	// the notes that tell of discovery.
	discovered.GeneratedAt, pinned.GeneratedAt = time.Time{}, time.Time{}
	discovered.Sources, pinned.Sources = nil, nil
	discovered.Notes, pinned.Notes = nil, nil
	discovered.Queries, pinned.Queries = nil, nil
	require.Equal(t, discovered, pinned)
	require.NotEmpty(t, discovered.Autoscaling, "HPA facts from the discovered kube-state-metrics")
	require.NotEmpty(t, discovered.CPU, "CPU facts from the discovered cAdvisor")
	require.Len(t, discovered.Connections.Servers, 1, "the server through postgres_exporter")
	require.Len(t, discovered.Connections.Pools, 5, "the order pods' Prisma pools")
}

// TestIntegrationDashboardsDiscoverSources: `tidemark dashboards generate --prometheus.url`
// selects kube-state-metrics and cAdvisor under the job names it finds them under (the
// prometheus-community chart's), not the catalog's kube-prometheus ones.
func TestIntegrationDashboardsDiscoverSources(t *testing.T) {
	f, err := layouts.Story1(layouts.Options{Layout: layouts.PrometheusChart})
	require.NoError(t, err)
	prom := layoutstest.Load(t, []*layouts.Fixture{f})
	out := t.TempDir()
	lookback := (time.Since(f.Truth.RunFrom) + time.Hour).Round(time.Hour).String()
	var stdout, stderr bytes.Buffer
	code := run([]string{"dashboards", "generate", "--prometheus.url", prom.URL, "--namespace", f.Namespace(),
		"--lookback", lookback, "--output.dir", out}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.Contains(t, stdout.String(), "kube-state-metrics found as job=kubernetes-service-endpoints")
	b, err := os.ReadFile(filepath.Join(out, "tidemark-run-correlation.json"))
	require.NoError(t, err)
	dash := string(b)
	require.Contains(t, dash, `job=\"kubernetes-service-endpoints\"`)
	require.Contains(t, dash, `job=\"kubernetes-nodes-cadvisor\"`)
	require.NotContains(t, dash, `job=\"kube-state-metrics\"`)
}
