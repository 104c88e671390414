package dashboards

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeGrafana is the part of Grafana's HTTP API that push uses: folders and
// POST /api/dashboards/db, behind a bearer token.
type fakeGrafana struct {
	token string

	mu         sync.Mutex
	folders    []Folder                 // top-level, listed by GET /api/folders
	nested     []Folder                 // not listed, but their UIDs are taken
	dashboards map[string]fakeDashboard // by UID
	requests   []string
}

type fakeDashboard struct {
	folderUID string
	version   int
	model     map[string]any
	message   string
}

func newFakeGrafana(token string, folders ...Folder) *fakeGrafana {
	return &fakeGrafana{token: token, folders: folders, dashboards: map[string]fakeDashboard{}}
}

func (g *fakeGrafana) reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (g *fakeGrafana) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer "+g.token {
		g.reply(w, http.StatusUnauthorized, map[string]string{"message": "invalid API key"})
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/api/folders"):
		g.reply(w, http.StatusOK, g.folders)
	case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/api/folders/"):
		uid := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		for _, f := range append(g.folders, g.nested...) {
			if f.UID == uid {
				g.reply(w, http.StatusOK, f)
				return
			}
		}
		g.reply(w, http.StatusNotFound, map[string]string{"message": "folder not found"})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/api/folders"):
		var f Folder
		if err := json.NewDecoder(r.Body).Decode(&f); err != nil || f.Title == "" {
			g.reply(w, http.StatusBadRequest, map[string]string{"message": "bad folder"})
			return
		}
		for _, e := range append(g.folders, g.nested...) {
			if e.UID == f.UID {
				g.reply(w, http.StatusConflict, map[string]string{"message": "a folder with the same uid already exists"})
				return
			}
		}
		g.folders = append(g.folders, f)
		g.reply(w, http.StatusOK, f)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/api/dashboards/db"):
		if r.Header.Get("Content-Type") != "application/json" {
			g.reply(w, http.StatusUnsupportedMediaType, map[string]string{"message": "json please"})
			return
		}
		var body struct {
			Dashboard map[string]any `json:"dashboard"`
			FolderUID string         `json:"folderUid"`
			Overwrite bool           `json:"overwrite"`
			Message   string         `json:"message"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			g.reply(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
			return
		}
		uid, _ := body.Dashboard["uid"].(string)
		known := false
		for _, f := range append(g.folders, g.nested...) {
			known = known || f.UID == body.FolderUID
		}
		if !known {
			g.reply(w, http.StatusBadRequest, map[string]string{"message": "folder not found"})
			return
		}
		prev, exists := g.dashboards[uid]
		if exists && !body.Overwrite {
			g.reply(w, http.StatusPreconditionFailed, map[string]string{"message": "A dashboard with the same uid already exists", "status": "name-exists"})
			return
		}
		if _, hasID := body.Dashboard["id"]; hasID {
			g.reply(w, http.StatusBadRequest, map[string]string{"message": "unexpected dashboard id"})
			return
		}
		d := fakeDashboard{folderUID: body.FolderUID, version: prev.version + 1, model: body.Dashboard, message: body.Message}
		g.dashboards[uid] = d
		g.reply(w, http.StatusOK, map[string]any{"id": 7, "uid": uid, "url": "/d/" + uid + "/x", "status": "success", "version": d.version, "slug": "x"})
	default:
		g.reply(w, http.StatusNotFound, map[string]string{"message": "not found"})
	}
}

func builtDashboards(t *testing.T) []Built {
	t.Helper()
	exprs, err := DefaultExprs()
	require.NoError(t, err)
	built, err := All(exprs)
	require.NoError(t, err)
	return built
}

func TestPushAll(t *testing.T) {
	t.Parallel()
	const token = "glsa_secret-token-123"
	for _, tc := range []struct {
		name          string
		folders       []Folder
		nested        []Folder
		pushes        int
		wantFolderUID string
		wantFolders   int
		wantVersion   int
	}{
		{name: "creates the folder", wantFolderUID: "load-tests", wantFolders: 1, pushes: 1, wantVersion: 1},
		{name: "reuses an existing folder", folders: []Folder{{UID: "abc", Title: "Load tests"}}, wantFolderUID: "abc", wantFolders: 1, pushes: 1, wantVersion: 1},
		{name: "overwrites on a second push", wantFolderUID: "load-tests", wantFolders: 1, pushes: 2, wantVersion: 2},
		{name: "uses a nested folder holding the uid", nested: []Folder{{UID: "load-tests", Title: "Load tests"}}, wantFolderUID: "load-tests", wantFolders: 0, pushes: 1, wantVersion: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newFakeGrafana(token, tc.folders...)
			g.nested = tc.nested
			srv := httptest.NewServer(g)
			defer srv.Close()
			c, err := NewClient(srv.URL+"/grafana/", token+"\n", WithHTTPClient(srv.Client()))
			require.NoError(t, err)
			built := builtDashboards(t)
			var res []PushResult
			for range tc.pushes {
				res, err = PushAll(context.Background(), c, "Load tests", built, "from a test")
				require.NoError(t, err)
			}
			require.Len(t, res, len(built))
			g.mu.Lock()
			defer g.mu.Unlock()
			require.Len(t, g.folders, tc.wantFolders)
			require.Len(t, g.dashboards, len(built))
			for _, b := range built {
				d := g.dashboards[b.UID]
				require.Equal(t, tc.wantFolderUID, d.folderUID)
				require.Equal(t, tc.wantVersion, d.version)
				require.Equal(t, "from a test", d.message)
				require.NotEmpty(t, d.model["panels"])
			}
			for i, r := range res {
				require.Equal(t, built[i].UID, r.UID)
				require.Equal(t, "success", r.Status)
				require.Equal(t, "/d/"+built[i].UID+"/x", r.URL)
			}
			for _, req := range g.requests {
				require.True(t, strings.HasPrefix(strings.SplitN(req, " ", 2)[1], "/grafana/api/"), req)
			}
		})
	}
}

func TestPushErrorsNeverCarryTheToken(t *testing.T) {
	t.Parallel()
	const token = "glsa_right-token"
	g := newFakeGrafana(token)
	srv := httptest.NewServer(g)
	defer srv.Close()
	c, err := NewClient(srv.URL, "glsa_wrong-token", WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	_, err = PushAll(context.Background(), c, "Tidemark", builtDashboards(t), "")
	require.Error(t, err)
	require.ErrorIs(t, err, ErrUnauthorized)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	require.Equal(t, "invalid API key", apiErr.Message)
	require.NotContains(t, err.Error(), "wrong-token")
	require.Equal(t, "list folders: grafana GET /api/folders: status 401: invalid API key", err.Error())
}

func TestPushReportsGrafanaMessage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte(`[{"uid":"tm","title":"Tidemark"}]`))
			return
		}
		w.WriteHeader(http.StatusPreconditionFailed)
		_, _ = w.Write([]byte(`{"message":"version-mismatch"}`))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, "t", WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	_, err = PushAll(context.Background(), c, "Tidemark", builtDashboards(t), "")
	require.EqualError(t, err, `push dashboard "tidemark-load": grafana POST /api/dashboards/db: status 412: version-mismatch`)
	require.NotErrorIs(t, err, ErrUnauthorized)
}

func TestNewClientValidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url, token, wantErr string
	}{
		{name: "ok", url: "http://grafana:3000", token: "t"},
		{name: "no scheme", url: "grafana:3000", token: "t", wantErr: `parse grafana url: scheme "grafana" is not http or https`},
		{name: "no host", url: "http:///grafana", token: "t", wantErr: `parse grafana url "http:///grafana": no host; expected a URL such as http://grafana:3000`},
		{name: "empty token", url: "http://grafana:3000", token: " \n", wantErr: "grafana token is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewClient(tc.url, tc.token)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestFolderUID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Tidemark":                  "tidemark",
		"Load tests / EKS (prod)":   "load-tests-eks-prod",
		"***":                       "tidemark",
		strings.Repeat("abcde ", 9): "abcde-abcde-abcde-abcde-abcde-abcde-abcd",
	} {
		require.Equal(t, want, folderUID(in), in)
	}
}

func TestRunLink(t *testing.T) {
	t.Parallel()
	from := mustTime(t, "2026-11-30T01:00:00Z")
	to := mustTime(t, "2026-11-30T01:20:00Z")
	got, err := RunLink("https://example.com/grafana/", "spike 1", from, to)
	require.NoError(t, err)
	require.Equal(t, "https://example.com/grafana/d/tidemark-run-correlation?from=1796000400000&to=1796001600000&var-testid=spike+1", got)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return ts
}
