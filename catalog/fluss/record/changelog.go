package record

import "github.com/inlet-db/inlet/typemap"

// The $changelog virtual table (Fluss website/docs/table-design/
// virtual-tables.md) prepends three metadata columns to a table's columns.
// They are not in any log batch: a reader derives them from each record's
// change type, its offset and its batch's commit timestamp.
const (
	ChangelogChangeType      = "_change_type"
	ChangelogLogOffset       = "_log_offset"
	ChangelogCommitTimestamp = "_commit_timestamp"
)

// ChangelogColumns are the metadata columns in the order Fluss prepends
// them, with Fluss's types.
func ChangelogColumns() []typemap.Column {
	return []typemap.Column{
		{Name: ChangelogChangeType, Type: typemap.String().NotNull()},
		{Name: ChangelogLogOffset, Type: typemap.BigInt().NotNull()},
		{Name: ChangelogCommitTimestamp, Type: typemap.TimestampLTZ(3).NotNull()},
	}
}

// ChangelogWireColumn is the column number a fragment uses for metadata
// column i (0: _change_type, 1: _log_offset, 2: _commit_timestamp): -(i+1).
// Table columns keep their non-negative positions, so a fragment that names
// no negative column reads exactly as before.
func ChangelogWireColumn(i int) int { return -(i + 1) }

// ChangelogMetaIndex is the inverse of ChangelogWireColumn; ok is false for
// a number that names no metadata column.
func ChangelogMetaIndex(wire int) (i int, ok bool) {
	i = -wire - 1
	return i, wire < 0 && i < len(ChangelogColumns())
}

// The $binlog virtual table (Fluss website/docs/table-design/
// virtual-tables.md, primary-key tables only) has the same three metadata
// columns, with _change_type insert/update/delete, then the row images:
// `before` (NULL for an insert) and `after` (NULL for a delete), each a ROW
// of all the table's columns. A -U and the +U after it are one update,
// stamped with the +U's offset.
const (
	BinlogBefore = "before"
	BinlogAfter  = "after"

	BinlogInsert = "insert"
	BinlogUpdate = "update"
	BinlogDelete = "delete"
)

// BinlogColumns are the columns of tbl$binlog for a table of the given
// columns.
func BinlogColumns(cols []typemap.Column) []typemap.Column {
	fields := make([]typemap.Field, len(cols))
	for i, c := range cols {
		fields[i] = typemap.NewField(c.Name, c.Type)
	}
	img := typemap.Row(fields...)
	return append(ChangelogColumns(), typemap.Column{Name: BinlogBefore, Type: img}, typemap.Column{Name: BinlogAfter, Type: img})
}

// BinlogWireColumn is the fragment column number of tbl$binlog column i:
// the metadata columns as in ChangelogWireColumn, then -4 (before) and -5
// (after).
func BinlogWireColumn(i int) int { return -(i + 1) }

// BinlogImageIndex is 0 for the wire number of `before`, 1 for `after`.
func BinlogImageIndex(wire int) (i int, ok bool) {
	i = -wire - 1 - len(ChangelogColumns())
	return i, wire < 0 && i >= 0 && i < 2
}
