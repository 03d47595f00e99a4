package parquetpage

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// filterWord is the test's predicate on a value: the one ReadFilter is
// handed (per dictionary entry) and the one the expected answer is
// computed with (per row of pqarrow's reading of the same file).
func filterWord(s string) bool { return strings.HasSuffix(s, "3") || strings.HasPrefix(s, "w1") }

// filterFile writes rows strings (NULL every nullEvery-th row when
// positive) with card distinct values and the given dictionary settings.
func filterFile(t testing.TB, dir string, rows, card, nullEvery int, dict bool, limit int64, v parquet.DataPageVersion) string {
	t.Helper()
	b := array.NewStringBuilder(memory.NewGoAllocator())
	defer b.Release()
	for i := 0; i < rows; i++ {
		if nullEvery > 0 && i%nullEvery == 1 {
			b.AppendNull()
			continue
		}
		b.Append(fmt.Sprintf("w%d", (i*7919)%card))
	}
	col := b.NewArray()
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: nullEvery > 0}}, nil)
	rec := array.NewRecordBatch(sch, []arrow.Array{col}, int64(rows))
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithDataPageVersion(v), parquet.WithDictionaryDefault(dict),
		parquet.WithDictionaryPageSizeLimit(limit), parquet.WithDataPageSize(1500), parquet.WithMaxRowGroupLength(2500),
		parquet.WithBatchSize(300))
	path := filepath.Join(dir, fmt.Sprintf("f-%d-%d-%d-%v-%d-%d.parquet", rows, card, nullEvery, dict, limit, v))
	writeFile(t, path, rec, props, pqarrow.DefaultWriterProps())
	return path
}

// TestReadFilterMatchesPqarrow: ReadFilter's answer, completed by the
// caller's own evaluation where it reports rows undecided, equals the
// predicate on pqarrow's values row by row, NULLs included; the rows it
// materialises hold pqarrow's values; a chunk of dictionary pages only is
// answered exactly, one with PLAIN pages (a dictionary falling back
// mid-chunk, or none at all) is not.
func TestReadFilterMatchesPqarrow(t *testing.T) {
	dir := t.TempDir()
	type fileCase struct {
		name      string
		card      int
		nullEvery int
		dict      bool
		limit     int64
		exact     bool // every page dictionary-encoded
	}
	files := []fileCase{
		{"dict", 40, 0, true, 1 << 20, true},
		{"dictnulls", 40, 3, true, 1 << 20, true},
		{"onevalue", 1, 2, true, 1 << 20, true},
		{"fallback", 5000, 5, true, 600, false},
		{"plain", 40, 4, false, 1 << 20, false},
	}
	sels := map[string]func(i int) bool{
		"all":    nil,
		"third":  func(i int) bool { return i%3 != 0 },
		"sparse": func(i int) bool { return i%97 == 5 },
		"none":   func(int) bool { return false },
	}
	for _, fc := range files {
		for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
			path := filterFile(t, dir, 6000, fc.card, fc.nullEvery, fc.dict, fc.limit, v)
			want := readPqarrow(t, path)
			for sname, self := range sels {
				for _, null := range []bool{false, true} {
					for _, matLive := range []bool{false, true} {
						name := fmt.Sprintf("%s/v%d/%s/null=%v/matLive=%v", fc.name, v+1, sname, null, matLive)
						t.Run(name, func(t *testing.T) {
							checkReadFilter(t, path, want, self, null, matLive, false, fc.exact)
						})
					}
					// NoValues: every answer exact, the PLAIN rows' too.
					t.Run(fmt.Sprintf("%s/v%d/%s/null=%v/noValues", fc.name, v+1, sname, null), func(t *testing.T) {
						checkReadFilter(t, path, want, self, null, false, true, true)
					})
				}
			}
		}
	}
}

// readPqarrow is column s of the file as pqarrow reads it.
func readPqarrow(t *testing.T, path string) []*string {
	_, pf := openParquet(t, path)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var out []*string
	for _, ch := range tbl.Column(0).Data().Chunks() {
		a := ch.(*array.String)
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				out = append(out, nil)
			} else {
				s := a.Value(i)
				out = append(out, &s)
			}
		}
	}
	return out
}

