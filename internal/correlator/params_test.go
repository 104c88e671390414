package correlator

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseParams(t *testing.T) {
	t.Parallel()
	got, err := ParseParams(map[string]string{"db_pool_per_pod": "5", "x": "1e3"})
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"db_pool_per_pod": 5, "x": 1000}, got)
	got, err = ParseParams(nil)
	require.NoError(t, err)
	require.Nil(t, got)
	_, err = ParseParams(map[string]string{"b": "five", "a": "x"})
	require.EqualError(t, err, "a=x: expected a number", "the first bad name in order, so the message is stable")
}
