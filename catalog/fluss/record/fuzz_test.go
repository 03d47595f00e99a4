package record_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// fuzzOpts keeps fuzzing allocations small.
var fuzzArrowOpts = record.ArrowOptions{MaxUncompressedBytes: 1 << 20}

func seedBatches(f *testing.F) [][]byte {
	arrowB := loadHex(f, "arrow_v0_batch_java091.hex")
	compB := loadHex(f, "compacted_log_batch_java091.hex")
	seeds := [][]byte{arrowB, compB}
	mem := memory.NewGoAllocator()
	schema, _ := typemap.ArrowSchema(allTypesColumns())
	rb := array.NewRecordBuilder(mem, schema)
	fillAllTypes(rb, 9)
	rec := rb.NewRecordBatch()
	rb.Release()
	defer rec.Release()
	for _, comp := range []record.ArrowCompression{record.CompressionNone, record.CompressionZstd, record.CompressionLZ4Frame} {
		enc, _ := record.NewArrowEncoder(comp, 0)
		b, err := enc.AppendBatch(nil, record.BatchParams{Magic: 1, Statistics: []byte{1}, WriterID: -1, BatchSequence: -1}, rec, nil)
		enc.Close()
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzDecodeLogBatch feeds arbitrary bytes to the batch iterator and every
// records decoder (ARROW with two schemas, COMPACTED, INDEXED), with and
// without CRC checks. Nothing may panic or leak.
func FuzzDecodeLogBatch(f *testing.F) {
	for _, b := range seedBatches(f) {
		f.Add(b, true)
	}
	allCols := allTypesColumns()
	// Decoders (and their zstd/lz4 state) are built once per fuzz process and
	// reused, as a scanner would; the allocator must be back to zero after
	// every input.
	var mu sync.Mutex
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	var arrowDecs []*record.ArrowDecoder
	for _, cols := range [][]typemap.Column{goldenArrowCols, allCols} {
		d, err := record.NewArrowDecoder(cols, mem, fuzzArrowOpts)
		if err != nil {
			f.Fatal(err)
		}
		arrowDecs = append(arrowDecs, d)
	}
	var rowDecs []*record.RowDecoder
	for _, rf := range []record.RowFormat{record.RowCompacted, record.RowIndexed} {
		d, err := record.NewRowDecoder(nestedCols(), rf, mem)
		if err != nil {
			f.Fatal(err)
		}
		rowDecs = append(rowDecs, d)
	}
	f.Fuzz(func(t *testing.T, b []byte, skipCRC bool) {
		mu.Lock()
		defer mu.Unlock()
		defer func() {
			if n := mem.CurrentAlloc(); n != 0 {
				t.Fatalf("%d bytes still allocated after the input", n)
			}
		}()
		it := record.ReadBatches(b, record.DecodeOptions{SkipCRC: skipCRC, MaxBatchSize: 1 << 20})
		for it.Next() {
			lb := it.Batch()
			for _, d := range arrowDecs {
				if rec, _, err := d.Decode(lb); err == nil {
					touch(rec)
					rec.Release()
				}
			}
			for _, d := range rowDecs {
				if rec, _, err := d.DecodeLogBatch(lb); err == nil {
					rec.Release()
				}
			}
			_, _ = record.ProjectArrowBatch(nil, lb.Raw, allCols, []int{0, 16, 18})
		}
	})
}

// touch reads every value so that bad offsets would surface as panics.
func touch(rec arrow.RecordBatch) {
	for _, c := range rec.Columns() {
		for i := range c.Len() {
			_ = c.ValueStr(i)
		}
	}
}

// FuzzCompactedRow decodes arbitrary bytes as CompactedRows of two schemas
// and re-encodes what decodes: the bytes must come back unchanged.
func FuzzCompactedRow(f *testing.F) {
	f.Add(loadHex(f, "compacted_row_nested.hex"))
	if b, err := record.EncodeCompactedRow(nil, allScalarTypes(), allScalarValues()); err == nil {
		f.Add(b)
	}
	f.Add(loadHex(f, "compacted_key_all_types.hex"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, types := range [][]typemap.DataType{nestedTypes(), allScalarTypes()} {
			row, err := record.DecodeCompactedRow(b, types)
			if err != nil {
				continue
			}
			out, err := record.EncodeCompactedRow(nil, types, row)
			if err != nil {
				t.Fatalf("decoded row does not re-encode: %v", err)
			}
			// Compare bytes, not values: NaN != NaN.
			again, err := record.DecodeCompactedRow(out, types)
			if err != nil {
				t.Fatalf("re-encoded row does not decode: %v", err)
			}
			out2, err := record.EncodeCompactedRow(nil, types, again)
			if err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("re-encoding is not stable: %v\n%x\n%x", err, out, out2)
			}
		}
		_, _ = record.DecodeCompactedKey(b, allScalarTypes()[:19])
	})
}

// FuzzIndexedRow is FuzzCompactedRow for IndexedRow.
func FuzzIndexedRow(f *testing.F) {
	f.Add(loadHex(f, "indexed_row_nested.hex"))
	if b, err := record.EncodeIndexedRow(nil, allScalarTypes(), allScalarValues()); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, types := range [][]typemap.DataType{nestedTypes(), allScalarTypes()} {
			row, err := record.DecodeIndexedRow(b, types)
			if err != nil {
				continue
			}
			out, err := record.EncodeIndexedRow(nil, types, row)
			if err != nil {
				t.Fatalf("decoded row does not re-encode: %v", err)
			}
			// Compare bytes, not values: NaN != NaN.
			again, err := record.DecodeIndexedRow(out, types)
			if err != nil {
				t.Fatalf("re-encoded row does not decode: %v", err)
			}
			out2, err := record.EncodeIndexedRow(nil, types, again)
			if err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("re-encoding is not stable: %v\n%x\n%x", err, out, out2)
			}
		}
	})
}

