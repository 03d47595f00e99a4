package paimon

import (
	"context"
	"fmt"
	"math/big"
	"time"
)

// ColumnSummary is what a snapshot's manifests say about one column over
// all its live files, without reading a data file: the smallest of the
// files' minimums, the largest of their maximums and the sum of their null
// counts. Min and Max are nil when some file does not bound the column
// (no statistics, statistics columns that leave it out, a type changed
// since the file was written); Nulls is -1 when some file does not count
// them. Values are int64 (integer types and DATE, in days), float64,
// string, bool, *big.Rat (DECIMAL) or time.Time (timestamps, UTC).
//
// They are planning hints: value statistics of a primary-key table's files
// bound every record written, merged away or not, and deletion vectors are
// not subtracted, so the bounds may be wider than the live rows, never
// narrower.
type ColumnSummary struct {
	Min, Max any
	Nulls    int64
}

// Summary is a snapshot's row count (the sum of its live files'
// _ROW_COUNT) and its columns' summaries by name.
type Summary struct {
	Rows    int64
	Columns map[string]ColumnSummary
}

// Summarize reads snap's manifests and summarizes its live files' column
// statistics (see ColumnSummary).
func (t *Table) Summarize(ctx context.Context, snap *Snapshot) (*Summary, error) {
	schema, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, err
	}
	live, err := t.LiveFiles(ctx, snap)
	if err != nil {
		return nil, err
	}
	partFields := schema.PartitionFields()
	partTypes := fieldTypes(partFields)
	schemas := map[int64]*TableSchema{schema.ID: schema}
	type acc struct {
		min, max any
		nulls    int64
		bounded  bool
	}
	accs := make([]acc, len(schema.Fields))
	for i := range accs {
		accs[i].bounded = true
	}
	out := &Summary{Columns: map[string]ColumnSummary{}}
	parts := map[string][]any{}
	for _, e := range live {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fs, ok := schemas[e.File.SchemaID]
		if !ok {
			if fs, err = t.Schema(ctx, e.File.SchemaID); err != nil {
				return nil, fmt.Errorf("table %s: file %s: %w", t.name, e.File.FileName, err)
			}
			schemas[e.File.SchemaID] = fs
		}
		part, ok := parts[string(e.Partition)]
		if !ok {
			if part, err = DeserializeRow(e.Partition, partTypes); err != nil {
				return nil, fmt.Errorf("table %s: file %s: partition: %w", t.name, e.File.FileName, err)
			}
			parts[string(e.Partition)] = part
		}
		out.Rows += e.File.RowCount
		stats := fileStats(schema, fs, partFields, part, e.File, true)
		for i, f := range schema.Fields {
			a := &accs[i]
			cs := stats(f.Name)
			switch {
			case !cs.known:
				a.bounded, a.nulls = false, -1
				continue
			case cs.nullCount < 0 || a.nulls < 0:
				a.nulls = -1
			default:
				a.nulls += cs.nullCount
			}
			if cs.nullCount >= 0 && cs.nullCount == e.File.RowCount && cs.min == nil && cs.max == nil {
				continue // all NULL: bounds nothing
			}
			if cs.min == nil || cs.max == nil {
				a.bounded = false
				continue
			}
			if a.min == nil {
				a.min, a.max = cs.min, cs.max
				continue
			}
			c1, ok1 := compareNorm(cs.min, a.min)
			c2, ok2 := compareNorm(cs.max, a.max)
			if !ok1 || !ok2 {
				a.bounded = false
				continue
			}
			if c1 < 0 {
				a.min = cs.min
			}
			if c2 > 0 {
				a.max = cs.max
			}
		}
	}
	for i, f := range schema.Fields {
		a := accs[i]
		s := ColumnSummary{Nulls: a.nulls}
		if a.bounded && a.min != nil {
			s.Min, s.Max = exportNorm(a.min), exportNorm(a.max)
		}
		out.Columns[f.Name] = s
	}
	return out, nil
}

// exportNorm maps a comparison form (norm) to ColumnSummary's types.
func exportNorm(v any) any {
	switch x := v.(type) {
	case tsKey:
		return time.UnixMilli(x.ms).Add(time.Duration(x.nano)).UTC()
	case *big.Rat:
		return new(big.Rat).Set(x)
	}
	return v
}
