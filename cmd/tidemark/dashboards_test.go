package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/dashboards"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/query"
)

func TestDashboardsGenerateWritesWhatTheBuildersProduce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gen")
	var stdout, stderr bytes.Buffer
	code := run([]string{"dashboards", "generate", "--output.dir", dir}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.Contains(t, stdout.String(), "dashboards written to "+dir)
	exprs, err := dashboards.DefaultExprs()
	require.NoError(t, err)
	want, err := dashboards.Files(exprs)
	require.NoError(t, err)
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		require.Equal(t, content, got, name)
	}
}

func TestDashboardsPush(t *testing.T) {
	t.Parallel()
	const token = "glsa_cmd-test-token"
	var (
		mu     sync.Mutex
		pushed []string
		auth   []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
		switch r.Method + " " + r.URL.Path {
		case "GET /api/folders":
			_, _ = w.Write([]byte(`[{"uid":"lt","title":"Load tests"}]`))
		case "POST /api/dashboards/db":
			var body struct {
				Dashboard struct {
					UID string `json:"uid"`
				} `json:"dashboard"`
				FolderUID string `json:"folderUid"`
				Overwrite bool   `json:"overwrite"`
			}
			require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
			require.Equal(t, "lt", body.FolderUID)
			require.True(t, body.Overwrite)
			pushed = append(pushed, body.Dashboard.UID)
			_, _ = w.Write([]byte(`{"uid":"` + body.Dashboard.UID + `","url":"/d/` + body.Dashboard.UID + `/x","status":"success","version":3}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))

	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{
			name:     "pushes every dashboard into the folder",
			args:     []string{"--grafana.url", srv.URL, "--grafana.token-file", tokenFile, "--grafana.folder", "Load tests"},
			wantCode: exitcode.OK,
			wantOut:  []string{"tidemark-load version 3: " + srv.URL + "/d/tidemark-load/x", "tidemark-run-correlation version 3: " + srv.URL + "/d/tidemark-run-correlation/x"},
		},
		{
			name:     "needs a url and a token file",
			args:     []string{"--grafana.url", srv.URL},
			wantCode: exitcode.InvalidConfig,
			wantErr:  "push needs --grafana.url and --grafana.token-file",
		},
		{
			name:     "missing token file",
			args:     []string{"--grafana.url", srv.URL, "--grafana.token-file", filepath.Join(t.TempDir(), "nope")},
			wantCode: exitcode.InvalidConfig,
			wantErr:  "read --grafana.token-file: open ",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"dashboards", "push"}, tc.args...), &stdout, &stderr)
			require.Equal(t, tc.wantCode, code, stderr.String())
			for _, w := range tc.wantOut {
				require.Contains(t, stdout.String(), w)
			}
			if tc.wantErr != "" {
				require.Contains(t, stderr.String(), tc.wantErr)
			}
			require.NotContains(t, stdout.String()+stderr.String(), token)
		})
	}
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{dashboards.LoadUID, dashboards.RunCorrelationUID, dashboards.RunsOverTimeUID}, pushed)
	for _, a := range auth {
		require.Equal(t, "Bearer "+token, a)
	}
}

func TestDashboardsGenerateWithCatalogFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.yaml")
	custom := strings.ReplaceAll(string(query.DefaultYAML()), `job="kube-state-metrics"`, `job="ksm"`)
	require.NoError(t, os.WriteFile(catalog, []byte(custom), 0o644))
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "gen")
	code := run([]string{"dashboards", "generate", "--catalog.file", catalog, "--output.dir", out}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	raw, err := os.ReadFile(filepath.Join(out, dashboards.RunCorrelationUID+".json"))
	require.NoError(t, err)
	require.Contains(t, string(raw), `job=\"ksm\"`)
	require.NotContains(t, string(raw), `job=\"kube-state-metrics\"`)

	code = run([]string{"dashboards", "generate", "--catalog.file", filepath.Join(dir, "missing.yaml"), "--output.dir", out}, &stdout, &stderr)
	require.Equal(t, exitcode.InvalidConfig, code)
	require.Contains(t, stderr.String(), "load the query catalog ")
}

func TestDashboardsRejectsUnknownAction(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run([]string{"dashboards", "publish"}, &stdout, &stderr)
	require.Equal(t, exitcode.InvalidConfig, code)
	require.Contains(t, stderr.String(), "publish", stderr.String())
}
