package paimon

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PartitionNames lists the partitions that hold data in the latest
// snapshot, as k1=v1/k2=v2 with the values written by PartitionText (NULL
// as the table's partition.default-name), sorted; nil for an unpartitioned
// table or one without a snapshot.
func (t *Table) PartitionNames(ctx context.Context) ([]string, error) {
	id, err := t.LatestSnapshotID(ctx)
	if err != nil || id == 0 {
		return nil, err
	}
	snap, err := t.Snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	schema, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, err
	}
	fields := schema.PartitionFields()
	if len(fields) == 0 {
		return nil, nil
	}
	files, err := t.LiveFiles(ctx, snap)
	if err != nil {
		return nil, err
	}
	types := make([]DataType, len(fields))
	for i, f := range fields {
		types[i] = f.Type
	}
	defName := schema.Options["partition.default-name"]
	if defName == "" {
		defName = "__DEFAULT_PARTITION__"
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if seen[string(e.Partition)] {
			continue
		}
		seen[string(e.Partition)] = true
		vals, err := DeserializeRow(e.Partition, types)
		if err != nil {
			return nil, fmt.Errorf("paimon: partition of %v: %w", e.File, err)
		}
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = f.Name + "=" + PartitionText(vals[i], f.Type, defName)
		}
		out = append(out, strings.Join(parts, "/"))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// PartitionText renders a partition value the way Paimon names partition
// directories and SHOW PARTITIONS shows it:
// NULL as defName, dates as yyyy-MM-dd, binary as 0x hex, timestamps in
// UTC.
func PartitionText(v any, t DataType, defName string) string {
	switch x := v.(type) {
	case nil:
		return defName
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		if t.Root == Date {
			return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
		}
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case DecimalValue:
		return x.String()
	case TimestampValue:
		return time.Unix(0, x.Nanos()).UTC().Format("2006-01-02 15:04:05.999999999")
	}
	return fmt.Sprint(v)
}
