package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/paimontest"
)

func whereString(p *paimon.Predicate) string {
	lit := func(v any) string {
		if s, ok := v.(string); ok {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return fmt.Sprint(v)
	}
	switch p.Op {
	case paimon.OpAnd, paimon.OpOr:
		parts := make([]string, len(p.Children))
		for i, c := range p.Children {
			parts[i] = "(" + whereString(c) + ")"
		}
		return strings.Join(parts, " "+strings.ToUpper(string(p.Op))+" ")
	case paimon.OpIsNull:
		return p.Field + " IS NULL"
	case paimon.OpIsNotNull:
		return p.Field + " IS NOT NULL"
	case paimon.OpIn:
		parts := make([]string, len(p.Values))
		for i, v := range p.Values {
			parts[i] = lit(v)
		}
		return p.Field + " IN (" + strings.Join(parts, ", ") + ")"
	}
	sym := map[paimon.Op]string{paimon.OpEq: "=", paimon.OpNe: "!=", paimon.OpLt: "<", paimon.OpLe: "<=", paimon.OpGt: ">", paimon.OpGe: ">="}
	return p.Field + " " + sym[p.Op] + " " + lit(p.Value)
}

// argsFor turns one EXPECTED.json read into paimon-cat flags.
func argsFor(e *paimontest.Expected, r *paimontest.Read, warehouse string) []string {
	dbDir := filepath.Base(filepath.Dir(e.TablePath()))
	table := strings.TrimSuffix(dbDir, ".db") + "." + filepath.Base(e.TablePath())
	args := []string{"--warehouse", warehouse, "--table", table, "--select", strings.Join(r.Columns, ",")}
	if !r.IsLatest {
		args = append(args, "--snapshot", fmt.Sprint(r.Snapshot))
	}
	for _, m := range r.PartitionFilter {
		var kv []string
		for k, v := range m {
			kv = append(kv, k+"="+v)
		}
		args = append(args, "--partition", strings.Join(kv, ","))
	}
	if r.BucketFilter != nil {
		args = append(args, "--bucket", fmt.Sprint(*r.BucketFilter))
	}
	if r.Predicate != nil {
		args = append(args, "--where", whereString(r.Predicate))
	}
	return args
}

func decodeRows(t *testing.T, out []byte) [][]any {
	var rows [][]any
	d := json.NewDecoder(bytes.NewReader(out))
	d.UseNumber()
	for d.More() {
		var row []any
		if err := d.Decode(&row); err != nil {
			t.Fatalf("output line: %v", err)
		}
		rows = append(rows, row)
	}
	return rows
}

func TestFixtureReadsCLI(t *testing.T) {
	all, err := paimontest.LoadAll(fixtures.Path(t, "paimon"))
	if err != nil {
		t.Fatal(err)
	}
	env := func(string) string { return "" }
	for _, e := range all {
		for i := range e.Reads {
			r := &e.Reads[i]
			t.Run(e.Fixture+"/"+r.Name, func(t *testing.T) {
				if len(r.ReadOptions) > 0 {
					// paimon-cat has no read-option flag; the table options
					// of this fixture equal the read options, checked here.
					tbl, err := paimon.OpenTable(context.Background(), fileio.Local{}, e.TablePath())
					if err != nil {
						t.Fatal(err)
					}
					s, err := tbl.LatestSchema(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					for k, v := range r.ReadOptions {
						if s.Options[k] != v {
							t.Fatalf("read option %s=%s differs from table option %q", k, v, s.Options[k])
						}
					}
				}
				var out bytes.Buffer
				warehouse := filepath.Dir(filepath.Dir(e.TablePath()))
				err := run(context.Background(), argsFor(e, r, warehouse), &out, env)
				if err != nil {
					t.Fatal(err)
				}
				if err := paimontest.Check(e, r, decodeRows(t, out.Bytes())); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestS3Warehouse uploads a fixture table into an in-process S3 server and
// reads it through paimon-cat with s3:// and credentials from flags.
func TestS3Warehouse(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	root := fixtures.Path(t, "paimon", "parquet")
	s3fs := fileio.NewS3(fileio.S3Config{Endpoint: srv.URL, AccessKey: "ak", SecretKey: "sk", PathStyle: true})
	ctx := context.Background()
	dbDir := filepath.Join(root, "pk_table_scan_and_read_dv.db")
	err := filepath.WalkDir(dbDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fileio.WriteFile(ctx, s3fs, "s3://lake/wh/"+filepath.ToSlash(rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := []string{"--warehouse", "s3://lake/wh", "--table", "pk_table_scan_and_read_dv.pk_table_scan_and_read_dv",
		"--s3-endpoint", srv.URL, "--s3-access-key", "ak", "--s3-secret-key", "sk", "--s3-path-style", "true"}
	if err := run(ctx, args, &out, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	// The same through the environment instead of flags.
	env := map[string]string{"AWS_ENDPOINT_URL": srv.URL, "AWS_ACCESS_KEY_ID": "ak", "AWS_SECRET_ACCESS_KEY": "sk", "S3_PATH_STYLE": "true"}
	var out2 bytes.Buffer
	if err := run(ctx, args[:4], &out2, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if out2.String() != out.String() {
		t.Fatalf("env configuration read differently:\n%s\nvs\n%s", out2.String(), out.String())
	}
	all, err := paimontest.LoadAll(fixtures.Path(t, "paimon"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if e.Fixture == "parquet/pk_table_scan_and_read_dv" {
			if err := paimontest.Check(e, &e.Reads[0], decodeRows(t, out.Bytes())); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("fixture parquet/pk_table_scan_and_read_dv not found")
}

func TestWhereParser(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"f3 > 15", "f3 > 15"},
		{"f0 != 'Alice' and f3 <= 30.5", "(f0 != Alice AND f3 <= 30.5)"},
		{"a = 1 or b is null or c is not null", "(a = 1 OR b IS NULL OR c IS NOT NULL)"},
		{"(a < 1 or a > 5) and s in ('x', 'y''z')", "((a < 1 OR a > 5) AND s IN [x y'z])"},
	} {
		p, err := parseWhere(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if p.String() != tc.want {
			t.Fatalf("%s: got %s want %s", tc.in, p, tc.want)
		}
	}
	for _, bad := range []string{"", "f3 >", "f3 15", "(a = 1", "a = 'x", "a in (1"} {
		if _, err := parseWhere(bad); err == nil {
			t.Fatalf("%q: accepted", bad)
		}
	}
}

func TestSplitsOutput(t *testing.T) {
	var out bytes.Buffer
	args := []string{"--warehouse", fixtures.Path(t, "paimon", "orc"), "--table", "append_09.append_09", "--snapshot", "1", "--splits"}
	if err := run(context.Background(), args, &out, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	// The plan asserted by paimon-cpp's ScanInteTest.TestScanAppendWithSnapshot1.
	want := []string{
		`{"bucket":0,"files":["data-d41fd7d1-b3e4-4905-aad9-b20a780e90a2-0.orc"],"partition":"f1=10/","rawConvertible":true,"rows":1,"split":0}`,
		`{"bucket":1,"files":["data-4e30d6c0-f109-4300-a010-4ba03047dd9d-0.orc"],"partition":"f1=10/","rawConvertible":true,"rows":3,"split":1}`,
		`{"bucket":0,"files":["data-db2b44c0-0d73-449d-82a0-4075bd2cb6e3-0.orc"],"partition":"f1=20/","rawConvertible":true,"rows":1,"split":2}`,
	}
	if got := strings.TrimSpace(out.String()); got != strings.Join(want, "\n") {
		t.Fatalf("got\n%s", got)
	}
}

func TestErrors(t *testing.T) {
	env := func(string) string { return "" }
	wh := fixtures.Path(t, "paimon", "parquet")
	for _, args := range [][]string{
		{},
		{"--warehouse", wh, "--table", "nodb"},
		{"--warehouse", wh, "--table", "pk_09.missing"},
		{"--warehouse", wh, "--table", "pk_09.pk_09", "--select", "nope"},
		{"--warehouse", wh, "--table", "pk_09.pk_09", "--where", "f3 >"},
		{"--warehouse", wh, "--table", "pk_09.pk_09", "--where", "nope = 1"},
		{"--warehouse", wh, "--table", "pk_09.pk_09", "--snapshot", "99"},
		{"--warehouse", "s3://bucket/wh", "--table", "a.b", "--s3-endpoint", "http://127.0.0.1:1", "--s3-secret-key", "topsecret", "--s3-access-key", "ak"},
	} {
		err := run(context.Background(), args, io.Discard, env)
		if err == nil {
			t.Fatalf("%v: no error", args)
		}
		if strings.Contains(err.Error(), "topsecret") {
			t.Fatalf("secret in error: %v", err)
		}
	}
}
