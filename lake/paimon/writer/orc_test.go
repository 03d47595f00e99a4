package writer_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/orc"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// TestORCMatchesParquet writes the same commits (a partitioned primary-key
// table with a composite key, two buckets, every type, NULLs, pre-1970
// dates and timestamps, then updates and deletes) to a Parquet table and an
// ORC table. The Parquet files are cross-checked against DuckDB elsewhere;
// here the ORC table must read back the same rows (after the merge) and
// carry the same manifest statistics, and its files must be laid out as
// Java Paimon's: .orc names, ZSTD, "paimon.id" attributes, CHAR/VARCHAR
// lengths.
func TestORCMatchesParquet(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	fields := fieldsWithIDs(append([]paimon.DataField{
		{Name: "k1", Type: dt(paimon.Int, false, 0, 0)},
		{Name: "k2", Type: dt(paimon.VarChar, false, 2147483647, 0)},
		{Name: "p", Type: dt(paimon.Int, false, 0, 0)},
		{Name: "vc", Type: dt(paimon.VarChar, true, 30, 0)},
	}, everyType...))
	type file struct {
		part   int64
		bucket int32
		rows   [][]any
		kinds  []int8
	}
	r := rand.New(rand.NewPCG(5, 7))
	// Commit 1: inserts; commit 2: updates and deletes of some keys.
	var commits [][]file
	for round := 0; round < 2; round++ {
		var files []file
		for part := int64(0); part < 2; part++ {
			for bucket := int32(0); bucket < 2; bucket++ {
				f := file{part: part, bucket: bucket}
				for k1 := int64(0); k1 < 60; k1++ {
					if k1%2 != int64(bucket) || (round == 1 && k1%3 != 0) {
						continue
					}
					for _, k2 := range []string{"a", "b"} {
						row := []any{k1, k2, part, genValue(r, dt(paimon.VarChar, true, 0, 0))}
						for _, ef := range everyType {
							row = append(row, genValue(r, ef.Type))
						}
						if s, ok := row[3].(string); ok && len([]rune(s)) > 30 {
							row[3] = string([]rune(s)[:30])
						}
						f.rows = append(f.rows, row)
						kind := paimon.KindInsert
						if round == 1 && k1%6 == 0 && k2 == "b" {
							kind = paimon.KindDelete
						}
						f.kinds = append(f.kinds, kind)
					}
				}
				files = append(files, f)
			}
		}
		commits = append(commits, files)
	}

	write := func(format string) (string, []paimon.ManifestEntry) {
		path := filepath.Join(t.TempDir(), "db.db", "t_"+format)
		s := &paimon.TableSchema{Fields: fields, PrimaryKeys: []string{"k1", "k2", "p"}, PartitionKeys: []string{"p"},
			Options: map[string]string{"bucket": "2", "bucket-key": "k1", "partition.legacy-name": "false",
				"changelog-producer": "input", "file.format": format, "orc.stripe.size": "2000"}}
		if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), RowGroupRows: 9})
		if err != nil {
			t.Fatal(err)
		}
		for _, files := range commits {
			c := w.NewCommit()
			for _, f := range files {
				fw, err := c.NewFile(ctx, []any{int32(f.part)}, f.bucket)
				if err != nil {
					t.Fatal(err)
				}
				for lo := 0; lo < len(f.rows); lo += 16 {
					hi := min(lo+16, len(f.rows))
					rec := buildBatch(t, mem, fields, f.rows[lo:hi])
					err := fw.Write(rec, f.kinds[lo:hi])
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
		}
		return path, w.LiveFiles()
	}
	pqPath, pqLive := write("parquet")
	orcPath, orcLive := write("orc")

	pqRows, _ := readAll(t, ctx, pqPath, mem)
	orcRows, _ := readAll(t, ctx, orcPath, mem)
	if len(pqRows) == 0 || len(pqRows) != len(orcRows) {
		t.Fatalf("%d Parquet rows, %d ORC rows", len(pqRows), len(orcRows))
	}
	for i := range pqRows {
		if pqRows[i] != orcRows[i] {
			t.Fatalf("row %d:\nparquet %s\norc     %s", i, pqRows[i], orcRows[i])
		}
	}
	// Deleted keys are gone: 10 of k1%6==0 keys ("b") per partition.
	if want := 2 * (60*2 - 10); len(orcRows) != want {
		t.Errorf("%d rows, want %d", len(orcRows), want)
	}

	if len(pqLive) != len(orcLive) {
		t.Fatalf("%d Parquet files, %d ORC files", len(pqLive), len(orcLive))
	}
	for i := range pqLive {
		a, b := pqLive[i].File, orcLive[i].File
		if !bytes.Equal(a.MinKey, b.MinKey) || !bytes.Equal(a.MaxKey, b.MaxKey) || a.RowCount != b.RowCount ||
			!reflect.DeepEqual(a.KeyStats, b.KeyStats) || !reflect.DeepEqual(a.ValueStats, b.ValueStats) {
			t.Errorf("file %d: manifest entries differ:\nparquet %d %x %x %+v %+v\norc     %d %x %x %+v %+v", i, a.RowCount, a.MinKey, a.MaxKey, *a.KeyStats, *a.ValueStats,
				b.RowCount, b.MinKey, b.MaxKey, *b.KeyStats, *b.ValueStats)
		}
		if !strings.HasPrefix(b.FileName, "data-") || filepath.Ext(b.FileName) != ".orc" {
			t.Errorf("ORC data file name %s", b.FileName)
		}
	}

	// Layout of one ORC data file.
	var one string
	filepath.WalkDir(orcPath, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".orc") && one == "" {
			one = p
		}
		return nil
	})
	raw, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	of, err := orc.Open(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if of.Compression() != orc.CompressionZstd {
		t.Errorf("compression %s, want ZSTD (Paimon's default)", of.Compression())
	}
	if len(of.Stripes()) < 2 {
		t.Errorf("%d stripes with orc.stripe.size=2000", len(of.Stripes()))
	}
	wantID := map[string]string{"_KEY_k1": "1073741823", "_KEY_k2": "1073741824", "_SEQUENCE_NUMBER": "2147483646", "_VALUE_KIND": "2147483645", "k1": "0", "vc": "3", "arr": fmt.Sprint(len(fields) - 1)}
	for _, fl := range of.Schema().Fields() {
		id, _ := fl.Metadata.GetValue("paimon.id")
		if w, ok := wantID[fl.Name]; ok && id != w {
			t.Errorf("column %s: paimon.id %q, want %s", fl.Name, id, w)
		}
		if id == "" {
			t.Errorf("column %s has no paimon.id", fl.Name)
		}
	}
	for name, kind := range map[string]orc.TypeKind{"vc": orc.KindVarchar, "c": orc.KindChar, "s": orc.KindString,
		"ltz": orc.KindTimestampInstant, "ts9": orc.KindTimestamp, "_VALUE_KIND": orc.KindByte, "bdec": orc.KindDecimal} {
		if k := of.ColumnKind(of.ColumnID(name)); k != kind {
			t.Errorf("column %s: ORC %s, want %s", name, k, kind)
		}
	}
}
