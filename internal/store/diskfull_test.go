package store

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"
)

// TestDiskFullKeepsAcknowledgedWrites is issue 24's lost writes: on a full disk a write
// fails (500) and tears the WAL's last record; once space was freed, new writes were
// answered 204, and the next start's WAL repair deleted them (1,000 samples accepted, 50
// left after the restart). Then writes were refused until a restart. Now writes are
// refused (503, which senders retry) only until the store has reopened its TSDB by
// itself, in-process, once there is free space (the reopen repairs the torn WAL); every
// write it acknowledged, before and after, is there at once and after a restart, and no
// refused write is. The disk is a 24 MiB tmpfs the test mounts (as root, as CI runs).
//
// The write that fails carries 4,000 new series: its series record spans three WAL pages
// (32 KiB each), so the disk runs out in the middle of it and the record is torn.
func TestDiskFullKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount a small tmpfs (needs root): %s", out)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	data := filepath.Join(dir, "data")
	logs := &syncBuffer{}
	reg := prometheus.NewRegistry()
	cfg := Config{Dir: data, walRecoveryInterval: 20 * time.Millisecond}
	st, err := Open(cfg, slog.New(slog.NewTextHandler(logs, nil)), reg)
	require.NoError(t, err)
	srv := httptest.NewServer(st.Handler())
	w := &batchWriter{t: t, url: srv.URL + "/api/v1/write", ts: time.Now().UnixMilli(), sizes: map[int]int{}, acked: map[int]bool{}, failed: -1}
	require.Equal(t, http.StatusNoContent, w.write(50))

	// Fill the disk, and write until the WAL cannot be written.
	filler := filepath.Join(dir, "filler")
	_ = exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=1M", "count=64").Run() // ends with "no space left"
	for w.next < 200 && w.failed < 0 {
		w.write(4000)
	}
	require.GreaterOrEqual(t, w.failed, 0, "the disk never filled")
	require.Contains(t, w.lastBody, "WAL")

	// While the disk is full, writes are refused, retryably, and no reopen is tried.
	for range 5 {
		require.Equal(t, http.StatusServiceUnavailable, w.write(50), w.lastBody)
	}
	require.Contains(t, w.lastBody, "retry later")
	require.InDelta(t, 1, gathered(t, reg, "tidemark_store_wal_writes_refused"), 0)
	require.Zero(t, gathered(t, reg, "tidemark_store_wal_recoveries_total"))

	// Space is freed: the store reopens its TSDB by itself and takes writes again.
	require.NoError(t, os.Remove(filler))
	deadline := time.Now().Add(30 * time.Second)
	for w.write(50) == http.StatusServiceUnavailable {
		require.True(t, time.Now().Before(deadline), "writes still refused 30 s after space was freed: %s", w.lastBody)
		time.Sleep(10 * time.Millisecond)
	}
	require.Equal(t, http.StatusNoContent, w.lastCode, w.lastBody)
	for range 20 {
		require.Equal(t, http.StatusNoContent, w.write(50), w.lastBody)
	}
	require.InDelta(t, 1, gathered(t, reg, "tidemark_store_wal_recoveries_total"), 0)
	require.Zero(t, gathered(t, reg, "tidemark_store_wal_writes_refused"))
	require.Equal(t, 1, strings.Count(logs.String(), "Failed to write the WAL"), logs.String())
	require.Equal(t, 1, strings.Count(logs.String(), "Reopened the TSDB after a failed WAL write"), logs.String())
	require.LessOrEqual(t, strings.Count(logs.String(), "Waiting for free space"), 1, logs.String())
	require.Contains(t, logs.String(), "Starting corruption repair", "the WAL was torn, and the reopen repaired it")
	before := w.check(srv.URL)

	srv.Close()
	require.NoError(t, st.Close())
	st, err = Open(cfg, nil, prometheus.NewRegistry())
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	srv = httptest.NewServer(st.Handler())
	defer srv.Close()
	require.Equal(t, before, w.check(srv.URL), "the restart keeps exactly what the store held")
	w.url = srv.URL + "/api/v1/write"
	require.Equal(t, http.StatusNoContent, w.write(50), "writes are taken after the restart: %s", w.lastBody)
}

// batchWriter writes batches of new series {b="batch", i="0".."n-1"}, one sample each at
// ts, and remembers which batches were acknowledged and which failed (500).
type batchWriter struct {
	t        *testing.T
	url      string
	ts       int64
	next     int
	sizes    map[int]int  // series per batch
	acked    map[int]bool // batches answered 204
	failed   int          // the batch answered 500, -1 for none yet
	lastCode int
	lastBody string
}

func (w *batchWriter) write(n int) int {
	w.t.Helper()
	b := w.next
	w.next++
	w.sizes[b] = n
	req := &prompb.WriteRequest{}
	for j := range n {
		req.Timeseries = append(req.Timeseries, prompb.TimeSeries{
			Labels:  []prompb.Label{{Name: "__name__", Value: "m"}, {Name: "b", Value: fmt.Sprint(b)}, {Name: "i", Value: fmt.Sprint(j)}},
			Samples: []prompb.Sample{{Value: 1, Timestamp: w.ts}},
		})
	}
	raw, err := req.Marshal()
	require.NoError(w.t, err)
	w.lastCode, w.lastBody, err = post(http.DefaultClient, w.url, raw, false)
	require.NoError(w.t, err)
	switch w.lastCode {
	case http.StatusNoContent:
		w.acked[b] = true
	case http.StatusInternalServerError:
		require.Negative(w.t, w.failed, "a second write failed (500) instead of being refused: %s", w.lastBody)
		w.failed = b
	case http.StatusServiceUnavailable:
	default:
		require.Failf(w.t, "unexpected answer", "%d %s", w.lastCode, w.lastBody)
	}
	return w.lastCode
}

// check queries the series of each batch at baseURL: every acknowledged batch has all
// its series, the one that failed all or none (a sender retries it anyway), and no
// refused batch is there. It returns the series count of each batch found.
func (w *batchWriter) check(baseURL string) map[string]int {
	w.t.Helper()
	v := instant(w.t, promAPI(w.t, baseURL, nil), "count by (b) (m)", time.UnixMilli(w.ts))
	vec, ok := v.(model.Vector)
	require.True(w.t, ok, "%T", v)
	got := map[string]int{}
	for _, s := range vec {
		got[string(s.Metric["b"])] = int(s.Value)
	}
	for b := range w.next {
		n, found := got[fmt.Sprint(b)]
		switch {
		case w.acked[b]:
			require.Equal(w.t, w.sizes[b], n, "acknowledged batch %d", b)
		case b == w.failed:
			require.True(w.t, !found || n == w.sizes[b], "failed batch %d: %d series", b, n)
		default:
			require.False(w.t, found, "refused batch %d is stored", b)
		}
	}
	require.LessOrEqual(w.t, len(got), w.next)
	return got
}

// gathered returns the value of the metric name (one series) in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		require.Len(t, mf.GetMetric(), 1)
		m := mf.GetMetric()[0]
		if c := m.GetCounter(); c != nil {
			return c.GetValue()
		}
		return m.GetGauge().GetValue()
	}
	require.Failf(t, "metric not found", "%s", name)
	return 0
}
