package minifluss

import "errors"

// errNeedsRecordCodec is returned by the paths that need the log codec of
// catalog/fluss/record which is not wired in yet.
var errNeedsRecordCodec = errors.New("minifluss: this path needs the catalog/fluss/record codec, not wired in this build")

func projectBatches(t *table, data []byte, proj []int32) ([]byte, error) {
	return nil, ferr(codeInvalidColumnProj, "%s: projection pushdown: %v", t.path(), errNeedsRecordCodec)
}

func (c *Cluster) encodeChangelog(t *table, rows []changeRow) ([]byte, error) {
	return nil, errNeedsRecordCodec
}

func (c *Cluster) checkRow(t *table, row []byte) error { return nil }
