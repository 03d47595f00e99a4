package minifluss

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

// Auto partitioning (spec §8, table.auto-partition.*): on creation the
// coordinator pre-creates num-precreate partitions from the current one on;
// AutoPartition then does what Fluss's periodic task does, creating the
// upcoming ones and dropping those older than num-retention units. Times are
// taken in table.auto-partition.time-zone (default UTC here; Fluss defaults
// to the JVM's zone).

type autoPartition struct {
	key       string
	unit      record.AutoPartitionUnit
	format    string
	loc       *time.Location
	precreate int
	retention int
	singleKey bool
}

func (t *table) autoPartition() (*autoPartition, error) {
	p := t.Desc.Properties
	if v, _ := strconv.ParseBool(p["table.auto-partition.enabled"]); !v || !t.partitioned() {
		return nil, nil
	}
	ap := &autoPartition{key: p["table.auto-partition.key"], precreate: 2, retention: 7, loc: time.UTC, singleKey: len(t.Desc.PartitionKey) == 1}
	if ap.key == "" {
		if !ap.singleKey {
			return nil, ferr(codeInvalidConfig, "table %s: table.auto-partition.key is required with %d partition keys", t.path(), len(t.Desc.PartitionKey))
		}
		ap.key = t.Desc.PartitionKey[0]
	}
	if !contains(t.Desc.PartitionKey, ap.key) {
		return nil, ferr(codeInvalidConfig, "table %s: table.auto-partition.key %q is not a partition key", t.path(), ap.key)
	}
	var err error
	if ap.unit, err = record.ParseAutoPartitionUnit(p["table.auto-partition.time-unit"]); err != nil {
		return nil, ferr(codeInvalidConfig, "table %s: %v", t.path(), err)
	}
	ap.format = p["table.auto-partition.time-format"]
	if z := p["table.auto-partition.time-zone"]; z != "" {
		if ap.loc, err = time.LoadLocation(z); err != nil {
			return nil, ferr(codeInvalidConfig, "table %s: table.auto-partition.time-zone %q: %v", t.path(), z, err)
		}
	}
	for _, o := range []struct {
		key string
		dst *int
	}{{"table.auto-partition.num-precreate", &ap.precreate}, {"table.auto-partition.num-retention", &ap.retention}} {
		if s := p[o.key]; s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, ferr(codeInvalidConfig, "table %s: %s %q is not a non-negative integer", t.path(), o.key, s)
			}
			*o.dst = n
		}
	}
	if !ap.singleKey {
		ap.precreate = 0 // multi-key tables get their other values from writers
	}
	return ap, nil
}

// autoPartitionLocked creates the upcoming partitions of one table and drops
// the expired ones; it returns how many it created and dropped.
func (c *Cluster) autoPartitionLocked(t *table) (created, dropped int, err error) {
	ap, err := t.autoPartition()
	if ap == nil || err != nil {
		return 0, 0, err
	}
	now := c.cfg.Now().In(ap.loc)
	for i := 0; i < ap.precreate; i++ {
		name, err := record.AutoPartitionName(now, ap.unit, ap.format, i)
		if err != nil {
			return created, dropped, ferr(codeInvalidConfig, "table %s: %v", t.path(), err)
		}
		if t.partitionByName(name) != nil {
			continue
		}
		if _, err := c.createPartitionLocked(t, map[string]string{ap.key: name}, true); err != nil {
			return created, dropped, err
		}
		created++
	}
	cutoff, err := record.AutoPartitionName(now, ap.unit, ap.format, -ap.retention)
	if err != nil {
		return created, dropped, ferr(codeInvalidConfig, "table %s: %v", t.path(), err)
	}
	for _, p := range t.sortedPartitions() {
		var v string
		for _, kv := range p.Spec {
			if kv[0] == ap.key {
				v = kv[1]
			}
		}
		if len(v) == len(cutoff) && v < cutoff && record.IsPastAutoPartition(v, now, ap.unit, ap.format) {
			spec := map[string]string{}
			for _, kv := range p.Spec {
				spec[kv[0]] = kv[1]
			}
			if err := c.dropPartitionLocked(t, spec, true); err != nil {
				return created, dropped, err
			}
			dropped++
		}
	}
	return created, dropped, nil
}

// AutoPartition runs one round of Fluss's auto-partition task over every
// table with table.auto-partition.enabled: upcoming partitions (num-precreate
// from the current unit, in Config.Now time) are created, partitions older
// than num-retention units are dropped with their data.
func (c *Cluster) AutoPartition(ctx context.Context) (created, dropped int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.cat.sortedDatabases() {
		for _, t := range d.sortedTables() {
			cr, dr, err := c.autoPartitionLocked(t)
			created, dropped = created+cr, dropped+dr
			if err != nil {
				return created, dropped, fmt.Errorf("auto partition %s: %w", t.path(), err)
			}
		}
	}
	return created, dropped, nil
}
