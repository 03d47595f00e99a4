package minifluss

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/typemap"
)

// BenchmarkTierLog1M tiers a 1 M-row log table (3 buckets, ARROW batches of
// 10 000 rows, columns BIGINT, STRING, DOUBLE, DECIMAL(10,2)) into a local
// Paimon warehouse in one round and reports tier_rows/s (timed: the TierLake
// call only; appends are set-up).
//
//	go test -run XXX -bench TierLog1M -benchtime 1x ./minifluss
func BenchmarkTierLog1M(b *testing.B) {
	for _, pk := range []bool{false, true} {
		name := "log"
		if pk {
			name = "pk"
		}
		b.Run(name, func(b *testing.B) { benchTier(b, pk, benchRows(pk)) })
	}
}

func benchTier(b *testing.B, pk bool, total int) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	var dur time.Duration
	var rows int64
	for it := 0; it < b.N; it++ {
		c := startCluster(b, Config{TabletServers: 1, DatalakeFormat: "paimon", Lake: LakeConfig{Warehouse: b.TempDir()}})
		c.CreateDatabase(ctx, "b")
		spec := TableSpec{Database: "b", Name: "t", Buckets: 3, BucketKeys: []string{"id"},
			Columns: []Column{{Name: "id", Type: typemap.BigInt().NotNull()}, {Name: "name", Type: typemap.String()},
				{Name: "v", Type: typemap.Double()}, {Name: "price", Type: typemap.Decimal(10, 2)}},
			Properties: map[string]string{"table.datalake.enabled": "true"}}
		if pk {
			spec.PrimaryKey = []string{"id"}
		}
		info, err := c.CreateTable(ctx, spec)
		if err != nil {
			b.Fatal(err)
		}
		if pk {
			const chunk = 50_000
			for lo := 0; lo < total; lo += chunk {
				var rs [][]any
				for i := lo; i < lo+chunk; i++ {
					rs = append(rs, []any{int64(i), fmt.Sprintf("name-%d", i%1000), float64(i) / 3, fmt.Sprintf("%d.%02d", i, i%100)})
				}
				if err := c.Upsert(ctx, "b", "t", rs); err != nil {
					b.Fatal(err)
				}
			}
		} else {
			schema, err := typemap.ArrowSchema(c.mustColumns(info))
			if err != nil {
				b.Fatal(err)
			}
			rb := array.NewRecordBuilder(mem, schema)
			const per = 10_000
			for bkt := int32(0); bkt < 3; bkt++ {
				for base := int(bkt) * total / 3; base < int(bkt+1)*total/3; base += per {
					for i := base; i < min(base+per, int(bkt+1)*total/3); i++ {
						rb.Field(0).(*array.Int64Builder).Append(int64(i))
						rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%1000))
						rb.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
						rb.Field(3).(*array.Decimal128Builder).Append(decimalOf(int64(i)))
					}
					rec := rb.NewRecordBatch()
					if _, err := c.AppendRecord(ctx, "b", "t", "", bkt, rec); err != nil {
						b.Fatal(err)
					}
					rec.Release()
				}
			}
			rb.Release()
		}
		start := time.Now()
		res, err := c.TierLake(ctx, "b", "t")
		if err != nil {
			b.Fatal(err)
		}
		dur += time.Since(start)
		rows += res.Rows
		if res.Rows != int64(total) {
			b.Fatalf("tiered %d rows, want %d", res.Rows, total)
		}
	}
	b.ReportMetric(float64(rows)/dur.Seconds(), "tier_rows/s")
}

func decimalOf(n int64) decimal128.Num { return decimal128.FromI64(n) }

// mustColumns is the table's columns, for building Arrow batches.
func (c *Cluster) mustColumns(info TableInfo) []typemap.Column {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cat.tableByID(info.ID).columns()
}

func benchRows(pk bool) int {
	if pk {
		return 200_000
	}
	return 1_000_000
}
