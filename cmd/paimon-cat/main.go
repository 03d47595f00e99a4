// Command paimon-cat prints the rows (or the split plan) of an Apache Paimon
// table read natively by lake/paimon: one JSON array per row, values in the
// fixture value encoding.
//
//	paimon-cat --warehouse DIR|s3://bucket/path --table db.table [--snapshot N]
//	           [--select a,b] [--where "f3 > 15"] [--partition k=v[,k2=v2]]...
//	           [--bucket N] [--splits]
//
// S3 settings come from --s3-endpoint, --s3-access-key, --s3-secret-key,
// --s3-region, --s3-path-style or the environment (AWS_ENDPOINT_URL,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// S3_PATH_STYLE).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "paimon-cat:", err)
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ";") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func run(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("paimon-cat", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse directory or s3://bucket/path")
	table := fs.String("table", "", "db.table")
	snapshot := fs.Int64("snapshot", 0, "snapshot id (0 = latest)")
	sel := fs.String("select", "", "comma-separated output columns (default all)")
	where := fs.String("where", "", "row filter, e.g. \"f3 > 15 AND f0 != 'x'\"")
	var parts multi
	fs.Var(&parts, "partition", "partition filter k=v[,k2=v2]; repeat for OR")
	bucket := fs.Int("bucket", -1, "only this bucket")
	splits := fs.Bool("splits", false, "print the split plan instead of rows")
	endpoint := fs.String("s3-endpoint", getenv("AWS_ENDPOINT_URL"), "S3 endpoint")
	access := fs.String("s3-access-key", getenv("AWS_ACCESS_KEY_ID"), "S3 access key")
	secret := fs.String("s3-secret-key", getenv("AWS_SECRET_ACCESS_KEY"), "S3 secret key")
	region := fs.String("s3-region", getenv("AWS_REGION"), "S3 region")
	pathStyle := fs.String("s3-path-style", getenv("S3_PATH_STYLE"), "S3 path-style access (true/false)")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, tbl, ok := strings.Cut(*table, ".")
	if *warehouse == "" || !ok || db == "" || tbl == "" {
		return errors.New("--warehouse and --table db.table are required")
	}
	props := map[string]string{"s3.endpoint": *endpoint, "s3.access-key": *access, "s3.secret-key": *secret,
		"s3.session-token": getenv("AWS_SESSION_TOKEN"), "s3.region": *region, "s3.path.style.access": *pathStyle}
	for k, v := range props {
		if v == "" {
			delete(props, k)
		}
	}
	fsys, err := fileio.New(props)
	if err != nil {
		return err
	}
	t, err := paimon.OpenTableInWarehouse(ctx, fsys, *warehouse, db, tbl)
	if err != nil {
		return err
	}
	o := paimon.ScanOptions{SnapshotID: *snapshot}
	if *where != "" {
		if o.Predicate, err = parseWhere(*where); err != nil {
			return err
		}
	}
	for _, p := range parts {
		m := map[string]string{}
		for _, kv := range strings.Split(p, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("--partition %q: want k=v", p)
			}
			m[k] = v
		}
		o.Partitions = append(o.Partitions, m)
	}
	if *bucket >= 0 {
		b := int32(*bucket)
		o.Bucket = &b
	}
	plan, err := t.Plan(ctx, o)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	if *splits {
		for i, s := range plan.Splits {
			files := make([]string, len(s.Files))
			for j, f := range s.Files {
				files[j] = f.Meta.FileName
			}
			if err := enc.Encode(map[string]any{"split": i, "partition": s.PartitionPath, "bucket": s.Bucket,
				"files": files, "rawConvertible": s.RawConvertible, "rows": s.RowCount}); err != nil {
				return err
			}
		}
		return nil
	}
	var cols []string
	if *sel != "" {
		for _, c := range strings.Split(*sel, ",") {
			cols = append(cols, strings.TrimSpace(c))
		}
	}
	mem := memory.DefaultAllocator
	for i := range plan.Splits {
		rr, err := plan.Open(ctx, &plan.Splits[i], mem, paimon.ReadOptions{Columns: cols})
		if err != nil {
			return err
		}
		for rr.Next() {
			rec := rr.RecordBatch()
			for j := 0; j < int(rec.NumRows()); j++ {
				if err := enc.Encode(paimon.JSONRow(rec, j)); err != nil {
					rr.Release()
					return err
				}
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
