package parquetpage

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/inlet-db/inlet/internal/duckrun"
)

// deltaStrings fills string and binary columns with what the byte array
// delta encodings must get right: empty values, long ones (several KiB,
// past a page), runs sharing long prefixes (sorted keys, URLs), prefixes
// equal to the whole previous value, and unrelated neighbours.
func deltaStrings(sch *arrow.Schema, rows int, seed uint64) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 11))
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
	defer b.Release()
	for c, f := range sch.Fields() {
		prev := ""
		for i := 0; i < rows; i++ {
			if f.Nullable && rng.IntN(4) == 0 {
				b.Field(c).AppendNull()
				continue
			}
			var v string
			switch k := rng.IntN(12); {
			case k == 0:
				v = ""
			case k == 1:
				v = strings.Repeat(string(rune('a'+rng.IntN(26))), 1000+rng.IntN(6000))
			case k == 2:
				v = prev // whole value shared
			case k == 3 && len(prev) > 0:
				v = prev[:rng.IntN(len(prev)+1)] // a prefix of the previous value
			case k < 8:
				v = fmt.Sprintf("https://example.com/tenant/%04d/item/%08d", i/50, i*7+rng.IntN(5))
			default:
				v = fmt.Sprintf("%x\x00é%d", rng.Uint64(), rng.IntN(1000))
			}
			prev = v
			switch fb := b.Field(c).(type) {
			case *array.StringBuilder:
				fb.Append(v)
			case *array.BinaryBuilder:
				fb.Append([]byte(v))
			}
		}
	}
	return b.NewRecordBatch()
}

// TestDeltaByteArraysMatchPqarrow reads DELTA_LENGTH_BYTE_ARRAY and
// DELTA_BYTE_ARRAY string and binary columns (required and nullable)
// written by arrow-go, under every codec and both page versions, at
// batch sizes that do and do not divide the pages, both ways.
func TestDeltaByteArraysMatchPqarrow(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "sn", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary},
		{Name: "bn", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	rec := deltaStrings(sch, 4000, 9)
	defer rec.Release()
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd, compress.Codecs.Lz4Raw}
	encs := []parquet.Encoding{parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray}
	dir := t.TempDir()
	for _, enc := range encs {
		for _, codec := range codecs {
			for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
				name := fmt.Sprintf("%s-%s-v%d", enc, codec, v+1)
				t.Run(name, func(t *testing.T) {
					opts := []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(v),
						parquet.WithCompression(codec), parquet.WithDataPageSize(16 << 10), parquet.WithMaxRowGroupLength(1500), parquet.WithBatchSize(300)}
					for _, f := range sch.Fields() {
						opts = append(opts, parquet.WithEncodingFor(f.Name, enc))
					}
					path := filepath.Join(dir, name+".parquet")
					writeFile(t, path, rec, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
					requireEncoding(t, path, enc)
					for _, batch := range []int{1, 777, 5000} {
						compared, refused := diffFile(t, path, batch)
						if want := 3 * len(sch.Fields()); refused != 0 || compared != want {
							t.Errorf("batch %d: compared %d column chunks, refused %d; want %d, 0", batch, compared, refused, want)
						}
					}
				})
			}
		}
	}
}

// requireEncoding fails unless every column chunk of the file lists enc,
// so a test cannot pass on a file whose writer chose another encoding.
func requireEncoding(t *testing.T, path string, enc parquet.Encoding) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		for c := 0; c < md.Schema.NumColumns(); c++ {
			cc, err := md.RowGroup(rg).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(cc.Encodings(), enc) {
				t.Fatalf("%s row group %d column %d: encodings %v, not %s", filepath.Base(path), rg, c, cc.Encodings(), enc)
			}
		}
	}
}

