package orc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func testColumns() []wcol {
	la, _ := time.LoadLocation("America/Los_Angeles")
	return []wcol{
		{name: "id", kind: KindLong, value: func(r int) (any, bool) { return int64(r)*7919 - 1<<40, true }},
		{name: "small", kind: KindShort, value: func(r int) (any, bool) { return int64(r%60000 - 30000), r%13 != 0 }},
		{name: "tiny", kind: KindByte, value: func(r int) (any, bool) { return int64(int8(r)), true }},
		{name: "name", kind: KindString, value: func(r int) (any, bool) { return fmt.Sprintf("name-%d", r%1000), r%5 != 0 }},
		{name: "price", kind: KindDouble, value: func(r int) (any, bool) { return float64(r) / 8, r%7 != 0 }},
		{name: "flag", kind: KindBoolean, value: func(r int) (any, bool) { return r%3 == 0, r%11 != 0 }},
		{name: "at", kind: KindTimestampInstant, value: func(r int) (any, bool) {
			return time.Unix(int64(r%2_000_000)*3607-1e9, // wraps to stay in Arrow ns range at 5M rows
				int64(r%1000)*1000000+int64(r%7)*100).UTC(), r%17 != 0
		}},
		{name: "local", kind: KindTimestamp, value: func(r int) (any, bool) {
			// wall-clock values, some inside DST, in the writer's zone
			return time.Date(1995+r%40, time.Month(1+r%12), 1+r%28, r%24, r%60, r%60, (r%1000)*1000, la), true
		}},
		{name: "day", kind: KindDate, value: func(r int) (any, bool) { return int64(r%40000 - 20000), true }},
		{name: "amount", kind: KindDecimal, prec: 18, scale: 2, value: func(r int) (any, bool) {
			return int64(r)*12345 - 5e8, r%19 != 0
		}},
	}
}

// wantArrow renders a generator value the way the reader must return it.
func wantArrow(c wcol, v any) any {
	switch c.kind {
	case KindTimestampInstant:
		return arrow.Timestamp(v.(time.Time).UnixNano())
	case KindTimestamp:
		tm := v.(time.Time)
		wall := time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
		return arrow.Timestamp(wall.UnixNano())
	case KindDate:
		return arrow.Date32(v.(int64))
	case KindShort:
		return int16(v.(int64))
	case KindByte:
		return int8(v.(int64))
	}
	return v
}

func gotArrow(a arrow.Array, i int) any {
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i)
	case *array.Date32:
		return a.Value(i)
	case *array.Decimal128:
		return int64(a.Value(i).LowBits())
	}
	return fmt.Sprintf("%T", a)
}

func TestRoundTrip(t *testing.T) {
	cols := testColumns()
	const rows = 5000
	for _, o := range []wopts{
		{stripeRows: 1500, compression: CompressionNone, tz: "America/Los_Angeles"},
		{stripeRows: 2000, compression: CompressionZlib, blockSize: 1000, tz: "America/Los_Angeles"},
	} {
		t.Run(o.compression.String(), func(t *testing.T) {
			data := writeORC(t, cols, rows, o)
			f, err := Open(bytes.NewReader(data), int64(len(data)), WithName("roundtrip.orc"))
			if err != nil {
				t.Fatal(err)
			}
			if f.NumRows() != rows || len(f.Stripes()) != (rows+o.stripeRows-1)/o.stripeRows {
				t.Fatalf("rows %d stripes %d", f.NumRows(), len(f.Stripes()))
			}
			if got := f.Schema().Field(6).Type.(*arrow.TimestampType).TimeZone; got != "UTC" {
				t.Errorf("TIMESTAMP_INSTANT zone %q, want UTC", got)
			}
			// statistics of "id" per stripe
			for si, s := range f.Stripes() {
				first, last := si*o.stripeRows, min(rows, (si+1)*o.stripeRows)-1
				st := s.Stats[f.ColumnID("id")]
				if st.Int == nil || st.Int.Min != int64(first)*7919-1<<40 || st.Int.Max != int64(last)*7919-1<<40 {
					t.Errorf("stripe %d id stats %+v", si, st.Int)
				}
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rr, err := f.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: 333})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			row := 0
			for rr.Next() {
				rec := rr.RecordBatch()
				for i := 0; i < int(rec.NumRows()); i++ {
					for ci, c := range cols {
						v, ok := c.value(row)
						col := rec.Column(ci)
						if col.IsNull(i) != !ok {
							t.Fatalf("row %d %s: null=%v, want %v", row, c.name, col.IsNull(i), !ok)
						}
						if !ok {
							continue
						}
						if got, want := gotArrow(col, i), wantArrow(c, v); got != want {
							t.Fatalf("row %d %s: got %v want %v", row, c.name, got, want)
						}
					}
					row++
				}
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if row != rows {
				t.Fatalf("read %d rows", row)
			}
		})
	}
}

