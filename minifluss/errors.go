package minifluss

import (
	"errors"
	"fmt"

	"github.com/inlet-db/inlet/proto/flussapi"
)

// Fluss error codes (spec §1.7) the emulator answers, from proto/flussapi.
const (
	codeNone                 = flussapi.None
	codeUnknownServerError   = flussapi.UnknownServerError
	codeUnsupportedVersion   = flussapi.UnsupportedVersion
	codeCorruptMessage       = flussapi.CorruptMessage
	codeDatabaseNotExist     = flussapi.DatabaseNotExist
	codeDatabaseNotEmpty     = flussapi.DatabaseNotEmpty
	codeDatabaseAlreadyExist = flussapi.DatabaseAlreadyExist
	codeTableNotExist        = flussapi.TableNotExist
	codeTableAlreadyExist    = flussapi.TableAlreadyExist
	codeSchemaNotExist       = flussapi.SchemaNotExist
	codeLogStorage           = flussapi.LogStorageException
	codeKvStorage            = flussapi.KvStorageException
	codeNotLeaderOrFollower  = flussapi.NotLeaderOrFollower
	codeCorruptRecord        = flussapi.CorruptRecord
	codeInvalidTable         = flussapi.InvalidTable
	codeInvalidDatabase      = flussapi.InvalidDatabase
	codeLogOffsetOutOfRange  = flussapi.LogOffsetOutOfRange
	codeNonPrimaryKeyTable   = flussapi.NonPrimaryKeyTable
	codeUnknownTableOrBucket = flussapi.UnknownTableOrBucket
	codeInvalidColumnProj    = flussapi.InvalidColumnProjection
	codePartitionNotExists   = flussapi.PartitionNotExists
	codeTableNotPartitioned  = flussapi.TableNotPartitioned
	codeInvalidTimestamp     = flussapi.InvalidTimestamp
	codeInvalidConfig        = flussapi.InvalidConfig
	codeKvSnapshotNotExist   = flussapi.KvSnapshotNotExist
	codePartitionExists      = flussapi.PartitionAlreadyExists
	codePartitionSpecInvalid = flussapi.PartitionSpecInvalid
	codeAuthenticate         = flussapi.AuthenticateException
	codeLakeSnapshotNotExist = flussapi.LakeSnapshotNotExist
	codeUnknownScannerID     = flussapi.UnknownScannerID
	codeScannerExpired       = flussapi.ScannerExpired
	codeInvalidScanRequest   = flussapi.InvalidScanRequest
	codeTooManyScanners      = flussapi.TooManyScanners
)

// Error is a Fluss protocol error: a code from the table above and a message.
// Go-API callers can match codes with errors.As.
type Error struct {
	Code    int32
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("fluss error %d: %s", e.Code, e.Message) }

func ferr(code int32, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// asFluss converts any error into a protocol error; unknown errors become
// UNKNOWN_SERVER_ERROR with their text.
func asFluss(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	return &Error{Code: codeUnknownServerError, Message: err.Error()}
}
