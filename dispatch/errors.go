package dispatch

import (
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// Sentinel kinds, one per inletpb.ScanError code, so the FE classifies a BE
// error with errors.Is and never parses its text.
var (
	ErrInternal          = errors.New("BE internal error")
	ErrCancelled         = errors.New("BE cancelled the fragment")
	ErrNotFound          = errors.New("BE could not find the data")
	ErrInvalid           = errors.New("BE rejected the fragment")
	ErrUnsupported       = errors.New("BE does not support the fragment")
	ErrResourceExhausted = errors.New("BE resources exhausted")
	ErrUnavailable       = errors.New("data source unavailable to the BE")
	ErrLogExpired        = errors.New("log expired in Fluss")
	ErrTailTooLarge      = errors.New("union read tail too large")
)

// Errors of the dispatch layer itself.
var (
	// ErrBackendLost: a BE stopped answering mid-query (crash, network)
	// and its unfinished ranges could not be re-run exactly elsewhere.
	ErrBackendLost = errors.New("BE lost")
	// ErrNoBackends: no live BE to send the fragment to.
	ErrNoBackends = errors.New("no live BE")
	// ErrAuth: a BE refused the cluster secret (FE and BE disagree).
	ErrAuth = errors.New("BE refused the cluster secret")
	// ErrProtocol: a BE's stream broke the FE↔BE contract.
	ErrProtocol = errors.New("FE/BE protocol violation")
)

var codeErrs = map[inletpb.ScanError_Code]error{
	inletpb.ScanError_INTERNAL:           ErrInternal,
	inletpb.ScanError_CANCELLED:          ErrCancelled,
	inletpb.ScanError_NOT_FOUND:          ErrNotFound,
	inletpb.ScanError_INVALID:            ErrInvalid,
	inletpb.ScanError_UNSUPPORTED:        ErrUnsupported,
	inletpb.ScanError_RESOURCE_EXHAUSTED: ErrResourceExhausted,
	inletpb.ScanError_UNAVAILABLE:        ErrUnavailable,
	inletpb.ScanError_LOG_EXPIRED:        ErrLogExpired,
	inletpb.ScanError_TAIL_TOO_LARGE:     ErrTailTooLarge,
}

// Sentinel returns the sentinel error of a ScanError code (ErrInternal for
// an unknown one).
func Sentinel(c inletpb.ScanError_Code) error {
	if e, ok := codeErrs[c]; ok {
		return e
	}
	return ErrInternal
}

// BackendError is a failure a BE reported with its code. Error is the BE's
// message unchanged (the spec's error texts are built on the BE and must
// reach the user as they are); errors.Is matches the code's sentinel and,
// for an in-process BE, the original error too.
type BackendError struct {
	Backend string
	Code    inletpb.ScanError_Code
	Message string
	cause   error
}

func (e *BackendError) Error() string { return e.Message }

func (e *BackendError) Unwrap() []error {
	if e.cause != nil {
		return []error{Sentinel(e.Code), e.cause}
	}
	return []error{Sentinel(e.Code)}
}

// Code returns the ScanError code an error carries (INTERNAL when it
// carries none).
func Code(err error) inletpb.ScanError_Code {
	var be *BackendError
	if errors.As(err, &be) {
		return be.Code
	}
	for c, s := range codeErrs {
		if errors.Is(err, s) {
			return c
		}
	}
	return inletpb.ScanError_INTERNAL
}

// lostError marks a stream that broke below the application: the BE died,
// the connection dropped, or the stream ended without its last message.
type lostError struct {
	backend string
	err     error
}

func (e *lostError) Error() string {
	return fmt.Sprintf("BE %s: stream broken: %v", e.backend, e.err)
}

func (e *lostError) Unwrap() []error { return []error{ErrBackendLost, e.err} }

func isLost(err error) bool {
	var le *lostError
	return errors.As(err, &le)
}
