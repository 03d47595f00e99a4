package orc

import "errors"

// Error kinds. Every error returned by this package wraps exactly one of them,
// together with the file offset, stripe, column or stream it concerns.
var (
	// ErrCorrupt reports bytes that do not form a valid ORC file.
	ErrCorrupt = errors.New("orc: corrupt file")
	// ErrUnsupported reports a valid feature this reader does not implement
	// (for example column encryption).
	ErrUnsupported = errors.New("orc: unsupported feature")
	// ErrVersion reports a file format version this reader does not know.
	ErrVersion = errors.New("orc: unsupported file version")
)
