package writer_test

// An independent reader cross-check: tables written by this package are
// read back by DuckDB (through npm @duckdb/node-api) straight from the
// Parquet data files lake/paimon lists, and compared value by value with
// what lake/paimon returns. DuckDB shares no code with arrow-go, so this
// catches Parquet encodings that only our own reader understands.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

type duckColumn struct{ name, typ, duck string }

// duckColumns are the table columns of both cross-checked tables, with the
// type DuckDB must report for them. Every Parquet-written atomic type is
// here; "part" is the partition column.
func duckColumns() []duckColumn {
	return []duckColumn{
		{"id", "INT NOT NULL", "INTEGER"},
		{"tiny", "TINYINT", "TINYINT"},
		{"small", "SMALLINT", "SMALLINT"},
		{"int_c", "INT", "INTEGER"},
		{"big", "BIGINT", "BIGINT"},
		{"f", "FLOAT", "FLOAT"},
		{"d", "DOUBLE", "DOUBLE"},
		{"dec9", "DECIMAL(9, 2)", "DECIMAL(9,2)"},
		{"dec18", "DECIMAL(18, 4)", "DECIMAL(18,4)"},
		{"dec20", "DECIMAL(20, 3)", "DECIMAL(20,3)"},
		{"dec38", "DECIMAL(38, 10)", "DECIMAL(38,10)"},
		{"s", "STRING", "VARCHAR"},
		{"bin", "BYTES", "BLOB"},
		{"bo", "BOOLEAN", "BOOLEAN"},
		{"dt", "DATE", "DATE"},
		{"tm", "TIME(3)", "TIME"},
		{"ts3", "TIMESTAMP(3)", "TIMESTAMP"},
		{"ts6", "TIMESTAMP(6)", "TIMESTAMP"},
		{"ltz3", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP WITH TIME ZONE"},
		{"ltz6", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP WITH TIME ZONE"},
		{"ts9", "TIMESTAMP(9)", "TIMESTAMP"},                       // INT96: DuckDB reads microseconds,
		{"ltz9", "TIMESTAMP(9) WITH LOCAL TIME ZONE", "TIMESTAMP"}, // INT96 carries no UTC flag,
		{"part", "STRING NOT NULL", "VARCHAR"},
	}
}

func duckSchema(t *testing.T, pk bool) *paimon.TableSchema {
	t.Helper()
	s := &paimon.TableSchema{PartitionKeys: []string{"part"},
		Options: map[string]string{"bucket": "-1", "file.format": "parquet", "partition.legacy-name": "false"}}
	if pk {
		s.PrimaryKeys = []string{"id", "part"}
		s.Options["bucket"] = "1"
	}
	for i, c := range duckColumns() {
		typ, err := paimon.ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		s.Fields = append(s.Fields, paimon.DataField{ID: i, Name: c.name, Type: typ})
	}
	return s
}

// duckValue is the value of column col in row id (version ver) as the Go
// value its Arrow builder takes; edge values come first, each nullable
// column is NULL on a different subset of rows.
func duckValue(col int, f paimon.DataField, id, ver int, part string) any {
	typ := f.Type
	switch f.Name {
	case "id":
		return id
	case "part":
		return part
	}
	if typ.Nullable && (id+col)%7 == 3 {
		return nil
	}
	n := id*31 + ver*1000 + col
	pick := func(edges []any, other any) any {
		if id < len(edges) {
			return edges[id]
		}
		return other
	}
	switch typ.Root {
	case paimon.TinyInt:
		return pick([]any{int8(math.MinInt8), int8(math.MaxInt8), int8(0)}, int8(n%250-125))
	case paimon.SmallInt:
		return pick([]any{int16(math.MinInt16), int16(math.MaxInt16), int16(-1)}, int16(n*7-20000))
	case paimon.Int:
		return pick([]any{int32(math.MinInt32), int32(math.MaxInt32), int32(0)}, int32(n*100003-50000000))
	case paimon.BigInt:
		return pick([]any{int64(math.MinInt64), int64(math.MaxInt64), int64(-1)}, int64(n)*1_000_000_007_001-int64(id)<<40)
	case paimon.Float:
		return pick([]any{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
			float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32), float32(0.1)}, float32(n)/3)
	case paimon.Double:
		return pick([]any{math.NaN(), math.Inf(-1), math.Copysign(0, -1), math.MaxFloat64, 5e-324, 0.1}, float64(n)/7-1e6)
	case paimon.Decimal:
		lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(typ.Precision)), nil)
		maxv := new(big.Int).Sub(lim, big.NewInt(1))
		v := new(big.Int).Mul(big.NewInt(int64(n)*982451653), big.NewInt(int64(n)*9973+1))
		v.Mod(v, lim)
		if n%2 == 1 {
			v.Neg(v)
		}
		return pick([]any{maxv, new(big.Int).Neg(maxv), big.NewInt(0), big.NewInt(-1), big.NewInt(1)}, v)
	case paimon.VarChar:
		return pick([]any{"", "héllo ✓ 漢字", "quote\" back\\slash\nnewline\ttab"}, fmt.Sprintf("s%d-%d", id, ver))
	case paimon.VarBinary:
		return pick([]any{[]byte{}, []byte{0, 0xff, 0x80, 0x7f}}, []byte(fmt.Sprintf("b%d\x00%d", id, ver)))
	case paimon.Boolean:
		return n%2 == 0
	case paimon.Date: // days since the epoch
		return pick([]any{int32(-719162), int32(2932896), int32(-1), int32(0)}, int32(20000+n))
	case paimon.Time: // ms of the day
		return pick([]any{int32(0), int32(86399999)}, int32(n*1000003%86400000))
	case paimon.Timestamp, paimon.TimestampLTZ: // in the column's unit
		perSec := int64(1000)
		if typ.Precision > 3 {
			perSec = 1_000_000
		}
		if typ.Precision > 6 {
			perSec = 1_000_000_000
			edges := []any{int64(-1), int64(math.MinInt64) + 1, int64(math.MaxInt64), int64(0)}
			if typ.Root == paimon.TimestampLTZ {
				// DuckDB cannot hold the extremes as TIMESTAMP WITH TIME ZONE (it
				// reads NULL).
				edges = []any{int64(-1), int64(-1501), int64(1501), int64(0)}
			}
			return pick(edges, 1767322245*perSec+int64(n)*(perSec+1)*997)
		}
		return pick([]any{int64(-1), -62135596800 * perSec, 253402300799*perSec + perSec - 1, int64(0)},
			1767322245*perSec+int64(n)*(perSec+1)*997)
	}
	panic(fmt.Sprintf("duckValue: no generator for %s", typ))
}

