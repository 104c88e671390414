package js

import (
	"errors"
	"fmt"
	"time"

	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
	"github.com/tidemark/tidemark/internal/verdict"
)

// TimeoutError is a lifecycle function that did not finish in time (the command exits
// as k6 does: 100 for setup, 101 for teardown, 107 for handleSummary).
type TimeoutError struct {
	Func    string
	Timeout time.Duration
}

// Error says which function and which limit.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s() did not finish within %s (%sTimeout)", e.Func, e.Timeout, e.Func)
}

// VerdictKind says whose time limit ran out: setup's or teardown's, else (another
// function of the script's) a script exception.
func (e *TimeoutError) VerdictKind() error {
	switch e.Func {
	case "setup":
		return verdict.ErrSetupTimeout
	case "teardown":
		return verdict.ErrTeardownTimeout
	}
	return verdict.ErrScriptException
}

// ScriptError is an error of the script itself: a syntax error, an exception in the
// init context, setup, teardown or handleSummary, an unknown module (exit code 107).
type ScriptError struct {
	// Msg names the place (file:line:column) and the error.
	Msg string
	// File, Line and Column locate a syntax error; zero when unknown.
	File         string
	Line, Column int
	// Err is the underlying error, if any.
	Err error
}

// Error returns the message.
func (e *ScriptError) Error() string { return e.Msg }

// Unwrap returns the underlying error.
func (e *ScriptError) Unwrap() error { return e.Err }

// VerdictKind says the script itself failed.
func (e *ScriptError) VerdictKind() error { return verdict.ErrScriptException }

// AbortedError is a run stopped by test.abort() (exit code 108).
type AbortedError struct {
	*modules.AbortError
}

// VerdictKind says the script stopped the run.
func (e *AbortedError) VerdictKind() error { return verdict.ErrScriptAborted }

// Unwrap returns the abort.
func (e *AbortedError) Unwrap() error { return e.AbortError }

// MarkedFailedError is a run that test.fail() marked as failed (exit code 110).
type MarkedFailedError struct {
	Reason string
}

// Error names the first reason given.
func (e *MarkedFailedError) Error() string {
	if e.Reason == "" {
		return "test marked as failed"
	}
	return "test marked as failed: " + e.Reason
}

// VerdictKind says the script marked the run as failed.
func (e *MarkedFailedError) VerdictKind() error { return verdict.ErrMarkedFailed }

// ConfigError is a script, an archive or options that cannot be run as given: the
// command reports it as a bad configuration (exit code 104).
type ConfigError struct{ Err error }

// Error returns the wrapped error's message.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ConfigError) Unwrap() error { return e.Err }

// VerdictKind says the script cannot be run as given.
func (e *ConfigError) VerdictKind() error { return verdict.ErrInvalid }

// invalid wraps err in a *ConfigError; a nil err stays nil.
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return &ConfigError{Err: err}
}

// InterruptedError is a run that SIGINT or SIGTERM stopped while the script's VUs were
// being initialized or a lifecycle function ran (exit code 105).
type InterruptedError struct{ Err error }

// Error returns the wrapped error's message.
func (e *InterruptedError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InterruptedError) Unwrap() error { return e.Err }

// VerdictKind says the run was stopped from outside.
func (e *InterruptedError) VerdictKind() error { return verdict.ErrInterrupted }

// interrupted wraps err in an *InterruptedError; a nil err stays nil.
func interrupted(err error) error {
	if err == nil {
		return nil
	}
	return &InterruptedError{Err: err}
}

// scriptError turns an error of the runtime into a ScriptError (or an AbortedError for
// test.abort) that names where it happened: "what: message\n\tat stack".
func scriptError(what string, err error) error {
	if err == nil {
		return nil
	}
	if ab, ok := abortOf(err); ok {
		return &AbortedError{ab}
	}
	if se, ok := errors.AsType[*ScriptError](err); ok {
		return se
	}
	msg := err.Error()
	if ex, ok := errors.AsType[*sobek.Exception](err); ok {
		msg = ex.String()
	}
	return &ScriptError{Msg: what + ": " + msg, Err: err}
}

// abortOf finds the AbortError of test.abort() in err.
func abortOf(err error) (*modules.AbortError, bool) {
	if ie, ok := errors.AsType[*sobek.InterruptedError](err); ok {
		if ab, ok := ie.Value().(*modules.AbortError); ok {
			return ab, true
		}
	}
	return errors.AsType[*modules.AbortError](err)
}
