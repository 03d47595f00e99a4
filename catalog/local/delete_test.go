package local

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// TestDeleteKeys: tombstones remove every older row of their keys (NULL
// key parts included); a later load of a deleted key brings it back.
func TestDeleteKeys(t *testing.T) {
	for _, compactAt := range []int{-1, 2} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dir := t.TempDir()
		c, d := openDB(t, dir, mem, Options{CompactAt: compactAt})
		tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), ukSpec("u", 3))
		for _, rows := range [][]row{
			{{"1", "a", "1", "x"}, {"2", "NULL", "2", "y"}, {"3", "c", "3", "z"}},
			{{"1", "a", "11", "x"}, {"4", "d", "4", "w"}},
		} {
			if _, err := load(t, tb, rowsReader(t, mem, nil, rows, 1), catalog.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		r := rowsReader(t, mem, nil, []row{{"1", "a", "NULL", "NULL"}, {"2", "NULL", "NULL", "NULL"}, {"9", "nope", "NULL", "NULL"}}, 2)
		if n, err := tb.(catalog.KeyDeleter).DeleteKeys(context.Background(), r); err != nil || n != 3 {
			t.Fatalf("DeleteKeys = %d, %v", n, err)
		}
		r.Release()
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"2", "NULL", "22", "back"}}, 1), catalog.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		want := []string{"2|NULL|22|back", "3|c|3|z", "4|d|4|w"}
		if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
			t.Fatalf("rows = %q, want %q", got, want)
		}
		waitCompaction(t, c, tb, compactAt)
		if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
			t.Fatalf("after compaction rows = %q, want %q", got, want)
		}
		c.Close()
		c2, d2 := openDB(t, dir, mem, Options{})
		if got := scanRows(t, mustTable(t, d2, "u"), mem); !slices.Equal(got, want) {
			t.Fatalf("after reopen rows = %q, want %q", got, want)
		}
		c2.Close()
		mem.AssertSize(t, 0)
	}
}

// TestDeleteWhere: DELETE predicates on a DUPLICATE table remove the
// matching rows committed before them, never later ones, across compaction
// and restart; bad predicates are refused before anything commits.
func TestDeleteWhere(t *testing.T) {
	for _, compactAt := range []int{-1, 2} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dir := t.TempDir()
		c, d := openDB(t, dir, mem, Options{CompactAt: compactAt})
		ctx := context.Background()
		tb, _ := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: ukSchema(), KeysType: "DUPLICATE"})
		rows := []row{{"1", "a", "10", "x"}, {"2", "b", "20", "NULL"}, {"3", "c", "30", "NULL"}, {"4", "d", "NULL", "y"}, {"5", "e", "50", "z"}, {"1", "f", "60", "x"}}
		for i := range rows {
			if _, err := load(t, tb, rowsReader(t, mem, nil, rows[i:i+1], 1), catalog.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		pd := tb.(catalog.PredicateDeleter)
		// v >= 20 AND s IS NULL: rows 2 and 3 (row 4 has v NULL).
		if err := pd.DeleteWhere(ctx, []catalog.Predicate{{Column: "v", Op: ">=", Values: []any{int64(20)}}, {Column: "s", Op: "IS NULL"}}); err != nil {
			t.Fatal(err)
		}
		// A row loaded after the delete matches it but stays.
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"7", "g", "70", "NULL"}}, 1), catalog.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := pd.DeleteWhere(ctx, []catalog.Predicate{{Column: "k1", Op: "IN", Values: []any{int64(1), int64(5)}}, {Column: "k2", Op: "!=", Values: []any{"f"}}}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]catalog.Predicate{
			{{Column: "nope", Op: "=", Values: []any{int64(1)}}},
			{{Column: "k1", Op: "=", Values: []any{"not a number"}}},
			{{Column: "k1", Op: "LIKE", Values: []any{"x%"}}},
		} {
			if err := pd.DeleteWhere(ctx, bad); err == nil {
				t.Fatalf("DeleteWhere(%v) accepted", bad)
			}
		}
		want := []string{"1|f|60|x", "4|d|NULL|y", "7|g|70|NULL"}
		if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
			t.Fatalf("rows = %q, want %q", got, want)
		}
		waitCompaction(t, c, tb, compactAt)
		if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
			t.Fatalf("after compaction rows = %q, want %q", got, want)
		}
		c.Close()
		c2, d2 := openDB(t, dir, mem, Options{})
		if got := scanRows(t, mustTable(t, d2, "t"), mem); !slices.Equal(got, want) {
			t.Fatalf("after reopen rows = %q, want %q", got, want)
		}
		if err := mustTable(t, d2, "t").(catalog.KeyDeleter); err != nil {
			if _, err := err.DeleteKeys(ctx, rowsReader(t, mem, nil, nil, 1)); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
				t.Fatalf("DeleteKeys on a DUPLICATE table: %v", err)
			}
		}
		c2.Close()
		mem.AssertSize(t, 0)
	}
}
