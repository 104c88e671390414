package cluster

import (
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sim"
)

func TestNew(t *testing.T) {
	p, err := sim.ParseProfile([]byte("services: [{name: api, resources: {requests: {cpu: 100m}}, request: {cpu: 1ms}}]\n"), "p.yaml")
	require.NoError(t, err)
	for _, rt := range []string{"", RuntimeSim} {
		c, err := New(p, Config{Runtime: rt, Fast: true}, promslog.NewNopLogger())
		require.NoError(t, err)
		require.IsType(t, &sim.Server{}, c)
		require.Equal(t, sim.FastDownscaleStabilization, c.Profile().Controller.DownscaleStabilization.D(), "fast with the default window")
	}
	_, err = New(p, Config{Runtime: "docker"}, promslog.NewNopLogger())
	require.EqualError(t, err, `unknown cluster runtime "docker": expected sim or process`)
	_, err = New(p, Config{ServiceAddresses: map[string]string{"web": "127.0.0.1:0"}}, promslog.NewNopLogger())
	require.ErrorContains(t, err, `address for unknown service "web"`)
}