// duckBatch builds one batch of the table schema for the given ids.
func duckBatch(t *testing.T, mem memory.Allocator, s *paimon.TableSchema, ids []int, ver int, part string) arrow.RecordBatch {
	t.Helper()
	sc, err := paimon.ArrowSchema(s.Fields)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, id := range ids {
		for c, f := range s.Fields {
			v := duckValue(c, f, id, ver, part)
			fb := b.Field(c)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int8Builder:
				x.Append(v.(int8))
			case *array.Int16Builder:
				x.Append(v.(int16))
			case *array.Int32Builder:
				if i, ok := v.(int); ok {
					x.Append(int32(i))
				} else {
					x.Append(v.(int32))
				}
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float32Builder:
				x.Append(v.(float32))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.Decimal128Builder:
				x.Append(decimal128.FromBigInt(v.(*big.Int)))
			case *array.StringBuilder:
				x.Append(v.(string))
			case *array.BinaryBuilder:
				x.Append(v.([]byte))
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			case *array.Date32Builder:
				x.Append(arrow.Date32(v.(int32)))
			case *array.Time32Builder:
				x.Append(arrow.Time32(v.(int32)))
			case *array.TimestampBuilder:
				x.Append(arrow.Timestamp(v.(int64)))
			default:
				t.Fatalf("column %s: builder %T", f.Name, fb)
			}
		}
	}
	return b.NewRecordBatch()
}

