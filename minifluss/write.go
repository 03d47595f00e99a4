package minifluss

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// The write path: Go rows → canonical values → real-format batches, made by
// catalog/fluss/record's encoders. Log tables get append-only batches in
// table.log.format; PK tables get KV values in table.kv.format and a
// changelog batch per write with +I/-U/+U/-D change types.

func (t *table) arrowCompression() (record.ArrowCompression, int, error) {
	comp, err := record.ParseArrowCompression(t.Desc.Properties["table.log.arrow.compression.type"])
	if err != nil {
		return 0, 0, err
	}
	lvl := 0
	if s := t.Desc.Properties["table.log.arrow.compression.zstd.level"]; s != "" {
		if lvl, err = strconv.Atoi(s); err != nil {
			return 0, 0, fmt.Errorf("table.log.arrow.compression.zstd.level %q: %v", s, err)
		}
	}
	return comp, lvl, nil
}

// batchParams picks the header a Fluss 1.0 writer would: V0, or V1 when the
// table sets table.statistics.columns (spec §3.2; Fluss accepts the option
// on log tables only). The statistics block itself is filled in by
// withStatistics, from the rows of the batch.
func (t *table) batchParams() record.BatchParams {
	p := record.BatchParams{Magic: record.MagicV0, SchemaID: int16(t.SchemaID), WriterID: -1, BatchSequence: -1}
	if t.Desc.Properties["table.statistics.columns"] != "" && t.logFormat() == "ARROW" && !t.isPK() {
		p.Magic = record.MagicV1
	}
	return p
}

// withStatistics sets the statistics block of a V1 batch of rows as the
// 1.0 producer's LogRecordBatchStatisticsCollector does: null counts, min and
// max per statistics column. Empty batches keep an empty block.
func (t *table) withStatistics(p record.BatchParams, rows [][]any) (record.BatchParams, error) {
	if p.Magic != record.MagicV1 || len(rows) == 0 {
		return p, nil
	}
	cols, err := record.StatisticsColumns(t.columns(), t.Desc.Properties["table.statistics.columns"])
	if err != nil || len(cols) == 0 {
		return p, err
	}
	p.Statistics, err = record.AppendStatistics(nil, t.types, record.CollectStatistics(t.types, cols, rows))
	return p, err
}

// encodeRows builds one log batch of canonical rows with per-row change types
// (nil = append-only) in the table's log format.
func (t *table) encodeRows(mem memory.Allocator, rows [][]any, cts []record.ChangeType) ([]byte, error) {
	switch t.logFormat() {
	case "ARROW":
		rec, err := t.buildRecord(mem, rows)
		if err != nil {
			return nil, err
		}
		defer rec.Release()
		return t.encodeArrow(rec, rows, cts)
	case "COMPACTED", "INDEXED":
		var recs []byte
		for i, row := range rows {
			var rb []byte
			var err error
			if t.logFormat() == "COMPACTED" {
				rb, err = record.EncodeCompactedRow(nil, t.types, row)
			} else {
				rb, err = record.EncodeIndexedRow(nil, t.types, row)
			}
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i, err)
			}
			ct := record.AppendOnly
			if cts != nil {
				ct = cts[i]
			}
			recs = binary.LittleEndian.AppendUint32(recs, uint32(1+len(rb)))
			recs = append(recs, byte(ct))
			recs = append(recs, rb...)
		}
		p := t.batchParams()
		p.AppendOnly = cts == nil
		p.RecordCount = int32(len(rows))
		return record.AppendLogBatch(nil, p, recs)
	}
	return nil, fmt.Errorf("table %s: log format %q", t.path(), t.logFormat())
}

// encodeArrow encodes rec; rows are its canonical values (nil: read them
// from rec when the batch needs statistics).
func (t *table) encodeArrow(rec arrow.RecordBatch, rows [][]any, cts []record.ChangeType) ([]byte, error) {
	comp, lvl, err := t.arrowCompression()
	if err != nil {
		return nil, err
	}
	p := t.batchParams()
	if p.Magic == record.MagicV1 && rows == nil && rec.NumRows() > 0 {
		if rows, err = rowsFromRecord(rec, t.types); err != nil {
			return nil, err
		}
	}
	if p, err = t.withStatistics(p, rows); err != nil {
		return nil, err
	}
	enc, err := record.NewArrowEncoder(comp, lvl)
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.AppendBatch(nil, p, rec, cts)
}

