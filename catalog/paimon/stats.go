package paimon

import (
	"context"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/paimon/lakestats"
)

var _ catalog.ColumnStatser = (*Table)(nil)

// ColumnStats implements catalog.ColumnStatser from the latest snapshot's
// manifests (lakestats.Latest).
func (t *Table) ColumnStats(ctx context.Context) (*catalog.TableStats, error) {
	return lakestats.Latest(ctx, t.lake, t.schema.Fields)
}
