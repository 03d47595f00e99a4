package minifluss

import "github.com/inlet-db/inlet/catalog/fluss/record"

// projectBatches applies FetchLog projection pushdown to ARROW batches the
// way the tablet server does (spec §3.6, record.ProjectArrowBatches): the
// CRC is left stale and statistics are dropped.
func projectBatches(t *table, data []byte, proj []int32) ([]byte, error) {
	if len(t.Schemas) > 0 {
		return projectBatchesBySchema(t, data, proj)
	}
	cols := t.columns()
	pos := make([]int, len(proj))
	for i, p := range proj {
		pos[i] = int(p)
	}
	out, err := record.ProjectArrowBatches(nil, data, cols, pos)
	if err != nil {
		return nil, ferr(codeInvalidColumnProj, "%s: projection %v: %v", t.path(), proj, err)
	}
	return out, nil
}