// encodeChangelog turns KV change rows (rows in table.kv.format) into one
// changelog batch; no rows gives a header-only batch that still takes an offset.
func (c *Cluster) encodeChangelog(t *table, changes []changeRow) ([]byte, error) {
	if len(changes) == 0 {
		p := t.batchParams()
		if t.logFormat() == "ARROW" {
			return record.AppendLogBatch(nil, p, nil)
		}
		return record.AppendLogBatch(nil, p, nil)
	}
	rows := make([][]any, len(changes))
	cts := make([]record.ChangeType, len(changes))
	for i, ch := range changes {
		vals, err := t.decodeKvRow(ch.row)
		if err != nil {
			return nil, fmt.Errorf("changelog row %d: %w", i, err)
		}
		rows[i], cts[i] = vals, record.ChangeType(ch.ct)
	}
	return t.encodeRows(memory.NewGoAllocator(), rows, cts)
}

func (t *table) kvIndexed() bool { return upper(t.Desc.Properties["table.kv.format"]) == "INDEXED" }

func (t *table) decodeKvRow(row []byte) ([]any, error) {
	if t.kvIndexed() {
		return record.DecodeIndexedRow(row, t.types)
	}
	return record.DecodeCompactedRow(row, t.types)
}

func (t *table) encodeKvRow(row []any) ([]byte, error) {
	if t.kvIndexed() {
		return record.EncodeIndexedRow(nil, t.types, row)
	}
	return record.EncodeCompactedRow(nil, t.types, row)
}

// ---- key encoding, bucketing, partitions ----

func (t *table) colIndexes(names []string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = t.Desc.columnIndex(n)
	}
	return out
}

// tableKeys returns the §4.6 key rules of the table (record.TableKeys),
// built from the table JSON the coordinator serves.
func (t *table) tableKeys() (*record.TableKeys, error) {
	if t.keyRules != nil {
		return t.keyRules, nil
	}
	d, err := record.ParseTableDescriptor(t.Desc.marshal())
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path(), err)
	}
	k, err := record.NewTableKeys(d)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.path(), err)
	}
	t.keyRules = k
	return k, nil
}

// keys returns the primary-key bytes (KV key, PK tables only) and the bucket
// of a canonical row. Tables without a bucket key get buckets round-robin,
// the writer's choice in Fluss.
func (t *table) keys(row []any, rr *int) (pk []byte, bucket int32, err error) {
	k, err := t.tableKeys()
	if err != nil {
		return nil, 0, err
	}
	if t.isPK() {
		if pk, err = k.PrimaryKey(nil, row); err != nil {
			return nil, 0, err
		}
	}
	if len(k.BucketKeyColumns()) == 0 {
		b := int32(*rr % int(t.buckets()))
		*rr++
		return pk, b, nil
	}
	b, err := k.Bucket(row)
	return pk, b, err
}

func (c *Cluster) partitionForRowLocked(t *table, row []any) (*partition, error) {
	kv := map[string]string{}
	for _, k := range t.Desc.PartitionKey {
		i := t.Desc.columnIndex(k)
		if row[i] == nil {
			return nil, fmt.Errorf("partition column %s is NULL", k)
		}
		s, err := record.PartitionValueString(t.types[i], row[i])
		if err != nil {
			return nil, fmt.Errorf("partition column %s: %w", k, err)
		}
		kv[k] = s
	}
	// Writes through the Go API create missing partitions, like a table with
	// auto-partitioning would have pre-created them.
	return c.createPartitionLocked(t, kv, true)
}

type routed struct {
	part   *partition
	bucket int32
	rows   [][]any
	keys   [][]byte
}

// routeLocked coerces rows and groups them by (partition, bucket) in first-seen order.
func (c *Cluster) routeLocked(t *table, rows [][]any, fixedBucket int32) ([]*routed, error) {
	var out []*routed
	idx := map[[2]int64]*routed{}
	rr := 0
	for i, r := range rows {
		row, err := t.coerceRow(r, fmt.Sprintf("row %d", i))
		if err != nil {
			return nil, err
		}
		pk, b, err := t.keys(row, &rr)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		if fixedBucket >= 0 {
			if fixedBucket >= t.buckets() {
				return nil, ferr(codeUnknownTableOrBucket, "table %s has no bucket %d", t.path(), fixedBucket)
			}
			b = fixedBucket
		}
		var p *partition
		pid := int64(-1)
		if t.partitioned() {
			if p, err = c.partitionForRowLocked(t, row); err != nil {
				return nil, fmt.Errorf("row %d: %w", i, err)
			}
			pid = p.ID
		}
		g := idx[[2]int64{pid, int64(b)}]
		if g == nil {
			g = &routed{part: p, bucket: b}
			idx[[2]int64{pid, int64(b)}] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, row)
		g.keys = append(g.keys, pk)
	}
	return out, nil
}

func pid(p *partition) *int64 {
	if p == nil {
		return nil
	}
	id := p.ID
	return &id
}

