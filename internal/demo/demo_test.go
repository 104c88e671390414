package demo

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/examples"
)

// TestReadInput: without a file the demo reads the built-in examples.
func TestReadInput(t *testing.T) {
	t.Parallel()
	for _, name := range []string{Profile, Scenario} {
		b, where, err := ReadInput("", name)
		require.NoError(t, err)
		want, err := examples.Read(name)
		require.NoError(t, err)
		require.Equal(t, want, b)
		require.Equal(t, "examples/"+name+" (built in)", where)
	}
}
