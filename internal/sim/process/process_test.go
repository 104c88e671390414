package process

import (
	"os"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/cgroup"
	"github.com/tidemark/tidemark/internal/sim"
)

func TestNewErrors(t *testing.T) {
	// Checked before any cgroup is written: a hierarchy in a temporary directory.
	dir := t.TempDir()
	h := cgroup.NewV1(dir, dir)
	p, err := sim.ParseProfile([]byte("services: [{name: api, resources: {requests: {cpu: 100m}}, request: {cpu: 1ms}}]\n"), "p.yaml")
	require.NoError(t, err)
	_, err = New(p, promslog.NewNopLogger(), WithHierarchy(h), WithServiceAddress("web", "127.0.0.1:0"))
	require.EqualError(t, err, `new process runtime: address for unknown service "web"`)
	withDB, err := sim.ParseProfile([]byte("database: {}\nservices: [{name: api, resources: {requests: {cpu: 100m}}, request: {cpu: 1ms}}]\n"), "db.yaml")
	require.NoError(t, err)
	_, err = New(withDB, promslog.NewNopLogger(), WithHierarchy(h))
	require.ErrorContains(t, err, "the profile's simulated database is not supported by the process runtime")
	// A hierarchy that cannot be written: the error names the cgroup and what is needed.
	file := t.TempDir() + "/not-a-dir"
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = New(p, promslog.NewNopLogger(), WithHierarchy(cgroup.NewV1(file, file)))
	require.ErrorContains(t, err, "create cgroup "+file+"/tidemark")
	require.ErrorContains(t, err, "the process runtime needs root and a writable cgroup cpu controller")
}
