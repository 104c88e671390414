package restapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/tidemark/tidemark/internal/engine"
	"github.com/tidemark/tidemark/internal/executor"
)

// ExecutionStatus is k6's numeric run stage, the "status" attribute of /v1/status.
// NOTE(restapi): 4 (paused before the run) and 7 (running) are recorded from k6 v1.8.1;
// the other values follow the same order as k6's documented stages and are not
// verified against the binary.
type ExecutionStatus int

// The run stages, in the order a run passes them.
const (
	StatusCreated         ExecutionStatus = 0
	StatusInitVUs         ExecutionStatus = 1
	StatusInitExecutors   ExecutionStatus = 2
	StatusInitDone        ExecutionStatus = 3
	StatusPausedBeforeRun ExecutionStatus = 4
	StatusStarted         ExecutionStatus = 5
	StatusSetup           ExecutionStatus = 6
	StatusRunning         ExecutionStatus = 7
	StatusTeardown        ExecutionStatus = 8
	StatusEnded           ExecutionStatus = 9
	StatusInterrupted     ExecutionStatus = 10
)

// Status is the state /v1/status reports.
type Status struct {
	// Stage is k6's numeric run stage.
	Stage ExecutionStatus
	// Paused is true while the run waits on --paused or a pause over the API.
	Paused bool
	// VUs are the active VUs now; VUsMax the initialised ones.
	VUs, VUsMax int64
	// Stopped is true once a stop was asked for over the API.
	Stopped bool
	// Running is true from the start of the scenarios until they end.
	Running bool
	// Tainted is true once a threshold has failed.
	Tainted bool
}

// StatusUpdate is a PATCH of /v1/status: nil fields are left as they are.
type StatusUpdate struct {
	Paused      *bool
	VUs, VUsMax *int64
	Stopped     *bool
}

// Controller is the run as the REST API sees it. Its methods are called concurrently
// from HTTP handlers.
type Controller interface {
	// Status returns the run's state now.
	Status() Status
	// SetStatus applies a change. As k6 v1.8.1 does, it applies Paused first, then
	// VUs and VUsMax (a refused VU change leaves the pause or resume applied). The
	// handler has already dropped stopped:false and reduced an update with
	// stopped:true to only that field, as k6 ignores the rest then. Errors should
	// be built with ConfigError, ExecutionConfigError or PauseError to reach the client
	// with k6's status and title; any other error is answered as a 500 "Pause error"
	// when the update was a pause or a resume, else as a 500 "Status update error".
	SetStatus(ctx context.Context, u StatusUpdate) error
}

// Error is an API error with k6's JSON:API error shape:
// {"errors":[{"status":"<Code>","title":Title,"detail":Err.Error()}]}.
type Error struct {
	Code  int
	Title string
	Err   error
}

// Error returns the detail.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrNotExternallyControlled is k6's answer to a change of vus or vus-max in a run
// without an externally-controlled executor.
var ErrNotExternallyControlled = engine.ErrNotExternallyControlled

// ErrAlreadyPaused is k6's answer to a pause while the run waits on --paused.
var ErrAlreadyPaused = errors.New("execution is already paused")

// ErrPausedAlready is k6's answer to a pause of a started run that is paused.
var ErrPausedAlready = executor.ErrPausedAlready

// ErrNotPaused is k6's answer to a resume of a started run that is not paused.
var ErrNotPaused = executor.ErrNotPaused

// ConfigError wraps err as k6's 400 "Config update error" (an invalid vus or vus-max).
func ConfigError(err error) error {
	return &Error{Code: http.StatusBadRequest, Title: "Config update error", Err: err}
}

// ExecutionConfigError wraps err as k6's 500 "Execution config error", as for
// ErrNotExternallyControlled.
func ExecutionConfigError(err error) error {
	return &Error{Code: http.StatusInternalServerError, Title: "Execution config error", Err: err}
}

// PauseError wraps err as k6's 500 "Pause error".
func PauseError(err error) error {
	return &Error{Code: http.StatusInternalServerError, Title: "Pause error", Err: err}
}

// NotPausableError is k6's pause error for an executor that cannot pause or resume
// once it has started (every executor but externally-controlled), e.g. kind
// "constant-vus" and scenario "default".
func NotPausableError(kind, scenario string) error {
	return PauseError(fmt.Errorf("%s executor '%s' doesn't support pause and resume operations after its start", kind, scenario))
}

// CheckVUs validates an externally controlled run's new active and maximum VUs as k6
// does, returning a ConfigError with k6's text. vus and vusMax are the values after
// the update (the configured ones where the update leaves them alone).
func CheckVUs(vus, vusMax int64) error {
	if vus < 0 {
		return ConfigError(errors.New("invalid configuration supplied: the number of VUs can't be negative"))
	}
	if vus > vusMax {
		return ConfigError(fmt.Errorf("invalid configuration supplied: the number of active VUs (%d) must be less than or equal to the number of maxVUs (%d)", vus, vusMax))
	}
	return nil
}
