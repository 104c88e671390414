// Package exitcode holds the process exit codes Tidemark shares with k6 (reference/k6.md
// §3.4) and the one rule that maps an error to them. Library packages return errors of
// a verdict kind (internal/verdict) or errors that say what went wrong (InvalidConfig,
// Interrupted, TimedOut, a script's own); subcommands return errors; only main turns
// them into an exit code, through Of.
package exitcode

import (
	"errors"

	"github.com/tidemark/tidemark/internal/verdict"
)

// The exit codes, as k6 uses them (k6 errext/exitcodes).
const (
	// OK is a run or command that did what it was asked.
	OK = 0
	// GenericTimeout is a time limit other than setup's and teardown's that ran out,
	// e.g. the start barrier's --start-timeout.
	GenericTimeout = 102
	// ThresholdsFailed is a run whose thresholds were crossed, or stopped by abortOnFail.
	ThresholdsFailed = 99
	// InvalidConfig is a bad command line, configuration, catalog or scenario file.
	InvalidConfig = 104
	// ScriptStoppedFromRESTAPI is a run stopped by PATCH /v1/status {"stopped": true}.
	ScriptStoppedFromRESTAPI = 103
	// ExternalAbort is a run interrupted by SIGINT or SIGTERM.
	ExternalAbort = 105
	// CannotStartRESTAPI is a REST API that could not listen on its --address.
	CannotStartRESTAPI = 106
	// Generic is every other failure.
	Generic = 255

	// SetupTimeout and TeardownTimeout are a script's setup() and teardown() that did
	// not finish within setupTimeout and teardownTimeout.
	SetupTimeout    = 100
	TeardownTimeout = 101
	// ScriptException is a syntax error, an exception in the init context, in setup or
	// in teardown, or an unknown module of a script (reference/k6-js.md §3).
	ScriptException = 107
	// ScriptAborted is a run stopped by the script's test.abort().
	ScriptAborted = 108
	// MarkedAsFailed is a run the script's test.fail() marked as failed.
	MarkedAsFailed = 110
	// NotDelivered is Tidemark's own (k6 has none): a run whose series did not all reach
	// their remote-write receiver, unreachable or refusing them; a run that crossed its
	// thresholds exits 99 all the same.
	NotDelivered = 111
)

// Coder is an error that carries its exit code.
type Coder interface {
	ExitCode() int
}

// Error is an error with an exit code. Its message is Err's.
type Error struct {
	Code int
	Err  error
}

// Error returns the wrapped error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the code.
func (e *Error) ExitCode() int { return e.Code }

var _ Coder = (*Error)(nil)

// With gives err the exit code; a nil err stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Invalid marks err as a configuration error (exit code 104): a flag, a configuration
// file, a catalog or a scenario that cannot be used as given. A nil err stays nil.
func Invalid(err error) error { return With(InvalidConfig, err) }

// Or marks err with code unless it already carries one (a Coder in its chain), which
// stays: a REST API that cannot listen is 106 however deep the error it comes in. A nil
// err stays nil.
func Or(code int, err error) error {
	if _, ok := find(err); ok {
		return err
	}
	return With(code, err)
}

// Of returns the exit code for err: OK for nil, the code of the first error in its
// chain that has one (a Coder, or an error of a library that says what went wrong: a
// configuration error, an interruption or a time limit), else Generic.
func Of(err error) int {
	if err == nil {
		return OK
	}
	if code, ok := find(err); ok {
		return code
	}
	return Generic
}

// Kind is the exit code of a verdict kind, which library packages return instead of
// a code.
func Kind(kind error) int {
	for _, k := range []struct {
		kind error
		code int
	}{
		{verdict.ErrInvalid, InvalidConfig},
		{verdict.ErrInterrupted, ExternalAbort},
		{verdict.ErrStopped, ScriptStoppedFromRESTAPI},
		{verdict.ErrListen, CannotStartRESTAPI},
		{verdict.ErrThresholds, ThresholdsFailed},
		{verdict.ErrTimeout, GenericTimeout},
		{verdict.ErrScriptException, ScriptException},
		{verdict.ErrSetupTimeout, SetupTimeout},
		{verdict.ErrTeardownTimeout, TeardownTimeout},
		{verdict.ErrScriptAborted, ScriptAborted},
		{verdict.ErrMarkedFailed, MarkedAsFailed},
		{verdict.ErrNotDelivered, NotDelivered},
	} {
		if errors.Is(kind, k.kind) {
			return k.code
		}
	}
	return Generic
}

// codeOf returns the exit code err itself has, not looking into its chain: a Coder's,
// or that of the kind a verdict.Kinded error says.
func codeOf(err error) (int, bool) {
	// Each link of the chain is looked at by find: no errors.As here.
	if e, ok := err.(Coder); ok {
		return e.ExitCode(), true
	}
	if e, ok := err.(verdict.Kinded); ok {
		if kind := e.VerdictKind(); kind != nil {
			return Kind(kind), true
		}
	}
	return 0, false
}

// find returns the exit code of the first error in err's chain that has one, in the
// order errors.As visits them (depth first through joined errors).
func find(err error) (int, bool) {
	for err != nil {
		if code, ok := codeOf(err); ok {
			return code, true
		}
		switch u := err.(type) { //nolint:errorlint // the walk itself
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if code, ok := find(e); ok {
					return code, true
				}
			}
			return 0, false
		default:
			return 0, false
		}
	}
	return 0, false
}
