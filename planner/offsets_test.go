package planner_test

import (
	"context"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/planner"
	"github.com/inlet-db/inlet/proto/inletpb"
)

func planOf(t *testing.T, e *env, table string, mode string) *planner.Result {
	t.Helper()
	st := e.target(t, table, fluss.ReadDefault, fluss.Options{UnionMode: mode}, "")
	res, _, err := planner.Plan(context.Background(), &testTable{st: st}, planner.Request{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	checkFragment(t, res)
	return res
}

func rangesOf(res *planner.Result, typ inletpb.RangeType) []*inletpb.Range {
	var out []*inletpb.Range
	for _, r := range res.Fragment.Ranges {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// TestRangeOffsets checks offsets derived by hand from what the fixture
// scenario wrote (minifluss/testdata/doris_regression.scenario): every
// record takes one offset; an upsert of an existing key writes -U and +U,
// a new key +I, a delete -D.
func TestRangeOffsets(t *testing.T) {
	e := testEnv(t)

	t.Run("lake_pk", func(t *testing.T) {
		// Tiered: +I 1, +I 2, +I 3, then -U/+U 2 → lake ends at 5.
		// Tail: -U/+U 3, +I 4, -D 1 → [5, 9).
		res := planOf(t, e, "lake_pk", fluss.ModeRequired)
		tails := rangesOf(res, inletpb.RangeType_PK_TAIL)
		sup := rangesOf(res, inletpb.RangeType_LAKE_SUPPRESS)
		if len(tails) != 1 || tails[0].LogStartOffset != 5 || tails[0].LogStopOffset != 9 {
			t.Fatalf("PK_TAIL ranges %v, want one [5, 9)", tails)
		}
		if len(sup) != 1 || sup[0].Tail.GetStartOffset() != 5 || sup[0].Tail.GetStopOffset() != 9 || sup[0].Tail.GetBucket() != 0 || sup[0].Tail.GetHasPartition() {
			t.Fatalf("LAKE_SUPPRESS ranges %v, want one with tail bucket 0 [5, 9)", sup)
		}
		if len(sup[0].LakeSplit) == 0 || sup[0].Affinity != tails[0].Affinity {
			t.Errorf("suppressed split affinity %q, tail affinity %q", sup[0].Affinity, tails[0].Affinity)
		}
		if got := res.Fragment.KeyColumns; len(got) != 1 || got[0] != 0 {
			t.Errorf("key columns %v, want [0]", got)
		}
		if res.Fragment.MaxTailRows != 2_000_000 || res.Fragment.Lake == nil || res.Fragment.Lake.SnapshotId == 0 {
			t.Errorf("max tail rows %d, lake %v", res.Fragment.MaxTailRows, res.Fragment.Lake)
		}
		if tails[0].DeclaredBytes <= 0 {
			t.Errorf("PK_TAIL declares %d bytes", tails[0].DeclaredBytes)
		}
	})

	t.Run("lake_log", func(t *testing.T) {
		// Four rows tiered, then one statement of two rows: the log half
		// holds exactly two records, each from where the lake ends.
		res := planOf(t, e, "lake_log", fluss.ModeRequired)
		var n int64
		for _, r := range rangesOf(res, inletpb.RangeType_LOG) {
			if r.LogStartOffset < 0 {
				t.Errorf("tiered bucket %d read from the earliest offset", r.Bucket)
			}
			n += r.LogStopOffset - r.LogStartOffset
		}
		if n != 2 {
			t.Errorf("log half holds %d records, want 2", n)
		}
		if len(rangesOf(res, inletpb.RangeType_LAKE)) == 0 {
			t.Errorf("no lake splits")
		}
	})

	t.Run("pk_basic", func(t *testing.T) {
		// 4 × +I, -U/+U 2, -D 3: seven records over three buckets, no KV
		// snapshot.
		res := planOf(t, e, "pk_basic", fluss.ModeAuto)
		var stop int64
		for _, r := range rangesOf(res, inletpb.RangeType_PK_FULL) {
			if r.KvSnapshotId != -1 || r.LogStartOffset != -2 {
				t.Errorf("bucket %d: snapshot %d start %d, want -1 and -2", r.Bucket, r.KvSnapshotId, r.LogStartOffset)
			}
			stop += r.LogStopOffset
		}
		if stop != 7 {
			t.Errorf("PK_FULL ranges stop at %d records in total, want 7", stop)
		}
	})

	t.Run("lake_pk_part", func(t *testing.T) {
		// 20260101 tiered with keys 1 and 2, then -U/+U 1 and -D 2: three
		// tail records. 20260103 was written after the freeze: +I 5 only.
		// 20260102 lives in the lake only.
		res := planOf(t, e, "lake_pk_part", fluss.ModeRequired)
		var tail int64
		for _, r := range rangesOf(res, inletpb.RangeType_PK_TAIL) {
			if r.PartitionName != "20260101" || r.PartitionValues[2] != "20260101" {
				t.Errorf("tail of partition %q values %v", r.PartitionName, r.PartitionValues)
			}
			tail += r.LogStopOffset - r.LogStartOffset
		}
		if tail != 3 {
			t.Errorf("tails hold %d records, want 3", tail)
		}
		full := rangesOf(res, inletpb.RangeType_PK_FULL)
		if len(full) != 1 || full[0].PartitionName != "20260103" || full[0].LogStopOffset != 1 || full[0].PartitionValues[2] != "20260103" {
			t.Errorf("PK_FULL ranges %v, want one of partition 20260103 stopping at 1", full)
		}
		for _, r := range rangesOf(res, inletpb.RangeType_LAKE) {
			if r.Affinity[:5] != "lake/" {
				t.Errorf("lake-only split has affinity %q", r.Affinity)
			}
		}
	})

	t.Run("lake_pk_cold", func(t *testing.T) {
		res := planOf(t, e, "lake_pk_cold", fluss.ModeRequired)
		if n := len(res.Fragment.Ranges); n != len(rangesOf(res, inletpb.RangeType_LAKE)) || n == 0 {
			t.Errorf("fully tiered table planned %v", res.Fragment.Ranges)
		}
	})
}
