package parquetpage

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// diffFile reads every flat column of the Parquet file at path through
// this package and through pqarrow and fails on any difference. It returns
// how many columns it compared and how many it had to leave to pqarrow.
func diffFile(t *testing.T, path string, batch int) (compared, refused int) {
	t.Helper()
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	raw, pf := openParquet(t, path)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	for fi, sf := range fr.Manifest.Fields {
		if !sf.IsLeaf() {
			continue
		}
		col := Column{File: path, Name: sf.Field.Name, Descr: md.Schema.Column(sf.ColIndex), Out: sf.Field.Type}
		if err := Supported(col); err != nil {
			refused++
			continue
		}
		rd, err := NewReader(col, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(sf.ColIndex)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := ChunkOf(cc, rg)
			if err != nil {
				refused++
				continue
			}
			want, err := fr.RowGroup(rg).Column(fi).Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rows := int(md.RowGroup(rg).NumRows())
			// Every row, then with a selection (ReadSelected): the
			// selected rows' values and every row's NULL-ness must match.
			for _, selective := range []int{0, 1, 2, 3} {
				if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
					t.Fatal(err)
				}
				var got []arrow.Array
				var sel []bool
				for done := 0; done < rows; {
					n := min(batch, rows-done)
					var s []bool
					if selective > 0 {
						s = make([]bool, n)
						for i := range s {
							switch selective {
							case 1:
								s[i] = (done+i)%3 != 1
							case 2:
								// Sparse, singles and short runs.
								s[i] = (done+i)%11 == 3 || (done+i)/5%13 == 0
							default:
								// Sparse in few runs (under one in 64
								// rows): only the selected indices are
								// decoded (decodeDictSparse).
								s[i] = (done+i)%300 < 20 || (done+i)%97 == 50
							}
						}
						sel = append(sel, s...)
					}
					a, err := rd.ReadSelected(ctx, n, s)
					if err != nil {
						t.Fatalf("%s row group %d: %v", col.Name, rg, err)
					}
					got = append(got, a)
					done += n
				}
				g := arrow.NewChunked(col.Out, got)
				for _, a := range got {
					a.Release()
				}
				if err := sameChunked(want, g, sel); err != nil {
					t.Errorf("%s: column %s (%s) row group %d (selection %d): %v", filepath.Base(path), col.Name, col.Out, rg, selective, err)
				}
				g.Release()
			}
			want.Release()
			compared++
		}
	}
	return compared, refused
}

// sameChunked compares value by value: NULL-ness and the exact value text
// (floats print round-trip exactly, NaN as NaN).
func sameChunked(want, got *arrow.Chunked, sel []bool) error {
	if want.Len() != got.Len() {
		return fmt.Errorf("%d rows, want %d", got.Len(), want.Len())
	}
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		return fmt.Errorf("type %s, want %s", got.DataType(), want.DataType())
	}
	type pos struct {
		cs []arrow.Array
		c  int
		i  int
	}
	w, g := pos{cs: want.Chunks()}, pos{cs: got.Chunks()}
	adv := func(p *pos) arrow.Array {
		for p.i >= p.cs[p.c].Len() {
			p.c++
			p.i = 0
		}
		return p.cs[p.c]
	}
	for row := 0; row < want.Len(); row++ {
		wa, ga := adv(&w), adv(&g)
		wn, gn := wa.IsNull(w.i), ga.IsNull(g.i)
		if wn != gn {
			return fmt.Errorf("row %d: NULL %v, want %v", row, gn, wn)
		}
		if !wn && (sel == nil || sel[row]) {
			if ws, gs := wa.ValueStr(w.i), ga.ValueStr(g.i); ws != gs {
				return fmt.Errorf("row %d: %q, want %q", row, gs, ws)
			}
		}
		w.i++
		g.i++
	}
	return nil
}

