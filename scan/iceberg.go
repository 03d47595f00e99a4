package scan

import (
	"context"
	"fmt"
	"time"

	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/unionread"
)

// isIceberg reports whether a fragment's lake table is an Iceberg table.
func isIceberg(lt *inletpb.LakeTable) bool {
	return lt != nil && lt.Options[iceberg.FormatOption] == iceberg.FormatName
}

// icebergPlan opens the Iceberg table (the planner's metadata file) and
// its read plan once per fragment.
func (fx *fragExec) icebergPlan(ctx context.Context) (*iceberg.Plan, error) {
	fx.lakeOnce.Do(func() {
		lt := fx.f.Lake
		fsys, err := fx.e.cfg.FS(lt.StorageOptions)
		if err != nil {
			fx.lakeErr = fmt.Errorf("lake table %s: storage: %w", lt.TablePath, err)
			return
		}
		tbl, err := iceberg.OpenIn(ctx, fsys, lt.TablePath, lt.Options[iceberg.DirOption])
		if err != nil {
			fx.lakeErr = fmt.Errorf("lake table %s: %w", lt.TablePath, err)
			return
		}
		var pred *paimon.Predicate
		if len(lt.Predicate) > 0 {
			pred = new(paimon.Predicate)
			if err := jsonUnmarshal(lt.Predicate, pred); err != nil {
				fx.lakeErr = fmt.Errorf("%w: lake table %s: predicate: %v", ErrInvalid, lt.TablePath, err)
				return
			}
		}
		fx.icePlan, fx.lakeErr = tbl.ReadPlan(lt.SnapshotId, pred)
	})
	return fx.icePlan, fx.lakeErr
}

// icebergFields are the Iceberg table's columns in the lake field model.
func (fx *fragExec) icebergFields(ctx context.Context) ([]paimon.DataField, error) {
	plan, err := fx.icebergPlan(ctx)
	if err != nil {
		return nil, err
	}
	return plan.Fields, nil
}

// readIceberg reads one LAKE range of an Iceberg table: one data file
// with its deletes applied. A LAKE_SUPPRESS range (a Fluss primary-key
// table on an Iceberg lake) drops the rows whose key its bucket's log tail
// changed, as for Paimon.
func (fx *fragExec) readIceberg(ctx context.Context, r *inletpb.Range, emit emitFn) error {
	if r.Type != inletpb.RangeType_LAKE && r.Type != inletpb.RangeType_LAKE_SUPPRESS {
		return fmt.Errorf("%w: range %d: an Iceberg table is read by LAKE ranges only", ErrInvalid, r.Id)
	}
	var sup *unionread.Suppressor
	if r.Type == inletpb.RangeType_LAKE_SUPPRESS {
		if r.Tail == nil {
			return fmt.Errorf("%w: range %d: LAKE_SUPPRESS split without a tail", ErrInvalid, r.Id)
		}
		set, err := fx.tailKeys(ctx, r.Tail)
		if err != nil {
			return err
		}
		sup = unionread.NewSuppressor(set, fx.keyPos, fx.mem)
		defer sup.Release()
	}
	plan, err := fx.icebergPlan(ctx)
	if err != nil {
		return err
	}
	split, err := iceberg.DecodeSplit(r.LakeSplit)
	if err != nil {
		return fmt.Errorf("%w: range %d: lake split: %w", ErrInvalid, r.Id, err)
	}
	bufs := fx.takeBuffers()
	defer fx.putBuffers(bufs)
	rd, err := plan.Open(ctx, split, fx.mem, iceberg.ReadOptions{Columns: fx.readNames, BatchSize: fx.batchSize, Buffers: bufs})
	if err != nil {
		return fmt.Errorf("range %d: %w", r.Id, err)
	}
	defer rd.Release()
	for rd.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := fx.conform(rd.RecordBatch())
		if err != nil {
			return fmt.Errorf("range %d: %w", r.Id, err)
		}
		if sup != nil {
			t0 := time.Now()
			s, dropped, err := sup.Apply(ctx, c)
			c.Release()
			fx.ctr.addTime(cSuppressTime, time.Since(t0))
			if err != nil {
				return fmt.Errorf("range %d: %w", r.Id, err)
			}
			fx.ctr.add(cSuppressedRows, int64(dropped))
			c = s
		}
		fx.ctr.add(cLakeRowsReturned, c.NumRows())
		_, err = fx.emitOut(ctx, c, true, emit)
		c.Release()
		if err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return fmt.Errorf("range %d: %w", r.Id, err)
	}
	return nil
}
