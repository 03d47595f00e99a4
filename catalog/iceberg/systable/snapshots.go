package systable

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/internal/tzone"
	lake "github.com/inlet-db/inlet/lake/iceberg"
)

// SnapshotsSuffix is the sys table suffix served: tbl$snapshots.
const SnapshotsSuffix = "snapshots"

// snapshotsTable is tbl$snapshots with the columns of Doris's (and
// Iceberg's) snapshots metadata table; summary is its JSON text.
type snapshotsTable struct {
	name string
	open func(context.Context) (*lake.Table, error)
}

// NewSnapshots is the tbl$snapshots table name of the Iceberg table open
// returns; open runs at each scan, so a caller that reopens its table per
// read (a Fluss lake half, which tiering keeps committing to) lists the
// snapshots of the metadata current then.
func NewSnapshots(name string, open func(context.Context) (*lake.Table, error)) catalog.Table {
	return &snapshotsTable{name: name, open: open}
}

var snapshotColumns = []catalog.Column{
	{Name: "committed_at", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, TypeName: "datetime(3)"},
	{Name: "snapshot_id", Type: arrow.PrimitiveTypes.Int64, Key: true},
	{Name: "parent_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "operation", Type: arrow.BinaryTypes.String, TypeName: "text", Nullable: true},
	{Name: "manifest_list", Type: arrow.BinaryTypes.String, TypeName: "text", Nullable: true},
	{Name: "summary", Type: arrow.BinaryTypes.String, TypeName: "text", Nullable: true},
}

func (s *snapshotsTable) Name() string { return s.name }

func (s *snapshotsTable) Schema() catalog.Schema {
	return catalog.Schema{Columns: append([]catalog.Column(nil), snapshotColumns...)}
}

// Scan lists the snapshots of the metadata file the table is opened at,
// by commit time; committed_at is wall-clock time in the session zone.
func (s *snapshotsTable) Scan(ctx context.Context, req catalog.ScanRequest) (array.RecordReader, error) {
	if req.Mem == nil {
		return nil, fmt.Errorf("table %s: scan without an allocator", s.name)
	}
	cols := req.Columns
	if cols == nil {
		cols = []int{0, 1, 2, 3, 4, 5}
	}
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		if c < 0 || c >= len(snapshotColumns) {
			return nil, fmt.Errorf("table %s: no column %d", s.name, c)
		}
		col := snapshotColumns[c]
		fs[i] = arrow.Field{Name: col.Name, Type: col.Type, Nullable: col.Nullable}
	}
	schema := arrow.NewSchema(fs, nil)
	lt, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	loc := tzone.LocationOrUTC(req.Vars["time_zone"])
	b := array.NewRecordBuilder(req.Mem, schema)
	defer b.Release()
	for _, sn := range lt.Snapshots() {
		for i, c := range cols {
			fb := b.Field(i)
			switch c {
			case 0:
				// Wall-clock time in the session zone, stored as if UTC
				// (the engine's DATETIME).
				t := time.UnixMilli(sn.TimestampMs).In(loc)
				wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
				fb.(*array.TimestampBuilder).Append(arrow.Timestamp(wall.UnixMilli()))
			case 1:
				fb.(*array.Int64Builder).Append(sn.ID)
			case 2:
				if sn.ParentID == nil {
					fb.AppendNull()
				} else {
					fb.(*array.Int64Builder).Append(*sn.ParentID)
				}
			case 3:
				fb.(*array.StringBuilder).Append(sn.Operation)
			case 4:
				fb.(*array.StringBuilder).Append(sn.ManifestList)
			case 5:
				j, err := json.Marshal(sn.Summary)
				if err != nil {
					return nil, err
				}
				fb.(*array.StringBuilder).Append(string(j))
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(schema, []arrow.RecordBatch{rec})
}
