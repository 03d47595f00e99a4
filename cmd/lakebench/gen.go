package main

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// tsBase is the first row's timestamp in microseconds (2023-11-14 22:13:20 UTC).
const tsBase = 1_700_000_000_000_000

// Row i of the table, the single definition both the generator and the
// expected answers (want) use:
//
//	id = i, k = i mod 1000, v = NULL when i mod 97 = 0 else (i mod 4001)/4,
//	s = "s-" + (i mod 50021) zero-padded to 14 digits, ts = tsBase + i s.
func vNull(i int64) bool  { return i%97 == 0 }
func vOf(i int64) float64 { return float64(i%4001) * 0.25 }
func sOf(i int64) string  { return fmt.Sprintf("s-%014d", i%50021) }
func tsOf(i int64) int64  { return tsBase + i*1_000_000 }
func kOf(i int64) int32   { return int32(i % 1000) }
func benchFields() []paimon.DataField {
	must := func(s string) paimon.DataType {
		t, err := paimon.ParseType(s)
		if err != nil {
			panic(err)
		}
		return t
	}
	return []paimon.DataField{
		{ID: 0, Name: "id", Type: must("BIGINT")},
		{ID: 1, Name: "k", Type: must("INT")},
		{ID: 2, Name: "v", Type: must("DOUBLE")},
		{ID: 3, Name: "s", Type: must("STRING")},
		{ID: 4, Name: "ts", Type: must("TIMESTAMP(6)")},
	}
}

// sLen is len(sOf(i)) for every i: "s-" and 14 digits of a value below 50021.
const sLen = 16

const genBatchRows = 65536

// generate writes rows rows as an append table at dir in files data files
// (ZSTD, the writer's default), one commit.
func generate(ctx context.Context, dir string, rows int64, files int, mem memory.Allocator) error {
	s := &paimon.TableSchema{Fields: benchFields(), Options: map[string]string{"bucket": "-1", "file.format": "parquet"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, dir, s, time.Now()); err != nil {
		return err
	}
	tw, err := writer.Open(ctx, fileio.Local{}, dir, mem, writer.Options{})
	if err != nil {
		return err
	}
	sch, err := paimon.ArrowSchema(tw.Schema().Fields)
	if err != nil {
		return err
	}
	c := tw.NewCommit()
	per := (rows + int64(files) - 1) / int64(files)
	for f, lo := 0, int64(0); f < files && lo < rows; f, lo = f+1, lo+per {
		hi := min(lo+per, rows)
		fw, err := c.NewFile(ctx, nil, 0)
		if err != nil {
			return err
		}
		for b := lo; b < hi; b += genBatchRows {
			if err := ctx.Err(); err != nil {
				fw.Abort()
				return err
			}
			rec := genBatch(sch, mem, b, min(b+genBatchRows, hi))
			err := fw.Write(rec, nil)
			rec.Release()
			if err != nil {
				fw.Abort()
				return fmt.Errorf("file %d: %w", f, err)
			}
		}
		if err := fw.Close(ctx); err != nil {
			return err
		}
	}
	_, err = c.Commit(ctx, nil)
	return err
}

func genBatch(sch *arrow.Schema, mem memory.Allocator, lo, hi int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	ks := b.Field(1).(*array.Int32Builder)
	vs := b.Field(2).(*array.Float64Builder)
	ss := b.Field(3).(*array.StringBuilder)
	ts := b.Field(4).(*array.TimestampBuilder)
	for i := lo; i < hi; i++ {
		ids.Append(i)
		ks.Append(kOf(i))
		if vNull(i) {
			vs.AppendNull()
		} else {
			vs.Append(vOf(i))
		}
		ss.Append(sOf(i))
		ts.Append(arrow.Timestamp(tsOf(i)))
	}
	return b.NewRecordBatch()
}
