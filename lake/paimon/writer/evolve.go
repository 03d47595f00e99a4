package writer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// EvolveSchema writes the next schema file (schema-<latest+1>) of the table
// at path with fields as its field list; everything else is kept from the
// latest schema. Fields keep their ids (new ones must be above the latest
// highestFieldId, as Paimon's SchemaManager assigns them), so data files of
// older schema ids stay valid and readers map them by field id. It returns
// the written schema. Open Table writers keep the schema they were opened
// with: reopen them to write files of the new schema id.
func EvolveSchema(ctx context.Context, fsys fileio.FS, path string, fields []paimon.DataField, now time.Time) (*paimon.TableSchema, error) {
	pt, err := paimon.OpenTable(ctx, fsys, path)
	if err != nil {
		return nil, err
	}
	latest, err := pt.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	old := map[int]paimon.DataField{}
	for _, f := range latest.Fields {
		old[f.ID] = f
	}
	hi := latest.HighestFieldID
	for _, f := range fields {
		if o, ok := old[f.ID]; ok {
			if o.Name != f.Name {
				return nil, fmt.Errorf("%w: table %s: field id %d is %q in schema-%d, not %q", ErrInvalid, path, f.ID, o.Name, latest.ID, f.Name)
			}
			continue
		}
		if f.ID <= latest.HighestFieldID {
			return nil, fmt.Errorf("%w: table %s: new field %q has id %d, not above highestFieldId %d of schema-%d", ErrInvalid, path, f.Name, f.ID, latest.HighestFieldID, latest.ID)
		}
		hi = max(hi, maxFieldID(f))
	}
	cp := *latest
	cp.ID, cp.Version, cp.TimeMillis, cp.HighestFieldID = latest.ID+1, 3, now.UnixMilli(), hi
	cp.Fields = fields
	js, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := paimon.ParseSchema(js); err != nil {
		return nil, fmt.Errorf("%w: table %s: %v", ErrInvalid, path, err)
	}
	p := fileio.Join(path, "schema", "schema-"+strconv.FormatInt(cp.ID, 10))
	if f, err := fsys.Open(ctx, p); err == nil {
		f.Close()
		return nil, fmt.Errorf("%w: table %s: schema-%d already exists", ErrInvalid, path, cp.ID)
	} else if !fileio.IsNotExist(err) {
		return nil, fmt.Errorf("paimon writer: table %s: %w", path, err)
	}
	if err := fileio.WriteFile(ctx, fsys, p, js); err != nil {
		return nil, err
	}
	return &cp, nil
}