// canonical renders arr[i] the way duckSelect makes DuckDB render it:
// integers and decimals in plain decimal, floats by shortest round trip,
// bytes as upper-case hex, DATE as days, TIME as ms, timestamps as epoch
// microseconds; nil is NULL.
func canonical(t *testing.T, arr arrow.Array, i int) *string {
	t.Helper()
	if arr.IsNull(i) {
		return nil
	}
	var s string
	switch a := arr.(type) {
	case *array.Int8:
		s = strconv.Itoa(int(a.Value(i)))
	case *array.Int16:
		s = strconv.Itoa(int(a.Value(i)))
	case *array.Int32:
		s = strconv.Itoa(int(a.Value(i)))
	case *array.Int64:
		s = strconv.FormatInt(a.Value(i), 10)
	case *array.Float32:
		s = strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		s = strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Decimal128:
		sc := a.DataType().(*arrow.Decimal128Type).Scale
		s = paimon.DecimalValue{Unscaled: a.Value(i).BigInt(), Scale: int(sc)}.String()
	case *array.String:
		s = a.Value(i)
	case *array.Binary:
		s = strings.ToUpper(hex.EncodeToString(a.Value(i)))
	case *array.Boolean:
		s = strconv.FormatBool(a.Value(i))
	case *array.Date32:
		s = strconv.Itoa(int(a.Value(i)))
	case *array.Time32:
		s = strconv.Itoa(int(a.Value(i)))
	case *array.Timestamp:
		v := int64(a.Value(i))
		switch u := a.DataType().(*arrow.TimestampType).Unit; u {
		case arrow.Millisecond:
			v *= 1000
		case arrow.Microsecond:
		case arrow.Nanosecond:
			// Precision 7-9 is INT96 in the file (as Java writes it), which
			// DuckDB reads as microseconds, truncated toward zero. The
			// nanosecond digits are checked by hand in int96_test.go.
			v /= 1000
		default:
			t.Fatalf("canonical: timestamp unit %s not cross-checked", u)
		}
		s = strconv.FormatInt(v, 10)
	default:
		t.Fatalf("canonical: Arrow type %s not cross-checked", arr.DataType())
	}
	return &s
}

// duckExpr is the SQL rendering DuckDB's side of canonical.
func duckExpr(name string, typ paimon.DataType) string {
	q := `"` + name + `"`
	switch typ.Root {
	case paimon.Date:
		return "CAST(" + q + " - DATE '1970-01-01' AS VARCHAR)"
	case paimon.Time:
		return "CAST(datediff('millisecond', TIME '00:00:00', " + q + ") AS VARCHAR)"
	case paimon.Timestamp, paimon.TimestampLTZ:
		return "CAST(epoch_us(" + q + ") AS VARCHAR)"
	case paimon.Binary, paimon.VarBinary:
		return "hex(" + q + ")"
	}
	return "CAST(" + q + " AS VARCHAR)"
}

// duckCanon normalizes a DuckDB float rendering ("1e+20", "-0.0", "nan")
// to Go's shortest form; other values are already canonical.
func duckCanon(typ paimon.DataType, s *string) (*string, error) {
	if s == nil || (typ.Root != paimon.Float && typ.Root != paimon.Double) {
		return s, nil
	}
	bits := 64
	if typ.Root == paimon.Float {
		bits = 32
	}
	f, err := strconv.ParseFloat(*s, bits)
	if err != nil {
		return nil, err
	}
	out := strconv.FormatFloat(f, 'g', -1, bits)
	return &out, nil
}

type duckResult struct {
	Columns []string    `json:"columns"`
	Types   []string    `json:"types"`
	Rows    [][]*string `json:"rows"`
}

