package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/internal/tpch"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/lake/paimon/writer"
)

// The lake copy of the data: each table an append-only Paimon table
// (bucket -1, Parquet, the writer's ZSTD) in a filesystem warehouse
// <wh>/tpch.db/<table>, written by lake/paimon/writer from the same .tbl
// files the internal tables load, one commit per table.

const (
	lakeCatalog = "lake"
	lakeDB      = "tpch"
	// lakeFileRows caps one data file: SF 1's lineitem becomes 6 files, so
	// a scan has more than one split per core.
	lakeFileRows = 1 << 20
	lakeBatch    = 8192
)

// paimonType is a TPC-H column's Doris type in Paimon's spelling; every
// column is NOT NULL (clause 1.4.1).
func paimonType(doris string) (paimon.DataType, error) {
	return paimon.ParseType(doris + " NOT NULL")
}

// ensureWarehouse writes the warehouse at wh from the .tbl files in data
// unless a complete one is there (it is written beside and renamed, so a
// directory at wh is complete). It reports whether it wrote.
func ensureWarehouse(ctx context.Context, data, wh string, log io.Writer) (bool, error) {
	if _, err := os.Stat(wh); err == nil {
		return false, nil
	}
	fmt.Fprintf(log, "writing the Paimon warehouse %s\n", wh)
	tmp := wh + ".tmp"
	os.RemoveAll(tmp)
	for _, t := range tpch.Tables {
		if err := writeLakeTable(ctx, filepath.Join(data, t.Name+".tbl"), filepath.Join(tmp, lakeDB+".db", t.Name), t); err != nil {
			os.RemoveAll(tmp)
			return false, fmt.Errorf("paimon table %s: %w", t.Name, err)
		}
	}
	return true, os.Rename(tmp, wh)
}

func writeLakeTable(ctx context.Context, src, path string, t tpch.Table) error {
	fields := make([]paimon.DataField, len(t.Columns))
	for i, c := range t.Columns {
		dt, err := paimonType(c[1])
		if err != nil {
			return err
		}
		fields[i] = paimon.DataField{ID: i, Name: c[0], Type: dt}
	}
	s := &paimon.TableSchema{Fields: fields, Options: map[string]string{"bucket": "-1", "file.format": "parquet"}}
	if err := writer.CreateTable(ctx, fileio.Local{}, path, s, time.Now()); err != nil {
		return err
	}
	mem := memory.NewGoAllocator()
	tw, err := writer.Open(ctx, fileio.Local{}, path, mem, writer.Options{})
	if err != nil {
		return err
	}
	sch, err := paimon.ArrowSchema(tw.Schema().Fields)
	if err != nil {
		return err
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)

	c := tw.NewCommit()
	var fw *writer.FileWriter
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	flush := func() error {
		if b.Field(0).Len() == 0 {
			return nil
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		if fw == nil {
			w, err := c.NewFile(ctx, nil, 0)
			if err != nil {
				return err
			}
			fw = w
		}
		if err := fw.Write(rec, nil); err != nil {
			fw.Abort()
			return err
		}
		if fw.Rows() >= lakeFileRows {
			err := fw.Close(ctx)
			fw = nil
			return err
		}
		return nil
	}
	line := 0
	for sc.Scan() {
		line++
		if err := appendRow(b, sc.Bytes()); err != nil {
			return fmt.Errorf("%s line %d: %w", src, line, err)
		}
		if b.Field(0).Len() >= lakeBatch {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if fw != nil {
		if err := fw.Close(ctx); err != nil {
			return err
		}
	}
	_, err = c.Commit(ctx, nil)
	return err
}

// appendRow appends one '|'-separated line to b's columns.
func appendRow(b *array.RecordBuilder, line []byte) error {
	n := b.Schema().NumFields()
	for i := 0; i < n; i++ {
		field := line
		if j := bytes.IndexByte(line, '|'); j >= 0 {
			field, line = line[:j], line[j+1:]
		} else if i < n-1 {
			return fmt.Errorf("%d fields, want %d", i+1, n)
		} else {
			line = nil
		}
		if err := appendField(b.Field(i), field); err != nil {
			return fmt.Errorf("column %s: %w", b.Schema().Field(i).Name, err)
		}
	}
	return nil
}

func appendField(fb array.Builder, s []byte) error {
	switch fb := fb.(type) {
	case *array.Int32Builder:
		v, err := strconv.ParseInt(string(s), 10, 32)
		if err != nil {
			return err
		}
		fb.Append(int32(v))
	case *array.Int64Builder:
		v, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return err
		}
		fb.Append(v)
	case *array.StringBuilder:
		fb.BinaryBuilder.Append(s)
	case *array.Date32Builder:
		d, err := time.Parse(time.DateOnly, string(s))
		if err != nil {
			return err
		}
		fb.Append(arrow.Date32(d.Unix() / 86400))
	case *array.Decimal128Builder:
		v, err := parseDecimal(string(s), int(fb.Type().(*arrow.Decimal128Type).Scale))
		if err != nil {
			return err
		}
		fb.Append(decimal128.FromI64(v))
	default:
		return fmt.Errorf("no parser for %s", fb.Type())
	}
	return nil
}

// parseDecimal reads "-12.3" as an integer of scale digits after the
// point (-1230 at scale 2); more digits than scale is an error.
func parseDecimal(s string, scale int) (int64, error) {
	ip, fp, _ := strings.Cut(s, ".")
	if len(fp) > scale {
		return 0, fmt.Errorf("%q has more than %d decimals", s, scale)
	}
	v, err := strconv.ParseInt(ip+fp+strings.Repeat("0", scale-len(fp)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal", s)
	}
	return v, nil
}

// lakeFiles lists the data files of the latest snapshot of the table at
// path, for DuckDB's read_parquet.
func lakeFiles(ctx context.Context, path string) ([]string, error) {
	t, err := paimon.OpenTable(ctx, fileio.Local{}, path)
	if err != nil {
		return nil, err
	}
	id, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := t.Snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	schema, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	live, err := t.LiveFiles(ctx, snap)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(live))
	for i, e := range live {
		// The tables are not partitioned.
		dir, err := t.BucketDir(schema, nil, e.Bucket)
		if err != nil {
			return nil, err
		}
		out[i] = filepath.Join(dir, e.File.FileName)
	}
	return out, nil
}

// loadDuckLake makes every table a DuckDB view over read_parquet of the
// lake's data files: DuckDB reads the same Parquet files Inlet does, on
// every query.
func loadDuckLake(ctx context.Context, duck duckRunner, wh string) error {
	for _, t := range tpch.Tables {
		files, err := lakeFiles(ctx, filepath.Join(wh, lakeDB+".db", t.Name))
		if err != nil {
			return fmt.Errorf("paimon table %s: %w", t.Name, err)
		}
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
		}
		s := fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet([%s])", t.Name, strings.Join(quoted, ", "))
		if _, _, err := duck.Run(s); err != nil {
			return fmt.Errorf("DuckDB %s: %w", s, err)
		}
	}
	return nil
}

// duckRunner is what the loaders need of internal/duckrun.DB.
type duckRunner interface {
	Run(sql string) (time.Duration, [][]*string, error)
}
