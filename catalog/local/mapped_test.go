package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
)

// idName is the name the tests below store with an id: NULL for every
// seventh, so validity bitmaps come from the mapping too.
func idName(id int64) string {
	if id%7 == 3 {
		return ""
	}
	return "n" + strconv.FormatInt(id, 10)
}

// idRows yields ids [from, from+n) with their names, chunk rows a batch.
func idRows(mem memory.Allocator, from, n int64, chunk int) array.RecordReader {
	s := testSchema().Arrow()
	var recs []arrow.RecordBatch
	for lo := from; lo < from+n; lo += int64(chunk) {
		b := array.NewRecordBuilder(mem, s)
		for id := lo; id < min(lo+int64(chunk), from+n); id++ {
			b.Field(0).(*array.Int64Builder).Append(id)
			if nm := idName(id); nm == "" {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(nm)
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	r, _ := array.NewRecordReader(s, recs)
	for _, x := range recs {
		x.Release()
	}
	return r
}

// mappedDB opens a catalog whose loads all go to data files (no inline
// segments), small ones so that one load makes several.
func mappedDB(t testing.TB, dir string, mem memory.Allocator, compactAt int) (*Catalog, catalog.Table) {
	t.Helper()
	c, d := openDB(t, dir, mem, Options{InlineBytes: -1, SegmentBytes: 8 << 10, CompactAt: compactAt})
	tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), catalog.TableSpec{Name: "t", Schema: testSchema(), KeysType: "DUPLICATE"})
	if err != nil {
		t.Fatal(err)
	}
	return c, tb
}

func appendIDs(t testing.TB, tb catalog.Table, mem memory.Allocator, from, n int64) {
	t.Helper()
	r := idRows(mem, from, n, 500)
	defer r.Release()
	if _, err := tb.(catalog.Writable).Append(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// checkRows reports the first row of rec whose name is not idName(id).
func checkRows(rec arrow.RecordBatch) error {
	ids := rec.Column(0).(*array.Int64)
	names := rec.Column(1).(*array.String)
	for i := 0; i < int(rec.NumRows()); i++ {
		want := idName(ids.Value(i))
		got := ""
		if names.IsValid(i) {
			got = names.Value(i)
		}
		if got != want {
			return fmt.Errorf("row %d: id %d has name %q, want %q", i, ids.Value(i), got, want)
		}
	}
	return nil
}

func dataFiles(t testing.TB, dir string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(dir, "data", "*", "*.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// Batches and the strings taken from them stay right after the scan is
// released and after the files they were read from are replaced and
// deleted; the mappings go when the last batch does.
func TestMappedBatchesOutliveScanAndFiles(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	base := liveMappings.Load()
	dir := t.TempDir()
	c, tb := mappedDB(t, dir, mem, -1)
	defer c.Close()
	const n = 6000
	for k := int64(0); k < 3; k++ {
		appendIDs(t, tb, mem, k*n, n)
	}
	old := dataFiles(t, dir)
	if len(old) < 6 {
		t.Fatalf("want several data files, got %d", len(old))
	}
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	var kept []arrow.RecordBatch
	var names []string
	var ids []int64
	mapped := false
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		kept = append(kept, rec)
		mapped = mapped || liveMappings.Load() > base
		a, s := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := 0; i < a.Len(); i++ {
			ids = append(ids, a.Value(i))
			names = append(names, s.Value(i)) // "" for NULL
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if !mapped {
		t.Fatal("the scan mapped no segment")
	}

	// Replace every row; the old files go once no scan reads them.
	ow := idRows(mem, 1_000_000, 10, 10)
	if _, err := tb.(catalog.Overwriter).Overwrite(context.Background(), ow, catalog.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	ow.Release()
	// The next scan's release sweeps the replaced files.
	if ids, _ := collect(t, tb, nil, mem); len(ids) != 10 {
		t.Fatalf("after the overwrite: %d rows, want 10", len(ids))
	}
	for _, p := range old {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("replaced file %s still there (%v)", p, err)
		}
	}
	// Churn the heap so that freed memory would be reused.
	junk := make([][]byte, 0, 1000)
	for i := range 1000 {
		junk = append(junk, []byte(strings.Repeat("x", 100+i)))
	}
	_ = junk

	total := 0
	for _, rec := range kept {
		if err := checkRows(rec); err != nil {
			t.Fatal(err)
		}
		total += int(rec.NumRows())
	}
	if total != 3*n || len(ids) != 3*n {
		t.Fatalf("kept %d rows, want %d", total, 3*n)
	}
	for _, rec := range kept {
		rec.Release()
	}
	for i, id := range ids {
		if names[i] != idName(id) {
			t.Fatalf("string of id %d read %q after its batch was released, want %q", id, names[i], idName(id))
		}
	}
	if got := liveMappings.Load(); got != base {
		t.Fatalf("%d mappings left after every batch was released", got-base)
	}
}

// Scans running while loads, compaction and overwrites replace the files
// under them each read one consistent snapshot: whole loads, every id
// once, the right name for each.
func TestScanDuringCompactionAndOverwrite(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	base := liveMappings.Load()
	dir := t.TempDir()
	c, tb := mappedDB(t, dir, mem, 2)
	const block = 1000
	var next atomic.Int64
	appendIDs(t, tb, mem, 0, block)
	next.Store(1)

	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	wg.Add(1)
	go func() { // writer: loads of whole blocks, now and then an overwrite
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			k := next.Add(1) - 1
			r := idRows(mem, k*block, block, 300)
			var err error
			if i%5 == 4 {
				_, err = tb.(catalog.Overwriter).Overwrite(context.Background(), r, catalog.LoadOptions{})
			} else {
				_, err = tb.(catalog.Writable).Append(context.Background(), r)
			}
			r.Release()
			if err != nil {
				errs <- err
				return
			}
			c.kickCompactor()
		}
	}()
	var scans atomic.Int64
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := scanConsistent(tb, mem, block); err != nil {
					errs <- err
					return
				}
				scans.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if scans.Load() == 0 {
		t.Fatal("no scan finished")
	}
	if err := scanConsistent(tb, mem, block); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got := liveMappings.Load(); got != base {
		t.Fatalf("%d mappings left", got-base)
	}
}

func scanConsistent(tb catalog.Table, mem memory.Allocator, block int64) error {
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Vars: map[string]string{"parallel_pipeline_task_num": "3"}})
	if err != nil {
		return err
	}
	defer r.Release()
	seen := map[int64]bool{}
	perBlock := map[int64]int64{}
	for r.Next() {
		rec := r.RecordBatch()
		if err := checkRows(rec); err != nil {
			return err
		}
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			id := ids.Value(i)
			if seen[id] {
				return fmt.Errorf("id %d read twice in one scan", id)
			}
			seen[id] = true
			perBlock[id/block]++
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	for b, n := range perBlock {
		if n != block {
			return fmt.Errorf("block %d: %d of its %d rows read", b, n, block)
		}
	}
	return nil
}

// Segments opened ahead in parallel come out in commit order, whatever the
// parallelism; a cancelled scan stops with the context's error and leaves
// nothing mapped.
func TestPrefetchKeepsOrderAndStops(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	base := liveMappings.Load()
	dir := t.TempDir()
	c, tb := mappedDB(t, dir, mem, -1)
	defer c.Close()
	const n = 3000
	for k := int64(0); k < 8; k++ {
		appendIDs(t, tb, mem, k*n, n)
	}
	if f := len(dataFiles(t, dir)); f < 16 {
		t.Fatalf("want many data files, got %d", f)
	}
	for _, par := range []string{"1", "2", "7", "64"} {
		t.Run("parallel="+par, func(t *testing.T) {
			r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Columns: []int{0}, Vars: map[string]string{"parallel_pipeline_task_num": par}})
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0)
			for r.Next() {
				ids := r.RecordBatch().Column(0).(*array.Int64)
				for i := 0; i < ids.Len(); i++ {
					if ids.Value(i) != want {
						t.Fatalf("row %d has id %d: out of commit order", want, ids.Value(i))
					}
					want++
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			r.Release()
			if want != 8*n {
				t.Fatalf("%d rows, want %d", want, 8*n)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r, err := tb.Scan(ctx, catalog.ScanRequest{Mem: mem, Vars: map[string]string{"parallel_pipeline_task_num": "4"}})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		cancel()
		for r.Next() {
		}
		if err := r.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled scan: err = %v", err)
		}
		r.Release()
		if got := liveMappings.Load(); got != base {
			t.Fatalf("%d mappings left after a cancelled scan", got-base)
		}
	})
}

// A file checked once is not checked again while unchanged, but damage
// written into it afterwards (same size) fails the next scan of the same
// catalog.
func TestDamageAfterVerifiedScan(t *testing.T) {
	defer func(w time.Duration) { verifyRacyWindow = w }(verifyRacyWindow)
	verifyRacyWindow = 0
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	c, tb := mappedDB(t, dir, mem, -1)
	defer c.Close()
	appendIDs(t, tb, mem, 0, 100)
	files := dataFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("data files = %v", files)
	}
	time.Sleep(30 * time.Millisecond) // past the file system's time stamp granularity
	for range 2 {
		if ids, _ := collect(t, tb, nil, mem); len(ids) != 100 {
			t.Fatalf("%d rows", len(ids))
		}
	}
	f, err := os.OpenFile(files[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "n42")
	if i < 0 {
		t.Fatal("value n42 not in the file")
	}
	if _, err := f.WriteAt([]byte("N"), int64(i)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
		t.Errorf("damaged file yielded %d rows", r.RecordBatch().NumRows())
	}
	if err := r.Err(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("scan of a file damaged after it was checked: %v", err)
	}
}

// chargingAlloc is a statement account as exec/memlimit's: it counts the
// mapped bytes charged to it.
type chargingAlloc struct {
	memory.Allocator
	charged atomic.Int64
}

func (c *chargingAlloc) ChargeExternal(n int64) { c.charged.Add(n) }
func (c *chargingAlloc) RefundExternal(n int64) { c.charged.Add(-n) }

// Mapped batches a query holds are charged to its account until the last
// of their arrays is released.
func TestMappedBytesCharged(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer checked.AssertSize(t, 0)
	dir := t.TempDir()
	c, tb := mappedDB(t, dir, checked, -1)
	defer c.Close()
	appendIDs(t, tb, checked, 0, 5000)
	mem := &chargingAlloc{Allocator: checked}
	r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Columns: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	var kept []arrow.Array
	rows := 0
	for r.Next() {
		col := r.RecordBatch().Column(0)
		col.Retain()
		kept = append(kept, col)
		rows += col.Len()
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if got := mem.charged.Load(); got < int64(rows)*8 {
		t.Fatalf("%d bytes charged while %d int64 values are held", got, rows)
	}
	for _, k := range kept {
		k.Release()
	}
	if got := mem.charged.Load(); got != 0 {
		t.Fatalf("%d bytes still charged after every array was released", got)
	}
}

// FuzzMappedSegment feeds arbitrary bytes, seeded with a real segment, to
// the zero-copy segment reader (whole batches and single columns): batches or an error, never a panic or a
// read outside the bytes, and no reference left behind.
func FuzzMappedSegment(f *testing.F) {
	mem := memory.NewGoAllocator()
	dir := f.TempDir()
	c, tb := mappedDB(f, dir, mem, -1)
	appendIDs(f, tb, mem, 0, 300)
	c.Close()
	for _, p := range dataFiles(f, dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("ARROW1\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00\x04\x00\x00\x00ARROW1"))
	full := testSchema().Arrow()
	f.Fuzz(func(t *testing.T, b []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		m := newMapping(b, nil)
		base := m.refs.Load()
		// Whole batches, then each column alone (decoded column-wise).
		var err error
		for _, pick := range []*colPick{nil, pickOf(full, []int{0}), pickOf(full, []int{1})} {
			var s *mappedSegment
			if s, err = openMapped(m, mem, full); err != nil {
				break
			}
			for range 1000 {
				var rec arrow.RecordBatch
				if pick == nil {
					rec, _, err = s.next()
				} else {
					rec, _, err = s.nextPicked(pick)
				}
				if err != nil || rec == nil {
					break
				}
				rec.Release()
			}
			s.close()
			if err != nil {
				break
			}
		}
		// A batch whose decoding failed half way leaves the buffers arrow
		// had already sliced unreleased (arrow recovers the panic and drops
		// them): the mapping then stays until exit. Only a CRC-valid
		// damaged file gets there; every clean read must give all back.
		if got := m.refs.Load(); got != base && err == nil {
			t.Fatalf("%d references left after a clean read", got-base)
		}
		if m.refs.Load() == base {
			m.release()
		}
		if err == nil {
			mem.AssertSize(t, 0)
		}
	})
}

// A UNIQUE KEY merge scan that merges buckets ahead yields the same rows
// in the same order at every parallelism, each key once with its latest
// value.
func TestUniqueMergeAheadSameOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	base := liveMappings.Load()
	c, d := openDB(t, t.TempDir(), mem, Options{InlineBytes: -1, SegmentBytes: 8 << 10, CompactAt: -1})
	defer c.Close()
	tb, err := d.(catalog.TableCreator).CreateTable(context.Background(), ukSpec("u", 4))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	var first, second []row
	for i := range n {
		k2 := "a" + strconv.Itoa(i%3)
		if i%11 == 5 {
			k2 = "NULL"
		}
		first = append(first, row{strconv.Itoa(i), k2, strconv.Itoa(i), "s" + strconv.Itoa(i)})
		if i%2 == 0 {
			second = append(second, row{strconv.Itoa(i), k2, strconv.Itoa(i + 1_000_000), "t"})
		}
	}
	for _, rows := range [][]row{first, second} {
		if _, err := load(t, tb, rowsReader(t, mem, nil, rows, 400), catalog.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var ref []string
	for _, par := range []string{"1", "2", "4", "16"} {
		r, err := tb.Scan(context.Background(), catalog.ScanRequest{Mem: mem, Vars: map[string]string{"parallel_pipeline_task_num": par}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for r.Next() {
			rec := r.RecordBatch()
			k2, sv := rec.Column(1).(*array.String), rec.Column(3).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				// Value, not ValueStr: the strings kept must outlive the
				// batch (checked after the scan is released).
				g := []string{rec.Column(0).ValueStr(i), "NULL", rec.Column(2).ValueStr(i), "NULL"}
				if k2.IsValid(i) {
					g[1] = k2.Value(i)
				}
				if sv.IsValid(i) {
					g[3] = sv.Value(i)
				}
				got = append(got, g...)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Release()
		if len(got) != 4*n {
			t.Fatalf("parallel %s: %d rows, want %d", par, len(got)/4, n)
		}
		seen := map[string]bool{}
		for r := 0; r < len(got); r += 4 {
			f := got[r : r+4]
			g := strings.Join(f, "|")
			i, _ := strconv.Atoi(f[0])
			wantK2 := "a" + strconv.Itoa(i%3)
			if i%11 == 5 {
				wantK2 = "NULL"
			}
			if f[1] != wantK2 {
				t.Fatalf("parallel %s: row %q, want k2 %s", par, g, wantK2)
			}
			wantV, wantS := strconv.Itoa(i), "s"+strconv.Itoa(i)
			if i%2 == 0 {
				wantV, wantS = strconv.Itoa(i+1_000_000), "t"
			}
			if seen[f[0]] || f[2] != wantV || f[3] != wantS {
				t.Fatalf("parallel %s: row %q (seen before: %v), want v=%s s=%s", par, g, seen[f[0]], wantV, wantS)
			}
			seen[f[0]] = true
		}
		if ref == nil {
			ref = got
		} else if !slices.Equal(ref, got) {
			t.Fatalf("parallel %s: order differs from parallel 1", par)
		}
	}
	if got := liveMappings.Load(); got != base {
		t.Fatalf("%d mappings left", got-base)
	}
}
