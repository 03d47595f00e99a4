package minifluss

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/protobuf/proto"

	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// BenchmarkAppendFetch1M appends 1 M rows (10 000-row Arrow batches, the
// table's default ZSTD compression) to one bucket, then reads them back with
// bounded FetchLog requests (4 MB per bucket, 16 MB per request) over TCP.
// Reported: append_rows/s, fetch_rows/s and fetch_MB/s.
//
//	go test -run XXX -bench AppendFetch1M -benchtime 1x ./minifluss
func BenchmarkAppendFetch1M(b *testing.B) {
	for _, comp := range []string{"ZSTD", "NONE"} {
		b.Run(comp, func(b *testing.B) { benchAppendFetch(b, comp, 1_000_000, 10_000) })
	}
}

func benchAppendFetch(b *testing.B, comp string, total, per int) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	cols := []Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "v", Type: typemap.Double()}}
	tcols := []typemap.Column{{Name: "id", Type: typemap.BigInt()}, {Name: "name", Type: typemap.String()}, {Name: "v", Type: typemap.Double()}}
	schema, err := typemap.ArrowSchema(tcols)
	if err != nil {
		b.Fatal(err)
	}
	var appendDur, fetchDur time.Duration
	var fetchedBytes int64
	for it := 0; it < b.N; it++ {
		c := startCluster(b, Config{TabletServers: 1})
		c.CreateDatabase(ctx, "b")
		info, err := c.CreateTable(ctx, TableSpec{Database: "b", Name: "t", Buckets: 1, Columns: cols,
			Properties: map[string]string{"table.log.arrow.compression.type": comp}})
		if err != nil {
			b.Fatal(err)
		}
		rb := array.NewRecordBuilder(mem, schema)
		var recs []arrow.RecordBatch
		for base := 0; base < total; base += per {
			for i := base; i < base+per; i++ {
				rb.Field(0).(*array.Int64Builder).Append(int64(i))
				rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%1000))
				rb.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
			}
			recs = append(recs, rb.NewRecordBatch())
		}
		rb.Release()
		start := time.Now()
		for _, r := range recs {
			if _, err := c.AppendRecord(ctx, "b", "t", "", 0, r); err != nil {
				b.Fatal(err)
			}
			r.Release()
		}
		appendDur += time.Since(start)

		cn := dial(b, c.ServerAddr(0, "CLIENT"))
		start = time.Now()
		off, rows := int64(0), int64(0)
		for off < int64(total) {
			var fr flusspb.FetchLogResponse
			if code := cn.call(apiFetchLog, &flusspb.FetchLogRequest{FollowerServerId: proto.Int32(-1), MaxBytes: proto.Int32(16 << 20),
				TablesReq: []*flusspb.PbFetchLogReqForTable{{TableId: proto.Int64(info.ID), ProjectionPushdownEnabled: proto.Bool(false),
					BucketsReq: []*flusspb.PbFetchLogReqForBucket{{BucketId: proto.Int32(0), FetchOffset: proto.Int64(off), MaxFetchBytes: proto.Int32(4 << 20)}}}}}, &fr); code != 0 {
				b.Fatalf("fetch: %d", code)
			}
			recsBlob := fr.GetTablesResp()[0].GetBucketsResp()[0].GetRecords()
			hs, err := splitBatches(recsBlob)
			if err != nil || len(hs) == 0 {
				b.Fatalf("fetch at %d: %d batches, %v", off, len(hs), err)
			}
			for _, h := range hs {
				rows += int64(h.recordCount)
				off = h.nextOffset()
			}
			fetchedBytes += int64(len(recsBlob))
		}
		fetchDur += time.Since(start)
		if rows != int64(total) {
			b.Fatalf("fetched %d rows, want %d", rows, total)
		}
		c.Close()
	}
	n := float64(b.N) * float64(total)
	b.ReportMetric(n/appendDur.Seconds(), "append_rows/s")
	b.ReportMetric(n/fetchDur.Seconds(), "fetch_rows/s")
	b.ReportMetric(float64(fetchedBytes)/1e6/fetchDur.Seconds(), "fetch_MB/s")
}
