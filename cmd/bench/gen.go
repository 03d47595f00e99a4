package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/typemap"
)

// The dataset lives in database benchDB of the emulator: logTable (append
// only) and pkTable (primary key id). Both get the same rows 0..rows-1
// before tiering, so their lake halves are alike and their tails differ.
const (
	benchDB  = "bench"
	logTable = "log_events"
	pkTable  = "pk_accounts"
	// batchRows bounds what generation holds at once.
	batchRows = 10_000
)

// tsBase is the ts of row 0; row i is i seconds later.
var tsBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func columns() []typemap.Column {
	return []typemap.Column{
		{Name: "id", Type: typemap.BigInt().NotNull()},
		{Name: "k", Type: typemap.Int()},
		{Name: "v", Type: typemap.Double()},
		{Name: "s", Type: typemap.String()},
		{Name: "ts", Type: typemap.Timestamp(3)},
	}
}

// The generator's definition of row i (and of its tail update). v is a
// multiple of 1/4 below 250, so sums of v are exact in a double whatever
// the order of addition: the modes can be compared for equality.
func rowK(i int64) int32 { return int32(i % 1000) }

// rowVq is v in quarters.
func rowVq(i int64) int64  { return i % 1000 }
func rowV(i int64) float64 { return float64(rowVq(i)) / 4 }

func rowS(buf []byte, i int64, updated bool) []byte {
	buf = buf[:0]
	if updated {
		buf = append(buf, "upd-"...)
	} else {
		buf = append(buf, "row-"...)
	}
	return strconv.AppendInt(buf, i, 10)
}

func rowTS(i int64) time.Time { return tsBase.Add(time.Duration(i) * time.Second) }

// agg is what `SELECT count(*), sum(id), sum(v)` answers.
type agg struct {
	Count, SumID int64
	SumVq        int64 // sum(v) in quarters
}

func (a agg) String() string {
	return fmt.Sprintf("count=%d sum(id)=%d sum(v)=%s", a.Count, a.SumID, strconv.FormatFloat(float64(a.SumVq)/4, 'f', -1, 64))
}

// plan is the dataset a run generates, with the answers its definition
// implies, derived in closed form (never from the written data).
type plan struct {
	rows    int64
	buckets int
	// step spaces the updated keys: keys j*step for j < updates; deleted
	// keys sit halfway between two updated ones.
	updates, deletes, step int64
	logTail                int64

	logLake, logAll, pkLake, pkAll agg
}

// sumIDs is 0+1+…+(n-1); sumVqs the quarters of v over the same ids.
func sumIDs(n int64) int64 { return n * (n - 1) / 2 }
func sumVqs(n int64) int64 {
	full, rest := n/1000, n%1000
	return full*(999*1000/2) + rest*(rest-1)/2
}

func newPlan(rows int64, tailPct float64, buckets int) plan {
	p := plan{rows: rows, buckets: buckets}
	p.updates = int64(float64(rows)*tailPct/100 + 0.5)
	if p.updates > rows {
		p.updates = rows
	}
	p.logTail = p.updates
	if p.updates > 0 {
		p.step = rows / p.updates
		// A few deletes (1 per 100 updates, at least one), only where
		// they cannot hit an updated key.
		if p.step >= 2 {
			p.deletes = max(1, p.updates/100)
		}
	}
	base := agg{Count: rows, SumID: sumIDs(rows), SumVq: sumVqs(rows)}
	p.logLake, p.pkLake = base, base
	n := rows + p.logTail
	p.logAll = agg{Count: n, SumID: sumIDs(n), SumVq: sumVqs(n)}
	p.pkAll = base
	p.pkAll.SumVq += 4 * p.updates // each update adds 1.0 to v
	for j := int64(0); j < p.deletes; j++ {
		id := p.deletedKey(j)
		p.pkAll.Count--
		p.pkAll.SumID -= id
		p.pkAll.SumVq -= rowVq(id)
	}
	return p
}

