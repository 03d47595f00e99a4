package planner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// ErrTimeTravel: a FOR VERSION/TIME AS OF names a snapshot or tag that does
// not exist (never did, or expired).
var ErrTimeTravel = errors.New("time travel target not found")

// maxTagBytes bounds a tag file read: a tag is one snapshot JSON.
const maxTagBytes = 1 << 20

// resolveTimeTravel returns the snapshot id a FOR VERSION/TIME AS OF clause
// reads on the Paimon table, checking that the snapshot still exists: a
// snapshot id past the latest never existed, one before the earliest has
// expired, a tag names its snapshot, and a time picks the last snapshot
// committed at or before it.
func resolveTimeTravel(ctx context.Context, lake *paimon.Table, table string, tt *catalog.TimeTravel) (int64, error) {
	earliest, err := lake.EarliestSnapshotID(ctx)
	if err != nil {
		return 0, fmt.Errorf("planner: table %s: %s: %w", table, tt, err)
	}
	latest, err := lake.LatestSnapshotID(ctx)
	if err != nil {
		return 0, fmt.Errorf("planner: table %s: %s: %w", table, tt, err)
	}
	switch {
	case tt.HasTime:
		return snapshotAtTime(ctx, lake, table, tt, earliest, latest)
	case tt.Tag != "":
		return snapshotOfTag(ctx, lake, table, tt, earliest, latest)
	}
	return checkSnapshot(ctx, lake, table, tt.SnapshotID, earliest, latest, "")
}

// checkSnapshot confirms snapshot id is readable; via names the tag that
// led to it, for the message.
func checkSnapshot(ctx context.Context, lake *paimon.Table, table string, id, earliest, latest int64, via string) (int64, error) {
	switch {
	case latest == 0:
		return 0, newErr(fmt.Sprintf("%sTable %s has no snapshot %d: it has no snapshots yet", via, table, id), ErrTimeTravel, catalog.ErrNotFound)
	case id > latest:
		return 0, newErr(fmt.Sprintf("%sTable %s has no snapshot %d: it never existed (the latest snapshot is %d; list them in %s$snapshots)", via, table, id, latest, baseName(table)), ErrTimeTravel, catalog.ErrNotFound)
	case id < earliest:
		return 0, newErr(fmt.Sprintf("%sSnapshot %d of table %s has expired (the earliest snapshot still kept is %d; list them in %s$snapshots)", via, id, table, earliest, baseName(table)), ErrTimeTravel, catalog.ErrNotFound)
	}
	if _, err := lake.Snapshot(ctx, id); err != nil {
		if errors.Is(err, paimon.ErrNotFound) {
			return 0, newErr(fmt.Sprintf("%sTable %s has no snapshot %d: its file is missing (snapshots %d to %d are kept)", via, table, id, earliest, latest), ErrTimeTravel, catalog.ErrNotFound)
		}
		return 0, fmt.Errorf("planner: table %s: snapshot %d: %w", table, id, err)
	}
	return id, nil
}

// baseName strips a $lake suffix: the snapshots table of t$lake is
// t$snapshots.
func baseName(table string) string {
	return strings.TrimSuffix(table, "$lake")
}

func snapshotOfTag(ctx context.Context, lake *paimon.Table, table string, tt *catalog.TimeTravel, earliest, latest int64) (int64, error) {
	path := fileio.Join(lake.Path(), "tag", "tag-"+tt.Tag)
	if strings.ContainsAny(tt.Tag, "/\\") {
		return 0, newErr(fmt.Sprintf("Table %s has no tag '%s'", table, tt.Tag), ErrTimeTravel, catalog.ErrNotFound)
	}
	f, err := lake.FS().Open(ctx, path)
	if err != nil {
		if fileio.IsNotExist(err) {
			return 0, newErr(fmt.Sprintf("Table %s has no tag '%s'", table, tt.Tag), ErrTimeTravel, catalog.ErrNotFound)
		}
		return 0, fmt.Errorf("planner: table %s: tag '%s': %w", table, tt.Tag, err)
	}
	size := f.Size()
	if size <= 0 || size > maxTagBytes {
		f.Close()
		return 0, fmt.Errorf("planner: table %s: tag '%s': %w: tag file %s has %d bytes", table, tt.Tag, paimon.ErrCorrupt, path, size)
	}
	b := make([]byte, size)
	_, err = f.ReadAt(b, 0)
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("planner: table %s: tag '%s': %w", table, tt.Tag, err)
	}
	snap, err := paimon.ParseSnapshot(b)
	if err != nil {
		return 0, fmt.Errorf("planner: table %s: tag '%s' (%s): %w", table, tt.Tag, path, err)
	}
	return checkSnapshot(ctx, lake, table, snap.ID, earliest, latest, fmt.Sprintf("Tag '%s' points to snapshot %d, which cannot be read: ", tt.Tag, snap.ID))
}

// snapshotAtTime walks back from the latest snapshot to the first one
// committed at or before the time; the walk is bounded by the snapshots kept.
func snapshotAtTime(ctx context.Context, lake *paimon.Table, table string, tt *catalog.TimeTravel, earliest, latest int64) (int64, error) {
	if latest == 0 {
		return 0, newErr(fmt.Sprintf("Table %s has no snapshot at or before %s: it has no snapshots yet", table, tt.Text), ErrTimeTravel, catalog.ErrNotFound)
	}
	var first *paimon.Snapshot
	for id := latest; id >= earliest && id > 0; id-- {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		s, err := lake.Snapshot(ctx, id)
		if err != nil {
			if errors.Is(err, paimon.ErrNotFound) {
				continue // expired while we walked
			}
			return 0, fmt.Errorf("planner: table %s: snapshot %d: %w", table, id, err)
		}
		if s.TimeMillis <= tt.TimeMillis {
			return id, nil
		}
		first = s
	}
	msg := fmt.Sprintf("Table %s has no snapshot at or before %s", table, tt.Text)
	if first != nil {
		msg += fmt.Sprintf(": the earliest snapshot still kept is %d, committed at %s UTC (older ones expired or never existed)",
			first.ID, time.UnixMilli(first.TimeMillis).UTC().Format("2006-01-02 15:04:05.000"))
	}
	return 0, newErr(msg, ErrTimeTravel, catalog.ErrNotFound)
}

// travelLine is the EXPLAIN line of a time-travel read.
func travelLine(tt *catalog.TimeTravel, id int64) string {
	return "TIME TRAVEL: " + tt.String() + " -> snapshot " + strconv.FormatInt(id, 10)
}

// errTimeTravelFluss refuses FOR VERSION/TIME AS OF on a Fluss table itself
// or its $log: only the lake half has snapshots to travel to.
func errTimeTravelFluss(name string, mode fluss.ReadMode) error {
	handle := name
	if mode == fluss.ReadLog {
		handle += "$log"
	}
	return newErr(fmt.Sprintf("Time travel (FOR VERSION AS OF / FOR TIME AS OF) is not supported on Fluss table '%s'; it is supported on its lake half only: query '%s$lake'",
		handle, name), catalog.ErrUnsupported)
}
