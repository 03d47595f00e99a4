package local

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestAutoAnalyze: with AutoAnalyze a load is followed by the table's
// statistics (row count, bounds, NULLs as hand-derived from the rows
// loaded); a load changing under a tenth of the rows leaves them, one
// changing more brings them up to date, a restart analyses what a crash
// left stale; without it nothing is analysed.
func TestAutoAnalyze(t *testing.T) {
	ctx := context.Background()
	ids := func(from, n int64) ([]int64, []string) {
		var a []int64
		var s []string
		for i := from; i < from+n; i++ {
			a = append(a, i)
			name := "n"
			if i%4 == 0 {
				name = "" // NULL
			}
			s = append(s, name)
		}
		return a, s
	}
	loadIDs := func(t *testing.T, tb catalog.Table, mem memory.Allocator, from, n int64) {
		a, s := ids(from, n)
		if _, err := load(t, tb, batch(mem, a, s), catalog.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stats := func(t *testing.T, tb catalog.Table) *catalog.TableStats {
		st, err := tb.(catalog.ColumnStatser).ColumnStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	waitRows := func(t *testing.T, tb catalog.Table, want int64) *catalog.TableStats {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if st := stats(t, tb); st != nil && st.Rows == want {
				return st
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("statistics never showed %d rows (last: %+v)", want, stats(t, tb))
		return nil
	}
	t.Run("on", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dir := t.TempDir()
		c, d := openDB(t, dir, mem, Options{AutoAnalyze: 5 * time.Millisecond, CompactAt: -1})
		tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
		if err != nil {
			t.Fatal(err)
		}
		loadIDs(t, tb, mem, 0, 1000)
		st := waitRows(t, tb, 1000)
		id, name := st.Columns["id"], st.Columns["name"]
		if id.Min != "0" || id.Max != "999" || id.Nulls != 0 || name.Nulls != 250 {
			t.Fatalf("id %+v, name %+v: want id 0..999 without NULLs, 250 NULL names", id, name)
		}
		loadIDs(t, tb, mem, 1000, 50) // 5 %: not stale
		time.Sleep(200 * time.Millisecond)
		if st := stats(t, tb); st.Rows != 1000 {
			t.Fatalf("a 5 %% change re-analysed the table: %d rows", st.Rows)
		}
		loadIDs(t, tb, mem, 1050, 200) // 25 % since the ANALYZE
		if st := waitRows(t, tb, 1250); st.Columns["id"].Max != "1249" {
			t.Fatalf("id max %q, want 1249", st.Columns["id"].Max)
		}
		c.Close()
		// Rows loaded while auto analyze was off are analysed after a
		// restart with it on.
		c2, d2 := openDB(t, dir, mem, Options{CompactAt: -1})
		loadIDs(t, mustTable(t, d2, "t"), mem, 1250, 1000)
		c2.Close()
		c3, d3 := openDB(t, dir, mem, Options{AutoAnalyze: 5 * time.Millisecond, CompactAt: -1})
		waitRows(t, mustTable(t, d3, "t"), 2250)
		c3.Close()
		mem.AssertSize(t, 0)
	})
	t.Run("off", func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		c, d := openDB(t, t.TempDir(), mem, Options{CompactAt: -1})
		tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: testSchema()})
		if err != nil {
			t.Fatal(err)
		}
		loadIDs(t, tb, mem, 0, 1000)
		time.Sleep(100 * time.Millisecond)
		if st := stats(t, tb); st != nil {
			t.Fatalf("analysed without AutoAnalyze: %+v", st)
		}
		c.Close()
		mem.AssertSize(t, 0)
	})
}
