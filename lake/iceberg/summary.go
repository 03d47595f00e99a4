package iceberg

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/inlet-db/inlet/lake/paimon"
)

// Summarize reads the manifests of snapshot id (0: the current one) and
// summarizes its live data files' column statistics in lake/paimon's
// terms, so both lakes feed the same optimizer statistics: Rows is the sum
// of the data files' record counts, and per top-level column the smallest
// lower bound, the largest upper bound and the summed null counts (see
// paimon.ColumnSummary for the value types and the unknown markers). No
// data or delete file is read.
//
// The figures are planning hints: delete files are not subtracted (an
// equality delete's matches cannot be counted without reading), so Rows
// and the bounds may be wider than the live rows, never narrower. A bound
// Iceberg truncated (strings past the metrics mode's length) is still a
// bound. Nested columns, and bounds that do not decode as the column's
// current type, leave the column unbounded. A table without a snapshot has
// an empty summary.
func (t *Table) Summarize(ctx context.Context, snapshotID int64) (*paimon.Summary, error) {
	out := &paimon.Summary{Columns: map[string]paimon.ColumnSummary{}}
	snap := t.tbl.CurrentSnapshot()
	if snapshotID != 0 {
		if snap = t.tbl.SnapshotByID(snapshotID); snap == nil {
			return nil, fmt.Errorf("%w: Iceberg table %s has no snapshot %d", ErrNotFound, t.Name, snapshotID)
		}
	}
	if snap == nil {
		return out, nil
	}
	fio, err := t.io(ctx)(ctx)
	if err != nil {
		return nil, fmt.Errorf("iceberg table %s: %w", t.Name, err)
	}
	manifests, err := snap.Manifests(fio)
	if err != nil {
		return nil, t.summaryErr(ctx, snap.SnapshotID, err)
	}
	fields := t.tbl.Schema().Fields()
	accs := make([]summaryAcc, len(fields))
	for i := range accs {
		accs[i].bounded = true
		if _, ok := fields[i].Type.(iceberg.PrimitiveType); !ok {
			accs[i].bounded, accs[i].nulls = false, -1
		}
	}
	for _, m := range manifests {
		if m.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		for e, err := range m.Entries(fio, true) {
			if err != nil {
				return nil, t.summaryErr(ctx, snap.SnapshotID, err)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			df := e.DataFile()
			if df.ContentType() != iceberg.EntryContentData {
				continue
			}
			out.Rows += df.Count()
			nulls, lower, upper := df.NullValueCounts(), df.LowerBoundValues(), df.UpperBoundValues()
			for i, f := range fields {
				accs[i].add(f, df.Count(), nulls, lower, upper)
			}
		}
	}
	for i, f := range fields {
		a := accs[i]
		s := paimon.ColumnSummary{Nulls: a.nulls}
		if a.bounded && a.min != nil {
			s.Min, s.Max = a.min, a.max
		}
		out.Columns[f.Name] = s
	}
	return out, nil
}

func (t *Table) summaryErr(ctx context.Context, snapshot int64, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("iceberg table %s: snapshot %d: manifests: %w", t.Name, snapshot, err)
}

// summaryAcc folds one column's per-file statistics.
type summaryAcc struct {
	min, max any
	nulls    int64
	bounded  bool
}

func (a *summaryAcc) add(f iceberg.NestedField, rows int64, nulls map[int]int64, lower, upper map[int][]byte) {
	if !a.bounded && a.nulls < 0 {
		return
	}
	n, ok := nulls[f.ID]
	switch {
	case !ok || n < 0 || a.nulls < 0:
		a.nulls = -1
	default:
		a.nulls += n
	}
	lo, lok := lower[f.ID]
	hi, hok := upper[f.ID]
	if ok && n == rows && !lok && !hok {
		return // all NULL: bounds nothing
	}
	if !a.bounded {
		return
	}
	if !lok || !hok {
		a.bounded = false
		return
	}
	lv, err1 := boundValue(f.Type, lo)
	hv, err2 := boundValue(f.Type, hi)
	if err1 != nil || err2 != nil || lv == nil || hv == nil {
		a.bounded = false
		return
	}
	if a.min == nil {
		a.min, a.max = lv, hv
		return
	}
	c1, ok1 := compareBound(lv, a.min)
	c2, ok2 := compareBound(hv, a.max)
	if !ok1 || !ok2 {
		a.bounded = false
		return
	}
	if c1 < 0 {
		a.min = lv
	}
	if c2 > 0 {
		a.max = hv
	}
}

// boundValue decodes a manifest bound (Iceberg's single-value
// serialization) into paimon.ColumnSummary's value types; nil for types
// the summary does not bound (binary, uuid, time). A bound written before
// a type promotion (int to long, float to double) is read at its width.
func boundValue(t iceberg.Type, b []byte) (any, error) {
	switch t.(type) {
	case iceberg.Int64Type:
		if len(b) == 4 {
			return int64(int32(binary.LittleEndian.Uint32(b))), nil
		}
	case iceberg.Float64Type:
		if len(b) == 4 {
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
		}
	case iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType, iceberg.TimeType:
		return nil, nil
	}
	l, err := iceberg.LiteralFromBytes(t, b)
	if err != nil {
		return nil, err
	}
	switch v := l.(type) {
	case iceberg.BoolLiteral:
		return bool(v), nil
	case iceberg.Int32Literal:
		return int64(v), nil
	case iceberg.Int64Literal:
		return int64(v), nil
	case iceberg.Float32Literal:
		return float64(v), nil
	case iceberg.Float64Literal:
		return float64(v), nil
	case iceberg.StringLiteral:
		return string(v), nil
	case iceberg.DateLiteral:
		return int64(v), nil
	case iceberg.TimestampLiteral:
		return time.UnixMicro(int64(v)).UTC(), nil
	case iceberg.TimestampNsLiteral:
		return time.Unix(0, int64(v)).UTC(), nil
	case iceberg.DecimalLiteral:
		r, ok := new(big.Rat).SetString(iceberg.Decimal(v).String())
		if !ok {
			return nil, fmt.Errorf("%w: decimal bound %s", ErrCorrupt, iceberg.Decimal(v).String())
		}
		return r, nil
	}
	return nil, nil
}

// compareBound orders two decoded bounds of one column; false when their
// kinds differ.
func compareBound(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return cmp.Compare(x, y), ok
	case float64:
		y, ok := b.(float64)
		return cmp.Compare(x, y), ok
	case string:
		y, ok := b.(string)
		// Iceberg orders strings by their UTF-8 bytes, as Go does.
		return strings.Compare(x, y), ok
	case bool:
		y, ok := b.(bool)
		return cmp.Compare(boolRank(x), boolRank(y)), ok
	case time.Time:
		y, ok := b.(time.Time)
		return x.Compare(y), ok
	case *big.Rat:
		y, ok := b.(*big.Rat)
		if !ok {
			return 0, false
		}
		return x.Cmp(y), true
	}
	return 0, false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
