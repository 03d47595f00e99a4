package parquetpage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// hybridPacked encodes idx (a multiple of 8 long) as one bit-packed run
// of the RLE/bit-packed hybrid at bit width bw, the layout writers use for
// dictionary indices without repeats.
func hybridPacked(idx []uint32, bw int) []byte {
	out := binary.AppendUvarint(nil, uint64(len(idx)/8)<<1|1)
	var acc uint64
	var nb int
	for _, v := range idx {
		acc |= uint64(v) << nb
		nb += bw
		for nb >= 8 {
			out = append(out, byte(acc))
			acc >>= 8
			nb -= 8
		}
	}
	if nb > 0 {
		out = append(out, byte(acc))
	}
	return out
}

// hybridRuns encodes idx as RLE runs only (every index repeated run times).
func hybridRuns(idx []uint32, bw, run int) []byte {
	var out []byte
	w := (bw + 7) / 8
	for i := 0; i < len(idx); i += run {
		out = binary.AppendUvarint(out, uint64(min(run, len(idx)-i))<<1)
		for k := 0; k < w; k++ {
			out = append(out, byte(idx[i]>>(8*k)))
		}
	}
	return out
}

// BenchmarkDictKernel measures the dictionary index kernels on 64 Ki
// indices of bit widths 1 to 20, bit-packed (random indices) and in RLE
// runs of 16, gathering 16-, 8- and 4-byte values (16: decimals):
//
//	go test ./lake/parquetpage -run '^$' -bench DictKernel -count 3
func BenchmarkDictKernel(b *testing.B) {
	const n = 64 << 10
	for _, bw := range []int{1, 4, 10, 17, 20} {
		size := 1 << bw
		rng := rand.New(rand.NewPCG(uint64(bw), 3))
		idx := make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(rng.IntN(size))
		}
		packed := hybridPacked(idx, bw)
		runs := hybridRuns(idx, bw, 16)
		dict64 := make([]uint64, size)
		dict32 := make([]uint32, size)
		for i := range dict64 {
			dict64[i], dict32[i] = uint64(i)*3, uint32(i)*5
		}
		dst64, dst32 := make([]uint64, n), make([]uint32, n)
		dict128, dst128 := make([][2]uint64, size), make([][2]uint64, n)
		for i := range dict128 {
			dict128[i] = [2]uint64{uint64(i), 0}
		}
		for _, enc := range []struct {
			name string
			data []byte
		}{{"packed", packed}, {"rle16", runs}} {
			b.Run(fmt.Sprintf("u64/bw%d/%s", bw, enc.name), func(b *testing.B) {
				b.SetBytes(8 * n)
				for b.Loop() {
					var d rleDecoder
					_ = d.init(enc.data, bw)
					if bad, err := decodeDict(&d, dst64, dict64); bad >= 0 || err != nil {
						b.Fatal(bad, err)
					}
				}
			})
			b.Run(fmt.Sprintf("u128/bw%d/%s", bw, enc.name), func(b *testing.B) {
				b.SetBytes(16 * n)
				for b.Loop() {
					var d rleDecoder
					_ = d.init(enc.data, bw)
					if bad, err := decodeDict(&d, dst128, dict128); bad >= 0 || err != nil {
						b.Fatal(bad, err)
					}
				}
			})
			b.Run(fmt.Sprintf("u32/bw%d/%s", bw, enc.name), func(b *testing.B) {
				b.SetBytes(4 * n)
				for b.Loop() {
					var d rleDecoder
					_ = d.init(enc.data, bw)
					if bad, err := decodeDict(&d, dst32, dict32); bad >= 0 || err != nil {
						b.Fatal(bad, err)
					}
				}
			})
		}
		// With 10 % NULLs: indices staged, then spread over the rows.
		defs := make([]byte, n)
		m := 0
		for i := range defs {
			if rng.IntN(10) != 0 {
				defs[i] = 1
				m++
			}
		}
		b.Run(fmt.Sprintf("u64/bw%d/packed-nulls", bw), func(b *testing.B) {
			seg := make([]byte, 8*len(defs))
			var r Reader
			r.p.ow, r.dictN, r.enc = 8, size, encRLEDict
			r.dictFix = arrow.Uint64Traits.CastToBytes(dict64)
			b.SetBytes(int64(len(seg)))
			for b.Loop() {
				_ = r.idx.init(packed, bw)
				if err := r.values(seg[:8*m], m); err != nil {
					b.Fatal(err)
				}
				spread(seg, defs, m, 8)
			}
		})
		// A selection of every 3rd row (dense), every 16th (sparse) and
		// of runs of 100 rows in 1000 (sparse, as k < 100 selects in the
		// lakebench table).
		for _, every := range []int{3, 16, 1000} {
			sel := make([]bool, n)
			for i := range sel {
				sel[i] = i%every == 0
				if every == 1000 {
					sel[i] = i%1000 < 100
				}
			}
			b.Run(fmt.Sprintf("u64/bw%d/packed-sel%d", bw, every), func(b *testing.B) {
				seg := make([]byte, 8*n)
				var r Reader
				r.p.ow, r.dictN, r.enc = 8, size, encRLEDict
				r.dictFix = arrow.Uint64Traits.CastToBytes(dict64)
				b.SetBytes(int64(len(seg)))
				for b.Loop() {
					_ = r.idx.init(packed, bw)
					if sparse(sel, 8*size) {
						if bad, err := decodeDictSparse(&r.idx, arrow.Uint64Traits.CastFromBytes(seg), dict64, nil, sel); bad >= 0 || err != nil {
							b.Fatal(bad, err)
						}
						continue
					}
					if err := r.values(seg, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDictColumn reads 1,000,000 rows of one column written by
// pqarrow (uncompressed, so the codec does not hide the decoding; 4 row
// groups; decimals stored as INT64, as the Paimon writers do)
// dictionary-encoded and PLAIN, required and with 10 % NULLs,
// through Reader in batches of 64 Ki rows; ns/row is the figure to
// compare between dict and plain:
//
//	go test ./lake/parquetpage -run '^$' -bench DictColumn -count 3
func BenchmarkDictColumn(b *testing.B) {
	const rows, batch = 1_000_000, 64 << 10
	types := []struct {
		name string
		typ  arrow.DataType
		card int
	}{
		{"int64", arrow.PrimitiveTypes.Int64, 100_000},
		{"int32", arrow.PrimitiveTypes.Int32, 1000},
		{"float64", arrow.PrimitiveTypes.Float64, 4000},
		{"string16", arrow.BinaryTypes.String, 50_000},
		{"decimal15", &arrow.Decimal128Type{Precision: 15, Scale: 2}, 100_000},
	}
	ctx := context.Background()
	for _, ty := range types {
		for _, nullable := range []bool{false, true} {
			sch := arrow.NewSchema([]arrow.Field{{Name: "c", Type: ty.typ, Nullable: nullable}}, nil)
			bl := array.NewRecordBuilder(memory.NewGoAllocator(), sch)
			rng := rand.New(rand.NewPCG(9, 9))
			for i := 0; i < rows; i++ {
				if nullable && rng.IntN(10) == 0 {
					bl.Field(0).AppendNull()
					continue
				}
				v := rng.IntN(ty.card)
				switch fb := bl.Field(0).(type) {
				case *array.Int64Builder:
					fb.Append(int64(v) * 1_000_003)
				case *array.Int32Builder:
					fb.Append(int32(v))
				case *array.Float64Builder:
					fb.Append(float64(v) / 4)
				case *array.StringBuilder:
					fb.Append(fmt.Sprintf("s-%014d", v))
				case *array.Decimal128Builder:
					fb.Append(decimal128.FromI64(int64(v) * 101))
				}
			}
			rec := bl.NewRecordBatch()
			bl.Release()
			for _, dict := range []bool{true, false} {
				path := filepath.Join(b.TempDir(), "c.parquet")
				writeFile(b, path, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(dict),
					parquet.WithDictionaryPageSizeLimit(8<<20), parquet.WithDictionaryCostFallbackFor("c", false), parquet.WithCompression(compress.Codecs.Uncompressed),
					parquet.WithMaxRowGroupLength(rows/4), parquet.WithStoreDecimalAsInteger(true)), pqarrow.DefaultWriterProps())
				raw, err := readAllFile(path)
				if err != nil {
					b.Fatal(err)
				}
				pf, err := file.NewParquetReader(bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				md := pf.MetaData()
				var chunks []Chunk
				for rg := 0; rg < md.NumRowGroups(); rg++ {
					cc, err := md.RowGroup(rg).ColumnChunk(0)
					if err != nil {
						b.Fatal(err)
					}
					if got := cc.HasDictionaryPage(); got != dict {
						b.Fatalf("row group %d: dictionary page %v, want %v (%v)", rg, got, dict, cc.EncodingStats())
					}
					ch, err := ChunkOf(cc, rg)
					if err != nil {
						b.Fatal(err)
					}
					chunks = append(chunks, ch)
				}
				pf.Close()
				col := Column{File: path, Name: "c", Descr: md.Schema.Column(0), Out: ty.typ}
				enc := map[bool]string{true: "dict", false: "plain"}[dict]
				null := map[bool]string{true: "nulls", false: "required"}[nullable]
				b.Run(ty.name+"/"+null+"/"+enc, func(b *testing.B) {
					rd, err := NewReader(col, memory.NewGoAllocator())
					if err != nil {
						b.Fatal(err)
					}
					defer rd.Release()
					for b.Loop() {
						n := 0
						for rg, ch := range chunks {
							if err := rd.Reset(bytes.NewReader(raw), ch); err != nil {
								b.Fatal(err)
							}
							for left := int(md.RowGroup(rg).NumRows()); left > 0; {
								a, err := rd.Read(ctx, min(batch, left))
								if err != nil {
									b.Fatal(err)
								}
								left -= a.Len()
								n += a.Len()
								a.Release()
							}
						}
						if n != rows {
							b.Fatalf("%d rows", n)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
				})
			}
			rec.Release()
		}
	}
}
