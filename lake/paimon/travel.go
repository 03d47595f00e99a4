package paimon

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/inlet-db/inlet/fileio"
)

// maxTagFileBytes bounds a tag file read (a tag is one snapshot JSON).
const maxTagFileBytes = 1 << 20

// SnapshotOfTag reads tag/tag-<name>, the snapshot the tag pins. The error
// wraps ErrNotFound when the table has no such tag.
func (t *Table) SnapshotOfTag(ctx context.Context, name string) (*Snapshot, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("table %s: tag %q: %w", t.name, name, ErrNotFound)
	}
	path := fileio.Join(t.Path(), "tag", "tag-"+name)
	f, err := t.fs.Open(ctx, path)
	if err != nil {
		if fileio.IsNotExist(err) {
			return nil, fmt.Errorf("table %s: tag %q: %w", t.name, name, ErrNotFound)
		}
		return nil, fmt.Errorf("table %s: tag %q: %w", t.name, name, err)
	}
	defer f.Close()
	size := f.Size()
	if size <= 0 || size > maxTagFileBytes {
		return nil, fmt.Errorf("table %s: tag %q: %w: %s has %d bytes", t.name, name, ErrCorrupt, path, size)
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("table %s: tag %q: %w", t.name, name, err)
	}
	s, err := ParseSnapshot(b)
	if err != nil {
		return nil, fmt.Errorf("table %s: tag %q (%s): %w", t.name, name, path, err)
	}
	return s, nil
}

// SnapshotAt is the latest snapshot committed at or before millis, walking
// back from the latest one (bounded by the snapshots kept). The error wraps
// ErrNotFound when there is none.
func (t *Table) SnapshotAt(ctx context.Context, millis int64) (*Snapshot, error) {
	earliest, err := t.EarliestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	latest, err := t.LatestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	for id := latest; id >= earliest && id > 0; id-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := t.Snapshot(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // expired while we walked
		}
		if err != nil {
			return nil, err
		}
		if s.TimeMillis <= millis {
			return s, nil
		}
	}
	return nil, fmt.Errorf("table %s: no snapshot at or before %d: %w", t.name, millis, ErrNotFound)
}
