package minifluss

import (
	"context"
	"fmt"
)

// FreezeTiering stops (true) or resumes (false) tiering: while frozen,
// TierLake fails with ErrTieringFrozen and TierAll / the periodic loop do
// nothing, so writes after the freeze stay in the Fluss log only (the
// Doris environment cancels its tiering job the same way).
func (c *Cluster) FreezeTiering(frozen bool) {
	c.lake.cfgMu.Lock()
	c.lake.frozen = frozen
	c.lake.cfgMu.Unlock()
}

// HoldLakeReadable makes later tiering rounds publish their snapshot as
// latest only: readable GetLakeSnapshot keeps answering the snapshot that
// was readable before the hold (or "no readable snapshot" when none was),
// as Fluss does for deletion-vector tables awaiting compaction.
func (c *Cluster) HoldLakeReadable(hold bool) {
	c.lake.cfgMu.Lock()
	c.lake.holdRead = hold
	c.lake.cfgMu.Unlock()
}

// CompactLake rewrites every bucket of a lake table into one top-level file
// (PK tables: merged, raw-convertible) in one COMPACT snapshot. The lake
// snapshot offsets do not change; a held readable snapshot becomes the
// compacted one with the latest offsets.
func (c *Cluster) CompactLake(ctx context.Context, db, tbl string) (int64, error) {
	r := c.lake
	if !r.enabled() {
		return 0, fmt.Errorf("minifluss: table %s.%s: the cluster has no lake", db, tbl)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c.mu.Lock()
	t, err := c.cat.lookup(db, tbl)
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if t.lakeIceberg() {
		return 0, fmt.Errorf("minifluss: table %s: compaction of an Iceberg lake table is not emulated", t.path())
	}
	w, err := r.lakeWriter(ctx, t)
	if err != nil {
		return 0, err
	}
	cm := w.NewCommit()
	if err := cm.CompactAll(ctx); err != nil {
		return 0, fmt.Errorf("table %s: lake compaction: %w", t.path(), err)
	}
	props := map[string]string{}
	if s := w.Reader(); s != nil {
		if id := w.SnapshotID(); id > 0 {
			if snap, err := s.Snapshot(ctx, id); err == nil && snap.Properties["fluss-offsets"] != "" {
				props["fluss-offsets"] = snap.Properties["fluss-offsets"]
			}
		}
	}
	id, err := cm.Commit(ctx, props)
	if err != nil {
		return 0, fmt.Errorf("table %s: lake compaction commit: %w", t.path(), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Lake != nil {
		ls := *t.Lake
		ls.SnapshotID = id
		ls.Readable, ls.ReadableOffsets = nil, nil
		t.Lake = &ls
	}
	return id, c.persistLocked()
}

// ExpireTieredLog moves the log start of every bucket of a lake table to
// its tiered offset (what table.log.ttl does once the lake holds the data),
// so the tiered part is readable only from the lake.
func (c *Cluster) ExpireTieredLog(ctx context.Context, db, tbl string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return err
	}
	if t.Lake == nil {
		return ferr(codeLakeSnapshotNotExist, "table %s has no lake snapshot: nothing is tiered", t.path())
	}
	for _, o := range t.Lake.Offsets {
		if o.PartitionID != nil && t.Partitions[*o.PartitionID] == nil {
			continue // dropped partition: no Fluss log left
		}
		bd, err := c.bucketLocked(t, o.PartitionID, o.Bucket)
		if err != nil {
			return err
		}
		if err := bd.log.expire(o.LogOffset); err != nil {
			return err
		}
	}
	return nil
}

// SetLakeOptions replaces the cluster's datalake.paimon.* settings (not the
// warehouse) and rewrites them into every lake table's properties, as a
// restarted coordinator with a changed server.yaml reports them. Sensitive
// options are kept for the lake but never written into properties.
func (c *Cluster) SetLakeOptions(opts map[string]string) error {
	r := c.lake
	if !r.enabled() {
		return fmt.Errorf("minifluss: the cluster has no lake")
	}
	r.cfgMu.Lock()
	r.opts = map[string]string{}
	for k, v := range opts {
		r.opts[k] = v
	}
	r.cfgMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.cat.Databases {
		for _, t := range d.Tables {
			if !t.lakePaimon() {
				continue
			}
			for k := range t.Desc.Properties {
				if len(k) > len("table.datalake.paimon.") && k[:len("table.datalake.paimon.")] == "table.datalake.paimon." &&
					k != "table.datalake.paimon.warehouse" {
					delete(t.Desc.Properties, k)
				}
			}
			if _, ok := opts["metastore"]; !ok {
				t.Desc.Properties["table.datalake.paimon.metastore"] = "filesystem"
			}
			for _, k := range sortedKeys(opts) {
				if !sensitiveOption(k) && k != "warehouse" {
					t.Desc.Properties["table.datalake.paimon."+k] = opts[k]
				}
			}
		}
	}
	return c.persistLocked()
}

// SetLegacySystemColumns switches whether lake tables created from now on
// get the legacy __bucket/__offset/__timestamp columns (LakeConfig).
func (c *Cluster) SetLegacySystemColumns(on bool) {
	c.lake.cfgMu.Lock()
	c.lake.cfg.LegacySystemColumns = on
	c.lake.cfgMu.Unlock()
}

// LakeTablePath is the lake table directory (Paimon, or Iceberg) of a lake table in the
// warehouse (also for tables never tiered: it is created with the table).
func (c *Cluster) LakeTablePath(db, tbl string) (string, error) {
	if !c.lake.enabled() {
		return "", fmt.Errorf("minifluss: the cluster has no lake")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.cat.lookup(db, tbl)
	if err != nil {
		return "", err
	}
	if t.lakeIceberg() {
		return c.lake.icebergTablePath(t), nil
	}
	return c.lake.lakeTablePath(t), nil
}
