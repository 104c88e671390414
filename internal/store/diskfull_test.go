package store

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/require"
)

// TestDiskFullKeepsAcknowledgedWrites is issue 24's lost writes: on a full disk a write
// fails (500) and tears the WAL's last record; once space was freed, new writes were
// answered 204, and the next start's WAL repair deleted them (1,000 samples accepted, 50
// left after the restart). Now every write after the failure is refused (503, which
// senders retry) until the store restarts, and every write it acknowledged is there after
// the restart. The disk is a 24 MiB tmpfs the test mounts (as root, as CI runs).
func TestDiskFullKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", dir).CombinedOutput()
	require.NoError(t, err, "mount a small tmpfs (needs root): %s", out)
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	data := filepath.Join(dir, "data")
	st, err := Open(Config{Dir: data}, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	srv := httptest.NewServer(st.Handler())
	now := time.Now().UnixMilli()
	write := func(batch int) (int, string) {
		t.Helper()
		req := &prompb.WriteRequest{}
		for j := range 50 {
			req.Timeseries = append(req.Timeseries, prompb.TimeSeries{
				Labels:  []prompb.Label{{Name: "__name__", Value: "m"}, {Name: "i", Value: fmt.Sprint(batch*50 + j)}},
				Samples: []prompb.Sample{{Value: 1, Timestamp: now}},
			})
		}
		raw, err := req.Marshal()
		require.NoError(t, err)
		code, body, err := post(http.DefaultClient, srv.URL+"/api/v1/write", raw, false)
		require.NoError(t, err)
		return code, body
	}
	acked := 0
	code, body := write(0)
	require.Equal(t, http.StatusNoContent, code, body)
	acked += 50

	// Fill the disk, and write until the WAL cannot be written.
	filler := filepath.Join(dir, "filler")
	_ = exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=1M", "count=64").Run() // ends with "no space left"
	failed := false
	for b := 1; b < 200 && !failed; b++ {
		code, body = write(b)
		switch code {
		case http.StatusNoContent:
			acked += 50
		default:
			failed = true
			require.Contains(t, body, "no space left on device")
		}
	}
	require.True(t, failed, "the disk never filled")

	// Space is freed: writes stay refused, retryably, until the restart.
	require.NoError(t, os.Remove(filler))
	for b := 1000; b < 1020; b++ {
		code, body = write(b)
		require.Equal(t, http.StatusServiceUnavailable, code, body)
		require.Contains(t, body, "restart")
	}
	srv.Close()
	require.NoError(t, st.Close())

	st, err = Open(Config{Dir: data}, promslog.NewNopLogger(), prometheus.NewRegistry())
	require.NoError(t, err)
	defer func() { require.NoError(t, st.Close()) }()
	srv = httptest.NewServer(st.Handler())
	defer srv.Close()
	v := instant(t, promAPI(t, srv.URL, nil), "count(m)", time.UnixMilli(now))
	// The write that failed may have reached the WAL in part: a sender retries it anyway.
	require.GreaterOrEqual(t, vectorValue(t, v), float64(acked), "every acknowledged write survives the restart")
	require.LessOrEqual(t, vectorValue(t, v), float64(acked+50), "and no write answered 503")
	code, body = write(2000)
	require.Equal(t, http.StatusNoContent, code, "writes are taken again after the restart: %s", body)
}