// dbp encodes vals as a DELTA_BINARY_PACKED INT32 stream (blocks of 128
// in 4 miniblocks, each miniblock padded to 32 values), from the format
// specification, for pages this package's writer tests cannot get from
// arrow-go.
func dbp(vals []int32) []byte {
	out := binary.AppendUvarint(nil, 128)
	out = binary.AppendUvarint(out, 4)
	out = binary.AppendUvarint(out, uint64(len(vals)))
	first := int32(0)
	if len(vals) > 0 {
		first = vals[0]
	}
	out = binary.AppendVarint(out, int64(first))
	for i := 1; i < len(vals); i += 128 {
		var deltas []int32
		for j := i; j < min(i+128, len(vals)); j++ {
			deltas = append(deltas, vals[j]-vals[j-1])
		}
		minD := slices.Min(deltas)
		out = binary.AppendVarint(out, int64(minD))
		var widths [4]byte
		for m := 0; m < 4 && m*32 < len(deltas); m++ {
			for _, d := range deltas[m*32 : min(m*32+32, len(deltas))] {
				widths[m] = max(widths[m], byte(bits.Len32(uint32(d-minD))))
			}
		}
		out = append(out, widths[:]...)
		for m := 0; m < 4 && m*32 < len(deltas); m++ {
			w := int(widths[m])
			mb := make([]byte, 32*w/8)
			for k, d := range deltas[m*32 : min(m*32+32, len(deltas))] {
				u := uint64(uint32(d - minD))
				for b := 0; b < w; b++ {
					if u>>b&1 == 1 {
						mb[(k*w+b)/8] |= 1 << ((k*w + b) % 8)
					}
				}
			}
			out = append(out, mb...)
		}
	}
	return out
}

// thrift compact encoding of the PageHeader fields this package reads.
func hField(out []byte, last *int16, id int16, typ byte) []byte {
	out = append(out, byte(id-*last)<<4|typ)
	*last = id
	return out
}

func hI32(out []byte, last *int16, id int16, v int32) []byte {
	return binary.AppendUvarint(hField(out, last, id, 5), uint64(uint32(v<<1^v>>31)))
}

// dataPageV2 is an uncompressed v2 data page of rows rows, nulls of them
// NULL, with definition levels defs (RLE hybrid, no length) and values.
func dataPageV2(rows, nulls int, enc int32, defs, values []byte) []byte {
	size := int32(len(defs) + len(values))
	var h []byte
	last := int16(0)
	h = hI32(h, &last, 1, pageDataV2)
	h = hI32(h, &last, 2, size)
	h = hI32(h, &last, 3, size)
	h = hField(h, &last, 8, 12)
	in := int16(0)
	h = hI32(h, &in, 1, int32(rows))
	h = hI32(h, &in, 2, int32(nulls))
	h = hI32(h, &in, 3, int32(rows))
	h = hI32(h, &in, 4, enc)
	h = hI32(h, &in, 5, int32(len(defs)))
	h = hI32(h, &in, 6, 0)
	h = hField(h, &in, 7, 2) // is_compressed false
	h = append(h, 0, 0)      // end of both structs
	return append(append(h, defs...), values...)
}

