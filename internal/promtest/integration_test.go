//go:build integration

package promtest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStartPrometheus(t *testing.T) {
	t.Parallel()
	s := StartPrometheus(t)
	require.Equal(t, "prometheus", s.Name)
	body := get(t, s.URL+"/api/v1/status/buildinfo")
	require.Contains(t, body, `"version":"2.`)
	// The remote-write receiver is on: an empty POST is a bad request, not 404.
	resp, err := http.Post(s.WriteURL(), "application/x-protobuf", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.NotEqual(t, http.StatusNotFound, resp.StatusCode)
	v := WaitForQuery(t, s.URL, "vector(1)", 10*time.Second, SeriesCount(1))
	require.Equal(t, "{} => 1", v.String()[:7])

	s.Stop()
	s.Stop() // idempotent
	_, err = Query(context.Background(), s.URL, "1", time.Time{})
	require.Error(t, err)
}

// TestRestart: a killed or running server comes back on the same address and data
// directory.
func TestRestart(t *testing.T) {
	t.Parallel()
	s := StartPrometheus(t)
	url := s.URL
	s.Kill()
	s.Kill() // idempotent
	_, err := Query(context.Background(), url, "1", time.Time{})
	require.Error(t, err, "killed")
	s.Restart(t)
	require.Equal(t, url, s.URL)
	WaitForQuery(t, s.URL, "vector(1)", 10*time.Second, SeriesCount(1))
	require.Contains(t, get(t, s.URL+"/api/v1/status/flags"), s.DataDir)
	s.Restart(t) // from a running server
	WaitForQuery(t, s.URL, "vector(1)", 10*time.Second, SeriesCount(1))
}

func TestStartVictoriaMetrics(t *testing.T) {
	t.Parallel()
	s := StartVictoriaMetrics(t)
	require.Equal(t, "victoria-metrics", s.Name)
	require.Equal(t, "OK", get(t, s.URL+"/health"))
	WaitForQuery(t, s.URL, "vector(1)", 10*time.Second, SeriesCount(1))
}

func TestStartTwoPrometheus(t *testing.T) {
	t.Parallel()
	a, b := StartPrometheus(t), StartPrometheus(t)
	require.NotEqual(t, a.URL, b.URL)
	require.NotEqual(t, a.DataDir, b.DataDir)
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
