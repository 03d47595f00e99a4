package paimon_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// TestRowSplitRemote: files on S3 (an in-process S3 server) read as
// slices. A file with offset indexes shares its row group by rows (the
// page lists come from the indexes, one request a column); one without
// goes whole to one slice (walking its page headers would be a request
// each). Both read every row once.
func TestRowSplitRemote(t *testing.T) {
	ctx := context.Background()
	defer paimon.SetMinSplitGroup(1, 100)()
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	fsys := fileio.NewS3(fileio.S3Config{Endpoint: srv.URL, AccessKey: "AKTEST", SecretKey: "very-secret-value", PathStyle: true, PartSize: 5 << 20})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"0"})},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})},
	}, nil)
	const n = 30000
	fields := []paimon.DataField{{ID: 0, Name: "id", Type: mustType(t, "BIGINT")}, {ID: 1, Name: "s", Type: mustType(t, "STRING")}}
	for _, indexed := range []bool{true, false} {
		t.Run(fmt.Sprintf("index=%v", indexed), func(t *testing.T) {
			var buf bytes.Buffer
			props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDataPageSize(4096),
				parquet.WithMaxRowGroupLength(1<<30), parquet.WithPageIndexEnabled(indexed))
			w, err := pqarrow.NewFileWriter(sch, &buf, props, pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
			for i := 0; i < n; i++ {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				if i%9 == 0 {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("v%d", i%101))
				}
			}
			rec := b.NewRecordBatch()
			b.Release()
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("s3://lake/t/f-%v.parquet", indexed)
			if err := fileio.WriteFile(ctx, fsys, path, buf.Bytes()); err != nil {
				t.Fatal(err)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			before := paimon.SplitParts()
			seen := make([]bool, n)
			withRows := 0
			for k := int32(0); k < 3; k++ {
				r, err := paimon.OpenDataFile(ctx, mem, paimon.DataFileRead{FS: fsys, Path: path, Size: int64(buf.Len()),
					FileFields: fields, Want: fields, BatchSize: 1000, Slice: &paimon.FileSlice{Index: k, Count: 3}})
				if err != nil {
					t.Fatal(err)
				}
				got := 0
				for {
					rec, pos, err := r.Next()
					if err != nil {
						r.Close()
						t.Fatal(err)
					}
					if rec == nil {
						break
					}
					ids := rec.Column(0).(*array.Int64)
					ss := rec.Column(1)
					for i := 0; i < ids.Len(); i++ {
						id := ids.Value(i)
						if id != pos+int64(i) || seen[id] || ss.IsNull(i) != (id%9 == 0) ||
							(!ss.IsNull(i) && ss.(*array.String).Value(i) != fmt.Sprintf("v%d", id%101)) {
							rec.Release()
							r.Close()
							t.Fatalf("slice %d: row at %d: id %d (seen %v)", k, pos+int64(i), id, seen[id])
						}
						seen[id] = true
					}
					got += ids.Len()
					rec.Release()
				}
				r.Close()
				if got > 0 {
					withRows++
				}
			}
			for id, ok := range seen {
				if !ok {
					t.Fatalf("id %d not read", id)
				}
			}
			if split := paimon.SplitParts() > before; split != indexed || (withRows > 1) != indexed {
				t.Errorf("row group shared: %v, slices with rows: %d; want shared only with offset indexes", split, withRows)
			}
		})
	}
}
