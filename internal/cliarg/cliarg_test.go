package cliarg

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHTTPURL(t *testing.T) {
	for _, ok := range []string{"", "http://localhost:9090", "https://prom.example/"} {
		require.NoError(t, HTTPURL("--prometheus.url", ok, "http://localhost:9090"), ok)
	}
	for _, bad := range []string{"localhost:9090", "ftp://host", "http://", "://x"} {
		err := HTTPURL("--prometheus.url", bad, "http://localhost:9090")
		require.ErrorContains(t, err, "--prometheus.url", bad)
		require.ErrorContains(t, err, "such as http://localhost:9090", bad)
	}
}

func TestTime(t *testing.T) {
	got, err := Time("--from", "")
	require.NoError(t, err)
	require.True(t, got.IsZero())
	got, err = Time("--from", "2026-11-30T10:00:00Z")
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), got)
	_, err = Time("--from", "yesterday")
	require.ErrorContains(t, err, `--from "yesterday": expected an RFC 3339 time`)
}
