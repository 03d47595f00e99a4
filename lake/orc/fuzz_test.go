package orc

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzOpenAndRead feeds arbitrary bytes through Open and a full read; it
// must return errors, never panic, and release every buffer it allocates.
func FuzzOpenAndRead(f *testing.F) {
	files := fixtureFiles(f)
	files = append(files, fixtureFiles(f, "corrupt")...)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 { // large seeds slow every iteration down
			continue
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		file, err := Open(bytes.NewReader(b), int64(len(b)), WithName("fuzz.orc"))
		if err != nil {
			return
		}
		for _, s := range file.Stripes() {
			_ = s.Stats
		}
		rr, err := file.NewRecordReader(context.Background(), ReadOptions{Mem: mem, BatchSize: 100})
		if err != nil {
			return
		}
		defer rr.Release()
		// Seeds like demo-12-zlib.orc hold two million rows in 46 KB; stop
		// early so each input stays fast under coverage instrumentation.
		rows := int64(0)
		for rows < 20000 && rr.Next() {
			rec := rr.RecordBatch()
			rows += rec.NumRows()
			for _, c := range rec.Columns() {
				if c.Len() != int(rec.NumRows()) {
					t.Fatalf("column length %d, batch %d rows", c.Len(), rec.NumRows())
				}
			}
		}
	})
}