// FuzzKvBatch decodes KV write batches and value batches; what decodes must
// re-encode to a batch that decodes to the same records.
func FuzzKvBatch(f *testing.F) {
	f.Add(loadHex(f, "kv_write_batch_java091.hex"))
	f.Add(record.AppendValueBatch(nil, []record.ValueRecord{{SchemaID: 1, Row: loadHex(f, "compacted_row_nested.hex")}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if kb, _, err := record.DecodeKvBatch(b, record.DecodeOptions{SkipCRC: true}); err == nil {
			valid := true
			for _, r := range kb.Records {
				valid = valid && len(r.Key) > 0
			}
			if valid {
				out, err := record.AppendKvBatch(nil, kb.SchemaID, kb.WriterID, kb.BatchSequence, kb.Records)
				if err != nil {
					t.Fatal(err)
				}
				again, _, err := record.DecodeKvBatch(out, record.DecodeOptions{})
				if err != nil || len(again.Records) != len(kb.Records) {
					t.Fatalf("re-encoded KV batch: %v", err)
				}
			}
		}
		if recs, err := record.DecodeValueBatch(b); err == nil {
			out := record.AppendValueBatch(nil, recs)
			if again, err := record.DecodeValueBatch(out); err != nil || len(again) != len(recs) {
				t.Fatalf("re-encoded value batch: %v", err)
			}
			for _, r := range recs {
				_, _ = record.DecodeCompactedRow(r.Row, nestedTypes())
			}
		}
	})
}

// FuzzTableJSON parses arbitrary table JSON; what parses must marshal and
// parse back to the same descriptor.
func FuzzTableJSON(f *testing.F) {
	var fx serdeCases
	loadJSON(f, "json_serde.json", &fx)
	for _, c := range fx.TableDescriptors.Cases {
		f.Add([]byte(c.JSON))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := record.ParseTableDescriptor(b)
		if err != nil {
			return
		}
		out, err := record.MarshalTableDescriptor(d)
		if err != nil {
			t.Fatalf("parsed descriptor does not marshal: %v", err)
		}
		d2, err := record.ParseTableDescriptor(out)
		if err != nil {
			t.Fatalf("marshalled descriptor does not parse: %v\n%s", err, out)
		}
		out2, _ := record.MarshalTableDescriptor(d2)
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
		if k, err := record.NewTableKeys(d); err == nil {
			_ = k
		}
	})
}
