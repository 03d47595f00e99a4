package streamload

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/exec/expr"
)

func benchSchema() catalog.Schema {
	return catalog.Schema{Columns: []catalog.Column{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Key: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}}
}

// BenchmarkDecode measures decoding and conversion alone (no HTTP, no
// table): 200 k rows of the 5 columns of BenchmarkStreamLoad.
func BenchmarkDecode(b *testing.B) {
	const n = 200_000
	for _, format := range []string{"csv", "json"} {
		b.Run(format, func(b *testing.B) {
			var buf bytes.Buffer
			if format == "json" {
				buf.WriteByte('[')
			}
			for i := 0; i < n; i++ {
				ts := time.Unix(int64(1704067200+i), 0).UTC().Format("2006-01-02 15:04:05")
				if format == "json" {
					if i > 0 {
						buf.WriteByte(',')
					}
					fmt.Fprintf(&buf, `{"k":%d,"name":"name-%d","amount":%d.%02d,"ts":"%s","flag":%t}`, i, i%1000, i%100000, i%100, ts, i%2 == 0)
				} else {
					fmt.Fprintf(&buf, "%d\tname-%d\t%d.%02d\t%s\t%t\n", i, i%1000, i%100000, i%100, ts, i%2 == 0)
				}
			}
			if format == "json" {
				buf.WriteByte(']')
			}
			h := http.Header{"Format": {format}, "Strip_outer_array": {"true"}}
			p, err := ParseParams(h)
			if err != nil {
				b.Fatal(err)
			}
			mem := memory.NewGoAllocator()
			b.SetBytes(int64(buf.Len()))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pl, err := newPlan(context.Background(), &p, benchSchema(), time.Now())
				if err != nil {
					b.Fatal(err)
				}
				var dec decoder
				if format == "json" {
					dec = newJSONReader(bytes.NewReader(buf.Bytes()), &p, pl.src, 1<<20)
				} else {
					dec = newCSVReader(bytes.NewReader(buf.Bytes()), &p, 1<<20)
				}
				r := newLoadReader(context.Background(), mem, &expr.Env{Mem: mem, Now: time.Now()}, dec, pl, &p, &errLog{})
				rows := 0
				for r.Next() {
					rows += int(r.RecordBatch().NumRows())
				}
				if r.Err() != nil || rows != n {
					b.Fatal(r.Err(), rows)
				}
				r.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
