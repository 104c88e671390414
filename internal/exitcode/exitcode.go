// Package exitcode holds the process exit codes Tidemark shares with k6 (reference/k6.md
// §3.4) and the one rule that maps an error to them. Library packages return errors of
// a verdict kind (internal/verdict); subcommands return errors; only main turns them
// into an exit code, through Of.
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
	var c Coder
	if errors.As(err, &c) {
		return err
	}
	return With(code, err)
}

// Of returns the exit code for err: OK for nil, else that of the first error in its
// chain (in the order errors.As walks it) that has one, a Coder or a verdict kind
// (Kind), else Generic.
func Of(err error) int {
	if err == nil {
		return OK
	}
	if code, ok := codeOf(err); ok {
		return code
	}
	return Generic
}

// Kind is the exit code of a verdict kind, which library packages return instead of
// a code.
func Kind(kind error) int {
	switch kind {
	case verdict.ErrInvalid:
		return InvalidConfig
	case verdict.ErrInterrupted:
		return ExternalAbort
	case verdict.ErrStopped:
		return ScriptStoppedFromRESTAPI
	case verdict.ErrListen:
		return CannotStartRESTAPI
	case verdict.ErrThresholds:
		return ThresholdsFailed
	case verdict.ErrTimeout:
		return GenericTimeout
	}
	return Generic
}

// codeOf walks err's chain as errors.As does.
func codeOf(err error) (int, bool) {
	switch e := err.(type) { //nolint:errorlint // each link of the chain is looked at, in order
	case *verdict.Error:
		return Kind(e.Kind), true
	case Coder:
		return e.ExitCode(), true
	}
	switch u := err.(type) { //nolint:errorlint // the walk itself
	case interface{ Unwrap() error }:
		if next := u.Unwrap(); next != nil {
			return codeOf(next)
		}
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if code, ok := codeOf(e); ok {
				return code, true
			}
		}
	}
	return 0, false
}
