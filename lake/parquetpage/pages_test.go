package parquetpage

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// countingReader counts ReadAt calls and bytes, to check that ResetRows
// reads only the pages it needs.
type countingReader struct {
	r     *bytes.Reader
	bytes int64
}

func (c *countingReader) ReadAt(b []byte, off int64) (int, error) {
	c.bytes += int64(len(b))
	return c.r.ReadAt(b, off)
}

// TestResetRowsMatchesPqarrow: for every flat type × {required, nullable},
// dictionary, plain and dictionary-falling-back chunks, page v1 and v2,
// compressed or not, row ranges starting and ending on page boundaries,
// inside pages, at the chunk's ends and empty read the rows pqarrow reads
// at those positions. The page list's row starts are checked against the
// chunk's row count, and a range inside the chunk reads fewer bytes than
// the chunk.
func TestResetRowsMatchesPqarrow(t *testing.T) {
	sch := genSchema()
	dir := t.TempDir()
	ctx := context.Background()
	type mode struct {
		name string
		dict bool
		card int
	}
	rows := 5000
	for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Zstd, compress.Codecs.Snappy} {
		for _, v := range []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2} {
			for _, m := range []mode{{"dict", true, 40}, {"plain", false, 1 << 30}, {"dictfallback", true, 1 << 30}} {
				withIndex := codec == compress.Codecs.Zstd
				name := fmt.Sprintf("%s-v%d-%s-index%v", codec, v+1, m.name, withIndex)
				t.Run(name, func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					rec := genBatch(sch, rows, m.card, uint64(len(name)))
					defer rec.Release()
					props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithDataPageVersion(v),
						parquet.WithDictionaryDefault(m.dict), parquet.WithDictionaryPageSizeLimit(4096),
						parquet.WithDataPageSize(2000), parquet.WithMaxRowGroupLength(2600), parquet.WithBatchSize(300),
						parquet.WithPageIndexEnabled(withIndex))
					path := filepath.Join(dir, name+".parquet")
					writeFile(t, path, rec, props, pqarrow.DefaultWriterProps())
					raw, pf := openParquet(t, path)
					fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.NewGoAllocator())
					if err != nil {
						t.Fatal(err)
					}
					md := pf.MetaData()
					rng := rand.New(rand.NewPCG(uint64(len(name)), 3))
					for fi, sf := range fr.Manifest.Fields {
						col := Column{File: path, Name: sf.Field.Name, Descr: md.Schema.Column(sf.ColIndex), Out: sf.Field.Type}
						if Supported(col) != nil {
							t.Fatalf("column %s not supported", col.Name)
						}
						rd, err := NewReader(col, mem)
						if err != nil {
							t.Fatal(err)
						}
						for rg := 0; rg < pf.NumRowGroups(); rg++ {
							cc, err := md.RowGroup(rg).ColumnChunk(sf.ColIndex)
							if err != nil {
								t.Fatal(err)
							}
							ch, err := ChunkOf(cc, rg)
							if err != nil {
								t.Fatal(err)
							}
							src := &countingReader{r: bytes.NewReader(raw)}
							pg, err := ScanPages(ctx, src, col, ch)
							if err != nil {
								t.Fatalf("%s rg %d: %v", col.Name, rg, err)
							}
							if withIndex != (ch.OffsetIndexLen > 0) {
								t.Fatalf("%s rg %d: offset index %d bytes, written %v", col.Name, rg, ch.OffsetIndexLen, withIndex)
							}
							if withIndex {
								// The index's list equals the headers' list.
								noIdx := ch
								noIdx.OffsetIndex, noIdx.OffsetIndexLen = 0, 0
								walked, err := ScanPages(ctx, src, col, noIdx)
								if err != nil {
									t.Fatal(err)
								}
								if !slices.Equal(walked.first, pg.first) || !slices.Equal(walked.off, pg.off) || !slices.Equal(walked.end, pg.end) ||
									walked.dictOff != pg.dictOff || walked.dictLen != pg.dictLen {
									t.Fatalf("%s rg %d: offset index lists %+v, page headers %+v", col.Name, rg, pg, walked)
								}
							}
							starts := pg.Starts()
							n := md.RowGroup(rg).NumRows()
							if starts[0] != 0 || starts[len(starts)-1] != n {
								t.Fatalf("%s rg %d: page starts %v for %d rows", col.Name, rg, starts, n)
							}
							want, err := fr.RowGroup(rg).Column(fi).Read(ctx)
							if err != nil {
								t.Fatal(err)
							}
							// Ranges: page-aligned, inside pages, the whole chunk,
							// empty, and random ones.
							ranges := [][2]int64{{0, n}, {0, 0}, {n, n}, {n - 1, n}, {0, 1}}
							if len(starts) > 2 {
								p := starts[1]
								ranges = append(ranges, [2]int64{p, n}, [2]int64{0, p}, [2]int64{p - 1, p + 1}, [2]int64{p, p + 1})
							}
							for k := 0; k < 8; k++ {
								a := rng.Int64N(n + 1)
								b := a + rng.Int64N(n-a+1)
								ranges = append(ranges, [2]int64{a, b})
							}
							for _, r := range ranges {
								src.bytes = 0
								if err := rd.ResetRows(ctx, src, ch, pg, r[0], r[1]); err != nil {
									t.Fatalf("%s rg %d rows %v: %v", col.Name, rg, r, err)
								}
								var got []arrow.Array
								for done := r[0]; done < r[1]; {
									k := min(int64(1+rng.IntN(700)), r[1]-done)
									a, err := rd.Read(ctx, int(k))
									if err != nil {
										t.Fatalf("%s rg %d rows %v: %v", col.Name, rg, r, err)
									}
									got = append(got, a)
									done += k
								}
								g := arrow.NewChunked(col.Out, got)
								for _, a := range got {
									a.Release()
								}
								w := array.NewChunkedSlice(want, r[0], r[1])
								if err := sameChunked(w, g, nil); err != nil {
									t.Errorf("%s: column %s row group %d rows %v: %v", name, col.Name, rg, r, err)
								}
								w.Release()
								g.Release()
								if len(starts) > 8 && r[1]-r[0] < n/4 && src.bytes >= ch.Size {
									t.Errorf("%s rg %d rows %v: read %d bytes of a %d-byte chunk", col.Name, rg, r, src.bytes, ch.Size)
								}
							}
							want.Release()
						}
						rd.Release()
					}
				})
			}
		}
	}
}