// Append writes rows (one value per column, see values.go for accepted Go
// types) to a log table: routed by bucket-key hash, or round-robin when the
// table has no bucket key; partitions are taken from the rows and created
// when missing. One batch is written per (partition, bucket).
func (c *Cluster) Append(ctx context.Context, db, tbl string, rows [][]any) error {
	return c.appendRows(db, tbl, rows, -1)
}

// AppendToBucket is Append with every row sent to one bucket.
func (c *Cluster) AppendToBucket(ctx context.Context, db, tbl string, bucket int32, rows [][]any) error {
	return c.appendRows(db, tbl, rows, bucket)
}

func (c *Cluster) appendRows(db, tbl string, rows [][]any, bucket int32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return err
	}
	if t.isPK() {
		return ferr(codeInvalidTable, "table %s has a primary key: use Upsert/Delete", t.path())
	}
	groups, err := c.routeLocked(t, rows, bucket)
	if err != nil {
		return err
	}
	mem := memory.NewGoAllocator()
	for _, g := range groups {
		batch, err := t.encodeRows(mem, g.rows, nil)
		if err != nil {
			return fmt.Errorf("table %s: %w", t.path(), err)
		}
		bd, err := c.bucketLocked(t, pid(g.part), g.bucket)
		if err != nil {
			return err
		}
		if _, err := bd.log.append(batch, c.now()); err != nil {
			return err
		}
	}
	c.notifyLocked()
	return nil
}

// AppendRecord writes an Arrow record batch (schema = the table's Arrow
// schema) as one append-only batch to one bucket and returns its base offset.
func (c *Cluster) AppendRecord(ctx context.Context, db, tbl, partitionName string, bucket int32, rec arrow.RecordBatch) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, bd, err := c.logBucketLocked(db, tbl, partitionName, bucket)
	if err != nil {
		return 0, err
	}
	if t.logFormat() != "ARROW" {
		return 0, fmt.Errorf("table %s: AppendRecord needs table.log.format ARROW, not %s", t.path(), t.logFormat())
	}
	if int(rec.NumCols()) != len(t.types) {
		return 0, fmt.Errorf("table %s: record has %d columns, table has %d", t.path(), rec.NumCols(), len(t.types))
	}
	batch, err := t.encodeArrow(rec, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("table %s: %w", t.path(), err)
	}
	base, err := bd.log.append(batch, c.now())
	if err != nil {
		return 0, err
	}
	c.notifyLocked()
	return base, nil
}

// Upsert writes rows to a primary-key table: the KV state is updated and the
// changelog gets +I (new key) or -U/+U (existing key) records.
func (c *Cluster) Upsert(ctx context.Context, db, tbl string, rows [][]any) error {
	return c.writeKv(db, tbl, rows, false)
}

// Delete removes keys (values in primary-key column order, partition
// columns included) from a primary-key table; the changelog gets -D records
// (or an empty batch when no key existed).
func (c *Cluster) Delete(ctx context.Context, db, tbl string, keys [][]any) error {
	return c.writeKv(db, tbl, keys, true)
}

func (c *Cluster) writeKv(db, tbl string, rows [][]any, del bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := onlyPKTable(c.cat.lookup(db, tbl))
	if err != nil {
		return err
	}
	if del {
		// widen key tuples to full rows with NULLs elsewhere
		pkIdx := t.colIndexes(t.Desc.Schema.PrimaryKey)
		full := make([][]any, len(rows))
		for i, k := range rows {
			if len(k) != len(pkIdx) {
				return fmt.Errorf("delete key %d: %d values for the primary key %v", i, len(k), t.Desc.Schema.PrimaryKey)
			}
			full[i] = make([]any, len(t.types))
			for j, ci := range pkIdx {
				full[i][ci] = k[j]
			}
		}
		rows = full
		saved := t.types
		t.types = append([]typemap.DataType(nil), saved...)
		for i := range t.types {
			t.types[i] = t.types[i].WithNullable(true)
		}
		for _, ci := range pkIdx {
			t.types[ci] = saved[ci]
		}
		defer func() { t.types = saved }()
	}
	groups, err := c.routeLocked(t, rows, -1)
	if err != nil {
		return err
	}
	for _, g := range groups {
		bd, err := c.bucketLocked(t, pid(g.part), g.bucket)
		if err != nil {
			return err
		}
		ops := make([]kvOp, len(g.rows))
		for i, row := range g.rows {
			ops[i].key = g.keys[i]
			if !del {
				rb, err := t.encodeKvRow(row)
				if err != nil {
					return fmt.Errorf("table %s: %w", t.path(), err)
				}
				ops[i].value = record.EncodeKvValue(make([]byte, 0, 2+len(rb)), int16(t.SchemaID), rb)
			}
		}
		if _, err := c.applyKvLocked(t, bd, ops); err != nil {
			return fmt.Errorf("table %s: %w", t.path(), err)
		}
	}
	return nil
}
