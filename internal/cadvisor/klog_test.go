package cadvisor

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
)

// TestRouteKlog: klog's lines reach the logger one level down (Warning as Debug, Error
// as Warn) and nothing reaches it above the logger's level.
func TestRouteKlog(t *testing.T) {
	var buf bytes.Buffer
	RouteKlog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(klog.ClearLogger)

	klog.Warningf("readString: Failed to read %q", "/sys/fs/cgroup/cpu/x/cpu.shares")
	klog.ErrorS(errors.New("gone"), "GetSpec failed")
	out := buf.String()
	require.Contains(t, out, `level=DEBUG msg="readString: Failed to read \"/sys/fs/cgroup/cpu/x/cpu.shares\"" component=cadvisor`)
	require.Contains(t, out, `level=WARN msg="GetSpec failed" component=cadvisor err=gone`)

	buf.Reset()
	RouteKlog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	klog.Warningf("readString: Failed to read %q", "/x")
	require.Empty(t, buf.String(), "a klog warning is Debug")
}
