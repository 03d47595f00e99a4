package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"

	"github.com/inlet-db/inlet/catalog"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/proto/inletpb"
)

// metaConcurrency bounds the partitions whose offsets are read at once.
// Each partition is still one instant (its own ListOffsets call).
const metaConcurrency = 8

// projection validates the requested columns (nil: all) and refuses a
// column the engine cannot read.
func projection(table string, cols []catalog.Column, req []int) ([]int, error) {
	if req == nil {
		req = make([]int, len(cols))
		for i := range cols {
			req[i] = i
		}
	}
	out := make([]int, len(req))
	for i, c := range req {
		if c < 0 || c >= len(cols) {
			return nil, errBadColumn(table, c, len(cols))
		}
		if cols[c].Unsupported {
			return nil, errUnsupportedColumn(table, cols[c].Name)
		}
		out[i] = c
	}
	return out, nil
}

// outputSchema is the Arrow IPC schema of the projected engine columns.
func outputSchema(cols []catalog.Column, proj []int, pruned map[int]arrow.DataType) ([]byte, error) {
	fields := make([]arrow.Field, len(proj))
	for i, c := range proj {
		col := cols[c]
		if col.Type == nil {
			return nil, fmt.Errorf("planner: column %q has no type", col.Name)
		}
		t := col.Type
		if pt, ok := pruned[i]; ok {
			t = pt
		}
		fields[i] = arrow.Field{Name: col.Name, Type: t, Nullable: col.Nullable}
	}
	// The schema message holds no buffers; the allocator is never used for
	// data.
	return flight.SerializeSchema(arrow.NewSchema(fields, nil), memory.NewGoAllocator()), nil
}

// rowWidth estimates the bytes a reader holds per row of the given
// columns: fixed-width values at their width, strings, binary and nested
// values at 64 bytes (the spec's estimate).
func rowWidth(cols []catalog.Column, idx []int) int64 {
	var w int64
	for _, i := range idx {
		if i < 0 || i >= len(cols) || cols[i].Type == nil {
			w += 64
			continue
		}
		if fw, ok := cols[i].Type.(arrow.FixedWidthDataType); ok {
			if b := int64(fw.BitWidth() / 8); b > 0 {
				w += b
				continue
			}
			w++
			continue
		}
		w += 64
	}
	return max(w, 1)
}

func int32s(v []int) []int32 {
	if len(v) == 0 {
		return nil
	}
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func limitOf(l int64) int64 {
	if l < 0 {
		return -1
	}
	return l
}

// readAll reads the state of every partition, a bounded number at a time,
// keeping their order.
func readAll(ctx context.Context, parts []*client.PartitionInfo, read func(context.Context, *client.PartitionInfo) (*partState, error)) ([]*partState, error) {
	out := make([]*partState, len(parts))
	if len(parts) == 1 {
		s, err := read(ctx, parts[0])
		out[0] = s
		return out, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(metaConcurrency)
	for i, pi := range parts {
		g.Go(func() error {
			s, err := read(gctx, pi)
			out[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// commonLines are the EXPLAIN lines every scan node prints between its
// identity and its connector's own line.
func commonLines(preds []catalog.Predicate, frag *inletpb.Fragment, fileSize int64, c Counts) []string {
	var out []string
	if len(preds) > 0 {
		ps := make([]string, len(preds))
		for i, p := range preds {
			ps[i] = p.String()
		}
		out = append(out, "PREDICATES: "+strings.Join(ps, " AND "))
	}
	n := len(frag.Ranges)
	out = append(out,
		fmt.Sprintf("inputSplitNum=%d, totalFileSize=%d, scanRanges=%d", n, fileSize, n),
		fmt.Sprintf("partition=%d/%d", c.SelectedPartitions, c.TotalPartitions))
	return out
}

func (p *flussPlan) result() *Result {
	c := p.counts
	res := &Result{Fragment: p.frag, Node: "VPluginDrivenScanNode", Counts: c}
	res.Lines = append(res.Lines, "TABLE: "+p.st.Catalog+"."+p.name, "CONNECTOR: fluss")
	res.Lines = append(res.Lines, commonLines(p.req.Predicates, p.frag, p.fileSize, c)...)
	res.Lines = append(res.Lines, flussScanLine(c))
	if p.icePlan != nil {
		res.Lines = append(res.Lines, p.icebergLine())
	}
	res.Lines = append(res.Lines, prunedLines(p.st.Columns, p.proj, p.req.Pruned)...)
	res.Lines = append(res.Lines, "pushdown agg=NONE")
	if p.lakePlan != nil {
		res.Verbose = splitStats(p.lakePlan.Splits, p.frag.Options.GetForceMergeReader())
	}
	res.Verbose = append(res.Verbose, rangeLines(p.frag.Ranges)...)
	return res
}

// flussScanLine is the spec's EXPLAIN line, fields in the spec's order.
func flussScanLine(c Counts) string {
	yes := "no"
	if c.UnionRead {
		yes = "yes"
	}
	s := fmt.Sprintf("flussScan: readMode=%s, unionRead=%s, lakeSplits=%d, suppressedLakeSplits=%d, logRanges=%d, pkRanges=%d, pkTailRanges=%d, mode=%s",
		c.ReadMode, yes, c.LakeSplits, c.SuppressedLakeSplits, c.LogRanges, c.PKRanges, c.PKTailRanges, c.Mode)
	if c.Degraded != "" {
		s += ", degraded=" + c.Degraded
	}
	return s
}

// rangeLines list the ranges for EXPLAIN VERBOSE: the first three and the
// last of each kind's run.
func rangeLines(rs []*inletpb.Range) []string {
	if len(rs) == 0 {
		return nil
	}
	line := func(r *inletpb.Range) string {
		s := fmt.Sprintf("  %s %s", r.Type, r.Affinity)
		switch r.Type {
		case inletpb.RangeType_LOG, inletpb.RangeType_PK_TAIL:
			s += fmt.Sprintf(" [%d, %d)", r.LogStartOffset, r.LogStopOffset)
		case inletpb.RangeType_PK_FULL:
			s += fmt.Sprintf(" kvSnapshot=%d [%d, %d)", r.KvSnapshotId, r.LogStartOffset, r.LogStopOffset)
		case inletpb.RangeType_LAKE_SUPPRESS:
			s += fmt.Sprintf(" tail=[%d, %d)", r.Tail.GetStartOffset(), r.Tail.GetStopOffset())
		}
		if r.DeclaredBytes > 0 {
			s += fmt.Sprintf(" declared=%d", r.DeclaredBytes)
		}
		return s
	}
	out := []string{"ranges:"}
	for i, r := range rs {
		if len(rs) > 4 && i == 3 {
			out = append(out, fmt.Sprintf("  ... other %d ranges ...", len(rs)-4), line(rs[len(rs)-1]))
			break
		}
		out = append(out, line(r))
	}
	return out
}

// prunedLines are the EXPLAIN lines of nested column pruning, one per
// narrowed struct column, in output order.
func prunedLines(cols []catalog.Column, proj []int, pruned map[int]arrow.DataType) []string {
	var out []string
	for i, c := range proj {
		if pt, ok := pruned[i]; ok {
			out = append(out, fmt.Sprintf("column %s pruned type: %s", cols[c].Name, catalog.DorisTypeName(pt)))
		}
	}
	return out
}
