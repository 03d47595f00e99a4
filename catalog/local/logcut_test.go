package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestTruncatedLogRefused: small loads keep their rows inside the commit log
// and a checkpoint names them there. A log cut to 100 bytes afterwards must
// stop Open with ErrCorrupt naming the file, as a missing manifest does,
// instead of opening a table whose scans then fail.
func TestTruncatedLogRefused(t *testing.T) {
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{CompactAt: -1, CheckpointEvery: 2})
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	for _, id := range []string{"1", "2", "3"} {
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{id, "a", id, "x"}}, 1), catalog.LoadOptions{Label: "l" + id}); err != nil {
			t.Fatal(err)
		}
	}
	var named string
	for _, f := range c.m.Databases[0].Tables[0].Files {
		if f.Log && f.Name != logName(c.log.gen) {
			named = filepath.Join(c.walDir(), f.Name)
		}
	}
	c.Close()
	if named == "" {
		t.Fatal("no checkpointed segment lives in an older commit log; the test does not test anything")
	}
	if err := os.Truncate(named, 100); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, memory.NewGoAllocator(), Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), named) {
		t.Fatalf("Open = %v, want ErrCorrupt naming %s", err, named)
	}
	// Nothing was removed: the files are there for a repair.
	if st, err := os.Stat(named); err != nil || st.Size() != 100 {
		t.Errorf("log after the refused Open: %v %v", st, err)
	}
	// A missing log is refused the same way.
	os.Remove(named)
	if _, err := Open(dir, memory.NewGoAllocator(), Options{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), named) {
		t.Fatalf("Open with the log gone = %v", err)
	}
}
