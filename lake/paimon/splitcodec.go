package paimon

import (
	"context"
	"encoding/json"
	"fmt"
)

// The planner (FE) and the reader (BE) run in different processes: the FE
// plans, ships each Split, and the BE opens it without re-reading
// manifests. EncodeSplit/DecodeSplit carry a Split as JSON (partition values
// travel as the serialized BinaryRow and are decoded again), and
// Table.ReadPlan rebuilds the reading half of a Plan from what the FE knew.

// EncodeSplit serializes a split.
func EncodeSplit(s *Split) ([]byte, error) {
	c := *s
	c.Partition = nil // PartitionBytes is authoritative
	return json.Marshal(&c)
}

// DecodeSplit deserializes a split of a table whose partition columns are
// partFields (TableSchema.PartitionFields of the plan's schema).
func DecodeSplit(b []byte, partFields []DataField) (*Split, error) {
	var s Split
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: split: %v", ErrCorrupt, err)
	}
	part, err := DeserializeRow(s.PartitionBytes, fieldTypes(partFields))
	if err != nil {
		return nil, fmt.Errorf("split partition: %w", err)
	}
	s.Partition = part
	for _, f := range s.Files {
		if f.Path == "" || f.Meta.RowCount < 0 {
			return nil, fmt.Errorf("%w: split file %q", ErrCorrupt, f.Meta.FileName)
		}
		if sl := f.Slice; sl != nil {
			if !s.RawConvertible || len(s.Files) != 1 || sl.Count < 1 || sl.Count > maxSlices || sl.Index < 0 || sl.Index >= sl.Count || !sliceableFormat(f.Path) {
				return nil, fmt.Errorf("%w: split file %q: slice %d/%d of a split of %d file(s), raw %t", ErrCorrupt, f.Meta.FileName, sl.Index, sl.Count, len(s.Files), s.RawConvertible)
			}
		}
	}
	return &s, nil
}

// ReadPlan rebuilds a Plan for reading splits planned elsewhere: the schema
// (by id), the option overrides and the predicate the planner used. It reads
// one schema file and no manifests; its Splits are empty.
func (t *Table) ReadPlan(ctx context.Context, schemaID int64, options map[string]string, pred *Predicate) (*Plan, error) {
	schema, err := t.Schema(ctx, schemaID)
	if err != nil {
		return nil, err
	}
	p := &Plan{Table: t, Schema: schema, Options: mergedOptions(schema, options)}
	if _, err := parseOptions(p.Options); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if p.pred, err = pred.bind(schema.Fields); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	return p, nil
}
