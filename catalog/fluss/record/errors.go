package record

import "errors"

// Error kinds. Every error returned by this package wraps one of these and
// names the field, offset or length that was wrong.
var (
	// ErrCorrupt: the bytes contradict the format (bad CRC, length out of
	// range, malformed varint, offsets out of bounds).
	ErrCorrupt = errors.New("fluss record: corrupt data")
	// ErrUnsupported: valid Fluss data this package does not handle (an
	// unknown magic, an unsupported compression codec, a type not allowed in
	// a key).
	ErrUnsupported = errors.New("fluss record: unsupported")
	// ErrTruncated: the input ends inside a batch. Fetch responses may end
	// with a partial batch; ReadBatches reports it through Truncated instead.
	ErrTruncated = errors.New("fluss record: truncated")
	// ErrInvalid: a value handed to an encoder does not fit its type
	// (wrong Go type, null in a NOT NULL column or a key).
	ErrInvalid = errors.New("fluss record: invalid value")
)
