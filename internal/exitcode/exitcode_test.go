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

// behaviourError says what went wrong as the libraries' errors do, without a code.
type behaviourError struct {
	invalid bool
}

func (e behaviourError) Error() string       { return "behaviour" }
func (e behaviourError) InvalidConfig() bool { return e.invalid }

type interruptedError struct{ behaviourError }

func (e interruptedError) InvalidConfig() bool { return false }
func (e interruptedError) Interrupted() bool   { return true }

type scriptError struct{ fn string }

func (e scriptError) Error() string         { return "script" }
func (e scriptError) ScriptException() bool { return e.fn == "" }
func (e scriptError) TimeoutOf() string     { return e.fn }

type abortedError struct{}

func (abortedError) Error() string { return "aborted" }
func (abortedError) Aborted() bool { return true }

type markedError struct{}

func (markedError) Error() string      { return "marked" }
func (markedError) MarkedFailed() bool { return true }

type timedOutError struct{}

func (timedOutError) Error() string  { return "timed out" }
func (timedOutError) TimedOut() bool { return true }

// TestOfBehaviours: the libraries' errors get their exit codes here, at the edge, by
// what they say went wrong.
func TestOfBehaviours(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"config error", fmt.Errorf("load: %w", behaviourError{invalid: true}), InvalidConfig},
		{"not a config error", behaviourError{}, Generic},
		{"interrupted", fmt.Errorf("run: %w", interruptedError{}), ExternalAbort},
		{"timed out", fmt.Errorf("barrier: %w", timedOutError{}), GenericTimeout},
		{"outer code wins", With(ThresholdsFailed, timedOutError{}), ThresholdsFailed},
		{"first in a join wins", errors.Join(base, timedOutError{}, Invalid(base)), GenericTimeout},
		{"or keeps a behaviour", Or(InvalidConfig, fmt.Errorf("x: %w", timedOutError{})), GenericTimeout},
		{"setup timeout", fmt.Errorf("x: %w", &scriptError{fn: "setup"}), SetupTimeout},
		{"teardown timeout", &scriptError{fn: "teardown"}, TeardownTimeout},
		{"handleSummary timeout", scriptError{fn: "handleSummary"}, ScriptException},
		{"script exception", fmt.Errorf("init: %w", scriptError{}), ScriptException},
		{"aborted", fmt.Errorf("run: %w", abortedError{}), ScriptAborted},
		{"marked as failed", markedError{}, MarkedAsFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, Of(tc.err))
		})
	}
}
