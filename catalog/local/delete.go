package local

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/inlet-db/inlet/catalog"
)

var (
	_ catalog.KeyDeleter       = (*Table)(nil)
	_ catalog.PredicateDeleter = (*Table)(nil)
)

// DeleteKeys implements catalog.KeyDeleter for UNIQUE KEY tables: the rows
// of r become tombstones for their keys in one commit; the merge on read
// (and compaction) drops every older row of those keys.
func (t *Table) DeleteKeys(ctx context.Context, r array.RecordReader) (int64, error) {
	if t.keys == nil {
		return 0, catalog.Errorf(catalog.ErrUnsupported, "table '%s' is not a UNIQUE KEY table: delete by key is not supported", t.name)
	}
	res, err := t.load(ctx, r, catalog.LoadOptions{}, true, false)
	return res.Rows, err
}

// deletePred is a DELETE ... WHERE on a DUPLICATE KEY table, kept as in
// Doris: a conjunction of simple predicates applied on read to every
// segment committed before it (Seq lower than its own).
type deletePred struct {
	Seq   int64           `json:"seq"`
	Preds []predicateText `json:"preds"`
}

// predicateText is a catalog.Predicate with its constants as text, so that
// they survive JSON exactly (an int64 would come back as a float64).
type predicateText struct {
	Column string   `json:"column"`
	Op     string   `json:"op"`
	Values []string `json:"values,omitempty"`
}

// DeleteWhere implements catalog.PredicateDeleter for tables without a
// UNIQUE KEY. The predicates are checked against the schema (columns,
// operators, constants that parse as the column's type) before anything is
// committed.
func (t *Table) DeleteWhere(ctx context.Context, preds []catalog.Predicate) error {
	if t.keys != nil {
		return catalog.Errorf(catalog.ErrUnsupported, "table '%s' is a UNIQUE KEY table: delete by key", t.name)
	}
	var pt []predicateText
	for _, p := range preds {
		i := t.schema.Index(p.Column)
		if i < 0 {
			return catalog.Errorf(catalog.ErrNotFound, "Unknown column '%s' in table '%s'", p.Column, t.name)
		}
		x := predicateText{Column: t.schema.Columns[i].Name, Op: p.Op}
		switch p.Op {
		case "=", "!=", "<", "<=", ">", ">=", "IN", "NOT IN":
			if len(p.Values) == 0 || (len(p.Values) > 1 && p.Op != "IN" && p.Op != "NOT IN") {
				return catalog.Errorf(catalog.ErrUnsupported, "delete predicate on '%s': %s needs %s", p.Column, p.Op, "a value")
			}
		case "IS NULL", "IS NOT NULL":
		default:
			return catalog.Errorf(catalog.ErrUnsupported, "delete predicate on '%s': operator %s is not supported", p.Column, p.Op)
		}
		for _, v := range p.Values {
			s, err := constText(v)
			if err != nil {
				return fmt.Errorf("delete predicate on '%s': %w", p.Column, err)
			}
			a, err := constArray(t.c.mem, t.arrow.Field(i).Type, s)
			if err != nil {
				return catalog.Errorf(catalog.ErrUnsupported, "delete predicate on '%s': '%s' is not a valid %s", p.Column, s, catalog.DorisTypeName(t.arrow.Field(i).Type))
			}
			a.Release()
			x.Values = append(x.Values, s)
		}
		pt = append(pt, x)
	}
	if _, err := t.lookupLocked(); err != nil {
		return err
	}
	return t.c.submit(&commitReq{rec: logRecord{Txn: t.c.nextTxn(), DB: t.db.id, Table: t.id, Deletes: pt}})
}

func (t *Table) lookupLocked() (*tableManifest, error) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.lookup()
}

func constText(v any) (string, error) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("constant %v of type %T is not supported", v, v)
}

// constArray is a one-row array of type typ holding the constant s.
func constArray(mem memory.Allocator, typ arrow.DataType, s string) (arrow.Array, error) {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	if err := b.AppendValueFromString(s); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

// deleteMask marks the rows of rec (from a segment committed at seq) that
// a later delete removes; nil when none applies.
// rec holds the columns of pick (nil: all of full's).
func deleteMask(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, seq int64, dels []deletePred, full catalog.Schema, pick *colPick) ([]bool, error) {
	var out []bool
	for _, d := range dels {
		if d.Seq <= seq {
			continue
		}
		hit := make([]bool, rec.NumRows())
		for i := range hit {
			hit[i] = true
		}
		for _, p := range d.Preds {
			ci := full.Index(p.Column)
			if ci < 0 {
				return nil, fmt.Errorf("%w: delete predicate on unknown column %s", ErrCorrupt, p.Column)
			}
			if ci = pick.index(ci); ci < 0 {
				return nil, fmt.Errorf("internal catalog: delete predicate column %s not read", p.Column)
			}
			m, err := evalPred(ctx, mem, rec.Column(ci), p)
			if err != nil {
				return nil, err
			}
			for i := range hit {
				hit[i] = hit[i] && m[i]
			}
		}
		if out == nil {
			out = hit
			continue
		}
		for i := range out {
			out[i] = out[i] || hit[i]
		}
	}
	return out, nil
}

// evalPred evaluates one predicate over a column: true where it holds
// (NULL compares as not holding, as in SQL).
func evalPred(ctx context.Context, mem memory.Allocator, col arrow.Array, p predicateText) ([]bool, error) {
	n := col.Len()
	out := make([]bool, n)
	switch p.Op {
	case "IS NULL", "IS NOT NULL":
		for i := range out {
			out[i] = col.IsNull(i) == (p.Op == "IS NULL")
		}
		return out, nil
	}
	fn := map[string]string{"=": "equal", "!=": "not_equal", "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal",
		"IN": "equal", "NOT IN": "not_equal"}[p.Op]
	cctx := compute.WithAllocator(ctx, mem)
	for k, v := range p.Values {
		ca, err := constArray(mem, col.DataType(), v)
		if err != nil {
			return nil, fmt.Errorf("delete predicate on %s: %w", p.Column, err)
		}
		sc, err := scalar.GetScalar(ca, 0)
		ca.Release()
		if err != nil {
			return nil, err
		}
		cd, sd := compute.NewDatum(col), compute.NewDatum(sc)
		d, err := compute.CallFunction(cctx, fn, nil, cd, sd)
		cd.Release()
		sd.Release()
		if rel, ok := sc.(scalar.Releasable); ok {
			rel.Release()
		}
		if err != nil {
			return nil, fmt.Errorf("delete predicate on %s: %w", p.Column, err)
		}
		res := d.(*compute.ArrayDatum).MakeArray().(*array.Boolean)
		d.Release()
		for i := range out {
			x := res.IsValid(i) && res.Value(i)
			switch {
			case k == 0:
				out[i] = x
			case p.Op == "NOT IN":
				out[i] = out[i] && x
			default:
				out[i] = out[i] || x
			}
		}
		res.Release()
	}
	return out, nil
}

// dropMasked returns rec without the rows marked in drop (rec itself when
// none is; nil when all are). It consumes rec.
func dropMasked(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, drop []bool) (arrow.RecordBatch, error) {
	if drop == nil {
		return rec, nil
	}
	mb := array.NewBooleanBuilder(mem)
	keep := 0
	for _, d := range drop {
		mb.Append(!d)
		if !d {
			keep++
		}
	}
	mask := mb.NewArray()
	mb.Release()
	defer mask.Release()
	switch keep {
	case len(drop):
		return rec, nil
	case 0:
		rec.Release()
		return nil, nil
	}
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
	rec.Release()
	return out, err
}
