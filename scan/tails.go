package scan

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/unionread"
)

// queryState is what the fragments of one query share on this BE: the tail
// key sets, read once per (table, partition, bucket, start, stop) and
// dropped when the query's last fragment ends.
type queryState struct {
	refs  int
	tails map[string]*tailEntry
}

type tailEntry struct {
	done chan struct{}
	set  *unionread.KeySet
	err  error
}

func (e *Executor) acquireQuery(id string) *queryState {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.queries[id]
	if q == nil {
		q = &queryState{tails: map[string]*tailEntry{}}
		e.queries[id] = q
	}
	q.refs++
	return q
}

func (e *Executor) releaseQuery(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if q := e.queries[id]; q != nil {
		if q.refs--; q.refs <= 0 {
			delete(e.queries, id)
		}
	}
}

// tailKeys returns the key set of a tail, reading it on first use.
func (fx *fragExec) tailKeys(ctx context.Context, t *inletpb.Tail) (*unionread.KeySet, error) {
	key := fmt.Sprintf("%d/%v/%d/%d/%d/%d/%v", fx.f.Fluss.TableId, t.HasPartition, t.PartitionId, t.Bucket, t.StartOffset, t.StopOffset, fx.keyCols)
	e := fx.e
	for {
		e.mu.Lock()
		ent, ok := fx.q.tails[key]
		if !ok {
			ent = &tailEntry{done: make(chan struct{})}
			fx.q.tails[key] = ent
		}
		e.mu.Unlock()
		if ok {
			select {
			case <-ent.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if ent.err == nil {
				fx.ctr.add(cTailCacheHitCount, 1)
				return ent.set, nil
			}
			if isCtxErr(ent.err) && ctx.Err() == nil {
				continue // the loader was cancelled, not us: the entry is gone, load again
			}
			return nil, ent.err
		}
		t0 := time.Now()
		ent.set, ent.err = fx.readTailKeys(ctx, t)
		fx.ctr.addTime(cTailReadTime, time.Since(t0))
		if isCtxErr(ent.err) {
			e.mu.Lock()
			delete(fx.q.tails, key)
			e.mu.Unlock()
		}
		close(ent.done)
		return ent.set, ent.err
	}
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (fx *fragExec) readTailKeys(ctx context.Context, t *inletpb.Tail) (*unionread.KeySet, error) {
	part := partOf(t.HasPartition, t.PartitionId)
	name := fx.bucketName(part, t.Bucket)
	if t.StartOffset < 0 || t.StopOffset < t.StartOffset {
		return nil, fmt.Errorf("%w: tail of %s: [%d, %d)", ErrInvalid, name, t.StartOffset, t.StopOffset)
	}
	names := make([]string, len(fx.keyPos))
	types := make([]arrow.DataType, len(fx.keyPos))
	pos := make([]int, len(fx.keyPos))
	for i, p := range fx.keyPos {
		names[i], types[i], pos[i] = fx.readNames[p], fx.readTypes[p], i
	}
	tk := unionread.NewTailKeys("the tail of "+name, pos, fx.f.MaxTailRows)
	err := fx.logRead(ctx, part, t.Bucket, t.StartOffset, t.StopOffset, nil, fx.keyCols,
		func(rd *client.LogReader) error {
			rec := rd.RecordBatch()
			c, err := castColumns(fx.env, rec, names, types)
			if err != nil {
				return err
			}
			defer c.Release()
			return tk.Add(c)
		})
	if err != nil {
		return nil, err
	}
	fx.ctr.add(cTailKeysRead, tk.Records())
	fx.ctr.add(cTailKeysRetained, int64(tk.Set().Len()))
	return tk.Set(), nil
}
