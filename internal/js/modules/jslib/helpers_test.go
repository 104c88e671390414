package jslib_test

import (
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/summary"
)

func writeText(w io.Writer, in summary.Input) error { return summary.WriteText(w, in) }

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return f
}
