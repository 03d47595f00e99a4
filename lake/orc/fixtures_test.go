package orc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/fixtures"
)

func fixtureFiles(t testing.TB, sub ...string) []string {
	t.Helper()
	dir := fixtures.Path(t, append([]string{"orc"}, sub...)...)
	m, err := filepath.Glob(filepath.Join(dir, "*.orc"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no ORC fixtures in %s: %v", dir, err)
	}
	return m
}

// readAll reads every row through the RecordReader, rendering each as a
// JSON-like value (map[string]any, []any, string, json.Number, nil).
func readAll(t testing.TB, f *File, opts ReadOptions, rowFn func(v any)) error {
	rr, err := f.NewRecordReader(context.Background(), opts)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if rowFn == nil {
			continue
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if f.rootIsStruct() {
				row := map[string]any{}
				for c, col := range rec.Columns() {
					row[rec.ColumnName(c)] = render(col, i)
				}
				rowFn(row)
			} else {
				rowFn(render(rec.Column(0), i))
			}
		}
	}
	return rr.Err()
}

// render turns one Arrow value into the form of the expected JSON files
// (written by the ORC Java tools in America/Los_Angeles).
func render(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return json.Number(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int16:
		return json.Number(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int32:
		return json.Number(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int64:
		return json.Number(strconv.FormatInt(a.Value(i), 10))
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		b := a.Value(i)
		out := make([]any, len(b))
		for j, x := range b {
			out[j] = json.Number(strconv.Itoa(int(x)))
		}
		return out
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Timestamp:
		ns := int64(a.Value(i))
		tm := time.Unix(0, ns).UTC()
		frac := strings.TrimRight(fmt.Sprintf("%09d", tm.Nanosecond()), "0")
		if frac == "" {
			frac = "0"
		}
		return tm.Format("2006-01-02 15:04:05") + "." + frac
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return json.Number(a.Value(i).ToString(dt.Scale))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		if len(st.Fields()) > 0 && st.Field(0).Name == "tag" && isUnionStruct(st) {
			tag := a.Field(0).(*array.Int8).Value(i)
			return map[string]any{"tag": json.Number(strconv.Itoa(int(tag))), "value": render(a.Field(int(tag)+1), i)}
		}
		m := map[string]any{}
		for j, fl := range st.Fields() {
			m[fl.Name] = render(a.Field(j), i)
		}
		return m
	case *array.Map:
		s, e := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		out := []any{}
		for j := s; j < e; j++ {
			out = append(out, map[string]any{"key": render(keys, int(j)), "value": render(items, int(j))})
		}
		return out
	case *array.List:
		s, e := a.ValueOffsets(i)
		out := []any{}
		for j := s; j < e; j++ {
			out = append(out, render(a.ListValues(), int(j)))
		}
		return out
	}
	return fmt.Sprintf("unhandled %T", a)
}

func isUnionStruct(st *arrow.StructType) bool {
	for j, fl := range st.Fields()[1:] {
		if fl.Name != strconv.Itoa(j) {
			return false
		}
	}
	return st.Field(0).Type.ID() == arrow.INT8
}

// floatEqual accepts g when it equals the expected number exactly or when
// rounded to the printing precision of the expected files (7 significant
// digits for float, 14 for double) it does.
func floatEqual(g float64, w json.Number, digits int) bool {
	f, err := strconv.ParseFloat(string(w), 64)
	if err != nil {
		return false
	}
	if f == g {
		return true
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(g, 'g', digits, 64), 64)
	return err == nil && r == f
}

// equalJSON compares a rendered value with a decoded expected value.
func equalJSON(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case string:
		g, ok := got.(string)
		return ok && g == w
	case json.Number:
		switch g := got.(type) {
		case json.Number:
			a, ok1 := new(big.Rat).SetString(string(g))
			b, ok2 := new(big.Rat).SetString(string(w))
			return ok1 && ok2 && a.Cmp(b) == 0
		case float32:
			f, err := strconv.ParseFloat(string(w), 64)
			return err == nil && float32(f) == g || floatEqual(float64(g), w, 7)
		case float64:
			return floatEqual(g, w, 14)
		}
		return false
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !equalJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !equalJSON(gv, wv) {
				return false
			}
		}
		return true
	}
	return false
}

func expectedPath(t testing.TB, orcPath string) string {
	name := strings.TrimSuffix(filepath.Base(orcPath), ".orc")
	return fixtures.Path(t, "orc", "expected", name+".jsn.gz")
}

func TestFixtures(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			if name == "version1999.orc" {
				mustRefuse(t, path)
				return
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			st, _ := fh.Stat()
			f, err := Open(fh, st.Size(), WithName(name))
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			exp := expectedPath(t, path)
			var dec *json.Decoder
			if _, err := os.Stat(exp); err == nil {
				gz, err := os.Open(exp)
				if err != nil {
					t.Fatal(err)
				}
				defer gz.Close()
				zr, err := gzip.NewReader(gz)
				if err != nil {
					t.Fatal(err)
				}
				dec = json.NewDecoder(bufio.NewReader(zr))
				dec.UseNumber()
			}
			rows, bad := 0, 0
			if dec == nil {
				// no expected rows: read everything, check the count
				n, err := countRows(f, ReadOptions{Mem: mem})
				if err != nil {
					t.Fatalf("read after %d rows: %v", n, err)
				}
				if n != f.NumRows() {
					t.Errorf("read %d rows, footer says %d", n, f.NumRows())
				}
				return
			}
			err = readAll(t, f, ReadOptions{Mem: mem, BatchSize: 1000}, func(got any) {
				rows++
				var want any
				if err := dec.Decode(&want); err != nil {
					if bad < 3 {
						t.Errorf("row %d: expected file ends or is bad: %v", rows-1, err)
					}
					bad++
					return
				}
				if !equalJSON(got, want) {
					if bad < 3 {
						gj, _ := json.Marshal(got)
						wj, _ := json.Marshal(want)
						t.Errorf("row %d:\n got %s\nwant %s", rows-1, gj, wj)
					}
					bad++
				}
			})
			if err != nil {
				t.Fatalf("read after %d rows: %v", rows, err)
			}
			if int64(rows) != f.NumRows() {
				t.Errorf("read %d rows, footer says %d", rows, f.NumRows())
			}
			if dec != nil {
				var extra any
				if err := dec.Decode(&extra); err != io.EOF {
					t.Errorf("expected output has more rows than the %d read (%v)", rows, err)
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d rows differ", bad, rows)
			}
		})
	}
}

func mustRefuse(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)), WithName(filepath.Base(path)))
	if err == nil {
		_, err = countRows(f, ReadOptions{})
	}
	if err == nil {
		t.Fatalf("%s: read without error, want refusal", path)
	}
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%s: error %v is not one of the package's kinds", path, err)
	}
	if !strings.Contains(err.Error(), filepath.Base(path)) {
		t.Errorf("error %q does not name the file", err)
	}
	t.Logf("refused: %v", err)
}

func TestCorruptFixtures(t *testing.T) {
	for _, path := range fixtureFiles(t, "corrupt") {
		t.Run(filepath.Base(path), func(t *testing.T) { mustRefuse(t, path) })
	}
}

func countRows(f *File, opts ReadOptions) (int64, error) {
	rr, err := f.NewRecordReader(context.Background(), opts)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}
