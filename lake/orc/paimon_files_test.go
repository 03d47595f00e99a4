package orc

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/fixtures"
)

// TestPaimonWrittenFiles reads every ORC file (data files and ORC manifests)
// that Paimon wrote into the shared Paimon fixtures: all rows, no error, no
// leaked buffer, and the Paimon field ids visible as field metadata.
func TestPaimonWrittenFiles(t *testing.T) {
	root := fixtures.Path(t, "paimon")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(b, []byte(magic)) {
			return nil
		}
		n++
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) {
			f, err := Open(bytes.NewReader(b), int64(len(b)), WithName(rel))
			if err != nil {
				t.Fatal(err)
			}
			ids := 0
			for _, fl := range f.Schema().Fields() {
				if _, ok := fl.Metadata.GetValue("paimon.id"); ok {
					ids++
				}
				if _, ok := fl.Metadata.GetValue(MetaColumnID); !ok {
					t.Errorf("field %s has no %s", fl.Name, MetaColumnID)
				}
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rr, err := f.NewRecordReader(context.Background(), ReadOptions{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var rows int64
			for rr.Next() {
				rows += rr.RecordBatch().NumRows()
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if rows != f.NumRows() {
				t.Fatalf("read %d rows, footer says %d", rows, f.NumRows())
			}
			t.Logf("%d rows, %s, %d fields with paimon.id", rows, f.Compression(), ids)
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no ORC files under the Paimon fixtures")
	}
}
