package unionread

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrTailTooLarge: a bucket's tail holds more change records than
// fluss.union_read.max_tail_rows allows.
var ErrTailTooLarge = errors.New("tail too large")

// TailTooLarge builds the error for a tail over its ceiling. The text names
// the property and the way out, as the product spec asks.
func TailTooLarge(tail string, max int64) error {
	return fmt.Errorf("%w: the log tail of %s has more than %d rows (fluss.union_read.max_tail_rows); "+
		"raise fluss.union_read.max_tail_rows or set fluss.union_read.mode = 'disabled' to read from Fluss only",
		ErrTailTooLarge, tail, max)
}

// TailKeys collects the distinct keys of a bucket's tail: every change
// record counts (inserts, updates, deletes alike), since a lake row whose key
// the tail touched in any way is superseded by the tail.
type TailKeys struct {
	name    string
	max     int64
	enc     *KeyEncoder
	set     *KeySet
	buf     []byte
	records int64
}

// NewTailKeys collects keys from batches whose key columns sit at keyCols.
// name describes the tail in errors; max <= 0 means no ceiling.
func NewTailKeys(name string, keyCols []int, max int64) *TailKeys {
	return &TailKeys{name: name, max: max, enc: NewKeyEncoder(keyCols), set: NewKeySet()}
}

// Add takes every row of rec.
func (t *TailKeys) Add(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if t.max > 0 && t.records+int64(n) > t.max {
		return TailTooLarge(t.name, t.max)
	}
	if err := t.enc.Bind(rec); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		t.buf = t.enc.Append(t.buf[:0], i)
		if _, _, err := t.set.Insert(t.buf); err != nil {
			return err
		}
	}
	t.records += int64(n)
	return nil
}

// Records is the number of change records read (FlussUnionTailKeysRead).
func (t *TailKeys) Records() int64 { return t.records }

// Set is the key set; it must not be added to afterwards.
func (t *TailKeys) Set() *KeySet { return t.set }