// genSchema is every flat type the lake reads, each required and nullable.
func genSchema() *arrow.Schema {
	types := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32,
		arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Millisecond}, &arrow.TimestampType{Unit: arrow.Microsecond},
		&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"},
		&arrow.Decimal128Type{Precision: 9, Scale: 2}, &arrow.Decimal128Type{Precision: 18, Scale: 3},
		&arrow.Decimal128Type{Precision: 38, Scale: 10}, &arrow.FixedSizeBinaryType{ByteWidth: 5},
	}
	var fs []arrow.Field
	for i, ty := range types {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("r%d", i), Type: ty},
			arrow.Field{Name: fmt.Sprintf("n%d", i), Type: ty, Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// genBatch fills rows of sch; card bounds the distinct values (small:
// dictionaries hold; large: writers fall back to plain mid-chunk;
// negative: runs of -card equal values, so dictionary indices and
// booleans are RLE runs).
func genBatch(sch *arrow.Schema, rows, card int, seed uint64) arrow.RecordBatch {
	return genBatchNulls(sch, rows, card, seed, func(rng *rand.Rand, _ int) bool { return rng.IntN(5) == 0 })
}

// genBatchNulls is genBatch with row i of a nullable column NULL where
// null says.
func genBatchNulls(sch *arrow.Schema, rows, card int, seed uint64, null func(rng *rand.Rand, i int) bool) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	defer b.Release()
	for c, f := range sch.Fields() {
		fb := b.Field(c)
		for i := 0; i < rows; i++ {
			if f.Nullable && null(rng, i) {
				fb.AppendNull()
				continue
			}
			v := int64(rng.IntN(max(card, 1))) - int64(card/2)
			if card < 0 {
				v = int64(i/-card%37) - 18
			} else if rng.IntN(50) == 0 { // extremes
				v = []int64{math.MinInt64, math.MaxInt64, -1, 0}[rng.IntN(4)]
			}
			switch fb := fb.(type) {
			case *array.BooleanBuilder:
				fb.Append(v&1 == 0)
			case *array.Int8Builder:
				fb.Append(int8(v))
			case *array.Int16Builder:
				fb.Append(int16(v))
			case *array.Int32Builder:
				fb.Append(int32(v))
			case *array.Int64Builder:
				fb.Append(v)
			case *array.Float32Builder:
				fb.Append(float32(v) / 3)
			case *array.Float64Builder:
				x := float64(v) / 7
				if v == 0 {
					x = math.NaN()
				}
				fb.Append(x)
			case *array.StringBuilder:
				fb.Append(fmt.Sprintf("s%d-%s", v, string(make([]byte, int(uint64(v)%5)))))
			case *array.BinaryBuilder:
				s := fmt.Sprint(v)
				fb.Append([]byte(s)[:int(uint64(v)%uint64(len(s)+1))])
			case *array.Date32Builder:
				fb.Append(arrow.Date32(int32(v % 100000)))
			case *array.Time32Builder:
				fb.Append(arrow.Time32(uint64(v) % 86400000))
			case *array.Time64Builder:
				fb.Append(arrow.Time64(uint64(v) % 86400000000))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(v / 1000))
			case *array.Decimal128Builder:
				p := f.Type.(*arrow.Decimal128Type).Precision
				x := v % int64(math.Pow10(int(min(p, 18))))
				n := decimal128.FromI64(x)
				if p > 18 {
					n = n.Mul(decimal128.FromI64(1_000_000_000_000))
				}
				fb.Append(n)
			case *array.FixedSizeBinaryBuilder:
				fb.Append([]byte(fmt.Sprintf("%05d", uint64(v)%100000)))
			default:
				panic(fmt.Sprintf("no generator for %T", fb))
			}
		}
	}
	return b.NewRecordBatch()
}

func writeFile(t testing.TB, path string, rec arrow.RecordBatch, props *parquet.WriterProperties, aprops pqarrow.ArrowWriterProperties) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, aprops)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedMatchesPqarrow: every type × {required, nullable} ×
// {dictionary, plain, dictionary falling back to plain} × codec × page
// version, several row groups and small pages, read both ways.
func TestGeneratedMatchesPqarrow(t *testing.T) {
	sch := genSchema()
	dir := t.TempDir()
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd, compress.Codecs.Lz4Raw, compress.Codecs.Brotli}
	type dictMode struct {
		name  string
		dict  bool
		card  int
		limit int64
	}
	modes := []dictMode{{"dict", true, 40, 1 << 20}, {"dictruns", true, -20, 1 << 20}, {"plain", false, 1 << 30, 1 << 20}, {"dictfallback", true, 1 << 30, 2048}}
	rows := 3000
	for _, codec := range codecs {
		for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
			for _, m := range modes {
				for _, asInt := range []bool{false, true} {
					if asInt && codec != compress.Codecs.Zstd && codec != compress.Codecs.Uncompressed {
						continue // decimals as integers: one codec with and one without compression suffice
					}
					name := fmt.Sprintf("%s-v%d-%s-decint%v", codec, v+1, m.name, asInt)
					t.Run(name, func(t *testing.T) {
						rec := genBatch(sch, rows, m.card, uint64(len(name)))
						defer rec.Release()
						props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithDataPageVersion(v),
							parquet.WithDictionaryDefault(m.dict), parquet.WithDictionaryPageSizeLimit(m.limit),
							parquet.WithDataPageSize(3000), parquet.WithMaxRowGroupLength(1200), parquet.WithBatchSize(700),
							parquet.WithStoreDecimalAsInteger(asInt))
						path := filepath.Join(dir, name+".parquet")
						writeFile(t, path, rec, props, pqarrow.DefaultWriterProps())
						compared, refused := diffFile(t, path, 777)
						if codec == compress.Codecs.Brotli {
							if compared != 0 {
								t.Errorf("brotli chunks read by the fast path: %d", compared)
							}
							return
						}
						if want := (rows + 1199) / 1200 * len(sch.Fields()); refused != 0 || compared != want {
							t.Errorf("compared %d column chunks, refused %d; want %d, 0", compared, refused, want)
						}
					})
				}
			}
		}
	}
}

