package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestCommitLogDamage: a torn last record (a commit never acknowledged) is
// cut off at Open; damage inside an earlier record stops Open with an error
// naming the log and offset, and deletes nothing.
func TestCommitLogDamage(t *testing.T) {
	setup := func(t *testing.T) (string, string) {
		mem := memory.NewGoAllocator()
		dir := t.TempDir()
		c, d := openDB(t, dir, mem, Options{CompactAt: -1})
		tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
		for _, id := range []string{"1", "2", "3"} {
			if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{id, "a", id, "x"}}, 1), catalog.LoadOptions{Label: "l" + id}); err != nil {
				t.Fatal(err)
			}
		}
		log := filepath.Join(c.walDir(), logName(c.log.gen))
		c.Close()
		return dir, log
	}
	t.Run("torn tail", func(t *testing.T) {
		dir, log := setup(t)
		st, _ := os.Stat(log)
		if err := os.Truncate(log, st.Size()-3); err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		c, d := openDB(t, dir, mem, Options{})
		defer c.Close()
		if got := scanRows(t, mustTable(t, d, "t"), mem); len(got) != 2 || !strings.HasPrefix(got[1], "2|") {
			t.Fatalf("rows = %q, want loads 1 and 2", got)
		}
		// The torn load's label is free again; the log takes new commits.
		if _, err := load(t, mustTable(t, d, "t"), rowsReader(t, mem, nil, []row{{"3", "a", "3", "x"}}, 1), catalog.LoadOptions{Label: "l3"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("damaged middle record", func(t *testing.T) {
		dir, log := setup(t)
		b, _ := os.ReadFile(log)
		b[recHeader+2] ^= 0xff // inside the first record's data
		os.WriteFile(log, b, 0o644)
		_, err := Open(dir, memory.NewGoAllocator(), Options{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), log) || !strings.Contains(err.Error(), "offset 0") {
			t.Fatalf("open with a damaged record: %v", err)
		}
		if b2, _ := os.ReadFile(log); len(b2) != len(b) {
			t.Fatal("the damaged log was changed")
		}
	})
}

// TestLogsAndFilesCollected: after many small commits, checkpoints and
// compactions, old log generations and replaced files are deleted and the
// manifest stays small.
func TestLogsAndFilesCollected(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{CompactAt: 4, CheckpointEvery: 20})
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	for i := range 300 {
		id := strings.Repeat("1", 1+i%3)
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{id, "a", "1", "x"}}, 1), catalog.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitCompaction(t, c, tb, 4)
	checkpointNow(t, c)
	logs, _ := os.ReadDir(c.walDir())
	files, _ := os.ReadDir(c.tableDir(tb.(*Table).id))
	// Every log left is the current one or holds a live segment.
	c.mu.Lock()
	used := map[string]bool{logName(c.m.LogGen): true}
	m, _ := tb.(*Table).lookup()
	segs := len(m.Files)
	for _, f := range m.Files {
		if f.Log {
			used[f.Name] = true
		}
	}
	c.mu.Unlock()
	for _, l := range logs {
		if !used[l.Name()] {
			t.Errorf("log %s left behind (live: %v)", l.Name(), used)
		}
	}
	if len(logs) > 8 || len(files) > 4 || segs > 3*4 {
		t.Errorf("%d logs, %d data files, %d segments left after 300 loads and %d checkpoints", len(logs), len(files), segs, c.m.LogGen)
	}
	if got := scanRows(t, tb, mem); len(got) != 300 {
		t.Fatalf("%d rows, want 300", len(got))
	}
	c.Close()
}

// TestGroupCommit (issue 13 defect 8): INSERTs do not rewrite the manifest,
// and concurrent commits share log appends (one fsync for many), while each
// one stays durable.
func TestGroupCommit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{CompactAt: -1})
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	before, err := os.Stat(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := rowsReader(t, mem, nil, []row{{fmt.Sprint(w*100 + i), "a", "1", "x"}}, 1)
				if _, err := tb.(catalog.Writable).Append(context.Background(), r); err != nil {
					t.Error(err)
				}
				r.Release()
			}
		}()
	}
	wg.Wait()
	after, err := os.Stat(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("the manifest was rewritten by INSERTs: %d -> %d bytes", before.Size(), after.Size())
	}
	c.mu.Lock()
	syncs := c.log.syncs
	c.mu.Unlock()
	if syncs >= workers*each {
		t.Errorf("%d commits took %d log fsyncs: none were grouped", workers*each, syncs)
	}
	t.Logf("%d commits, %d log fsyncs", workers*each, syncs)
	c.Close()
	c2, d2 := openDB(t, dir, mem, Options{})
	defer c2.Close()
	if got := scanRows(t, mustTable(t, d2, "t"), mem); len(got) != workers*each {
		t.Fatalf("%d rows after reopen, want %d", len(got), workers*each)
	}
}
