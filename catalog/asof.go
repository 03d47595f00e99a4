package catalog

import "context"

// SchemaAsOf is a TimeTraveler whose columns follow the snapshot a
// time-travel read names: a lake snapshot keeps the schema it was written
// with, so a read of a snapshot older than a column sees no such column.
// The binder asks it for the columns of such a read (and the planner reads
// the same ones). A snapshot it cannot resolve yields the current schema:
// the planner reports that error precisely.
type SchemaAsOf interface {
	SchemaAsOf(ctx context.Context, tt *TimeTravel) (Schema, error)
}
