package local

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
)

var _ catalog.Loader = (*Table)(nil)

// labelRE is Doris's rule for load labels (FeNameFormat).
var labelRE = regexp.MustCompile(`^[-_A-Za-z0-9:]{1,128}$`)

// Load implements catalog.Loader. The rows of r are written as segments
// (inline in the commit record when small, data files otherwise, several
// when large), made durable, and then committed with the label in one log
// record: all visible at once after it returns nil, none if it fails. The
// label is checked when the load starts (against committed and running
// loads) and again at commit.
func (t *Table) Load(ctx context.Context, r array.RecordReader, opts catalog.LoadOptions) (catalog.LoadResult, error) {
	return t.load(ctx, r, opts, false, false)
}

// load writes r as one commit; del makes its segments tombstones, replace
// makes the commit drop every earlier row (Overwrite).
func (t *Table) load(ctx context.Context, r array.RecordReader, opts catalog.LoadOptions, del, replace bool) (catalog.LoadResult, error) {
	if opts.Label != "" && !labelRE.MatchString(opts.Label) {
		return catalog.LoadResult{}, catalog.Errorf(catalog.ErrUnsupported, "Label format error. regex: %s, label: %s", labelRE.String(), opts.Label)
	}
	var present []int // partial load: the table column of each field of r
	if opts.PartialColumns {
		if t.keys == nil {
			return catalog.LoadResult{}, catalog.Errorf(catalog.ErrUnsupported, "table '%s': partial_columns is only supported on UNIQUE KEY tables", t.name)
		}
		var err error
		if present, err = t.partialColumns(r.Schema()); err != nil {
			return catalog.LoadResult{}, err
		}
	} else if !r.Schema().Equal(t.arrow) {
		if err := compatible(t.arrow, r.Schema()); err != nil {
			return catalog.LoadResult{}, fmt.Errorf("table %s: %w", t.name, err)
		}
	}
	c := t.c
	txn := c.nextTxn()
	if opts.Label != "" {
		if err := c.beginLabel(t.db.id, opts.Label, txn); err != nil {
			return catalog.LoadResult{}, err
		}
	}
	committing := false
	defer func() {
		if opts.Label != "" && !committing {
			c.mu.Lock()
			c.endLabel(t.db.id, opts.Label)
			c.mu.Unlock()
		}
	}()
	if t.keys != nil {
		// A partial load reads current rows to fill the columns it does not
		// carry: no other write may commit between that read and its own
		// commit. Whole-row loads only exclude partial ones; an overwrite
		// excludes every other write, as it replaces them.
		l := c.tableLock(t.id)
		if opts.PartialColumns || replace {
			l.Lock()
			defer l.Unlock()
		} else {
			l.RLock()
			defer l.RUnlock()
		}
	}
	w := c.newSegWriter(t.id, fmt.Sprintf("%08d", txn), t.arrow)
	w.del = del
	ok := false
	defer func() {
		if !ok {
			w.abort()
		}
	}()
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return catalog.LoadResult{}, err
		}
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		var err error
		if present != nil {
			rec, err = t.fillPartial(ctx, rec, present)
		} else {
			rec = array.NewRecordBatch(t.arrow, rec.Columns(), rec.NumRows())
		}
		if err != nil {
			return catalog.LoadResult{}, err
		}
		err = t.writeRows(ctx, w, rec)
		rec.Release()
		if err != nil {
			return catalog.LoadResult{}, fmt.Errorf("table %s: %w", t.name, err)
		}
	}
	if err := r.Err(); err != nil {
		return catalog.LoadResult{}, err
	}
	if err := w.finish(); err != nil {
		return catalog.LoadResult{}, fmt.Errorf("table %s: %w", t.name, err)
	}
	if w.rows == 0 && opts.Label == "" && !replace {
		ok = true
		return catalog.LoadResult{TxnID: txn}, nil
	}
	req := &commitReq{rec: logRecord{Txn: txn, DB: t.db.id, Table: t.id, Add: w.done, Label: opts.Label, Replace: replace},
		inline: w.data, running: opts.Label != ""}
	committing = true
	if err := c.submit(req); err != nil {
		return catalog.LoadResult{}, err
	}
	ok = true
	if w.rows > 0 {
		c.kickAnalyzer()
	}
	return catalog.LoadResult{TxnID: txn, Rows: w.rows}, nil
}

// writeRows adds rec to the commit being written, split by bucket for a
// UNIQUE KEY table.
func (t *Table) writeRows(ctx context.Context, w *segWriter, rec arrow.RecordBatch) error {
	if t.keys == nil {
		return w.write(0, rec)
	}
	parts, err := splitBuckets(ctx, t.c.mem, *t.keys, rec)
	if err != nil {
		return err
	}
	defer func() {
		for _, p := range parts {
			if p != nil {
				p.Release()
			}
		}
	}()
	for b, p := range parts {
		if p != nil {
			if err := w.write(b, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// partialColumns maps the fields of a partial load to table columns: every
// field must name a column once, and every key column must be there.
func (t *Table) partialColumns(s *arrow.Schema) ([]int, error) {
	present := make([]int, s.NumFields())
	seen := map[int]bool{}
	for i, f := range s.Fields() {
		j := t.schema.Index(f.Name)
		if j < 0 {
			return nil, catalog.Errorf(catalog.ErrNotFound, "Unknown column '%s' in table '%s'", f.Name, t.name)
		}
		if seen[j] {
			return nil, catalog.Errorf(catalog.ErrExists, "Duplicate column '%s' in partial update of table '%s'", f.Name, t.name)
		}
		if !arrow.TypeEqual(f.Type, t.arrow.Field(j).Type) {
			return nil, catalog.Errorf(catalog.ErrUnsupported, "column '%s' has type %s, got %s", t.arrow.Field(j).Name, t.arrow.Field(j).Type, f.Type)
		}
		seen[j] = true
		present[i] = j
	}
	var missing []string
	for _, k := range t.keys.cols {
		if !seen[k] {
			missing = append(missing, t.schema.Columns[k].Name)
		}
	}
	if len(missing) > 0 {
		return nil, catalog.Errorf(catalog.ErrUnsupported, "table '%s': a partial update must give every key column; missing %s", t.name, strings.Join(missing, ", "))
	}
	return present, nil
}

func (c *Catalog) tableLock(id int64) *sync.RWMutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.tlocks[id]
	if l == nil {
		l = &sync.RWMutex{}
		c.tlocks[id] = l
	}
	return l
}
