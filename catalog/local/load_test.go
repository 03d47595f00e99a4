package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// ukSchema: a UNIQUE KEY(k1, k2) table; k2 may be NULL (Doris allows NULL
// keys on UNIQUE tables; NULL equals NULL for the key).
func ukSchema() catalog.Schema {
	d := "7"
	return catalog.Schema{Columns: []catalog.Column{
		{Name: "k1", Type: arrow.PrimitiveTypes.Int32, Key: true},
		{Name: "k2", Type: arrow.BinaryTypes.String, Key: true, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Default: &d},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}}
}

// row is one row of ukSchema as text: "NULL" for NULL.
type row [4]string

func ukSpec(name string, buckets int) catalog.TableSpec {
	return catalog.TableSpec{Name: name, Schema: ukSchema(), KeysType: "UNIQUE", KeyColumns: []string{"k1", "k2"},
		Distribution: fmt.Sprintf("DISTRIBUTED BY HASH(`k1`) BUCKETS %d", buckets)}
}

// rowsReader builds a reader over rows for the named columns of ukSchema
// (all of them when cols is nil), one batch per chunk rows.
func rowsReader(t testing.TB, mem memory.Allocator, cols []string, rows []row, chunk int) array.RecordReader {
	t.Helper()
	full := ukSchema()
	if cols == nil {
		cols = []string{"k1", "k2", "v", "s"}
	}
	var fields []arrow.Field
	var idx []int
	for _, c := range cols {
		i := full.Index(c)
		idx = append(idx, i)
		fields = append(fields, arrow.Field{Name: c, Type: full.Columns[i].Type, Nullable: true})
	}
	s := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for start := 0; start < len(rows); start += chunk {
		b := array.NewRecordBuilder(mem, s)
		for _, r := range rows[start:min(start+chunk, len(rows))] {
			for j, i := range idx {
				v := r[i]
				if j < len(r) && len(cols) < 4 {
					v = r[j]
				}
				if v == "NULL" {
					b.Field(j).AppendNull()
					continue
				}
				if err := b.Field(j).AppendValueFromString(v); err != nil {
					t.Fatal(err)
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	rr, err := array.NewRecordReader(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// scanRows reads a table as sorted text rows.
func scanRows(t testing.TB, tb catalog.Table, mem memory.Allocator) []string {
	t.Helper()
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var f []string
			for c := 0; c < int(rec.NumCols()); c++ {
				if rec.Column(c).IsNull(i) {
					f = append(f, "NULL")
				} else {
					f = append(f, rec.Column(c).ValueStr(i))
				}
			}
			out = append(out, strings.Join(f, "|"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func openDB(t testing.TB, dir string, mem memory.Allocator, opts Options) (*Catalog, catalog.Database) {
	t.Helper()
	c, err := Open(dir, mem, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if dbs, _ := c.ListDatabases(ctx); len(dbs) == 0 {
		if err := c.CreateDatabase(ctx, "db", nil); err != nil {
			t.Fatal(err)
		}
	}
	d, err := c.Database(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	return c, d
}

func mustTable(t testing.TB, d catalog.Database, name string) catalog.Table {
	t.Helper()
	tb, err := d.Table(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func load(t testing.TB, tb catalog.Table, r array.RecordReader, opts catalog.LoadOptions) (catalog.LoadResult, error) {
	t.Helper()
	defer r.Release()
	return tb.(catalog.Loader).Load(context.Background(), r, opts)
}

// TestUniqueKeyLatestWins: several loads and INSERTs into a UNIQUE KEY
// table with a composite key, NULL keys and several buckets; reads give one
// row per key, the latest, before and after a restart and a compaction.
func TestUniqueKeyLatestWins(t *testing.T) {
	for _, buckets := range []int{1, 4} {
		for _, compactAt := range []int{-1, 2} {
			t.Run(fmt.Sprintf("buckets=%d/compactAt=%d", buckets, compactAt), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				dir := t.TempDir()
				opts := Options{CompactAt: compactAt}
				c, d := openDB(t, dir, mem, opts)
				ctx := context.Background()
				tb, err := d.(catalog.TableCreator).CreateTable(ctx, ukSpec("u", buckets))
				if err != nil {
					t.Fatal(err)
				}
				steps := [][]row{
					{{"1", "a", "10", "x"}, {"1", "b", "11", "y"}, {"2", "NULL", "12", "z"}, {"3", "a", "NULL", "NULL"}},
					// Same keys again: the later row wins, also within one load.
					{{"1", "a", "20", "x2"}, {"2", "NULL", "22", "NULL"}, {"2", "NULL", "23", "z3"}},
					{{"4", "", "40", ""}},
					{{"1", "a", "30", "x3"}},
				}
				for i, s := range steps {
					if i == 2 {
						// INSERT takes the same path (Append).
						r := rowsReader(t, mem, nil, s, 1)
						if _, err := tb.(catalog.Writable).Append(ctx, r); err != nil {
							t.Fatal(err)
						}
						r.Release()
						continue
					}
					if _, err := load(t, tb, rowsReader(t, mem, nil, s, 2), catalog.LoadOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				want := []string{"1|a|30|x3", "1|b|11|y", "2|NULL|23|z3", "3|a|NULL|NULL", "4||40|"}
				if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
					t.Fatalf("rows = %q, want %q", got, want)
				}
				waitCompaction(t, c, tb, compactAt)
				if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
					t.Fatalf("after compaction rows = %q, want %q", got, want)
				}
				c.Close()
				c2, d2 := openDB(t, dir, mem, opts)
				defer c2.Close()
				if got := scanRows(t, mustTable(t, d2, "u"), mem); !slices.Equal(got, want) {
					t.Fatalf("after reopen rows = %q, want %q", got, want)
				}
			})
		}
	}
}

// waitCompaction waits until the background compaction has brought every
// bucket of tb under the threshold (no-op when it is disabled).
func waitCompaction(t testing.TB, c *Catalog, tb catalog.Table, at int) {
	t.Helper()
	if at <= 0 {
		return
	}
	c.kickCompactor()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		m, _ := tb.(*Table).lookup()
		busy := false
		buckets := 1
		if k := tb.(*Table).keys; k != nil {
			buckets = k.buckets
		}
		for _, g := range bucketGroups(m.Files, buckets) {
			if c.compactRun(g, tb.(*Table).keys != nil) != nil {
				busy = true
			}
		}
		c.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("compaction did not finish")
}

// TestPartialColumns: a partial-column load updates only the named columns
// of existing keys; new keys get the default (v) or NULL (s).
func TestPartialColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, d := openDB(t, t.TempDir(), mem, Options{})
	defer c.Close()
	ctx := context.Background()
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, ukSpec("u", 3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"1", "a", "10", "x"}, {"2", "NULL", "20", "y"}}, 10), catalog.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	// Columns k1, k2, s only: v keeps its value; key 5 is new.
	if _, err := load(t, tb, rowsReader(t, mem, []string{"k2", "k1", "s"}, []row{{"a", "1", "x2"}, {"NULL", "2", "NULL"}, {"q", "5", "new"}}, 2),
		catalog.LoadOptions{PartialColumns: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"1|a|10|x2", "2|NULL|20|NULL", "5|q|7|new"}
	if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	// Doris refuses float keys.
	fs := ukSchema()
	fs.Columns[0].Type = arrow.PrimitiveTypes.Float64
	if _, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "f", Schema: fs, KeysType: "UNIQUE", KeyColumns: []string{"k1"}}); err == nil || !strings.Contains(err.Error(), "Float or double can not used as a key") {
		t.Fatalf("float key: %v", err)
	}
	// A partial load must carry every key column, and only works on UNIQUE tables.
	_, err = load(t, tb, rowsReader(t, mem, []string{"k1", "s"}, []row{{"1", "z"}}, 1), catalog.LoadOptions{PartialColumns: true})
	if err == nil || !strings.Contains(err.Error(), "k2") {
		t.Fatalf("partial load without k2: %v", err)
	}
	dup, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "d", Schema: ukSchema()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = load(t, dup, rowsReader(t, mem, []string{"k1", "k2", "s"}, []row{{"1", "a", "z"}}, 1), catalog.LoadOptions{PartialColumns: true})
	if err == nil || !strings.Contains(err.Error(), "UNIQUE KEY") {
		t.Fatalf("partial load into a DUPLICATE table: %v", err)
	}
}

// TestLoadLabels: a committed label answers FINISHED and adds nothing, after
// a restart too; a running one answers RUNNING; a failed load frees it.
func TestLoadLabels(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{})
	ctx := context.Background()
	tb, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: ukSchema()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := load(t, tb, rowsReader(t, mem, nil, []row{{"1", "a", "1", "x"}, {"2", "b", "2", "y"}}, 10), catalog.LoadOptions{Label: "l1"})
	if err != nil || res.Rows != 2 || res.TxnID <= 0 {
		t.Fatalf("load = %+v, %v", res, err)
	}
	checkExists := func(tb catalog.Table, label, status string, txn int64) {
		t.Helper()
		_, err := load(t, tb, rowsReader(t, mem, nil, []row{{"9", "z", "9", "z"}}, 10), catalog.LoadOptions{Label: label})
		var le *catalog.LabelExistsError
		if !errors.As(err, &le) || le.Status != status || (txn > 0 && le.TxnID != txn) {
			t.Fatalf("replay of %s: %v (%+v)", label, err, le)
		}
		want := fmt.Sprintf("Label [%s] has already been used, relate to txn [%d]", label, le.TxnID)
		if err.Error() != want {
			t.Fatalf("error text %q, want %q", err.Error(), want)
		}
	}
	checkExists(tb, "l1", "FINISHED", res.TxnID)
	// Labels are per database: the same label in another table of the
	// database is taken too.
	t2, err := d.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t2", Schema: ukSchema()})
	if err != nil {
		t.Fatal(err)
	}
	checkExists(t2, "l1", "FINISHED", res.TxnID)
	// ... and free in another database.
	if err := c.CreateDatabase(ctx, "other", nil); err != nil {
		t.Fatal(err)
	}
	od, _ := c.Database(ctx, "other")
	ot, _ := od.(catalog.TableCreator).CreateTable(ctx, catalog.TableSpec{Name: "t", Schema: ukSchema()})
	if _, err := load(t, ot, rowsReader(t, mem, nil, []row{{"1", "a", "1", "x"}}, 10), catalog.LoadOptions{Label: "l1"}); err != nil {
		t.Fatalf("same label in another database: %v", err)
	}

	// Doris's label rule.
	for _, bad := range []string{"a b", strings.Repeat("x", 129), "é"} {
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"9", "z", "9", "z"}}, 1), catalog.LoadOptions{Label: bad}); err == nil || !strings.Contains(err.Error(), "Label format error") {
			t.Fatalf("label %q: %v", bad, err)
		}
	}

	// A running load holds its label.
	gate := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var slowErr error
	go func() {
		defer wg.Done()
		r := &gatedReader{RecordReader: rowsReader(t, mem, nil, []row{{"3", "c", "3", "z"}}, 1), gate: gate, started: started}
		_, slowErr = load(t, tb, r, catalog.LoadOptions{Label: "l2"})
	}()
	<-started
	checkExists(tb, "l2", "RUNNING", 0)
	close(gate)
	wg.Wait()
	if slowErr != nil {
		t.Fatal(slowErr)
	}
	checkExists(tb, "l2", "FINISHED", 0)

	// A failed load frees its label and leaves no rows.
	bad := &failingReader{RecordReader: rowsReader(t, mem, nil, []row{{"4", "d", "4", "z"}, {"5", "e", "5", "z"}}, 1), after: 1}
	if _, err := load(t, tb, bad, catalog.LoadOptions{Label: "l3"}); err == nil {
		t.Fatal("a failing reader loaded")
	}
	if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"6", "f", "6", "z"}}, 1), catalog.LoadOptions{Label: "l3"}); err != nil {
		t.Fatalf("reuse of a failed label: %v", err)
	}
	want := []string{"1|a|1|x", "2|b|2|y", "3|c|3|z", "6|f|6|z"}
	if got := scanRows(t, tb, mem); !slices.Equal(got, want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	c.Close()

	c2, d2 := openDB(t, dir, mem, Options{})
	defer c2.Close()
	tb2 := mustTable(t, d2, "t")
	checkExists(tb2, "l1", "FINISHED", res.TxnID)
	checkExists(tb2, "l3", "FINISHED", 0)
	if got := scanRows(t, tb2, mem); !slices.Equal(got, want) {
		t.Fatalf("rows after reopen = %q, want %q", got, want)
	}
	// Transaction ids keep growing across restarts.
	r2, err := load(t, tb2, rowsReader(t, mem, nil, []row{{"7", "g", "7", "z"}}, 1), catalog.LoadOptions{Label: "l4"})
	if err != nil || r2.TxnID <= res.TxnID {
		t.Fatalf("txn after restart = %+v, %v (first was %d)", r2, err, res.TxnID)
	}
}