// duckDB installs @duckdb/node-api (once per version, into the user cache
// directory) and returns a function running SQL statements through it.
// When INLET_SKIP_DUCKDB is set, node or npm is missing, or npm cannot reach
// its registry, it skips, or fails under CI=true (fixtures.Unavailable): CI
// installs node and npm, so there the cross-check always runs. Any other
// install failure fails.
func duckDB(t *testing.T) func(stmts ...string) []duckResult {
	t.Helper()
	if os.Getenv("INLET_SKIP_DUCKDB") != "" {
		fixtures.Unavailable(t, "INLET_SKIP_DUCKDB is set: DuckDB cross-check skipped")
	}
	node := fixtures.Tool(t, "node", "nodejs")
	npm := fixtures.Tool(t, "npm", "npm")
	src := filepath.Join("testdata", "duckdb")
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(src, "read.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(pkg, &pj); err != nil {
		t.Fatalf("%s/package.json: %v", src, err)
	}
	version := pj.Dependencies["@duckdb/node-api"]
	if version == "" {
		t.Fatalf("%s/package.json does not pin @duckdb/node-api", src)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "inlet-duckdb", version)
	marker := filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")
	if _, err := os.Stat(marker); err != nil {
		installDuckDB(t, npm, filepath.Dir(dir), dir, pkg)
	}
	// The script must sit beside node_modules for ESM resolution; rewrite it
	// through a rename so concurrent test processes never see half a file.
	tmp, err := os.CreateTemp(dir, "read-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmp.Write(script)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(dir, "read.mjs")
	if err := os.Rename(tmp.Name(), runner); err != nil {
		t.Fatal(err)
	}
	return func(stmts ...string) []duckResult {
		t.Helper()
		in, err := json.Marshal(stmts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, runner)
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("DuckDB %s: %v\n%s", version, err, stderr.String())
		}
		var out []duckResult
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 256<<20)
		for sc.Scan() {
			var r duckResult
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("DuckDB output line %d: %v", len(out)+1, err)
			}
			out = append(out, r)
		}
		if len(out) != len(stmts) {
			t.Fatalf("DuckDB answered %d of %d statements\n%s", len(out), len(stmts), stderr.String())
		}
		return out
	}
}

// installDuckDB runs npm install in a fresh directory under parent and
// renames it to dir, so a half-finished install is never used.
func installDuckDB(t *testing.T, npm, parent, dir string, pkg []byte) {
	t.Helper()
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "package.json"), pkg, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--no-package-lock",
		// Fail fast when the registry is unreachable (the defaults retry for minutes).
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000")
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := string(out)
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		for _, m := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "network"} {
			if strings.Contains(msg, m) {
				fixtures.Unavailable(t, "npm cannot reach its registry (%s): DuckDB cross-check skipped\n%s", m, msg)
			}
		}
		t.Fatalf("npm install of %s in %s: %v\n%s", filepath.Base(dir), work, err, msg)
	}
	// dir exists here only as a broken install (it is created by this
	// rename, with node_modules in it): replace it.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
		os.RemoveAll(dir)
	}
	if err := os.Rename(work, dir); err != nil {
		// Another test process finished first; use its install.
		if _, serr := os.Stat(filepath.Join(dir, "node_modules")); serr != nil {
			t.Fatalf("installing DuckDB into %s: %v", dir, err)
		}
	}
}

