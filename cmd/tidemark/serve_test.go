package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/store"
)

// serveChildEnv makes the re-executed test binary run `tidemark` with the arguments in
// the variable (separated by \x1f) and exit with its exit code.
const serveChildEnv = "TIDEMARK_SERVE_TEST_ARGS"

// TestServeLifecycle runs `tidemark serve` as its own process behind basic auth
// (--web.config.file), writes through its remote-write receiver, stops it with SIGTERM
// and checks the clean shutdown: exit code 0, discovery file removed, lock released, the
// write persisted.
func TestServeLifecycle(t *testing.T) {
	if args := os.Getenv(serveChildEnv); args != "" {
		os.Exit(run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	require.NoError(t, err)
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	require.NoError(t, os.WriteFile(webCfg, fmt.Appendf(nil, "basic_auth_users:\n  grafana: %s\n", hash), 0o600))

	args := []string{"serve", "--storage.tsdb.path=" + dir, "--web.listen-address=127.0.0.1:0", "--web.config.file=" + webCfg, "--log.level=warn",
		"--query.max-subquery-steps=5000"}
	var logBuf bytes.Buffer
	child := exec.Command(os.Args[0], "-test.run=^TestServeLifecycle$", "-test.count=1")
	child.Env = append(os.Environ(), serveChildEnv+"="+strings.Join(args, "\x1f"))
	child.Stdout, child.Stderr = &logBuf, &logBuf
	require.NoError(t, child.Start())
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	defer func() { _ = child.Process.Kill() }()

	ctx := context.Background()
	var base string
	deadline := time.Now().Add(60 * time.Second)
	for base == "" {
		if u, ok, err := store.Discover(ctx, dir); err == nil && ok {
			base = u
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("serve exited early: %v\n%s", err, logBuf.String())
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "serve did not announce itself")
	}

	// Basic auth from --web.config.file guards the API and the receiver.
	resp, err := http.Get(base + "/api/v1/query?query=1") //nolint:noctx // test.
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	now := time.Now().Truncate(time.Second)
	wr := &prompb.WriteRequest{Timeseries: []prompb.TimeSeries{{
		Labels:  []prompb.Label{{Name: "__name__", Value: "serve_test"}, {Name: "testid", Value: "lifecycle"}},
		Samples: []prompb.Sample{{Timestamp: now.UnixMilli(), Value: 42}},
	}}}
	raw, err := wr.Marshal()
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/write", bytes.NewReader(snappy.Encode(nil, raw)))
	require.NoError(t, err)
	req.SetBasicAuth("grafana", "s3cret")
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body))

	// Issue 24's one GET that killed serve (out of memory sizing a subquery's steps) is
	// answered with an error under the flag's limit, and serve answers the next query.
	get := func(q string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/query?query="+url.QueryEscape(q), nil)
		require.NoError(t, err)
		req.SetBasicAuth("grafana", "s3cret")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, answer := get("max_over_time(vector(1)[1y:1ms])")
	require.Equal(t, http.StatusUnprocessableEntity, code, answer)
	require.Contains(t, answer, "--query.max-subquery-steps=5000")
	code, answer = get("max_over_time(vector(1)[1h:1s])")
	require.Equal(t, http.StatusOK, code, "3,601 steps fit: %s", answer)

	require.NoError(t, child.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "exit after SIGTERM:\n%s", logBuf.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop after SIGTERM\n%s", logBuf.String())
	}
	_, err = os.Stat(filepath.Join(dir, store.DiscoveryFile))
	require.ErrorIs(t, err, os.ErrNotExist, "discovery file left behind: %v", err)

	st, err := store.Open(store.Config{Dir: dir}, promslog.NewNopLogger(), nil)
	require.NoError(t, err, "the lock must be released")
	defer func() { require.NoError(t, st.Close()) }()
	c, err := api.NewClient(api.Config{Address: "http://embedded", RoundTripper: st.Transport()})
	require.NoError(t, err)
	v, _, _, err := v1.NewAPI(c).Query(ctx, `serve_test{testid="lifecycle"}`, now)
	require.NoError(t, err)
	require.Len(t, v.(model.Vector), 1)
	require.InDelta(t, 42, float64(v.(model.Vector)[0].Value), 0)
}

func TestServeBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		want     string
		wantCode int
	}{
		{"retention", []string{"--storage.tsdb.retention.time=forever"}, "retention.time", exitcode.InvalidConfig},
		{"web config", []string{"--web.config.file=/nonexistent/web.yml"}, "web.config.file", exitcode.InvalidConfig},
		{"listen", []string{"--web.listen-address=256.0.0.1:1"}, "listen on 256.0.0.1:1", exitcode.Generic},
		{"scrape config", []string{"--config.file=/nonexistent/prometheus.yml"}, "load scrape config", exitcode.InvalidConfig},
		{"external url", []string{"--web.external-url=http://[::1"}, "parse external url", exitcode.InvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			args := append([]string{"serve", "--storage.tsdb.path=" + t.TempDir(), "--web.listen-address=127.0.0.1:0"}, tc.args...)
			code := run(args, &out, &out)
			require.Equal(t, tc.wantCode, code, out.String())
			require.Contains(t, out.String(), tc.want)
		})
	}
}