func checkReadFilter(t *testing.T, path string, want []*string, self func(int) bool, null, matLive, noValues, wantExact bool) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	raw, pf := openParquet(t, path)
	md := pf.MetaData()
	rd, err := NewReader(Column{File: path, Name: "s", Descr: md.Schema.Column(0), Out: arrow.BinaryTypes.String}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	evals := 0
	f := &DictFilter{Null: null, NoValues: noValues, Eval: func(dict arrow.Array, keep []bool) {
		evals++
		d := dict.(*array.String)
		for i := range keep {
			keep[i] = filterWord(d.Value(i))
		}
	}}
	allExact := true
	row := 0
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		cc, err := md.RowGroup(rg).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := ChunkOf(cc, rg)
		if err != nil {
			t.Fatal(err)
		}
		if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
			t.Fatal(err)
		}
		for left := int(md.RowGroup(rg).NumRows()); left > 0; {
			n := min(left, 777)
			var live []bool
			if self != nil {
				live = make([]bool, n)
				for i := range live {
					live[i] = self(row + i)
				}
			}
			pass := make([]bool, n)
			a, exact, err := rd.ReadFilter(ctx, n, live, f, pass, matLive, mem)
			if err != nil {
				t.Fatal(err)
			}
			allExact = allExact && exact
			s := a.(*array.String)
			for i := 0; i < n; i++ {
				w := want[row+i]
				isLive := live == nil || live[i]
				wantPass := isLive && (w == nil && null || w != nil && filterWord(*w))
				if s.IsNull(i) != (w == nil) {
					t.Fatalf("row %d: NULL %v, pqarrow %v", row+i, s.IsNull(i), w == nil)
				}
				got := pass[i]
				if !exact && got {
					// The caller's evaluation of an undecided row, on
					// the value ReadFilter materialised.
					got = s.IsNull(i) && null || !s.IsNull(i) && filterWord(s.Value(i))
				}
				if got != wantPass {
					t.Fatalf("row %d (%v): pass %v, want %v (exact %v)", row+i, w, got, wantPass, exact)
				}
				if exact && pass[i] != wantPass {
					t.Fatalf("row %d: exact answer %v, want %v", row+i, pass[i], wantPass)
				}
				mat := pass[i] || matLive && isLive
				if mat && !noValues && w != nil && s.Value(i) != *w {
					t.Fatalf("row %d: value %q, pqarrow %q", row+i, s.Value(i), *w)
				}
			}
			a.Release()
			row += n
			left -= n
		}
	}
	if row != len(want) {
		t.Fatalf("read %d rows, pqarrow %d", row, len(want))
	}
	if allExact != wantExact {
		t.Errorf("exact %v, want %v", allExact, wantExact)
	}
	if wantExact && !noValues && (evals == 0 || evals > pf.NumRowGroups()) {
		t.Errorf("dictionary evaluated %d times for %d row groups", evals, pf.NumRowGroups())
	}
}

