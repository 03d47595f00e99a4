package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// drain reads an open scan as sorted text rows.
func drain(t *testing.T, r interface {
	Next() bool
	Err() error
}, rec func() [][]string) []string {
	t.Helper()
	var out []string
	for r.Next() {
		for _, f := range rec() {
			out = append(out, strings.Join(f, "|"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestOverwrite: Overwrite replaces every row (older loads, deletes,
// compacted segments) in one commit, on UNIQUE KEY and DUPLICATE tables; a
// scan opened before it still reads the old rows; its label is checked like
// a load's; an empty overwrite empties the table; all of it survives a
// restart, and later loads add to the new rows.
func TestOverwrite(t *testing.T) {
	for _, keys := range []string{"UNIQUE", "DUPLICATE"} {
		for _, compactAt := range []int{-1, 2} {
			t.Run(fmt.Sprintf("%s/compactAt=%d", keys, compactAt), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				dir := t.TempDir()
				ctx := context.Background()
				c, d := openDB(t, dir, mem, Options{CompactAt: compactAt})
				spec := ukSpec("t", 3)
				if keys == "DUPLICATE" {
					spec = catalog.TableSpec{Name: "t", Schema: ukSchema(), KeysType: "DUPLICATE"}
				}
				tb, err := d.(catalog.TableCreator).CreateTable(ctx, spec)
				if err != nil {
					t.Fatal(err)
				}
				for _, rows := range [][]row{
					{{"1", "a", "1", "x"}, {"2", "NULL", "2", "y"}, {"3", "c", "3", "z"}},
					{{"4", "d", "4", "w"}, {"5", "e", "5", "NULL"}},
				} {
					if _, err := load(t, tb, rowsReader(t, mem, nil, rows, 1), catalog.LoadOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				if keys == "DUPLICATE" {
					if err := tb.(catalog.PredicateDeleter).DeleteWhere(ctx, []catalog.Predicate{{Column: "k1", Op: "=", Values: []any{int64(4)}}}); err != nil {
						t.Fatal(err)
					}
				}
				waitCompaction(t, c, tb, compactAt)
				old := scanRows(t, tb, mem)
				// A scan opened before the overwrite keeps reading the old rows.
				before, err := tb.Scan(ctx, catalog.ScanRequest{Mem: mem})
				if err != nil {
					t.Fatal(err)
				}
				// New rows: key 1 again (a new value), key 4 again (deleted
				// on DUPLICATE), a NULL key part, a duplicate within the load
				// (UNIQUE keeps the later one).
				next := []row{{"1", "a", "10", "new"}, {"4", "d", "40", "NULL"}, {"7", "NULL", "NULL", "n"}, {"7", "NULL", "70", "n2"}}
				want := []string{"1|a|10|new", "4|d|40|NULL", "7|NULL|70|n2"}
				if keys == "DUPLICATE" {
					want = []string{"1|a|10|new", "4|d|40|NULL", "7|NULL|70|n2", "7|NULL|NULL|n"}
				}
				r := rowsReader(t, mem, nil, next, 2)
				res, err := tb.(catalog.Overwriter).Overwrite(ctx, r, catalog.LoadOptions{Label: "ow1"})
				r.Release()
				if err != nil || res.Rows != 4 {
					t.Fatalf("Overwrite = %+v, %v", res, err)
				}
				if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
					t.Fatalf("after overwrite rows = %q, want %q", got, want)
				}
				got := drain(t, before, func() [][]string {
					rec := before.RecordBatch()
					var out [][]string
					for i := 0; i < int(rec.NumRows()); i++ {
						var f []string
						for c := 0; c < int(rec.NumCols()); c++ {
							if rec.Column(c).IsNull(i) {
								f = append(f, "NULL")
							} else {
								f = append(f, rec.Column(c).ValueStr(i))
							}
						}
						out = append(out, f)
					}
					return out
				})
				before.Release()
				if !slices.Equal(got, old) {
					t.Fatalf("scan opened before the overwrite read %q, want the old rows %q", got, old)
				}
				// The label is taken: a replay changes nothing.
				r = rowsReader(t, mem, nil, []row{{"9", "z", "9", "z"}}, 1)
				_, err = tb.(catalog.Overwriter).Overwrite(ctx, r, catalog.LoadOptions{Label: "ow1"})
				r.Release()
				var le *catalog.LabelExistsError
				if !errors.As(err, &le) || le.Status != "FINISHED" {
					t.Fatalf("overwrite with a used label: %v", err)
				}
				if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
					t.Fatalf("after refused overwrite rows = %q, want %q", got, want)
				}
				c.Close()

				c2, d2 := openDB(t, dir, mem, Options{CompactAt: compactAt})
				tb2 := mustTable(t, d2, "t")
				if got := scanRows(t, tb2, mem); !slices.Equal(got, want) {
					t.Fatalf("after restart rows = %q, want %q", got, want)
				}
				// Later loads add to the new rows; an empty overwrite empties.
				if _, err := load(t, tb2, rowsReader(t, mem, nil, []row{{"2", "NULL", "22", "b"}}, 1), catalog.LoadOptions{}); err != nil {
					t.Fatal(err)
				}
				more := append([]string{"2|NULL|22|b"}, want...)
				sort.Strings(more)
				if got := scanRows(t, tb2, mem); !slices.Equal(got, more) {
					t.Fatalf("after a later load rows = %q", got)
				}
				r = rowsReader(t, mem, nil, nil, 1)
				if _, err := tb2.(catalog.Overwriter).Overwrite(ctx, r, catalog.LoadOptions{}); err != nil {
					t.Fatal(err)
				}
				r.Release()
				if got := scanRows(t, tb2, mem); len(got) != 0 {
					t.Fatalf("after empty overwrite rows = %q", got)
				}
				c2.Close()
				c3, d3 := openDB(t, dir, mem, Options{})
				if got := scanRows(t, mustTable(t, d3, "t"), mem); len(got) != 0 {
					t.Fatalf("after empty overwrite and restart rows = %q", got)
				}
				c3.Close()
				mem.AssertSize(t, 0)
			})
		}
	}
}
