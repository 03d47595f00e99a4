package systable

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/internal/tzone"
	lake "github.com/inlet-db/inlet/lake/paimon"
)

// SnapshotsSuffix is the sys-table suffix of the snapshots table.
const SnapshotsSuffix = "snapshots"

const defaultBatch = 1024

// Snapshots is tbl$snapshots: one row per kept snapshot of a Paimon table,
// with Paimon's column names.
type Snapshots struct {
	name string // as resolved, e.g. orders$snapshots
	open func(ctx context.Context) (*lake.Table, error)
}

var _ catalog.Table = (*Snapshots)(nil)

// NewSnapshots returns the snapshots table named name over the lake table
// open returns (opened at scan time, so the list is current).
func NewSnapshots(name string, open func(ctx context.Context) (*lake.Table, error)) *Snapshots {
	return &Snapshots{name: name, open: open}
}

// Name implements catalog.Table.
func (s *Snapshots) Name() string { return s.name }

var snapshotColumns = []catalog.Column{
	{Name: "snapshot_id", Type: arrow.PrimitiveTypes.Int64, Key: true},
	{Name: "schema_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "commit_user", Type: arrow.BinaryTypes.String, TypeName: "text"},
	{Name: "commit_identifier", Type: arrow.PrimitiveTypes.Int64},
	{Name: "commit_kind", Type: arrow.BinaryTypes.String, TypeName: "text"},
	{Name: "commit_time", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, TypeName: "datetime(3)"},
	{Name: "base_manifest_list", Type: arrow.BinaryTypes.String, TypeName: "text"},
	{Name: "delta_manifest_list", Type: arrow.BinaryTypes.String, TypeName: "text"},
	{Name: "changelog_manifest_list", Type: arrow.BinaryTypes.String, TypeName: "text", Nullable: true},
	{Name: "total_record_count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "delta_record_count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "changelog_record_count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "watermark", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}

// Schema implements catalog.Table.
func (s *Snapshots) Schema() catalog.Schema {
	return catalog.Schema{Columns: append([]catalog.Column(nil), snapshotColumns...)}
}

// Scan implements catalog.Table.
func (s *Snapshots) Scan(ctx context.Context, req catalog.ScanRequest) (array.RecordReader, error) {
	if req.Mem == nil {
		return nil, fmt.Errorf("table %s: scan without an allocator", s.name)
	}
	cols := req.Columns
	if cols == nil {
		cols = make([]int, len(snapshotColumns))
		for i := range cols {
			cols[i] = i
		}
	}
	for _, c := range cols {
		if c < 0 || c >= len(snapshotColumns) {
			return nil, fmt.Errorf("table %s: no column %d", s.name, c)
		}
	}
	t, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	first, err := t.EarliestSnapshotID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.name, err)
	}
	last, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", s.name, err)
	}
	batch := req.BatchSize
	if batch <= 0 {
		batch = defaultBatch
	}
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		col := snapshotColumns[c]
		fs[i] = arrow.Field{Name: col.Name, Type: col.Type, Nullable: col.Nullable}
	}
	r := &reader{ctx: ctx, t: t, name: s.name, cols: cols, schema: arrow.NewSchema(fs, nil),
		mem: req.Mem, next: first, last: last, batch: batch, loc: location(req.Vars["time_zone"]), refs: 1}
	if first == 0 {
		r.next = 1 // no snapshots: last is 0 too, so the reader is empty
	}
	return r, nil
}

// location resolves a time_zone session value the way the FE does;
// unknown values read as UTC, which the FE never lets through.
func location(v string) *time.Location { return tzone.LocationOrUTC(v) }

// reader walks snapshot ids next..last, batch rows at a time.
type reader struct {
	ctx        context.Context
	t          *lake.Table
	name       string
	cols       []int
	schema     *arrow.Schema
	mem        memory.Allocator
	next, last int64
	batch      int
	loc        *time.Location
	cur        arrow.RecordBatch
	err        error
	refs       int64
}

func (r *reader) Schema() *arrow.Schema { return r.schema }
func (r *reader) Err() error            { return r.err }
func (r *reader) Retain()               { r.refs++ }
func (r *reader) Release() {
	if r.refs--; r.refs == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *reader) Record() arrow.RecordBatch      { return r.cur }
func (r *reader) RecordBatch() arrow.RecordBatch { return r.cur }

func (r *reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	var snaps []*lake.Snapshot
	for r.next <= r.last && len(snaps) < r.batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
		id := r.next
		r.next++
		s, err := r.t.Snapshot(r.ctx, id)
		if err != nil {
			if isNotFound(err) {
				continue // expired while we walked
			}
			r.err = fmt.Errorf("table %s: %w", r.name, err)
			return false
		}
		snaps = append(snaps, s)
	}
	if len(snaps) == 0 {
		return false
	}
	b := array.NewRecordBuilder(r.mem, r.schema)
	defer b.Release()
	for _, s := range snaps {
		for i, c := range r.cols {
			appendValue(b.Field(i), c, s, r.loc)
		}
	}
	r.cur = b.NewRecordBatch()
	return true
}

func appendValue(fb array.Builder, col int, s *lake.Snapshot, loc *time.Location) {
	i64 := func(v *int64) {
		if v == nil {
			fb.AppendNull()
			return
		}
		fb.(*array.Int64Builder).Append(*v)
	}
	str := func(v string) { fb.(*array.StringBuilder).Append(v) }
	switch snapshotColumns[col].Name {
	case "snapshot_id":
		i64(&s.ID)
	case "schema_id":
		i64(&s.SchemaID)
	case "commit_user":
		str(s.CommitUser)
	case "commit_identifier":
		i64(&s.CommitIdentifier)
	case "commit_kind":
		str(s.CommitKind)
	case "commit_time":
		// The wall clock in the session zone, stored as a zone-less
		// DATETIME(3).
		wall := time.UnixMilli(s.TimeMillis).In(loc)
		_, off := wall.Zone()
		fb.(*array.TimestampBuilder).Append(arrow.Timestamp(s.TimeMillis + int64(off)*1000))
	case "base_manifest_list":
		str(s.BaseManifestList)
	case "delta_manifest_list":
		str(s.DeltaManifestList)
	case "changelog_manifest_list":
		if s.ChangelogManifestList == nil {
			fb.AppendNull()
		} else {
			str(*s.ChangelogManifestList)
		}
	case "total_record_count":
		i64(s.TotalRecordCount)
	case "delta_record_count":
		i64(s.DeltaRecordCount)
	case "changelog_record_count":
		i64(s.ChangelogRecordCount)
	case "watermark":
		i64(s.Watermark)
	default:
		fb.AppendNull()
	}
}

var _ array.RecordReader = (*reader)(nil)
