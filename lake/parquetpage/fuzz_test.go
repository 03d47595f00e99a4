package parquetpage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

type fuzzCol struct {
	col    Column
	chunks [][]byte // real chunks, as seeds
}

// fuzzColumns writes a small file of every type and returns its columns
// with their chunks' bytes.
func fuzzColumns(t testing.TB) []fuzzCol {
	var out []fuzzCol
	bss := arrow.NewSchema([]arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "x", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "dl", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "di", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	for i, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2, parquet.DataPageV2} {
		sch, aprops := genSchema(), pqarrow.DefaultWriterProps()
		opts := []parquet.WriterProperty{parquet.WithDataPageVersion(v), parquet.WithDictionaryDefault(i == 0),
			parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(200)}
		if i == 2 {
			sch, aprops = bss, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true))
			opts = append(opts, parquet.WithEncodingFor("f", parquet.Encodings.ByteStreamSplit), parquet.WithEncodingFor("x", parquet.Encodings.ByteStreamSplit),
				parquet.WithEncodingFor("dl", parquet.Encodings.DeltaBinaryPacked), parquet.WithEncodingFor("di", parquet.Encodings.DeltaBinaryPacked))
		}
		rec := genBatch(sch, 300, 20, 1)
		path := filepath.Join(t.TempDir(), "f.parquet")
		writeFile(t, path, rec, parquet.NewWriterProperties(opts...), aprops)
		rec.Release()
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := readAllFile(path)
		for _, sf := range fr.Manifest.Fields {
			c := fuzzCol{col: Column{File: "fuzz", Name: sf.Field.Name, Descr: pf.MetaData().Schema.Column(sf.ColIndex), Out: sf.Field.Type}}
			cc, _ := pf.MetaData().RowGroup(0).ColumnChunk(sf.ColIndex)
			ch, err := ChunkOf(cc, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.chunks = append(c.chunks, raw[ch.Offset:ch.Offset+ch.Size])
			out = append(out, c)
		}
		pf.Close()
	}
	return append(out, fuzzDeltaBytes(t)...)
}

// fuzzDeltaBytes: string and binary columns, required and nullable, in
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages (v1 and v2), and a
// fixed-width column in hand-built DELTA_BYTE_ARRAY pages.
func fuzzDeltaBytes(t testing.TB) []fuzzCol {
	var out []fuzzCol
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ls", Type: arrow.BinaryTypes.String},
		{Name: "lb", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "ps", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "pb", Type: arrow.BinaryTypes.Binary},
	}, nil)
	for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
		rec := deltaStrings(sch, 300, uint64(v)+1)
		opts := []parquet.WriterProperty{parquet.WithDataPageVersion(v), parquet.WithDictionaryDefault(false),
			parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(2048), parquet.WithMaxRowGroupLength(200),
			parquet.WithEncodingFor("ls", parquet.Encodings.DeltaLengthByteArray), parquet.WithEncodingFor("lb", parquet.Encodings.DeltaLengthByteArray),
			parquet.WithEncodingFor("ps", parquet.Encodings.DeltaByteArray), parquet.WithEncodingFor("pb", parquet.Encodings.DeltaByteArray)}
		path := filepath.Join(t.TempDir(), "d.parquet")
		writeFile(t, path, rec, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
		rec.Release()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		for i, f := range sch.Fields() {
			c := fuzzCol{col: Column{File: "fuzz", Name: f.Name, Descr: md.Schema.Column(i), Out: f.Type}}
			cc, _ := md.RowGroup(0).ColumnChunk(i)
			ch, err := ChunkOf(cc, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.chunks = append(c.chunks, raw[ch.Offset:ch.Offset+ch.Size])
			out = append(out, c)
		}
		pf.Close()
	}
	ps, err := pqarrow.ToParquet(arrow.NewSchema([]arrow.Field{{Name: "fx", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true}}, nil), nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	vals := [][]byte{[]byte("abc"), []byte("abd"), []byte("abd"), []byte("xyz")}
	page := dataPageV2(5, 1, encDeltaByteArray, bitPackedLevels([]bool{true, true, false, true, true}), deltaByteArrayValues(vals))
	out = append(out, fuzzCol{col: Column{File: "fuzz", Name: "fx", Descr: ps.Column(0), Out: &arrow.FixedSizeBinaryType{ByteWidth: 3}},
		chunks: [][]byte{append(page, page...)}})
	// A dictionary, then a fallback to DELTA_BYTE_ARRAY (parquet-mr v2).
	ps, err = pqarrow.ToParquet(arrow.NewSchema([]arrow.Field{{Name: "fs", Type: arrow.BinaryTypes.String, Nullable: true}}, nil), nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Join([][]byte{dictPage([][]byte{[]byte("red"), []byte("green")}),
		dataPageV2(4, 1, encRLEDict, bitPackedLevels([]bool{true, false, true, true}), append([]byte{1}, bitPackedLevels([]bool{true, false, true})...)),
		dataPageV2(3, 1, encDeltaByteArray, bitPackedLevels([]bool{true, true, false}), deltaByteArrayValues([][]byte{[]byte("greenish"), []byte("greenery")}))}, nil)
	out = append(out, fuzzCol{col: Column{File: "fuzz", Name: "fs", Descr: ps.Column(0), Out: arrow.BinaryTypes.String}, chunks: [][]byte{chunk}})
	return out
}

func readAllFile(path string) ([]byte, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, err
	}
	pf.Close()
	return os.ReadFile(path)
}

// FuzzPage feeds arbitrary bytes to the reader as a column chunk of every
// type; it must return values or an error naming the column, never panic.
func FuzzPage(f *testing.F) {
	cols := fuzzColumns(f)
	for i, c := range cols {
		for _, ch := range c.chunks {
			f.Add(ch, uint8(i), uint8(1), uint16(200))
		}
	}
	maxPageBytes, maxPageValues = 1<<20, 1<<16
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd, compress.Codecs.Lz4Raw}
	f.Fuzz(func(t *testing.T, data []byte, col, codec uint8, rows uint16) {
		c := cols[int(col)%len(cols)]
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rd, err := NewReader(c.col, mem)
		if err != nil {
			t.Fatal(err)
		}
		ch := Chunk{Offset: 4, Size: int64(len(data)), NumValues: int64(rows), Codec: codecs[int(codec)%len(codecs)]}
		if err := rd.Reset(bytes.NewReader(append(make([]byte, 4), data...)), ch); err != nil {
			t.Fatal(err)
		}
		for done := 0; done < int(rows); {
			n := min(int(rows)-done, 64)
			var sel []bool
			if rows%2 == 1 { // half the inputs read with a selection
				if rows%4 != 1 {
					n = min(int(rows)-done, 256)
				}
				sel = make([]bool, n)
				for i := range sel {
					if rows%4 == 1 {
						sel[i] = (i+int(codec))%3 != 0
					} else { // sparse, few runs: only the selected indices decoded
						sel[i] = (i+int(codec))%151 == 0
					}
				}
			}
			a, err := rd.ReadSelected(context.Background(), n, sel)
			if err != nil {
				if !strings.Contains(err.Error(), "column "+c.col.Name+" row group 0 page at offset") {
					t.Fatalf("error does not name the column and page: %v", err)
				}
				break
			}
			if a.Len() != n || !arrow.TypeEqual(a.DataType(), c.col.Out) {
				t.Fatalf("%d rows of %s, want %d of %s", a.Len(), a.DataType(), n, c.col.Out)
			}
			a.Release()
			done += n
		}
		rd.Release()
		mem.AssertSize(t, 0)
	})
}