// TestTimestampUnits: sentinels beyond 2262 need a coarser unit; a unit that
// would drop digits is refused.
func TestTimestampUnits(t *testing.T) {
	far := time.Date(9999, 12, 31, 23, 59, 59, 123456000, time.UTC)
	early := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	cols := []wcol{{name: "ts", kind: KindTimestampInstant, value: func(r int) (any, bool) {
		return []time.Time{far, early, time.Unix(0, 5000)}[r], true
	}}}
	data := writeORC(t, cols, 3, wopts{})
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	read := func(u TimestampUnit) ([]arrow.Timestamp, arrow.DataType, error) {
		rr, err := f.NewRecordReader(context.Background(), ReadOptions{TimestampUnit: u})
		if err != nil {
			return nil, nil, err
		}
		defer rr.Release()
		var out []arrow.Timestamp
		for rr.Next() {
			out = append(out, rr.RecordBatch().Column(0).(*array.Timestamp).TimestampValues()...)
		}
		return out, rr.Schema().Field(0).Type, rr.Err()
	}
	if _, _, err := read(Nanoseconds); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "coarser TimestampUnit") {
		t.Errorf("nanoseconds: %v", err)
	}
	got, dt, err := read(Microseconds)
	if err != nil {
		t.Fatal(err)
	}
	if dt.(*arrow.TimestampType).Unit != arrow.Microsecond {
		t.Errorf("type %s", dt)
	}
	want := []arrow.Timestamp{arrow.Timestamp(far.UnixMicro()), arrow.Timestamp(early.UnixMicro()), 5}
	if !slices.Equal(got, want) {
		t.Errorf("micros %v want %v", got, want)
	}
	if _, _, err := read(Milliseconds); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "finer") {
		t.Errorf("milliseconds: %v", err)
	}
	if _, _, err := read(TimestampUnit(7)); err == nil {
		t.Error("unknown unit accepted")
	}
}

func TestFixedZones(t *testing.T) {
	for name, off := range map[string]int{"GMT+08:00": 8 * 3600, "GMT-0530": -(5*3600 + 30*60), "UTC+8": 8 * 3600} {
		l, ok := fixedZone(name)
		if !ok {
			t.Errorf("%s not parsed", name)
			continue
		}
		if _, got := time.Unix(0, 0).In(l).Zone(); got != off {
			t.Errorf("%s: offset %d, want %d", name, got, off)
		}
	}
	for _, bad := range []string{"GMT", "GMT+", "GMT+99", "Mars/Base", "UTC+1:75"} {
		if _, ok := fixedZone(bad); ok {
			t.Errorf("%s accepted", bad)
		}
	}
	// a writer zone no one can resolve fails only reads of TIMESTAMP columns
	cols := []wcol{
		{name: "id", kind: KindLong, value: func(r int) (any, bool) { return int64(r), true }},
		{name: "local", kind: KindTimestamp, value: func(r int) (any, bool) { return time.Unix(int64(r), 0).UTC(), true }},
	}
	data := writeORC(t, cols, 10, wopts{tz: "UTC"})
	data = bytes.Replace(data, []byte("\x1a\x03UTC"), []byte("\x1a\x03XYZ"), -1) // stripe footer field 3
	f, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := countRows(f, ReadOptions{Columns: []int{0}}); err != nil || n != 10 {
		t.Errorf("id only: %d rows, %v", n, err)
	}
	if _, err := countRows(f, ReadOptions{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"XYZ"`) {
		t.Errorf("with the TIMESTAMP column: %v", err)
	}
}
