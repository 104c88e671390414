package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExamples loads every scenario file under examples/ (the cluster-*.yaml files
// are simulation configs, not scenarios).
func TestExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/*.yaml")
	require.NoError(t, err)
	var n int
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "cluster-") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			tst, err := Load(f, nil)
			require.NoError(t, err)
			require.NotEmpty(t, tst.Scenarios)
			for _, sc := range tst.Scenarios {
				require.NotEmpty(t, sc.Flow.Steps)
				for _, st := range sc.Flow.Steps {
					if st.URL != nil {
						require.True(t, strings.HasPrefix(st.URL.String(), "http://127.0.0.1:8099"), st.URL.String())
					}
				}
			}
			_, err = tst.ThresholdSet(nil)
			require.NoError(t, err)
		})
	}
	require.GreaterOrEqual(t, n, 6)
}