// FuzzReadFilter feeds arbitrary bytes to ReadFilter as a column chunk of
// every type: values or an error naming the column, never a panic, and
// never a row outside the selection passing.
func FuzzReadFilter(f *testing.F) {
	cols := fuzzColumns(f)
	for i, c := range cols {
		for _, ch := range c.chunks {
			f.Add(ch, uint8(i), uint16(200), uint8(3))
		}
	}
	maxPageBytes, maxPageValues = 1<<20, 1<<16
	f.Fuzz(func(t *testing.T, data []byte, col uint8, rows uint16, mode uint8) {
		c := cols[int(col)%len(cols)]
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rd, err := NewReader(c.col, mem)
		if err != nil {
			t.Fatal(err)
		}
		ch := Chunk{Offset: 4, Size: int64(len(data)), NumValues: int64(rows), Codec: compressFor(mode)}
		if err := rd.Reset(bytes.NewReader(append(make([]byte, 4), data...)), ch); err != nil {
			t.Fatal(err)
		}
		filt := &DictFilter{Null: mode&1 != 0, Eval: func(dict arrow.Array, keep []bool) {
			if dict.Len() != len(keep) || dict.NullN() != 0 {
				t.Fatalf("dictionary of %d values (%d NULL) for %d answers", dict.Len(), dict.NullN(), len(keep))
			}
			for i := range keep {
				keep[i] = (i+int(mode))%3 != 0
			}
		}}
		for done := 0; done < int(rows); {
			n := min(int(rows)-done, 100)
			var live []bool
			if mode&2 != 0 {
				live = make([]bool, n)
				for i := range live {
					live[i] = (i+int(mode))%5 != 0
				}
			}
			pass := make([]bool, n)
			a, _, err := rd.ReadFilter(context.Background(), n, live, filt, pass, mode&4 != 0, mem)
			if err != nil {
				if !strings.Contains(err.Error(), "column "+c.col.Name+" row group 0 page at offset") {
					t.Fatalf("error does not name the column and page: %v", err)
				}
				break
			}
			if a.Len() != n || !arrow.TypeEqual(a.DataType(), c.col.Out) {
				t.Fatalf("%d rows of %s, want %d of %s", a.Len(), a.DataType(), n, c.col.Out)
			}
			for i, p := range pass {
				if p && live != nil && !live[i] {
					t.Fatalf("row %d passes outside the selection", done+i)
				}
			}
			a.Release()
			done += n
		}
		rd.Release()
		mem.AssertSize(t, 0)
	})
}

// compressFor picks a codec from the fuzzer's mode byte.
func compressFor(mode uint8) compress.Compression {
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd}
	return codecs[int(mode>>3)%len(codecs)]
}

// BenchmarkDictFilter: a filter keeping 2 of 7 short strings (Q12's and
// Q19's l_shipmode IN (...)) answered row by row on the read strings
// versus on the dictionary by ReadFilter.
func BenchmarkDictFilter(b *testing.B) {
	const rows = 1 << 20
	path := filterFile(b, b.TempDir(), rows, 7, 0, true, 1<<20, parquet.DataPageV1)
	raw, pf := openParquet(b, path)
	md := pf.MetaData()
	keepWord := func(s string) bool { return s == "w3" || s == "w5" }
	filt := &DictFilter{Eval: func(dict arrow.Array, keep []bool) {
		d := dict.(*array.String)
		for i := range keep {
			keep[i] = keepWord(d.Value(i))
		}
	}}
	for _, mode := range []string{"rows", "dict"} {
		b.Run(mode, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			rd, err := NewReader(Column{File: path, Name: "s", Descr: md.Schema.Column(0), Out: arrow.BinaryTypes.String}, mem)
			if err != nil {
				b.Fatal(err)
			}
			defer rd.Release()
			pass := make([]bool, 4096)
			kept := 0
			for b.Loop() {
				kept = 0
				for rg := 0; rg < pf.NumRowGroups(); rg++ {
					cc, _ := md.RowGroup(rg).ColumnChunk(0)
					ch, _ := ChunkOf(cc, rg)
					if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
						b.Fatal(err)
					}
					for left := int(md.RowGroup(rg).NumRows()); left > 0; {
						n := min(left, len(pass))
						var a arrow.Array
						if mode == "rows" {
							a, err = rd.Read(context.Background(), n)
							if err == nil {
								s := a.(*array.String)
								for i := 0; i < n; i++ {
									pass[i] = keepWord(s.Value(i))
								}
							}
						} else {
							a, _, err = rd.ReadFilter(context.Background(), n, nil, filt, pass, false, mem)
						}
						if err != nil {
							b.Fatal(err)
						}
						for _, p := range pass[:n] {
							if p {
								kept++
							}
						}
						a.Release()
						left -= n
					}
				}
			}
			if kept*7 < rows || kept*7 > rows*3 {
				b.Fatalf("kept %d of %d rows", kept, rows)
			}
		})
	}
}
