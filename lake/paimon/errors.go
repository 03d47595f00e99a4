package paimon

import "errors"

// Error kinds. Errors returned by this package wrap one of these and name
// the table, file, column or option concerned.
var (
	// ErrCorrupt: bytes or metadata that do not decode.
	ErrCorrupt = errors.New("paimon: corrupt data")
	// ErrUnsupported: a valid feature this reader does not handle.
	ErrUnsupported = errors.New("paimon: unsupported")
	// ErrNotFound: a table, snapshot or schema that does not exist.
	ErrNotFound = errors.New("paimon: not found")
)