// TestScanPagesRefusesDamage: a chunk whose bytes are cut, or whose value
// count disagrees with its pages, is an error naming the file and column.
func TestScanPagesRefusesDamage(t *testing.T) {
	raw, ch, col := firstChunk(t, "d.parquet", 3000, 40, 1, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDataPageSize(2000)), 7, arrow.PrimitiveTypes.Int32)
	ctx := context.Background()
	// A chunk of more pages than a list may hold.
	defer func(n int) { maxListedPages = n }(maxListedPages)
	maxListedPages = 1
	if _, err := ScanPages(ctx, bytes.NewReader(raw), col, ch); err == nil || !strings.Contains(err.Error(), "more than 1 data pages") {
		t.Errorf("a chunk of %d values in pages of 2000 bytes listed with a bound of one page: %v", ch.NumValues, err)
	}
	maxListedPages = 1 << 20
	for name, c := range map[string]Chunk{
		"short":       {RowGroup: 0, Offset: ch.Offset, Size: ch.Size - 10, NumValues: ch.NumValues, Codec: ch.Codec},
		"more values": {RowGroup: 0, Offset: ch.Offset, Size: ch.Size, NumValues: ch.NumValues + 1, Codec: ch.Codec},
		"shifted":     {RowGroup: 0, Offset: ch.Offset + 3, Size: ch.Size - 3, NumValues: ch.NumValues, Codec: ch.Codec},
		"past eof":    {RowGroup: 0, Offset: int64(len(raw)) - 5, Size: 100, NumValues: 1, Codec: ch.Codec},
	} {
		_, err := ScanPages(ctx, bytes.NewReader(raw), col, c)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !bytes.Contains([]byte(err.Error()), []byte("d.parquet column n3")) {
			t.Errorf("%s: error %q does not name the file and column", name, err)
		}
	}
}

// FuzzScanPages: arbitrary bytes as a column chunk never panic, and a
// page list they yield is consistent.
func FuzzScanPages(f *testing.F) {
	raw, ch, col := firstChunk(f, "s.parquet", 500, 40, 2, parquet.NewWriterProperties(parquet.WithDataPageSize(500)), 7, arrow.PrimitiveTypes.Int32)
	f.Add(raw[ch.Offset:ch.Offset+ch.Size], ch.NumValues)
	// Small bounds, as FuzzPage's: a page of 2^28 NULLs in a few bytes
	// would otherwise take seconds an input.
	defer func(b, v int) { maxPageBytes, maxPageValues = b, v }(maxPageBytes, maxPageValues)
	maxPageBytes, maxPageValues = 1<<20, 1<<16
	f.Fuzz(func(t *testing.T, b []byte, nv int64) {
		c := Chunk{Offset: 0, Size: int64(len(b)), NumValues: nv, Codec: ch.Codec}
		pg, err := ScanPages(context.Background(), bytes.NewReader(b), col, c)
		if err != nil {
			return
		}
		s := pg.Starts()
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				t.Fatalf("page starts not increasing: %v", s)
			}
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rd, err := NewReader(col, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		n := s[len(s)-1]
		if err := rd.ResetRows(context.Background(), bytes.NewReader(b), c, pg, n/3, n); err != nil {
			return
		}
		for left := n - n/3; left > 0; {
			k := min(left, 100)
			a, err := rd.Read(context.Background(), int(k))
			if err != nil {
				return
			}
			a.Release()
			left -= k
		}
	})
}

