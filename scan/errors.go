package scan

import (
	"context"
	"errors"
	"io/fs"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/unionread"
)

var (
	// ErrInvalid: the fragment is malformed (unknown range type, bad
	// offsets, a column index out of range, a schema that does not parse).
	ErrInvalid = errors.New("scan: invalid fragment")
	// ErrUnsupported: the fragment asks for something this BE cannot do.
	ErrUnsupported = errors.New("scan: unsupported")
)

// ErrorCode maps an error of Execute or of its stream to the code that
// crosses FE↔BE, so the Flight layer never parses text.
func ErrorCode(err error) inletpb.ScanError_Code {
	switch {
	case err == nil:
		return inletpb.ScanError_INTERNAL
	case errors.Is(err, unionread.ErrTailTooLarge):
		return inletpb.ScanError_TAIL_TOO_LARGE
	case errors.Is(err, client.ErrLogExpired), errors.Is(err, client.ErrOffsetOutOfRange):
		return inletpb.ScanError_LOG_EXPIRED
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return inletpb.ScanError_CANCELLED
	case errors.Is(err, ErrInvalid), errors.Is(err, client.ErrConfig):
		return inletpb.ScanError_INVALID
	case errors.Is(err, ErrUnsupported), errors.Is(err, client.ErrUnsupported), errors.Is(err, unionread.ErrKeyType),
		errors.Is(err, iceberg.ErrUnsupported):
		return inletpb.ScanError_UNSUPPORTED
	case errors.Is(err, client.ErrTableNotExist), errors.Is(err, client.ErrPartitionNotExist),
		errors.Is(err, client.ErrDatabaseNotExist), errors.Is(err, fs.ErrNotExist):
		return inletpb.ScanError_NOT_FOUND
	case errors.Is(err, client.ErrNotLeader), errors.Is(err, client.ErrConnection), errors.Is(err, client.ErrTimeout),
		errors.Is(err, client.ErrClosed), errors.Is(err, client.ErrScannerGone):
		return inletpb.ScanError_UNAVAILABLE
	case errors.Is(err, paimon.ErrCorrupt):
		return inletpb.ScanError_INTERNAL
	}
	return inletpb.ScanError_INTERNAL
}

// transient reports whether a read may be retried.
func transient(err error) bool {
	return errors.Is(err, client.ErrNotLeader) || errors.Is(err, client.ErrConnection) ||
		errors.Is(err, client.ErrTimeout) || errors.Is(err, client.ErrScannerGone)
}
