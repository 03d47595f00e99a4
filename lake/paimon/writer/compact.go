package writer

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/inlet-db/inlet/lake/paimon"
)

// CompactBucket rewrites every live file of (partition, bucket) into one
// file, read through lake/paimon (merge-on-read for primary-key tables, so
// retractions and older versions disappear). Primary-key output goes to
// the top level (num-levels - 1, default 5) with +I rows only, which makes
// the bucket raw-convertible; append output stays at level 0. The old files
// are DELETEd in the same commit, their deletion vectors dropped, and the
// commit kind becomes COMPACT. Streaming: rows flow from the reader to the
// writer batch by batch. A bucket with nothing to merge (no files, or one
// top-level file without deletes or deletion vector) is left alone.
func (c *Commit) CompactBucket(ctx context.Context, part []any, bucket int32) error {
	t := c.t
	if t.snap == nil {
		return nil
	}
	partRow, err := paimon.SerializeRow(part, t.partitionTypes())
	if err != nil {
		return fmt.Errorf("%w: table %s partition %v: %v", ErrInvalid, t.path, part, err)
	}
	var files []paimon.ManifestEntry
	for _, e := range t.live {
		if e.Bucket == bucket && bytes.Equal(e.Partition, partRow) {
			files = append(files, e)
		}
	}
	if len(files) == 0 {
		return nil
	}
	level := int32(0)
	if t.isPK() {
		level = t.maxLevel()
	}
	if len(files) == 1 && files[0].File.Level == level && (files[0].File.DeleteRowCount == nil || *files[0].File.DeleteRowCount == 0) && !c.hasDV(partRow, bucket, files[0].File.FileName) {
		return nil
	}
	over := map[string]string{"source.split.target-size": strconv.FormatInt(1<<62, 10)}
	if v, _ := strconv.ParseBool(t.schema.Options["deletion-vectors.enabled"]); v && t.isPK() {
		hasL0, anyDV := false, false
		for _, f := range files {
			hasL0 = hasL0 || f.File.Level == 0
			anyDV = anyDV || c.hasDV(partRow, bucket, f.File.FileName)
		}
		if hasL0 && anyDV {
			// Batch plans of DV tables skip level 0; reading it needs a plan
			// without vectors, which would resurrect deleted rows.
			return fmt.Errorf("%w: table %s bucket %d: compacting level-0 files together with deletion vectors", paimon.ErrUnsupported, t.path, bucket)
		}
		if hasL0 {
			// No vector exists in this bucket: a plain merge read sees every level.
			over["deletion-vectors.enabled"] = "false"
		}
	}
	plan, err := t.pt.Plan(ctx, paimon.ScanOptions{SnapshotID: t.snap.ID, Bucket: &bucket, Options: over})
	if err != nil {
		return err
	}
	var splits []*paimon.Split
	for i := range plan.Splits {
		s := &plan.Splits[i]
		if s.Bucket == bucket && bytes.Equal(s.PartitionBytes, partRow) {
			splits = append(splits, s)
		}
	}
	if t.isPK() && len(splits) > 1 {
		return fmt.Errorf("%w: table %s bucket %d: planned as %d splits; one merged stream is needed", paimon.ErrUnsupported, t.path, bucket, len(splits))
	}
	fw, err := c.newFile(ctx, part, bucket, level, 1)
	if err != nil {
		return err
	}
	for _, s := range splits {
		rr, err := plan.Open(ctx, s, t.mem, paimon.ReadOptions{})
		if err != nil {
			fw.Abort()
			return err
		}
		for rr.Next() {
			if err := fw.Write(rr.RecordBatch(), nil); err != nil {
				rr.Release()
				fw.Abort()
				return err
			}
		}
		err = rr.Err()
		rr.Release()
		if err != nil {
			fw.Abort()
			return fmt.Errorf("table %s bucket %d: compaction read: %w", t.path, bucket, err)
		}
	}
	if err := fw.Close(ctx); err != nil {
		return err
	}
	for _, f := range files {
		d := f
		d.Kind = paimon.FileKindDelete
		c.dels = append(c.dels, d)
		c.dropDV[bucketID(partRow, bucket)+"|"+f.File.FileName] = true
	}
	c.kind = "COMPACT"
	return nil
}

// CompactAll compacts every (partition, bucket) that has live files.
func (c *Commit) CompactAll(ctx context.Context) error {
	t := c.t
	seen := map[string]bool{}
	for _, e := range append([]paimon.ManifestEntry(nil), t.live...) {
		k := bucketID(e.Partition, e.Bucket)
		if seen[k] {
			continue
		}
		seen[k] = true
		part, err := paimon.DeserializeRow(e.Partition, t.partitionTypes())
		if err != nil {
			return fmt.Errorf("table %s: partition of %s: %w", t.path, e.File.FileName, err)
		}
		if err := c.CompactBucket(ctx, part, e.Bucket); err != nil {
			return err
		}
	}
	return nil
}

func (c *Commit) hasDV(partRow []byte, bucket int32, file string) bool {
	for _, e := range c.t.index {
		if e.IndexType != "DELETION_VECTORS" || e.Bucket != bucket || !bytes.Equal(e.Partition, partRow) || e.DVRanges == nil {
			continue
		}
		for _, r := range *e.DVRanges {
			if r != nil && r.DataFile == file {
				return true
			}
		}
	}
	return false
}
