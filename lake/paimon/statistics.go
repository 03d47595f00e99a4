package paimon

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/fileio"
)

// Statistics is a table's statistics file (statistics/<name>, named by a
// snapshot's statistics field), which an engine's ANALYZE (Spark's
// ANALYZE TABLE … COMPUTE STATISTICS) writes: the merged record count as
// of snapshot SnapshotID and per column the distinct count, null count
// and lengths. Min and max are kept as the writer's serialized text; they
// are not read here (the manifests give bounds).
type Statistics struct {
	SnapshotID        int64                    `json:"snapshotId"`
	SchemaID          int64                    `json:"schemaId"`
	MergedRecordCount *int64                   `json:"mergedRecordCount,omitempty"`
	MergedRecordSize  *int64                   `json:"mergedRecordSize,omitempty"`
	ColStats          map[string]ColStatistics `json:"colStats"`
}

// ColStatistics is one column's entry of a statistics file; absent
// figures are nil.
type ColStatistics struct {
	DistinctCount *int64 `json:"distinctCount,omitempty"`
	NullCount     *int64 `json:"nullCount,omitempty"`
	AvgLen        *int64 `json:"avgLen,omitempty"`
	MaxLen        *int64 `json:"maxLen,omitempty"`
}

// maxStatisticsFile bounds a statistics file read whole: a few hundred
// bytes per column.
const maxStatisticsFile = 16 << 20

// Statistics reads the statistics file snap names; nil (no error) when it
// names none.
func (t *Table) Statistics(ctx context.Context, snap *Snapshot) (*Statistics, error) {
	if snap.Statistics == nil || *snap.Statistics == "" {
		return nil, nil
	}
	name := *snap.Statistics
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return nil, fmt.Errorf("%w: table %s: snapshot-%d names statistics file %q", ErrCorrupt, t.name, snap.ID, name)
	}
	p := fileio.Join(t.path, "statistics", name)
	f, err := t.fs.Open(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("table %s: statistics %s: %w", t.name, p, err)
	}
	size := f.Size()
	f.Close()
	if size > maxStatisticsFile {
		return nil, fmt.Errorf("%w: table %s: statistics %s: %d bytes is too large", ErrCorrupt, t.name, p, size)
	}
	b, err := t.read(ctx, "statistics", name)
	if err != nil {
		return nil, fmt.Errorf("table %s: statistics %s: %w", t.name, p, err)
	}
	var s Statistics
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: table %s: statistics %s: %v", ErrCorrupt, t.name, p, err)
	}
	return &s, nil
}
