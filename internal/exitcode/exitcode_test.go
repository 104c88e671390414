package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/verdict"
)

func TestOf(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain", base, Generic},
		{"context canceled alone", context.Canceled, Generic},
		{"invalid", Invalid(base), InvalidConfig},
		{"wrapped invalid", fmt.Errorf("load: %w", Invalid(base)), InvalidConfig},
		{"thresholds", With(ThresholdsFailed, base), ThresholdsFailed},
		{"first in a join wins", errors.Join(With(ExternalAbort, base), With(ThresholdsFailed, base)), ExternalAbort},
		{"outermost code wins", With(Generic, Invalid(base)), Generic},
		{"or keeps a code", Or(InvalidConfig, fmt.Errorf("sink: %w", With(CannotStartRESTAPI, base))), CannotStartRESTAPI},
		{"or marks a plain error", Or(InvalidConfig, base), InvalidConfig},
		{"verdict kind", fmt.Errorf("run: %w", verdict.As(verdict.ErrThresholds, base)), ThresholdsFailed},
		{"first of a kind and a code", errors.Join(verdict.As(verdict.ErrInterrupted, base), With(ThresholdsFailed, base)), ExternalAbort},
		{"first of a code and a kind", errors.Join(With(ThresholdsFailed, base), verdict.Invalid(base)), ThresholdsFailed},
		{"listen", verdict.Or(verdict.ErrInvalid, verdict.As(verdict.ErrListen, base)), CannotStartRESTAPI},
		{"timeout", verdict.As(verdict.ErrTimeout, base), GenericTimeout},
		{"stopped", verdict.As(verdict.ErrStopped, base), ScriptStoppedFromRESTAPI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, Of(tc.err))
		})
	}
}

func TestWithKeepsMessageAndChain(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	err := Invalid(base)
	require.EqualError(t, err, "boom")
	require.ErrorIs(t, err, base)
	require.Equal(t, InvalidConfig, Of(fmt.Errorf("x: %w", err)))
	require.NoError(t, Invalid(nil))
	require.NoError(t, Or(InvalidConfig, nil))
}

// kindError says how it ended as the libraries' errors do (verdict.Kinded), without a
// code; a nil kind says nothing.
type kindError struct{ kind error }

func (e kindError) Error() string      { return "kind" }
func (e kindError) VerdictKind() error { return e.kind }

// TestOfBehaviours: the libraries' errors get their exit codes here, at the edge, by
// the kind of ending they say (verdict.Kinded).
func TestOfBehaviours(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"config error", fmt.Errorf("load: %w", kindError{verdict.ErrInvalid}), InvalidConfig},
		{"not a config error", kindError{}, Generic},
		{"interrupted", fmt.Errorf("run: %w", kindError{verdict.ErrInterrupted}), ExternalAbort},
		{"timed out", fmt.Errorf("barrier: %w", kindError{verdict.ErrTimeout}), GenericTimeout},
		{"outer code wins", With(ThresholdsFailed, kindError{verdict.ErrTimeout}), ThresholdsFailed},
		{"first in a join wins", errors.Join(base, kindError{verdict.ErrTimeout}, Invalid(base)), GenericTimeout},
		{"or keeps a behaviour", Or(InvalidConfig, fmt.Errorf("x: %w", kindError{verdict.ErrTimeout})), GenericTimeout},
		{"setup timeout", fmt.Errorf("x: %w", kindError{verdict.ErrSetupTimeout}), SetupTimeout},
		{"teardown timeout", kindError{verdict.ErrTeardownTimeout}, TeardownTimeout},
		{"script exception", fmt.Errorf("init: %w", kindError{verdict.ErrScriptException}), ScriptException},
		{"aborted", fmt.Errorf("run: %w", kindError{verdict.ErrScriptAborted}), ScriptAborted},
		{"marked as failed", kindError{verdict.ErrMarkedFailed}, MarkedAsFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, Of(tc.err))
		})
	}
}