func (p plan) updatedKey(j int64) int64 { return j * p.step }
func (p plan) deletedKey(j int64) int64 { return j*p.step + p.step/2 }

// generate creates the two tables, writes rows 0..rows-1 into both, tiers
// them into the lake, freezes tiering and writes the tails. Progress goes to
// progressOut.
func generate(ctx context.Context, c *minifluss.Cluster, p plan, progressOut io.Writer) error {
	if err := c.CreateDatabase(ctx, benchDB); err != nil {
		return fmt.Errorf("create database %s: %w", benchDB, err)
	}
	props := map[string]string{"table.datalake.enabled": "true", "table.datalake.freshness": "30s"}
	var cols []minifluss.Column
	for _, col := range columns() {
		cols = append(cols, minifluss.Column{Name: col.Name, Type: col.Type})
	}
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: benchDB, Name: logTable, Columns: cols,
		Buckets: p.buckets, Properties: props, Comment: "cmd/bench log table"}); err != nil {
		return fmt.Errorf("create table %s.%s: %w", benchDB, logTable, err)
	}
	if _, err := c.CreateTable(ctx, minifluss.TableSpec{Database: benchDB, Name: pkTable, Columns: cols,
		PrimaryKey: []string{"id"}, Buckets: p.buckets, Properties: props, Comment: "cmd/bench primary-key table"}); err != nil {
		return fmt.Errorf("create table %s.%s: %w", benchDB, pkTable, err)
	}

	total := 2*p.rows + p.updates + p.deletes + p.logTail
	bar := newProgress(progressOut, "generate", total)
	lw, err := newLogWriter(c, p.buckets)
	if err != nil {
		return err
	}
	defer lw.release()
	if err := lw.write(ctx, 0, p.rows, bar); err != nil {
		return err
	}
	if err := upsertRange(ctx, c, 0, p.rows, bar); err != nil {
		return err
	}
	bar.pause()

	for _, tbl := range []string{logTable, pkTable} {
		start := time.Now()
		res, err := c.TierLake(ctx, benchDB, tbl)
		if err != nil {
			return fmt.Errorf("tier %s.%s: %w", benchDB, tbl, err)
		}
		if res.Rows != p.rows {
			return fmt.Errorf("tier %s.%s: %d rows tiered, want %d", benchDB, tbl, res.Rows, p.rows)
		}
		fmt.Fprintf(progressOut, "tiered %s.%s: %d rows in %s\n", benchDB, tbl, res.Rows, time.Since(start).Round(time.Millisecond))
	}
	// What the Doris environment does before writing tails: the lake stays
	// where it is, so the tail below is read from Fluss.
	c.FreezeTiering(true)

	if err := writeTail(ctx, c, p, lw, bar); err != nil {
		return err
	}
	bar.finish()
	return nil
}

// logWriter appends Arrow batches to the log table, round-robin over the
// buckets, as a Fluss writer without a bucket key does.
type logWriter struct {
	c       *minifluss.Cluster
	buckets int
	next    int
	b       *array.RecordBuilder
	id      *array.Int64Builder
	k       *array.Int32Builder
	v       *array.Float64Builder
	s       *array.StringBuilder
	ts      *array.TimestampBuilder
}

func newLogWriter(c *minifluss.Cluster, buckets int) (*logWriter, error) {
	schema, err := typemap.ArrowSchema(columns())
	if err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	w := &logWriter{c: c, buckets: buckets, b: b}
	var ok [5]bool
	w.id, ok[0] = b.Field(0).(*array.Int64Builder)
	w.k, ok[1] = b.Field(1).(*array.Int32Builder)
	w.v, ok[2] = b.Field(2).(*array.Float64Builder)
	w.s, ok[3] = b.Field(3).(*array.StringBuilder)
	w.ts, ok[4] = b.Field(4).(*array.TimestampBuilder)
	for i, o := range ok {
		if !o {
			b.Release()
			return nil, fmt.Errorf("table %s.%s: column %s maps to Arrow %s, not what the generator builds", benchDB, logTable, schema.Field(i).Name, schema.Field(i).Type)
		}
	}
	unit := schema.Field(4).Type.(*arrow.TimestampType).Unit
	if unit != arrow.Millisecond {
		b.Release()
		return nil, fmt.Errorf("table %s.%s: column ts maps to Arrow unit %s, the generator writes milliseconds", benchDB, logTable, unit)
	}
	return w, nil
}

