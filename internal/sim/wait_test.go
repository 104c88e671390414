package sim

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

func TestServerHelpers(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	require.Equal(t, 5, p.PoolPerPod(), "story 1: a Prisma pool of 5 per pod")
	srv, err := NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, srv.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })

	u, err := srv.FirstServiceURL()
	require.NoError(t, err)
	require.Equal(t, srv.ServiceURLs()[p.Services[0].Name], u)

	// Idle at its minimum replicas, the cluster is scaled in at once.
	start := time.Now()
	require.True(t, srv.WaitScaledIn(t.Context(), time.Minute))
	require.Less(t, time.Since(start), time.Second)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.True(t, srv.WaitScaledIn(ctx, time.Minute), "already scaled in, a done context changes nothing")
}

func TestWriteEndpoints(t *testing.T) {
	t.Parallel()
	p, err := LoadProfile("../../examples/cluster-shoong.yaml")
	require.NoError(t, err)
	srv, err := NewServer(p, promslog.NewNopLogger())
	require.NoError(t, err)
	require.NoError(t, srv.Start(t.Context()))
	t.Cleanup(func() { require.NoError(t, srv.Stop()) })
	var b strings.Builder
	require.NoError(t, srv.WriteEndpoints(&b))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, len(p.Services)+4, "a line per service and per metrics endpoint")
	require.Contains(t, lines[0], "service "+slices.Sorted(maps.Keys(srv.ServiceURLs()))[0])
	require.Contains(t, b.String(), strings.TrimSuffix(srv.MetricsURL(), MetricsPath)+CadvisorPath)
}
