package physical

import (
	"errors"

	"github.com/inlet-db/inlet/catalog"
)

// ErrNotSupported marks a plan this package cannot run: a join or window
// shape the executor lacks, or a BE-read scan with no Runner to run it.
var ErrNotSupported = errors.New("not supported")

// errorf makes an error of kind whose text is the message alone, so users see
// the same words whatever code the kind is sent with.
func errorf(kind error, format string, args ...any) error {
	return catalog.Errorf(kind, format, args...)
}
