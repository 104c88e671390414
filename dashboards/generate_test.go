package dashboards

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// update rewrites dashboards/generated from the builders:
// go test ./dashboards -run TestGeneratedUpToDate -update
// (same as: go run ./cmd/tidemark dashboards generate --output.dir dashboards/generated).
var update = flag.Bool("update", false, "rewrite dashboards/generated from the builders")

const generatedDir = "generated"

func defaultFiles(t *testing.T) map[string][]byte {
	t.Helper()
	exprs, err := DefaultExprs()
	require.NoError(t, err)
	files, err := Files(exprs)
	require.NoError(t, err)
	return files
}

// TestGeneratedUpToDate is the drift check: the committed files under dashboards/generated
// are exactly what the builders produce, with no stale extra files.
func TestGeneratedUpToDate(t *testing.T) {
	if *update {
		require.NoError(t, Generate(generatedDir))
	}
	want := defaultFiles(t)
	got := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(generatedDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(generatedDir, path)
		if err != nil {
			return err
		}
		got[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	}))
	for name, content := range want {
		require.Contains(t, got, name, "missing generated file; run: go run ./cmd/tidemark dashboards generate --output.dir dashboards/generated")
		require.Equal(t, string(content), string(got[name]), "%s drifted from the builders; run: go run ./cmd/tidemark dashboards generate --output.dir dashboards/generated", name)
	}
	for name := range got {
		require.Contains(t, want, name, "stale file under dashboards/generated")
	}
}

// TestGenerateWritesEveryFile checks Generate on an empty directory.
func TestGenerateWritesEveryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, Generate(dir))
	for name, content := range defaultFiles(t) {
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		require.Equal(t, content, raw)
	}
	names := []string{}
	for name := range defaultFiles(t) {
		names = append(names, name)
	}
	slices.Sort(names)
	require.Equal(t, []string{
		DashboardProviderFile, DatasourceFile, LoadUID + ".json", RunCorrelationUID + ".json", RunsOverTimeUID + ".json",
	}, names)
}

// TestRoundTripThroughSDK decodes every generated dashboard into the SDK's types and
// encodes it again: nothing may be lost or changed.
func TestRoundTripThroughSDK(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for name, raw := range defaultFiles(t) {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var d dashboard.Dashboard
			require.NoError(t, json.Unmarshal(raw, &d))
			again, err := Marshal(d)
			require.NoError(t, err)
			require.JSONEq(t, string(raw), string(again))
			require.NotNil(t, d.Uid)
			require.Equal(t, strings.TrimSuffix(name, ".json"), *d.Uid)
			require.NotEmpty(t, d.Panels)
			// Every panel, rows' panels included, survived as a typed panel.
			for _, p := range d.Panels {
				require.True(t, p.Panel != nil || p.RowPanel != nil)
				if p.RowPanel != nil {
					for _, rp := range p.RowPanel.Panels {
						require.NotEmpty(t, rp.Targets)
					}
				}
			}
		})
	}
}

// TestProvisioningLoadsGeneratedDashboards reads the provisioning files the way Grafana
// does: the provider's path, mapped to the generated directory, holds every dashboard,
// and the data source the dashboards query through is a Prometheus one.
func TestProvisioningLoadsGeneratedDashboards(t *testing.T) {
	files := defaultFiles(t)
	var prov struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name    string `yaml:"name"`
			Type    string `yaml:"type"`
			Folder  string `yaml:"folder"`
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	require.NoError(t, yaml.Unmarshal(files[DashboardProviderFile], &prov))
	require.Equal(t, 1, prov.APIVersion)
	require.Len(t, prov.Providers, 1)
	require.Equal(t, "file", prov.Providers[0].Type)
	require.Equal(t, ProvisionedDashboardsPath, prov.Providers[0].Options.Path)

	var ds struct {
		Datasources []struct {
			Name, Type, URL string
			UID             string `yaml:"uid"`
		} `yaml:"datasources"`
	}
	require.NoError(t, yaml.Unmarshal(files[DatasourceFile], &ds))
	require.Len(t, ds.Datasources, 1)
	require.Equal(t, "prometheus", ds.Datasources[0].Type)

	// The committed deploy/grafana provisioning is the generated one.
	for _, name := range []string{DashboardProviderFile, DatasourceFile} {
		raw, err := os.ReadFile(filepath.Join("..", "deploy", "grafana", filepath.FromSlash(name)))
		require.NoError(t, err)
		require.Equal(t, string(files[name]), string(raw), "deploy/grafana/%s differs from the generated file", name)
	}
}
