package minifluss

import (
	"errors"
	"fmt"
)

// Fluss error codes (spec §1.7) used by the emulator.
const (
	codeNone                 int32 = 0
	codeUnknownServerError   int32 = -1
	codeUnsupportedVersion   int32 = 2
	codeCorruptMessage       int32 = 3
	codeDatabaseNotExist     int32 = 4
	codeDatabaseNotEmpty     int32 = 5
	codeDatabaseAlreadyExist int32 = 6
	codeTableNotExist        int32 = 7
	codeTableAlreadyExist    int32 = 8
	codeSchemaNotExist       int32 = 9
	codeNotLeaderOrFollower  int32 = 12
	codeCorruptRecord        int32 = 14
	codeInvalidTable         int32 = 15
	codeInvalidDatabase      int32 = 16
	codeLogOffsetOutOfRange  int32 = 19
	codeLogStorage           int32 = 10
	codeKvStorage            int32 = 11
	codeNonPrimaryKeyTable   int32 = 20
	codeUnknownTableOrBucket int32 = 21
	codeInvalidColumnProj    int32 = 34
	codePartitionNotExists   int32 = 36
	codeTableNotPartitioned  int32 = 37
	codeInvalidTimestamp     int32 = 38
	codeInvalidConfig        int32 = 39
	codeKvSnapshotNotExist   int32 = 41
	codePartitionExists      int32 = 42
	codePartitionSpecInvalid int32 = 43
	codeAuthenticate         int32 = 46
	codeLakeSnapshotNotExist int32 = 53
	codeUnknownScannerID     int32 = 67
	codeInvalidScanRequest   int32 = 68
	codeTooManyScanners      int32 = 69
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
