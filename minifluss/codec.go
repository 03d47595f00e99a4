package minifluss

import (
	"errors"
	"fmt"
)

// errNeedsRecordCodec is returned by the paths that need the log codec of
// catalog/fluss/record which is not wired in yet.
var errNeedsRecordCodec = errors.New("minifluss: this path needs the catalog/fluss/record codec, not wired in this build")

func projectBatches(t *table, data []byte, proj []int32) ([]byte, error) {
	return nil, ferr(codeInvalidColumnProj, "%s: projection pushdown: %v", t.path(), errNeedsRecordCodec)
}

func flussBucket(key []byte, n int32) (int32, error) {
	if n == 1 {
		return 0, nil
	}
	return 0, fmt.Errorf("hashing a bucket key over %d buckets: %w", n, errNeedsRecordCodec)
}
