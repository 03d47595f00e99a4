package local

import (
	"context"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
)

var _ catalog.Overwriter = (*Table)(nil)

// Overwrite implements catalog.Overwriter: a load whose commit record also
// drops every segment and delete predicate the table had (logRecord.Replace),
// so replay after a restart replaces the rows again. Scans started before
// the commit keep their snapshot; replaced files are deleted after them.
func (t *Table) Overwrite(ctx context.Context, r array.RecordReader, opts catalog.LoadOptions) (catalog.LoadResult, error) {
	if opts.PartialColumns {
		return catalog.LoadResult{}, catalog.Errorf(catalog.ErrUnsupported, "table '%s': INSERT OVERWRITE cannot be a partial-column load", t.name)
	}
	return t.load(ctx, r, opts, false, true)
}

// replaceAll empties t for a Replace commit; under c.mu.
func (c *Catalog) replaceAll(t *tableManifest, replay bool) {
	for _, f := range t.Files {
		if !replay && !f.Log {
			c.garbage = append(c.garbage, filepath.Join(c.tableDir(t.ID), f.Name))
		}
	}
	t.Files = nil
	t.Deletes = nil
}
