package client

import (
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/proto/flussapi"
)

// Sentinel kinds. A server-reported failure is an *Error; errors.Is matches it
// against the kind its code belongs to, so callers can branch on kinds without
// knowing codes, and errors.As still gives them the code and message.
var (
	// ErrNotLeader: the bucket's leader moved or is not elected (codes 12, 44, 21).
	ErrNotLeader = errors.New("fluss: not the bucket leader")
	// ErrDatabaseNotExist: code 4.
	ErrDatabaseNotExist = errors.New("fluss: database does not exist")
	// ErrTableNotExist: code 7.
	ErrTableNotExist = errors.New("fluss: table does not exist")
	// ErrPartitionNotExist: code 36.
	ErrPartitionNotExist = errors.New("fluss: partition does not exist")
	// ErrTableNotPartitioned: code 37, a partition RPC on a non-partitioned table.
	ErrTableNotPartitioned = errors.New("fluss: table is not partitioned")
	// ErrNonPrimaryKeyTable: code 20, a primary-key RPC on a log table.
	ErrNonPrimaryKeyTable = errors.New("fluss: table has no primary key")
	// ErrOffsetOutOfRange: code 19, the requested log offset is no longer (or not yet) kept.
	ErrOffsetOutOfRange = errors.New("fluss: log offset out of range")
	// ErrLakeSnapshotNotExist: code 53.
	ErrLakeSnapshotNotExist = errors.New("fluss: lake snapshot does not exist")
	// ErrKvSnapshotNotExist: code 41.
	ErrKvSnapshotNotExist = errors.New("fluss: kv snapshot does not exist")
	// ErrAuthentication: codes 46, 51 and 48, or a SASL exchange that failed.
	ErrAuthentication = errors.New("fluss: authentication failed")
	// ErrScannerGone: the server-side KV scanner expired or is unknown (66, 67).
	ErrScannerGone = errors.New("fluss: kv scanner expired")
	// ErrUnsupported: the server does not offer an API or version this client needs,
	// or the client does not implement a feature the data needs.
	ErrUnsupported = errors.New("fluss: unsupported")
	// ErrTimeout: a request got no answer in time.
	ErrTimeout = errors.New("fluss: request timed out")
	// ErrConnection: the TCP connection failed or was closed.
	ErrConnection = errors.New("fluss: connection failed")
	// ErrProtocol: the peer sent bytes that do not follow the Fluss protocol.
	ErrProtocol = errors.New("fluss: protocol violation")
	// ErrClosed: the client or pool was closed.
	ErrClosed = errors.New("fluss: client closed")
	// ErrLogExpired: the requested log range is gone from Fluss: the server
	// answered an offset below its local log start with nothing (data tiered
	// to the lake) and no remote segment covers it.
	ErrLogExpired = errors.New("fluss: part of the log has expired")
	// ErrConfig: a client property is missing or invalid.
	ErrConfig = errors.New("fluss: invalid client configuration")
)

// Error is a failure reported by a Fluss server, either for a whole request
// (an ERROR or SERVER_FAILURE frame) or for one bucket inside a response.
// Message is the server's text; it never contains client secrets.
type Error struct {
	Code    int32  // Fluss error code (flussapi constants)
	Message string // server's message, may be empty
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("fluss error %d %s", e.Code, flussapi.ErrorName(e.Code))
	}
	return fmt.Sprintf("fluss error %d %s: %s", e.Code, flussapi.ErrorName(e.Code), e.Message)
}

// Is reports whether the code belongs to the sentinel kind target.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotLeader:
		return e.Code == flussapi.NotLeaderOrFollower || e.Code == flussapi.LeaderNotAvailable ||
			e.Code == flussapi.UnknownTableOrBucket || e.Code == flussapi.FencedLeaderEpoch
	case ErrDatabaseNotExist:
		return e.Code == flussapi.DatabaseNotExist
	case ErrTableNotExist:
		return e.Code == flussapi.TableNotExist
	case ErrPartitionNotExist:
		return e.Code == flussapi.PartitionNotExists
	case ErrTableNotPartitioned:
		return e.Code == flussapi.TableNotPartitioned
	case ErrNonPrimaryKeyTable:
		return e.Code == flussapi.NonPrimaryKeyTable
	case ErrOffsetOutOfRange:
		return e.Code == flussapi.LogOffsetOutOfRange
	case ErrLakeSnapshotNotExist:
		return e.Code == flussapi.LakeSnapshotNotExist
	case ErrKvSnapshotNotExist:
		return e.Code == flussapi.KvSnapshotNotExist
	case ErrAuthentication:
		return e.Code == flussapi.AuthenticateException || e.Code == flussapi.RetriableAuthenticate ||
			e.Code == flussapi.AuthorizationException
	case ErrScannerGone:
		return e.Code == flussapi.ScannerExpired || e.Code == flussapi.UnknownScannerID
	case ErrUnsupported:
		return e.Code == flussapi.UnsupportedVersion
	case ErrTimeout:
		return e.Code == flussapi.RequestTimeOut
	}
	return false
}

// codeError turns a per-bucket (code, message) pair into an error, nil for 0.
func codeError(code *int32, msg *string) error {
	if code == nil || *code == flussapi.None {
		return nil
	}
	e := &Error{Code: *code}
	if msg != nil {
		e.Message = *msg
	}
	return e
}
