package physical_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/local"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/fe/physical"
)

// tables resolves one-part names to tables; plain hides that a table
// scans raw (catalog.RawScanner), so its scan copies every string out
// before the filter: the reference a raw scan must agree with.
type tables struct {
	m     map[string]catalog.Table
	plain bool
}

type plainTable struct{ catalog.Table }

func (r tables) ResolveTable(_ context.Context, name []string) (string, string, catalog.Table, error) {
	n := name[len(name)-1]
	t, ok := r.m[n]
	if !ok {
		return "", "", nil, fmt.Errorf("no table %s", n)
	}
	if r.plain {
		t = plainTable{t}
	}
	return "internal", "db", t, nil
}

func rawSchema() catalog.Schema {
	return catalog.Schema{Columns: []catalog.Column{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Key: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "bo", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}}
}

// rawRows is ids [from, from+n) in batches of 500; a column is NULL on
// the rows where id%(column+5) == 1, and s differs by version so that a
// UNIQUE KEY table's merge shows which row won.
func rawRows(mem memory.Allocator, from, n int64, version int) array.RecordReader {
	s := rawSchema().Arrow()
	var recs []arrow.RecordBatch
	for lo := from; lo < from+n; lo += 500 {
		b := array.NewRecordBuilder(mem, s)
		for id := lo; id < min(lo+500, from+n); id++ {
			b.Field(0).(*array.Int64Builder).Append(id)
			for c := 1; c < s.NumFields(); c++ {
				if id%int64(c+5) == 1 {
					b.Field(c).AppendNull()
					continue
				}
				switch fb := b.Field(c).(type) {
				case *array.StringBuilder:
					fb.Append(fmt.Sprintf("v%d-%s-%d", version, strings.Repeat("x", int(id%13)), id))
				case *array.BinaryBuilder:
					fb.Append([]byte(fmt.Sprintf("b%d", id*7)))
				case *array.Int32Builder:
					fb.Append(int32(id % 100))
				case *array.Float64Builder:
					fb.Append(float64(id) / 4)
				case *array.Decimal128Builder:
					fb.Append(decimal128.FromI64(id * 3))
				case *array.Date32Builder:
					fb.Append(arrow.Date32(id % 20000))
				case *array.TimestampBuilder:
					fb.Append(arrow.Timestamp(id * 1_000_000))
				case *array.BooleanBuilder:
					fb.Append(id%3 == 0)
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	r, _ := array.NewRecordReader(s, recs)
	for _, x := range recs {
		x.Release()
	}
	return r
}

// TestRawScanFilter: a filter over a scan that reads mapped segments in
// place (catalog.ScanRequest.Raw) returns what scanning with every string
// copied out and filtering after returns, on every column type, NULLs,
// several batches and files, a DUPLICATE table with a DELETE condition and
// a UNIQUE KEY table with replaced and deleted keys, run serially and in
// parallel pipelines. The strings it returns stay right after the catalog
// is closed and its files unmapped: whatever the filter kept was copied.
func TestRawScanFilter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	c, err := local.Open(t.TempDir(), mem, local.Options{InlineBytes: -1, SegmentBytes: 16 << 10, CompactAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()
	if err := c.CreateDatabase(ctx, "db", nil); err != nil {
		t.Fatal(err)
	}
	db, err := c.Database(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	create := func(spec catalog.TableSpec) catalog.Table {
		tb, err := db.(catalog.TableCreator).CreateTable(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	appendRows := func(tb catalog.Table, from, n int64, version int) {
		r := rawRows(mem, from, n, version)
		defer r.Release()
		if _, err := tb.(catalog.Writable).Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	dup := create(catalog.TableSpec{Name: "dup", Schema: rawSchema(), KeysType: "DUPLICATE", KeyColumns: []string{"id"}})
	for k := range int64(3) {
		appendRows(dup, k*3000, 3000, 1)
	}
	if err := dup.(catalog.PredicateDeleter).DeleteWhere(ctx, []catalog.Predicate{{Column: "i", Op: "=", Values: []any{int64(7)}}}); err != nil {
		t.Fatal(err)
	}
	uk := create(catalog.TableSpec{Name: "uk", Schema: rawSchema(), KeysType: "UNIQUE", KeyColumns: []string{"id"},
		Distribution: "DISTRIBUTED BY HASH(`id`) BUCKETS 2"})
	appendRows(uk, 0, 4000, 1)
	appendRows(uk, 2000, 4000, 2)             // ids 2000..3999 replaced
	for _, from := range []int64{100, 3500} { // one old, one replaced range
		dkr := rawRows(mem, from, 300, 3)
		if _, err := uk.(catalog.KeyDeleter).DeleteKeys(ctx, dkr); err != nil {
			t.Fatal(err)
		}
		dkr.Release()
	}

	m := map[string]catalog.Table{"dup": dup, "uk": uk}
	queries := []string{
		// s only filtered: the projection above leaves it uncopied.
		"SELECT id, i, f, d, dt, ts, bo FROM %s WHERE s LIKE '%%xxx-1%%'",
		"SELECT * FROM %s WHERE s NOT LIKE '%%xx-%%'",
		"SELECT * FROM %s WHERE id >= 0", // every row kept: all copied
		"SELECT s, b FROM %s WHERE i > 40 AND b LIKE 'b1%%'",
		"SELECT id, upper(s) FROM %s WHERE s IS NULL OR f < 100",
		"SELECT s, count(*) FROM %s WHERE s LIKE '%%x-2%%' GROUP BY s",
		"SELECT x.id, y.s, x.b FROM %s x JOIN uk y ON x.id = y.id WHERE x.s LIKE '%%xxxx%%'",
	}
	type result struct {
		q    string
		strs []string // Value strings straight from the batches, unconverted
	}
	var results []*result
	run := func(q string, r tables, par int) ([]string, []string) {
		t.Helper()
		op, err := physical.Build(ctx, bindQuery(t, r, q), physical.Config{Mem: mem})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rr, err := op.Open(exec.WithParallelism(ctx, par), &exec.Env{Mem: mem})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rr.Release()
		var rows, strs []string
		for rr.Next() {
			b := rr.RecordBatch()
			for i := range int(b.NumRows()) {
				var sb strings.Builder
				for _, col := range b.Columns() {
					if col.IsNull(i) {
						sb.WriteString("NULL|")
						continue
					}
					sb.WriteString(col.ValueStr(i) + "|")
					if s, ok := col.(*array.String); ok {
						strs = append(strs, s.Value(i))
					}
				}
				rows = append(rows, sb.String())
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slices.Sort(rows)
		return rows, strs
	}
	for _, tn := range []string{"dup", "uk"} {
		for _, qf := range queries {
			q := fmt.Sprintf(qf, tn)
			want, _ := run(q, tables{m: m, plain: true}, 1)
			if len(want) == 0 {
				t.Fatalf("%s: no rows; the test needs some", q)
			}
			for _, par := range []int{1, 2} {
				got, strs := run(q, tables{m: m}, par)
				if !slices.Equal(got, want) {
					t.Fatalf("%s (parallelism %d): %d rows, want %d; first differing:\n%s", q, par, len(got), len(want), firstDiff(got, want))
				}
				results = append(results, &result{q: q, strs: strs})
			}
		}
	}
	// The strings handed out must not point into the mappings, which go
	// with the catalog.
	var keep [][]string
	for _, r := range results {
		cp := make([]string, len(r.strs))
		for i, s := range r.strs {
			cp[i] = strings.Clone(s)
		}
		keep = append(keep, cp)
	}
	c.Close()
	closed = true
	junk := make([][]byte, 0, 2000)
	for i := range 2000 {
		junk = append(junk, []byte(strings.Repeat("z", 100+i)))
	}
	_ = junk
	for k, r := range results {
		for i, s := range r.strs {
			if s != keep[k][i] {
				t.Fatalf("%s: string %d reads %q after the catalog closed, was %q", r.q, i, s, keep[k][i])
			}
		}
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "got  " + got[i] + "\nwant " + want[i]
		}
	}
	if len(got) > len(want) {
		return "extra " + got[len(want)]
	}
	return "missing " + want[len(got)]
}