// bitPackedLevels is an RLE hybrid run of 0/1 levels, bit-packed.
func bitPackedLevels(defs []bool) []byte {
	groups := (len(defs) + 7) / 8
	out := binary.AppendUvarint(nil, uint64(groups<<1|1))
	b := make([]byte, groups)
	for i, d := range defs {
		if d {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return append(out, b...)
}

// deltaLengthValues and deltaByteArrayValues encode vals as the format
// specifies (prefixes against the previous value).
func deltaLengthValues(vals [][]byte) []byte {
	var lens []int32
	for _, v := range vals {
		lens = append(lens, int32(len(v)))
	}
	return append(dbp(lens), bytes.Join(vals, nil)...)
}

func deltaByteArrayValues(vals [][]byte) []byte {
	var prefixes []int32
	var suffixes [][]byte
	var prev []byte
	for _, v := range vals {
		p := 0
		for p < len(v) && p < len(prev) && v[p] == prev[p] {
			p++
		}
		prefixes = append(prefixes, int32(p))
		suffixes = append(suffixes, v[p:])
		prev = v
	}
	return append(dbp(prefixes), deltaLengthValues(suffixes)...)
}

// readPages reads the pages of one chunk (built in memory) as column c.
func readPages(t *testing.T, c Column, rows int, pages ...[]byte) (arrow.Array, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	rd, err := NewReader(c, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	data := append(make([]byte, 100), bytes.Join(pages, nil)...)
	if err := rd.Reset(bytes.NewReader(data), Chunk{Offset: 100, Size: int64(len(data) - 100), NumValues: int64(rows)}); err != nil {
		t.Fatal(err)
	}
	return rd.Read(context.Background(), rows)
}

func leafOf(t *testing.T, f arrow.Field) Column {
	t.Helper()
	ps, err := pqarrow.ToParquet(arrow.NewSchema([]arrow.Field{f}, nil), nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	return Column{File: "hand.parquet", Name: f.Name, Descr: ps.Column(0), Out: f.Type}
}

// TestDeltaByteArrayHandBuilt covers what arrow-go cannot write:
// DELTA_BYTE_ARRAY over FIXED_LEN_BYTE_ARRAY (fixed binary and decimals,
// which the format allows and arrow-go cannot read either), and pages
// built here from the specification, each with its expected values
// written out by hand, two pages per chunk so each page starts afresh.
func TestDeltaByteArrayHandBuilt(t *testing.T) {
	dec := func(s string) []byte { // 16-byte big-endian two's complement
		b := make([]byte, 16)
		v, _ := new(big.Int).SetString(s, 10)
		if v.Sign() < 0 {
			v.Add(v, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		return v.FillBytes(b)
	}
	cases := []struct {
		name  string
		field arrow.Field
		enc   int32
		pages [][][]byte // non-NULL values per page, nil = NULL
		want  string
	}{
		{"flba", arrow.Field{Name: "x", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4}, Nullable: true}, encDeltaByteArray,
			[][][]byte{{[]byte("abcd"), []byte("abce"), nil, []byte("abce"), []byte("zzzz")}, {[]byte("abcd"), nil}},
			`["abcd" "abce" NULL "abce" "zzzz" "abcd" NULL]`},
		{"flba decimal", arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}}, encDeltaByteArray,
			[][][]byte{{dec("12345"), dec("12399"), dec("-1")}, {dec("170141183460469231731687303715884105727")}},
			`[12345 12399 -1 170141183460469231731687303715884105727]`},
		{"string delta length", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, encDeltaLength,
			[][][]byte{{[]byte(""), nil, []byte("héllo"), []byte("")}, {nil, nil}, {[]byte("x")}},
			`["" NULL "héllo" "" NULL NULL "x"]`},
		{"string delta byte array", arrow.Field{Name: "s", Type: arrow.BinaryTypes.String}, encDeltaByteArray,
			[][][]byte{{[]byte("apple"), []byte("applesauce"), []byte("app"), []byte(""), []byte("b")}, {[]byte("apple")}},
			`["apple" "applesauce" "app" "" "b" "apple"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			col := leafOf(t, c.field)
			var pages [][]byte
			rows := 0
			for _, pv := range c.pages {
				var vals [][]byte
				var defs []bool
				for _, v := range pv {
					defs = append(defs, v != nil)
					if v != nil {
						vals = append(vals, v)
					}
				}
				var lv []byte
				if c.field.Nullable {
					lv = bitPackedLevels(defs)
				}
				body := deltaLengthValues(vals)
				if c.enc == encDeltaByteArray {
					body = deltaByteArrayValues(vals)
				}
				pages = append(pages, dataPageV2(len(pv), len(pv)-len(vals), c.enc, lv, body))
				rows += len(pv)
			}
			a, err := readPages(t, col, rows, pages...)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Release()
			var vs []string
			for i := 0; i < a.Len(); i++ {
				switch {
				case a.IsNull(i):
					vs = append(vs, "NULL")
				case a.DataType().ID() == arrow.DECIMAL128: // unscaled, exact
					vs = append(vs, a.(*array.Decimal128).Value(i).BigInt().String())
				default:
					vs = append(vs, fmt.Sprintf("%q", a.GetOneForMarshal(i)))
				}
			}
			if got := "[" + strings.Join(vs, " ") + "]"; got != c.want {
				t.Errorf("got %s\nwant %s", got, c.want)
			}
		})
	}
}

func cut(b []byte) []byte { return b[:len(b)-1] }

// TestDeltaByteArrayBadPages: lengths and prefixes that do not fit the
// page are errors naming the file, column and page offset, not panics.
func TestDeltaByteArrayBadPages(t *testing.T) {
	str := leafOf(t, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String})
	flba := leafOf(t, arrow.Field{Name: "x", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}})
	cases := []struct {
		name string
		col  Column
		enc  int32
		body []byte
		rows int
		want string
	}{
		{"negative length", str, encDeltaLength, append(dbp([]int32{2, -1, 3}), "abcdef"...), 3, "value 1 of length -1"},
		{"lengths past the page", str, encDeltaLength, append(dbp([]int32{2, 5}), "abcdef"...), 2, "past the page's end"},
		{"fewer lengths than values", str, encDeltaLength, append(dbp([]int32{2}), "ab"...), 2, "value lengths: 1 in a page of 2"},
		{"first prefix not zero", str, encDeltaByteArray, append(dbp([]int32{1, 0}), deltaLengthValues([][]byte{[]byte("a"), []byte("b")})...), 2, "value 0: prefix of 1 bytes, the value before has 0"},
		{"prefix longer than previous", str, encDeltaByteArray, append(dbp([]int32{0, 3}), deltaLengthValues([][]byte{[]byte("ab"), []byte("c")})...), 2, "value 1: prefix of 3 bytes, the value before has 2"},
		{"negative prefix", str, encDeltaByteArray, append(dbp([]int32{0, -2}), deltaLengthValues([][]byte{[]byte("ab"), []byte("c")})...), 2, "prefix of -2 bytes"},
		{"negative suffix", str, encDeltaByteArray, append(dbp([]int32{0, 0}), append(dbp([]int32{1, -1}), "a"...)...), 2, "suffix of length -1"},
		{"suffixes past the page", str, encDeltaByteArray, append(dbp([]int32{0, 0}), append(dbp([]int32{1, 9}), "ab"...)...), 2, "suffixes of 10 bytes or more past the page's end"},
		{"truncated lengths", str, encDeltaLength, cut(dbp([]int32{1, 200, 3, 4})), 4, "miniblock past the page's end"},
		{"flba wrong width", flba, encDeltaByteArray, deltaByteArrayValues([][]byte{[]byte("abc"), []byte("abcd")}), 2, "value 1 of 4 bytes in a FIXED_LEN_BYTE_ARRAY(3) column"},
		{"delta length on flba", flba, encDeltaLength, deltaLengthValues([][]byte{[]byte("abc")}), 1, "DELTA_LENGTH_BYTE_ARRAY values in a FIXED_LEN_BYTE_ARRAY column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readPages(t, c.col, c.rows, dataPageV2(c.rows, 0, c.enc, nil, c.body))
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), "data file hand.parquet column "+c.col.Name+" row group 0 page at offset 100") {
				t.Errorf("error %v, want one naming the page and containing %q", err, c.want)
			}
		})
	}
}

// readColumn reads the named column of every row group through this
// package, failing unless the page path takes every chunk.
func readColumn(t *testing.T, path, name string, batch int) *arrow.Chunked {
	t.Helper()
	raw, pf := openParquet(t, path)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	for _, sf := range fr.Manifest.Fields {
		if sf.Field.Name != name {
			continue
		}
		col := Column{File: path, Name: name, Descr: md.Schema.Column(sf.ColIndex), Out: sf.Field.Type}
		rd, err := NewReader(col, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		var got []arrow.Array
		for rg := 0; rg < md.NumRowGroups(); rg++ {
			cc, err := md.RowGroup(rg).ColumnChunk(sf.ColIndex)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := ChunkOf(cc, rg)
			if err != nil {
				t.Fatalf("column %s row group %d left to pqarrow: %v", name, rg, err)
			}
			if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
				t.Fatal(err)
			}
			for done, rows := 0, int(md.RowGroup(rg).NumRows()); done < rows; {
				a, err := rd.Read(context.Background(), min(batch, rows-done))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, a)
				done += a.Len()
			}
		}
		c := arrow.NewChunked(col.Out, got)
		for _, a := range got {
			a.Release()
		}
		return c
	}
	t.Fatalf("no column %s in %s", name, path)
	return nil
}

// TestDuckDBWrittenDeltaStrings: files DuckDB writes with Parquet v2
// pages (DELTA_LENGTH_BYTE_ARRAY strings, DELTA_BINARY_PACKED integers)
// read through this package match pqarrow value by value, and DuckDB's
// own digest of the strings in row order. Skipped when DuckDB cannot be
// started (internal/duckrun), unless CI=true.
func TestDuckDBWrittenDeltaStrings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts DuckDB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := duckrun.Start(ctx, 1)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("DuckDB: %v", err)
		}
		t.Skipf("DuckDB: %v", err)
	}
	defer d.Close()
	const rows = 30000
	gen := fmt.Sprintf(`SELECT i,
		CASE WHEN i %% 7 = 0 THEN NULL WHEN i %% 11 = 0 THEN ''
		     WHEN i %% 101 = 0 THEN repeat(chr(97 + (i %% 26)::INTEGER), 3000 + (i %% 500)::INTEGER)
		     ELSE 'https://example.com/tenant/' || lpad((i // 50)::VARCHAR, 4, '0') || '/item/' || (i * 7919 %% 100003)::VARCHAR END AS s,
		md5(i::VARCHAR) || CASE WHEN i %% 3 = 0 THEN 'é' ELSE '' END AS h
		FROM range(%d) t(i) ORDER BY i`, rows)
	dir := t.TempDir()
	for _, codec := range []string{"uncompressed", "snappy", "zstd", "gzip", "lz4_raw"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join(dir, codec+".parquet")
			if _, _, err := d.Run(fmt.Sprintf(`COPY (%s) TO '%s' (FORMAT parquet, PARQUET_VERSION v2, COMPRESSION %s, ROW_GROUP_SIZE 12000)`, gen, path, codec)); err != nil {
				t.Fatal(err)
			}
			requireEncodingOf(t, path, "s", parquet.Encodings.DeltaLengthByteArray)
			requireEncodingOf(t, path, "h", parquet.Encodings.DeltaLengthByteArray)
			for _, batch := range []int{1000, 4096} {
				if compared, refused := diffFile(t, path, batch); refused != 0 || compared < 3*3 {
					t.Errorf("batch %d: compared %d column chunks, refused %d", batch, compared, refused)
				}
			}
			for _, name := range []string{"s", "h"} {
				_, res, err := d.Run(fmt.Sprintf(`SELECT md5(string_agg(coalesce(%s, '<NULL>'), '|' ORDER BY i)), count(*) FROM read_parquet('%s')`, name, path))
				if err != nil {
					t.Fatal(err)
				}
				c := readColumn(t, path, name, 1000)
				var sb strings.Builder
				for _, a := range c.Chunks() {
					s := a.(*array.String)
					for i := 0; i < s.Len(); i++ {
						if sb.Len() > 0 || i > 0 {
							sb.WriteByte('|')
						}
						if s.IsNull(i) {
							sb.WriteString("<NULL>")
						} else {
							sb.WriteString(s.Value(i))
						}
					}
				}
				if got := fmt.Sprintf("%x", md5.Sum([]byte(sb.String()))); c.Len() != rows || got != *res[0][0] {
					t.Errorf("column %s: %d rows, digest %s; DuckDB: %s rows, digest %s", name, c.Len(), got, *res[0][1], *res[0][0])
				}
				c.Release()
			}
		})
	}
}

// requireEncodingOf is requireEncoding for one column, by name.
func requireEncodingOf(t *testing.T, path, name string, enc parquet.Encoding) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	c := md.Schema.ColumnIndexByName(name)
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		cc, err := md.RowGroup(rg).ColumnChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(cc.Encodings(), enc) {
			t.Fatalf("%s row group %d column %s: encodings %v, not %s", filepath.Base(path), rg, name, cc.Encodings(), enc)
		}
	}
}

// dictPage is an uncompressed PLAIN dictionary page of byte array values.
func dictPage(vals [][]byte) []byte {
	var body []byte
	for _, v := range vals {
		body = binary.LittleEndian.AppendUint32(body, uint32(len(v)))
		body = append(body, v...)
	}
	var h []byte
	last := int16(0)
	h = hI32(h, &last, 1, pageDictionary)
	h = hI32(h, &last, 2, int32(len(body)))
	h = hI32(h, &last, 3, int32(len(body)))
	h = hField(h, &last, 7, 12)
	in := int16(0)
	h = hI32(h, &in, 1, int32(len(vals)))
	h = hI32(h, &in, 2, encPlain)
	h = append(h, 0, 0)
	return append(h, body...)
}

// TestDeltaAfterDictionaryFallback: parquet-mr's v2 writer starts a
// string chunk with a dictionary and falls back to DELTA_BYTE_ARRAY
// pages when it grows too large; a batch spanning both kinds of page
// (with NULLs, with and without a selection) reads every value.
func TestDeltaAfterDictionaryFallback(t *testing.T) {
	col := leafOf(t, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	dict := dictPage([][]byte{[]byte("red"), []byte("green")})
	// Rows: green, NULL, red, green (indices 1 0 1, bit width 1, one
	// bit-packed group).
	idx := append([]byte{1}, bitPackedLevels([]bool{true, false, true})...)
	p1 := dataPageV2(4, 1, encRLEDict, bitPackedLevels([]bool{true, false, true, true}), idx)
	p2 := dataPageV2(3, 1, encDeltaByteArray, bitPackedLevels([]bool{true, true, false}),
		deltaByteArrayValues([][]byte{[]byte("greenish"), []byte("greenery")}))
	for _, sel := range [][]bool{nil, {true, true, true, false, true, false, true}} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rd, err := NewReader(col, mem)
		if err != nil {
			t.Fatal(err)
		}
		data := append(make([]byte, 100), bytes.Join([][]byte{dict, p1, p2}, nil)...)
		if err := rd.Reset(bytes.NewReader(data), Chunk{Offset: 100, Size: int64(len(data) - 100), NumValues: 7}); err != nil {
			t.Fatal(err)
		}
		a, err := rd.ReadSelected(context.Background(), 7, sel)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"green", "", "red", "green", "greenish", "greenery", ""}
		null := []bool{false, true, false, false, false, false, true}
		s := a.(*array.String)
		for i := range want {
			if s.IsNull(i) != null[i] || !null[i] && (sel == nil || sel[i]) && s.Value(i) != want[i] {
				t.Errorf("selection %v row %d: %q (NULL %v), want %q (NULL %v)", sel != nil, i, s.Value(i), s.IsNull(i), want[i], null[i])
			}
		}
		a.Release()
		rd.Release()
		mem.AssertSize(t, 0)
	}
}

// TestDeltaAllNullPage: a page of NULLs only reads as NULLs whether its
// writer left the value streams empty (a header of 0 values) or out.
func TestDeltaAllNullPage(t *testing.T) {
	col := leafOf(t, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	levels := bitPackedLevels([]bool{false, false, false})
	for _, enc := range []int32{encDeltaLength, encDeltaByteArray} {
		for _, body := range [][]byte{nil, deltaLengthValues(nil), deltaByteArrayValues(nil)} {
			last := dataPageV2(2, 0, enc, bitPackedLevels([]bool{true, true}), deltaByteArrayValues([][]byte{[]byte("ab"), []byte("abc")}))
			if enc == encDeltaLength {
				last = dataPageV2(2, 0, enc, bitPackedLevels([]bool{true, true}), deltaLengthValues([][]byte{[]byte("ab"), []byte("abc")}))
			}
			a, err := readPages(t, col, 5, dataPageV2(3, 3, enc, levels, body), last)
			if err != nil {
				t.Fatalf("encoding %d, body of %d bytes: %v", enc, len(body), err)
			}
			if got := fmt.Sprint(a); got != `[(null) (null) (null) "ab" "abc"]` {
				t.Errorf("encoding %d, body of %d bytes: %s", enc, len(body), got)
			}
			a.Release()
		}
	}
}
