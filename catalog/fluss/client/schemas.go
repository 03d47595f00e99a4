package client

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

// Schema evolution (Fluss 1.0: ALTER TABLE … ADD COLUMN, nullable, last):
// every log batch and KV value carries the id of the schema it was written
// with. A reader decodes an older one with that schema, fetched once per
// (table id, schema id) by GET_TABLE_SCHEMA and cached on the Client, and
// maps its columns onto the read's schema by column id; columns the older
// schema lacks read NULL.

// maxCachedSchemas bounds the schema cache; it is emptied when full (a
// miss costs one RPC).
const maxCachedSchemas = 4096

type schemaKey struct {
	table  int64
	schema int16
}

// tableSchema returns schema id of the bucket's table, from the cache or
// the coordinator. Keyed by table id: a table dropped and created again
// under the same path starts its schema ids over.
func (c *Client) tableSchema(ctx context.Context, b TableBucket, id int16) (*record.Schema, error) {
	k := schemaKey{b.TableID, id}
	c.schemaMu.Lock()
	s, ok := c.schemas[k]
	c.schemaMu.Unlock()
	if ok {
		return s, nil
	}
	sid := int32(id)
	got, js, err := c.GetTableSchema(ctx, b.Table, &sid)
	if err != nil {
		return nil, err
	}
	if got != sid {
		return nil, fmt.Errorf("%w: schema of %s: asked for id %d, the server answered id %d", ErrProtocol, b.Table, id, got)
	}
	if s, err = record.ParseSchema(js); err != nil {
		return nil, fmt.Errorf("fluss: schema %d of %s: %w", id, b.Table, err)
	}
	c.schemaMu.Lock()
	if c.schemas == nil || len(c.schemas) >= maxCachedSchemas {
		c.schemas = map[schemaKey]*record.Schema{}
	}
	c.schemas[k] = s
	c.schemaMu.Unlock()
	return s, nil
}

// columnMap gives, for each column of the read (cur, with ids curIDs; nil
// ids means positions), the index of the same column in old, or -1 when
// old lacks it. A column must keep its name and type (Fluss 1.0 cannot
// rename or modify), and one old lacks must be nullable. old may also be
// newer than the read's schema (a reader planned before ALTER TABLE, e.g.
// from a cached table): its added columns are left out.
func columnMap(old []record.TableColumn, oldID int16, cur []typemap.Column, curIDs []int32, curID int32) ([]int, error) {
	byID := make(map[int32]int, len(old))
	for i, c := range old {
		byID[c.ID] = i
	}
	m := make([]int, len(cur))
	for j, c := range cur {
		i, ok := j, j < len(old)
		if curIDs != nil {
			i, ok = byID[curIDs[j]]
		}
		if !ok {
			if !c.Type.Nullable {
				return nil, fmt.Errorf("%w: column %q is NOT NULL but schema %d lacks it", ErrUnsupported, c.Name, oldID)
			}
			m[j] = -1
			continue
		}
		o := old[i]
		if o.Name != c.Name || !o.Type.Equal(c.Type) {
			return nil, fmt.Errorf("%w: column %d is %s %s in schema %d but %s %s in schema %d (only added columns are supported)",
				ErrUnsupported, j, o.Name, o.Type, oldID, c.Name, c.Type, curID)
		}
		m[j] = i
	}
	return m, nil
}

// remapRecord builds a record of schema out from rec (decoded with an
// older schema) by m (columnMap), NULL where m is -1; it consumes rec.
func remapRecord(rec arrow.RecordBatch, out *arrow.Schema, m []int, mem memory.Allocator) arrow.RecordBatch {
	defer rec.Release()
	n := rec.NumRows()
	cols := make([]arrow.Array, len(m))
	var made []arrow.Array
	for j, i := range m {
		if i >= 0 {
			cols[j] = rec.Column(i)
			continue
		}
		a := array.MakeArrayOfNull(mem, out.Field(j).Type, int(n))
		made = append(made, a)
		cols[j] = a
	}
	res := array.NewRecordBatch(out, cols, n)
	for _, a := range made {
		a.Release()
	}
	return res
}

// remapValues reorders one decoded row of an older schema by m.
func remapValues(row []any, m []int) []any {
	out := make([]any, len(m))
	for j, i := range m {
		if i >= 0 && i < len(row) {
			out[j] = row[i]
		}
	}
	return out
}