type gatedReader struct {
	array.RecordReader
	gate    chan struct{}
	started chan struct{}
	once    sync.Once
}

func (g *gatedReader) Next() bool {
	g.once.Do(func() {
		close(g.started)
		<-g.gate
	})
	return g.RecordReader.Next()
}

// failingReader fails after `after` batches.
type failingReader struct {
	array.RecordReader
	after int
	n     int
	err   error
}

func (f *failingReader) Next() bool {
	if f.n >= f.after {
		f.err = errors.New("client went away")
		return false
	}
	f.n++
	return f.RecordReader.Next()
}

func (f *failingReader) Err() error { return f.err }

// TestLabelHistoryBounded: labels are forgotten past MaxLabels and past
// LabelKeep, and the manifest does not keep them.
func TestLabelHistoryBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c, d := openDB(t, t.TempDir(), mem, Options{MaxLabels: 3, LabelKeep: time.Hour, Now: clock})
	defer c.Close()
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	for i := range 5 {
		if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{fmt.Sprint(i), "a", "1", "x"}}, 1), catalog.LoadOptions{Label: fmt.Sprint("l", i)}); err != nil {
			t.Fatal(err)
		}
	}
	// l0, l1 fell out of the count bound: reusable; l2..l4 are kept.
	if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"10", "a", "1", "x"}}, 1), catalog.LoadOptions{Label: "l0"}); err != nil {
		t.Fatalf("l0 past MaxLabels: %v", err)
	}
	var le *catalog.LabelExistsError
	if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"11", "a", "1", "x"}}, 1), catalog.LoadOptions{Label: "l4"}); !errors.As(err, &le) {
		t.Fatalf("l4 within bounds: %v", err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := load(t, tb, rowsReader(t, mem, nil, []row{{"12", "a", "1", "x"}}, 1), catalog.LoadOptions{Label: "l4"}); err != nil {
		t.Fatalf("l4 past LabelKeep: %v", err)
	}
	checkpointNow(t, c)
	b, _ := os.ReadFile(filepath.Join(c.dir, manifestName))
	if strings.Contains(string(b), `"l2"`) || !strings.Contains(string(b), `"l4"`) {
		t.Fatalf("manifest labels: %s", b)
	}
}

// TestLoadAtomicLarge: a load bigger than one segment spans several data
// files committed together; a load that fails halfway leaves no rows and
// no files.
func TestLoadAtomicLarge(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	opts := Options{InlineBytes: 1024, SegmentBytes: 8 << 10, CompactAt: -1}
	c, d := openDB(t, dir, mem, opts)
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	var rows []row
	for i := range 5000 {
		rows = append(rows, row{fmt.Sprint(i), "k", fmt.Sprint(i * 2), strings.Repeat("s", i%13)})
	}
	bad := &failingReader{RecordReader: rowsReader(t, mem, nil, rows, 100), after: 40}
	if _, err := load(t, tb, bad, catalog.LoadOptions{Label: "big"}); err == nil {
		t.Fatal("failing load succeeded")
	}
	if got := scanRows(t, tb, mem); len(got) != 0 {
		t.Fatalf("failed load left %d rows", len(got))
	}
	if fs, _ := filepath.Glob(filepath.Join(c.tableDir(tb.(*Table).id), "*")); len(fs) != 0 {
		t.Fatalf("failed load left files %v", fs)
	}
	res, err := load(t, tb, rowsReader(t, mem, nil, rows, 100), catalog.LoadOptions{Label: "big"})
	if err != nil || res.Rows != 5000 {
		t.Fatalf("load = %+v, %v", res, err)
	}
	fs, _ := filepath.Glob(filepath.Join(c.tableDir(tb.(*Table).id), "*.arrow"))
	if len(fs) < 3 {
		t.Fatalf("a 5000-row load with 8 KiB segments wrote %d files", len(fs))
	}
	c.Close()
	c2, d2 := openDB(t, dir, mem, opts)
	defer c2.Close()
	got := scanRows(t, mustTable(t, d2, "t"), mem)
	if len(got) != 5000 {
		t.Fatalf("rows after reopen = %d", len(got))
	}
}

// TestConcurrentLoadsLoseNothing: many loads at once, labelled and not,
// into one table; every row is there once, after a restart too.
func TestConcurrentLoadsLoseNothing(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, d := openDB(t, dir, mem, Options{CompactAt: 4})
	tb, _ := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: ukSchema()})
	u, _ := d.(catalog.TableCreator).CreateTable(context.Background(), ukSpec("u", 4))
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprint(w*1000 + i)
				label := ""
				if i%2 == 0 {
					label = "w" + id
				}
				r := rowsReader(t, mem, nil, []row{{id, "a", "1", "x"}, {id, "b", "2", "y"}}, 1)
				if _, err := tb.(catalog.Loader).Load(context.Background(), r, catalog.LoadOptions{Label: label}); err != nil {
					errs <- err
				}
				r.Release()
				// The UNIQUE table gets every key twice: still one row each.
				for v := range 2 {
					r := rowsReader(t, mem, nil, []row{{id, "a", fmt.Sprint(v), "x"}}, 1)
					if _, err := u.(catalog.Loader).Load(context.Background(), r, catalog.LoadOptions{}); err != nil {
						errs <- err
					}
					r.Release()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check := func(tb, u catalog.Table) {
		t.Helper()
		got := scanRows(t, tb, mem)
		if len(got) != workers*each*2 || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("%d rows (%d distinct), want %d", len(got), len(slices.Compact(slices.Clone(got))), workers*each*2)
		}
		gu := scanRows(t, u, mem)
		if len(gu) != workers*each {
			t.Fatalf("unique table: %d rows, want %d", len(gu), workers*each)
		}
		for _, r := range gu {
			if !strings.HasSuffix(r, "|a|1|x") {
				t.Fatalf("unique row %q: the second load of the key should win", r)
			}
		}
	}
	check(tb, u)
	waitCompaction(t, c, u, 4)
	check(tb, u)
	c.Close()
	c2, d2 := openDB(t, dir, mem, Options{})
	defer c2.Close()
	check(mustTable(t, d2, "t"), mustTable(t, d2, "u"))
}