func (w *logWriter) release() { w.b.Release() }

// write appends rows [from, to) in batches of batchRows.
func (w *logWriter) write(ctx context.Context, from, to int64, bar *progress) error {
	var buf []byte
	for lo := from; lo < to; lo += batchRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+batchRows, to)
		for i := lo; i < hi; i++ {
			w.id.Append(i)
			w.k.Append(rowK(i))
			w.v.Append(rowV(i))
			buf = rowS(buf, i, false)
			w.s.BinaryBuilder.Append(buf)
			w.ts.Append(arrow.Timestamp(rowTS(i).UnixMilli()))
		}
		rec := w.b.NewRecordBatch()
		bucket := int32(w.next % w.buckets)
		w.next++
		_, err := w.c.AppendRecord(ctx, benchDB, logTable, "", bucket, rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("append rows %d..%d to %s.%s bucket %d: %w", lo, hi-1, benchDB, logTable, bucket, err)
		}
		bar.add(hi - lo)
	}
	return nil
}

func pkRow(i int64, updated bool) []any {
	v := rowV(i)
	ts := rowTS(i)
	if updated {
		v++
		ts = ts.Add(time.Millisecond)
	}
	return []any{i, rowK(i), v, string(rowS(nil, i, updated)), ts}
}

// upsertRange writes rows [from, to) into the PK table. Upsert takes Go
// values directly; UpsertRecord would convert an Arrow batch into the same
// values first, so this is the faster of the two.
func upsertRange(ctx context.Context, c *minifluss.Cluster, from, to int64, bar *progress) error {
	rows := make([][]any, 0, batchRows)
	for lo := from; lo < to; lo += batchRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+batchRows, to)
		rows = rows[:0]
		for i := lo; i < hi; i++ {
			rows = append(rows, pkRow(i, false))
		}
		if err := c.Upsert(ctx, benchDB, pkTable, rows); err != nil {
			return fmt.Errorf("upsert rows %d..%d into %s.%s: %w", lo, hi-1, benchDB, pkTable, err)
		}
		bar.add(hi - lo)
	}
	return nil
}

// writeTail updates and deletes PK keys and appends new log rows, after
// tiering: this is what union reads merge with the lake.
func writeTail(ctx context.Context, c *minifluss.Cluster, p plan, lw *logWriter, bar *progress) error {
	rows := make([][]any, 0, batchRows)
	flush := func(what string) error {
		if len(rows) == 0 {
			return nil
		}
		var err error
		if what == "delete" {
			err = c.Delete(ctx, benchDB, pkTable, rows)
		} else {
			err = c.Upsert(ctx, benchDB, pkTable, rows)
		}
		if err != nil {
			return fmt.Errorf("tail %s of %d keys in %s.%s: %w", what, len(rows), benchDB, pkTable, err)
		}
		bar.add(int64(len(rows)))
		rows = rows[:0]
		return ctx.Err()
	}
	for j := int64(0); j < p.updates; j++ {
		rows = append(rows, pkRow(p.updatedKey(j), true))
		if len(rows) == batchRows {
			if err := flush("update"); err != nil {
				return err
			}
		}
	}
	if err := flush("update"); err != nil {
		return err
	}
	for j := int64(0); j < p.deletes; j++ {
		rows = append(rows, []any{p.deletedKey(j)})
		if len(rows) == batchRows {
			if err := flush("delete"); err != nil {
				return err
			}
		}
	}
	if err := flush("delete"); err != nil {
		return err
	}
	return lw.write(ctx, p.rows, p.rows+p.logTail, bar)
}
