package examples

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadMatchesTheFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"demo-spike.yaml", "cluster-shoong.yaml", "story3-steps.yaml", "cluster-story3-process-500m.yaml"} {
		got, err := Read(name)
		require.NoError(t, err)
		want, err := os.ReadFile(name)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := Read("missing.yaml")
	require.ErrorContains(t, err, `built-in example "missing.yaml"`)
}
