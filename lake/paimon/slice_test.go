package paimon_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// Every Java-written fixture read through splits cut to the byte (one
// file becomes up to 1024 slices, most owning nothing) and through
// mid-size slices gives EXPECTED.json's rows: each row group or stripe is
// read by exactly one slice.
func TestSlicedFixtures(t *testing.T) {
	all, err := paimontest.LoadAll(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	sliced := 0 // splits holding a slice of a file cut in two or more
	for _, size := range []int64{1, 700, 4096} {
		for _, e := range all {
			for i := range e.Reads {
				r := &e.Reads[i]
				t.Run(fmt.Sprintf("%s/%s/%d", e.Fixture, r.Name, size), func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					rows, n, err := readSliced(e, r, size, mem)
					if err != nil {
						t.Fatal(err)
					}
					sliced += n
					if err := paimontest.Check(e, r, rows); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
	if sliced == 0 {
		t.Fatal("no fixture file was sliced: the test does not exercise slicing")
	}
}

// readSliced reads one EXPECTED.json entry with FileSplitSize size and
// counts the splits that read a slice of a file cut in two or more.
func readSliced(e *paimontest.Expected, r *paimontest.Read, size int64, mem memory.Allocator) ([][]any, int, error) {
	plan, rows, err := readAllSliced(e, r, mem, size)
	if err != nil {
		return nil, 0, err
	}
	sliced := 0
	for _, sp := range plan.Splits {
		if len(sp.Files) == 1 && sp.Files[0].Slice != nil && sp.Files[0].Slice.Count > 1 {
			sliced++
		}
	}
	return rows, sliced, nil
}

// A Parquet and an ORC append table of three files with many row groups or
// stripes, one file under a deletion vector, read with every slice size
// from "each byte its own slice" to "no slicing", with and without a
// row filter: the ids read are exactly the ids written minus the deleted
// ones (worked out from the generator, not by the reader), every slice
// split is raw with one file, and the split row counts add up to the live
// rows.
func TestSlicedGenerated(t *testing.T) {
	ctx := context.Background()
	defer paimon.SetMinSliceBytes(paimon.SetMinSliceBytes(1))
	const files, perFile = 3, 1000
	deleted := func(file, i int) bool { return file == 1 && i%7 == 3 }
	// parquet-rowsplit: one row group a file, of many small pages, so
	// that slices share it by rows (rowsplit.go) and the deletion
	// vector's positions must hold across the shares.
	for _, variant := range []string{"parquet", "orc", "parquet-rowsplit"} {
		t.Run(variant, func(t *testing.T) {
			format, opts := variant, writer.Options{RowGroupRows: 64}
			if variant == "parquet-rowsplit" {
				format, opts = "parquet", writer.Options{RowGroupRows: 1 << 20, PageBytes: 512}
				defer paimon.SetMinSplitGroup(1, 100)()
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			path := filepath.Join(t.TempDir(), "db.db", "t_"+format)
			before := paimon.SplitParts()
			s := &paimon.TableSchema{Fields: []paimon.DataField{
				{ID: 0, Name: "id", Type: mustType(t, "BIGINT")},
				{ID: 1, Name: "name", Type: mustType(t, "STRING")},
			}, Options: map[string]string{"bucket": "-1", "file.format": format, "deletion-vectors.enabled": "true",
				"orc.stripe.size": "1500", "file.compression": "none"}}
			if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
			w, err := writer.Open(ctx, fileio.Local{}, path, mem, opts)
			if err != nil {
				t.Fatal(err)
			}
			c := w.NewCommit()
			var names []string
			for f := 0; f < files; f++ {
				fw, err := c.NewFile(ctx, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, fw.Name())
				for lo := 0; lo < perFile; lo += 100 {
					var rows [][]any
					for i := lo; i < lo+100; i++ {
						var name any = fmt.Sprintf("name-%06d", f*perFile+i)
						if i%13 == 0 {
							name = nil
						}
						rows = append(rows, []any{f*perFile + i, name})
					}
					rec := paimontest.Rows(t, mem, w.Schema(), rows...)
					err := fw.Write(rec, nil)
					rec.Release()
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := fw.Close(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := c.Commit(ctx, nil); err != nil {
				t.Fatal(err)
			}
			var pos []uint32
			for i := 0; i < perFile; i++ {
				if deleted(1, i) {
					pos = append(pos, uint32(i))
				}
			}
			c = w.NewCommit()
			if err := c.DeleteRows(ctx, nil, 0, names[1], pos); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Commit(ctx, nil); err != nil {
				t.Fatal(err)
			}
			tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, pred := range []*paimon.Predicate{nil, paimon.Ge("id", int64(1500)), paimon.Or(paimon.IsNull("name"), paimon.Lt("id", int64(40)))} {
				var want []int64
				for f := 0; f < files; f++ {
					for i := 0; i < perFile; i++ {
						id := int64(f*perFile + i)
						if deleted(f, i) {
							continue
						}
						switch {
						case pred == nil:
						case pred.Op == paimon.OpGe && id < 1500:
							continue
						case pred.Op == paimon.OpOr && i%13 != 0 && id >= 40:
							continue
						}
						want = append(want, id)
					}
				}
				maxShared := 0
				// minSplits: the file_split_size auto mode, cutting the
				// files finer than size when the plan has fewer splits.
				for _, c := range []struct {
					size      int64
					minSplits int
				}{{1, 0}, {97, 0}, {1000, 0}, {4000, 0}, {1 << 40, 0}, {1 << 40, 12}, {4000, 40}, {1000, 2}} {
					size := c.size
					plan, err := tbl.Plan(ctx, paimon.ScanOptions{Predicate: pred, FileSplitSize: size, MinSplits: c.minSplits})
					if err != nil {
						t.Fatal(err)
					}
					if pred == nil && c.minSplits > len(plan.Splits) {
						t.Errorf("size %d, minSplits %d: %d splits", size, c.minSplits, len(plan.Splits))
					}
					var got []int64
					var planned int64
					perFileSlices := map[string]int{}
					// One scanner's buffers carried from split to split.
					bufs := &paimon.ScanBuffers{}
					pooled := paimon.PooledReaders()
					for i := range plan.Splits {
						sp := &plan.Splits[i]
						planned += sp.RowCount
						if sl := sp.Files[0].Slice; sl != nil {
							if len(sp.Files) != 1 || !sp.RawConvertible || sl.Index >= sl.Count {
								t.Fatalf("size %d: sliced split %+v", size, sp)
							}
						}
						// Through the codec, as the FE ships it to a BE.
						enc, err := paimon.EncodeSplit(sp)
						if err != nil {
							t.Fatal(err)
						}
						dec, err := paimon.DecodeSplit(enc, plan.Schema.PartitionFields())
						if err != nil {
							t.Fatal(err)
						}
						rr, err := plan.Open(ctx, dec, mem, paimon.ReadOptions{Columns: []string{"id"}, BatchSize: 50, Buffers: bufs})
						if err != nil {
							t.Fatal(err)
						}
						n := 0
						for rr.Next() {
							ids := rr.RecordBatch().Column(0).(*array.Int64)
							got = append(got, ids.Int64Values()...)
							n += ids.Len()
						}
						err = rr.Err()
						rr.Release()
						if err != nil {
							t.Fatal(err)
						}
						if n > 0 && dec.Files[0].Slice != nil {
							perFileSlices[dec.Files[0].Path]++
						}
					}
					bufs.Release()
					if format == "parquet" && len(plan.Splits) > 1 && paimon.PooledReaders() == pooled {
						t.Errorf("size %d: no page reader carried from one split to the next", size)
					}
					if pred == nil && planned != int64(files*perFile-len(pos)) {
						t.Errorf("size %d: splits count %d rows, %d are live", size, planned, files*perFile-len(pos))
					}
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("pred %v size %d: %d ids, want %d (first diff at %d)", pred, size, len(got), len(want), firstDiff(got, want))
					}
					for _, n := range perFileSlices {
						maxShared = max(maxShared, n)
					}
				}
				if variant == "parquet-rowsplit" && paimon.SplitParts() == before {
					t.Fatalf("pred %v: no row group split by rows", pred)
				}
				if maxShared < 3 {
					t.Fatalf("pred %v: at most %d slices of one file returned rows; slicing is not exercised", pred, maxShared)
				}
			}
		})
	}
}

func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A slice in a split that cannot hold one is refused by the codec.
func TestSliceCodecRefuses(t *testing.T) {
	f := paimon.DataFile{Path: "/t/bucket-0/data-1.parquet", Meta: paimon.DataFileMeta{FileName: "data-1.parquet", RowCount: 10}}
	cases := map[string]paimon.Split{
		"merge split":   {Files: []paimon.DataFile{withSlice(f, 0, 2)}},
		"two files":     {RawConvertible: true, Files: []paimon.DataFile{withSlice(f, 0, 2), f}},
		"index ≥ count": {RawConvertible: true, Files: []paimon.DataFile{withSlice(f, 2, 2)}},
		"avro file": {RawConvertible: true, Files: []paimon.DataFile{withSlice(paimon.DataFile{Path: "/t/bucket-0/data-1.avro",
			Meta: paimon.DataFileMeta{FileName: "data-1.avro"}}, 0, 2)}},
	}
	noPart := make([]byte, 12) // BinaryRow of arity 0
	for name, sp := range cases {
		sp.PartitionBytes = noPart
		b, err := paimon.EncodeSplit(&sp)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := paimon.DecodeSplit(b, nil); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	ok := paimon.Split{PartitionBytes: noPart, RawConvertible: true, Files: []paimon.DataFile{withSlice(f, 1, 2)}}
	b, _ := paimon.EncodeSplit(&ok)
	if _, err := paimon.DecodeSplit(b, nil); err != nil {
		t.Fatal(err)
	}
}

func withSlice(f paimon.DataFile, i, n int32) paimon.DataFile {
	f.Slice = &paimon.FileSlice{Index: i, Count: n}
	return f
}