// ourRows reads the latest snapshot through lake/paimon: canonical rows
// keyed by id, and the live data files with their metadata.
func ourRows(t *testing.T, ctx context.Context, path string, mem memory.Allocator) (*paimon.Plan, map[string][]*string) {
	t.Helper()
	tbl, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tbl.Plan(ctx, paimon.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]*string{}
	for i := range p.Splits {
		s := &p.Splits[i]
		if !s.RawConvertible {
			t.Fatalf("split %s bucket %d is not raw-convertible: its files are not the final rows", s.PartitionPath, s.Bucket)
		}
		rr, err := p.Open(ctx, s, mem, paimon.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				row := make([]*string, rec.NumCols())
				for c := range row {
					row[c] = canonical(t, rec.Column(c), r)
				}
				key := *row[0] + "/" + *row[len(row)-1] // id/part
				if _, dup := rows[key]; dup {
					t.Fatalf("our reader returns id/part %s twice", key)
				}
				rows[key] = row
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
	}
	return p, rows
}

func show(s *string) string {
	if s == nil {
		return "NULL"
	}
	return strconv.Quote(*s)
}

// crossCheck compares DuckDB's reading of the plan's data files with our
// reader's rows, column by column, and DuckDB's column types with
// duckColumns. For primary-key files it also checks the system columns.
func crossCheck(t *testing.T, duck func(...string) []duckResult, p *paimon.Plan, ours map[string][]*string, pk bool) {
	t.Helper()
	var files []string
	meta := map[string]paimon.DataFileMeta{}
	for _, s := range p.Splits {
		for _, f := range s.Files {
			if f.DV != nil {
				t.Fatalf("file %s has a deletion vector; DuckDB would see deleted rows", f.Path)
			}
			files = append(files, f.Path)
			meta[f.Path] = f.Meta
		}
	}
	if len(files) == 0 {
		t.Fatal("no live data files")
	}
	var quoted []string
	for _, f := range files {
		quoted = append(quoted, "'"+strings.ReplaceAll(f, "'", "''")+"'")
	}
	// hive_partitioning=false: "part" must come from the file, not the path.
	from := "read_parquet([" + strings.Join(quoted, ", ") + "], hive_partitioning = false, filename = true)"
	var exprs []string
	for _, f := range p.Schema.Fields {
		exprs = append(exprs, duckExpr(f.Name, f.Type))
	}
	sys := 0
	if pk {
		exprs = append(exprs, `CAST("_KEY_id" AS VARCHAR)`, `CAST("_SEQUENCE_NUMBER" AS VARCHAR)`, `CAST("_VALUE_KIND" AS VARCHAR)`)
		sys = 3
	}
	exprs = append(exprs, "filename")
	res := duck(
		"DESCRIBE SELECT * EXCLUDE (filename) FROM "+from,
		"SELECT name, type, type_length, logical_type FROM parquet_schema("+quoted[0]+")",
		"SELECT "+strings.Join(exprs, ", ")+" FROM "+from)

	// Types as DuckDB sees them.
	want := map[string]string{}
	for _, c := range duckColumns() {
		want[c.name] = c.duck
	}
	if pk {
		want["_KEY_id"], want["_SEQUENCE_NUMBER"], want["_VALUE_KIND"] = "INTEGER", "BIGINT", "TINYINT"
	}
	var order []string
	for _, r := range res[0].Rows {
		name, typ := *r[0], *r[1]
		order = append(order, name)
		if want[name] != typ {
			t.Errorf("DuckDB types column %s as %s, want %s", name, typ, want[name])
		}
		delete(want, name)
	}
	if len(want) != 0 {
		t.Errorf("DuckDB does not see columns %v (sees %v)", want, order)
	}
	if pk && (len(order) < 3 || order[0] != "_KEY_id" || order[1] != "_SEQUENCE_NUMBER" || order[2] != "_VALUE_KIND") {
		t.Errorf("primary-key file columns %v: _KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND must come first", order)
	}

	// Physical layout of decimals and timestamps, as Java Paimon writes
	// decimals (INT32 / INT64 / minimal FIXED_LEN_BYTE_ARRAY) and with the
	// time unit the precision implies.
	phys := map[string][2]string{
		"dec9": {"INT32", ""}, "dec18": {"INT64", ""}, "dec20": {"FIXED_LEN_BYTE_ARRAY", "9"}, "dec38": {"FIXED_LEN_BYTE_ARRAY", "16"},
		"ts3": {"INT64", ""}, "ts6": {"INT64", ""}, "ltz3": {"INT64", ""}, "ltz6": {"INT64", ""},
		// Precision 7-9: INT96, as Java Paimon's ParquetSchemaConverter
		// writes it (no logical type).
		"ts9": {"INT96", ""}, "ltz9": {"INT96", ""},
	}
	// Unit, and isAdjustedToUTC only for WITH LOCAL TIME ZONE.
	unit := map[string]string{"ts3": "MILLIS", "ts6": "MICROS", "ltz3": "MILLIS", "ltz6": "MICROS"}
	for _, r := range res[1].Rows {
		name := *r[0]
		w, ok := phys[name]
		if !ok {
			continue
		}
		delete(phys, name)
		t.Logf("parquet_schema %s: %s length %s logical %s", name, show(r[1]), show(r[2]), show(r[3]))
		if show(r[1]) != strconv.Quote(w[0]) || (w[1] != "" && show(r[2]) != strconv.Quote(w[1])) {
			t.Errorf("parquet_schema %s: type %s length %s, want %s %s", name, show(r[1]), show(r[2]), w[0], w[1])
		}
		if u := unit[name]; u != "" {
			adj := "isAdjustedToUTC=" + map[bool]string{false: "0", true: "1"}[strings.HasPrefix(name, "ltz")]
			if r[3] == nil || !strings.Contains(strings.ToUpper(*r[3]), u) || !strings.Contains(*r[3], adj) {
				t.Errorf("parquet_schema %s: logical type %s, want unit %s and %s", name, show(r[3]), u, adj)
			}
		}
	}
	if len(phys) != 0 {
		t.Errorf("parquet_schema lacks %v", phys)
	}

	// Values.
	data := res[2]
	nt := len(p.Schema.Fields)
	seen := map[string]bool{}
	seqs := map[string]map[string]bool{}
	bad := 0
	report := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 25 {
			t.Errorf(format, args...)
		}
	}
	for _, r := range data.Rows {
		if len(r) != nt+sys+1 {
			t.Fatalf("DuckDB row has %d cells, want %d", len(r), nt+sys+1)
		}
		file := *r[len(r)-1]
		key := *r[0] + "/" + *r[nt-1]
		if seen[key] {
			report("DuckDB returns id/part %s twice", key)
			continue
		}
		seen[key] = true
		mine, ok := ours[key]
		if !ok {
			report("DuckDB returns a row id/part %s (file %s) that our reader does not", key, file)
			continue
		}
		for c, f := range p.Schema.Fields {
			got, err := duckCanon(f.Type, r[c])
			if err != nil {
				report("id/part %s column %s: DuckDB value %s: %v", key, f.Name, show(r[c]), err)
				continue
			}
			if show(got) != show(mine[c]) {
				report("id/part %s column %s (%s): DuckDB %s, ours %s (file %s)", key, f.Name, f.Type, show(r[c]), show(mine[c]), file)
			}
		}
		if pk {
			m := meta[file]
			k, seq, kind := r[nt], r[nt+1], r[nt+2]
			if show(k) != show(r[0]) {
				report("id/part %s: _KEY_id %s differs from id %s", key, show(k), show(r[0]))
			}
			if show(kind) != `"0"` {
				report("id/part %s: _VALUE_KIND %s in a compacted file, want 0 (+I)", key, show(kind))
			}
			n, err := strconv.ParseInt(*seq, 10, 64)
			if err != nil || n < m.MinSequenceNumber || n > m.MaxSequenceNumber {
				report("id/part %s: _SEQUENCE_NUMBER %s outside [%d, %d] of file %s", key, show(seq), m.MinSequenceNumber, m.MaxSequenceNumber, file)
			}
			if seqs[file] == nil {
				seqs[file] = map[string]bool{}
			}
			if seqs[file][*seq] {
				report("file %s: _SEQUENCE_NUMBER %s twice", file, *seq)
			}
			seqs[file][*seq] = true
		}
	}
	var missing []string
	for k := range ours {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		report("DuckDB lacks %d rows our reader returns, e.g. id/part %v", len(missing), missing[:min(len(missing), 10)])
	}
	if bad > 25 {
		t.Errorf("... %d mismatches in all", bad)
	}
	t.Logf("DuckDB read %d rows from %d files; %d columns compared", len(data.Rows), len(files), nt+sys)
}