// TestNullFreePagesMatchPqarrow: nullable columns whose NULLs come in
// stretches, so that some pages hold none (read without levels or
// validity bits), some some, and some only NULLs, and batches of several
// sizes start in one kind of page and end in another (the validity
// bitmap made part way through a batch must mark the rows before it
// valid), or lie within one page (batches of 64 rows: PLAIN values then
// alias the page's buffer, and must survive the reader moving on, as
// diffFile holds every batch of a row group until it compares).
func TestNullFreePagesMatchPqarrow(t *testing.T) {
	sch := genSchema()
	dir := t.TempDir()
	// Stretches of 450 rows: none NULL, a fifth NULL, none NULL, all NULL.
	null := func(rng *rand.Rand, i int) bool {
		switch i / 450 % 4 {
		case 1:
			return rng.IntN(5) == 0
		case 3:
			return true
		}
		return false
	}
	rows := 5000
	for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Zstd} {
		for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
			for _, dict := range []bool{false, true} {
				name := fmt.Sprintf("%s-v%d-dict%v", codec, v+1, dict)
				t.Run(name, func(t *testing.T) {
					rec := genBatchNulls(sch, rows, 1<<30, uint64(len(name)), null)
					defer rec.Release()
					props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithDataPageVersion(v),
						parquet.WithDictionaryDefault(dict), parquet.WithDictionaryPageSizeLimit(4096),
						parquet.WithDataPageSize(1500), parquet.WithMaxRowGroupLength(2500), parquet.WithBatchSize(100))
					path := filepath.Join(dir, name+".parquet")
					writeFile(t, path, rec, props, pqarrow.DefaultWriterProps())
					for _, batch := range []int{64, 333, 1000, 2500} {
						compared, refused := diffFile(t, path, batch)
						if want := (rows + 2499) / 2500 * len(sch.Fields()); refused != 0 || compared != want {
							t.Errorf("batch %d: compared %d column chunks, refused %d; want %d, 0", batch, compared, refused, want)
						}
					}
				})
			}
		}
	}
}

// TestByteStreamSplitAndInt96 covers what the default writer settings never
// produce: BYTE_STREAM_SPLIT values and INT96 timestamps.
func TestByteStreamSplitAndInt96(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
	}, nil)
	rec := genBatch(sch, 5000, 1<<30, 3)
	defer rec.Release()
	for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
		path := filepath.Join(t.TempDir(), "bss.parquet")
		props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(v),
			parquet.WithEncodingFor("f", parquet.Encodings.ByteStreamSplit), parquet.WithEncodingFor("d", parquet.Encodings.ByteStreamSplit),
			parquet.WithEncodingFor("i", parquet.Encodings.ByteStreamSplit), parquet.WithEncodingFor("l", parquet.Encodings.ByteStreamSplit),
			parquet.WithEncodingFor("x", parquet.Encodings.ByteStreamSplit),
			parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDataPageSize(2000), parquet.WithMaxRowGroupLength(3000))
		writeFile(t, path, rec, props, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)))
		compared, refused := diffFile(t, path, 1000)
		if refused != 0 || compared != 2*len(sch.Fields()) {
			t.Errorf("v%d: compared %d column chunks, refused %d; want %d, 0", v+1, compared, refused, 2*len(sch.Fields()))
		}
	}
}

// TestDeltaBinaryPackedMatchesPqarrow reads DELTA_BINARY_PACKED integer
// columns (every INT32/INT64 output type, required and nullable) both ways.
func TestDeltaBinaryPackedMatchesPqarrow(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "s", Type: arrow.PrimitiveTypes.Int16},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ln", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	}, nil)
	rec := genBatch(sch, 5000, 1<<30, 5)
	defer rec.Release()
	for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
		path := filepath.Join(t.TempDir(), "delta.parquet")
		opts := []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(v),
			parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(2000), parquet.WithMaxRowGroupLength(3000)}
		for _, f := range sch.Fields() {
			opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
		}
		writeFile(t, path, rec, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
		compared, refused := diffFile(t, path, 1000)
		if refused != 0 || compared != 2*len(sch.Fields()) {
			t.Errorf("v%d: compared %d column chunks, refused %d; want %d, 0", v+1, compared, refused, 2*len(sch.Fields()))
		}
	}
}
