// Package verdict names how a run or a command ended when it did not simply succeed:
// a bad configuration, an interruption, crossed thresholds, a timeout. Library packages
// return these kinds; only the command maps a kind to its process exit code.
package verdict

import "errors"

// The kinds of an ending.
var (
	// ErrInvalid is a flag, option, scenario or configuration that cannot be used as
	// given.
	ErrInvalid = errors.New("invalid configuration")
	// ErrInterrupted is a run or wait ended by SIGINT or SIGTERM.
	ErrInterrupted = errors.New("interrupted")
	// ErrStopped is a run stopped through the REST API.
	ErrStopped = errors.New("stopped through the REST API")
	// ErrListen is a REST API that could not listen on its address.
	ErrListen = errors.New("cannot start the REST API")
	// ErrThresholds is a run whose thresholds were crossed (or stopped by abortOnFail).
	ErrThresholds = errors.New("thresholds crossed")
	// ErrTimeout is a time limit that ran out, other than setup's and teardown's.
	ErrTimeout = errors.New("timed out")
	// ErrScriptException is a script that failed itself: a syntax error, an exception
	// in the init context or a lifecycle function, an unknown module.
	ErrScriptException = errors.New("script exception")
	// ErrSetupTimeout and ErrTeardownTimeout are setup() and teardown() not finishing
	// within their time limits.
	ErrSetupTimeout    = errors.New("setup timed out")
	ErrTeardownTimeout = errors.New("teardown timed out")
	// ErrScriptAborted is a run the script stopped (test.abort()).
	ErrScriptAborted = errors.New("aborted by the script")
	// ErrMarkedFailed is a run the script marked as failed (test.fail()).
	ErrMarkedFailed = errors.New("marked as failed by the script")
	// ErrNotDelivered is a run whose series did not all reach a remote-write receiver.
	ErrNotDelivered = errors.New("series not delivered")
)

// Kinded is an error that says how a run or command ended: one of the kinds above. A
// library's own error types implement it; *Error does for any error given a kind.
type Kinded interface {
	VerdictKind() error
}

// Error is Err ended as Kind. Its message is Err's; errors.Is(e, Kind) holds.
type Error struct {
	Kind error
	Err  error
}

// Error returns Err's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// VerdictKind returns the kind.
func (e *Error) VerdictKind() error { return e.Kind }

// Is reports whether target is the kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// As gives err the kind; a nil err stays nil.
func As(kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

// Invalid is As(ErrInvalid, err).
func Invalid(err error) error { return As(ErrInvalid, err) }

// Or gives err the kind unless it already has one (an *Error, or an error that carries
// its own exit code, in its chain), which stays.
func Or(kind, err error) error {
	var e *Error
	var c interface{ ExitCode() int }
	if errors.As(err, &e) || errors.As(err, &c) {
		return err
	}
	return As(kind, err)
}

// KindOf returns the kind the first verdict.Kinded error in err's chain says, or nil.
func KindOf(err error) error {
	var k Kinded
	if errors.As(err, &k) {
		return k.VerdictKind()
	}
	return nil
}

// Of returns the kind of the first *Error in err's chain, or nil.
func Of(err error) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return nil
}
