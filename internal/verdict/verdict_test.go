package verdict

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKinds(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	err := Invalid(base)
	require.EqualError(t, err, "boom")
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorIs(t, err, base)
	require.Equal(t, ErrInvalid, Of(fmt.Errorf("x: %w", err)))
	require.NoError(t, Invalid(nil))
	require.Equal(t, ErrListen, Of(Or(ErrInvalid, fmt.Errorf("sink: %w", As(ErrListen, base)))))
	require.Equal(t, ErrInvalid, Of(Or(ErrInvalid, base)))
	require.NoError(t, Of(base))
}