// TestResetRowsRefusesLyingPageList: a page list (an offset index, say)
// whose rows or offsets disagree with the pages' headers is an error,
// never rows skipped or read twice.
func TestResetRowsRefusesLyingPageList(t *testing.T) {
	raw, ch, col := firstChunk(t, "l.parquet", 3000, 1<<30, 5, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false),
		parquet.WithDataPageSize(2000), parquet.WithPageIndexEnabled(true)), 9, arrow.PrimitiveTypes.Int64)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd, err := NewReader(col, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	for name, lie := range map[string]func(p *Pages){
		"rows":   func(p *Pages) { p.first[1]++ },
		"offset": func(p *Pages) { p.off[0] += 3 },
		"end":    func(p *Pages) { p.end[0]-- },
	} {
		pg, err := ScanPages(ctx, bytes.NewReader(raw), col, ch)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.first) < 4 {
			t.Fatalf("%d pages: too few to lie about", len(pg.first)-1)
		}
		if err := rd.ResetRows(ctx, bytes.NewReader(raw), ch, pg, 0, pg.first[2]); err != nil {
			t.Fatalf("%s: the true list refused: %v", name, err)
		}
		lie(pg)
		if err := rd.ResetRows(ctx, bytes.NewReader(raw), ch, pg, 0, pg.first[2]); err == nil {
			t.Errorf("%s: a lying page list accepted", name)
		}
	}
}

// FuzzOffsetIndex: arbitrary bytes as an offset index never panic, and
// the locations read are what the bytes say.
func FuzzOffsetIndex(f *testing.F) {
	// One location {offset 4, size 100, first row 0}, and a list of two.
	f.Add([]byte{0x19, 0x1c, 0x16, 0x08, 0x15, 0xc8, 0x01, 0x16, 0x00, 0x00, 0x00})
	f.Add([]byte{0x19, 0x2c, 0x16, 0x08, 0x15, 0xc8, 0x01, 0x16, 0x00, 0x00, 0x16, 0xd8, 0x01, 0x15, 0x10, 0x16, 0x64, 0x00, 0x00})
	if l, err := readOffsetIndex([]byte{0x19, 0x1c, 0x16, 0x08, 0x15, 0xc8, 0x01, 0x16, 0x00, 0x00, 0x00}); err != nil || len(l) != 1 || l[0] != (pageLoc{4, 100, 0}) {
		f.Fatalf("seed: %+v, %v", l, err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		locs, err := readOffsetIndex(b)
		if err != nil {
			return
		}
		for _, l := range locs {
			if l.off < 0 || l.size < 0 || l.first < 0 {
				t.Fatalf("negative location %+v accepted", l)
			}
		}
		ch := Chunk{Offset: 4, Size: 1 << 20, NumValues: 1 << 40, OffsetIndexLen: int32(len(b))}
		if len(b) == 0 {
			return
		}
		if p, err := pagesFromIndex(bytes.NewReader(b), ch); err == nil {
			s := p.Starts()
			for i := 1; i < len(s); i++ {
				if s[i] <= s[i-1] {
					t.Fatalf("page starts not increasing: %v", s)
				}
			}
		}
	})
}

// firstChunk writes rows of genSchema (genBatch with card and seed) as
// file name with props and returns the file's bytes and its first row
// group's chunk of leaf column leaf, read as out.
func firstChunk(tb testing.TB, name string, rows, card int, seed uint64, props *parquet.WriterProperties, leaf int, out arrow.DataType) ([]byte, Chunk, Column) {
	tb.Helper()
	rec := genBatch(genSchema(), rows, card, seed)
	defer rec.Release()
	path := filepath.Join(tb.TempDir(), name)
	writeFile(tb, path, rec, props, pqarrow.DefaultWriterProps())
	raw, pf := openParquet(tb, path)
	md := pf.MetaData()
	cc, err := md.RowGroup(0).ColumnChunk(leaf)
	if err != nil {
		tb.Fatal(err)
	}
	ch, err := ChunkOf(cc, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return raw, ch, Column{File: name, Name: md.Schema.Column(leaf).Name(), Descr: md.Schema.Column(leaf), Out: out}
}