// TestDuckDBReadsWrittenTables installs DuckDB once, then cross-checks an
// append table and a compacted primary-key table.
func TestDuckDBReadsWrittenTables(t *testing.T) {
	duck := duckDB(t)
	t.Run("append", func(t *testing.T) { duckAppendTable(t, duck) })
	t.Run("primary-key-compacted", func(t *testing.T) { duckPKTable(t, duck) })
}

func duckAppendTable(t *testing.T, duck func(...string) []duckResult) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := filepath.Join(t.TempDir(), "db.db", "append")
	s := duckSchema(t, false)
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), RowGroupRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	for round := 0; round < 2; round++ {
		c := w.NewCommit()
		for _, part := range []string{"p0", "p/1"} {
			fw, err := c.NewFile(ctx, []any{part}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3; b++ {
				var ids []int
				for i := 0; i < 15; i++ {
					ids = append(ids, id)
					id++
				}
				rec := duckBatch(t, mem, w.Schema(), ids, round, part)
				err := fw.Write(rec, nil)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := fw.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	p, ours := ourRows(t, ctx, path, mem)
	if len(ours) != id {
		t.Fatalf("our reader returns %d rows, %d written", len(ours), id)
	}
	crossCheck(t, duck, p, ours, false)
}

func duckPKTable(t *testing.T, duck func(...string) []duckResult) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := filepath.Join(t.TempDir(), "db.db", "pk")
	s := duckSchema(t, true)
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{Now: clock(), RowGroupRows: 16, CommitUser: "__fluss_lake_tiering"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	parts := []string{"p0", "p/1"}
	for ver := 0; ver < 2; ver++ {
		c := w.NewCommit()
		for _, part := range parts {
			var ids []int
			var kinds []int8
			for id := 0; id < n; id++ {
				switch {
				case ver == 0:
					ids, kinds = append(ids, id), append(kinds, paimon.KindInsert)
				case id%5 == 0:
					ids, kinds = append(ids, id), append(kinds, paimon.KindDelete)
				case id%3 == 0:
					ids, kinds = append(ids, id), append(kinds, paimon.KindUpdateAfter)
				}
			}
			fw, err := c.NewFile(ctx, []any{part}, 0)
			if err != nil {
				t.Fatal(err)
			}
			rec := duckBatch(t, mem, w.Schema(), ids, ver, part)
			err = fw.Write(rec, kinds)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Commit(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := w.NewCommit()
	if err := c.CompactAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Commit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	p, ours := ourRows(t, ctx, path, mem)
	if want := len(parts) * (n - n/5); len(ours) != want {
		t.Fatalf("our reader returns %d rows after merge, want %d", len(ours), want)
	}
	// The updated rows carry version 1 values: the merge, not just the
	// files, is what DuckDB is compared against.
	if got, want := ours["3/p0"][4], canonicalOf(t, mem, s, 3, 1, "p0", 4); show(got) != show(want) {
		t.Fatalf("id 3 column big: %s, want the updated %s", show(got), show(want))
	}
	crossCheck(t, duck, p, ours, true)
}

// canonicalOf is canonical of the generated value of (id, ver, part) in column col.
func canonicalOf(t *testing.T, mem memory.Allocator, s *paimon.TableSchema, id, ver int, part string, col int) *string {
	t.Helper()
	rec := duckBatch(t, mem, s, []int{id}, ver, part)
	defer rec.Release()
	return canonical(t, rec.Column(col), 0)
}
