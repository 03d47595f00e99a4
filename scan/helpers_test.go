package scan_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/minifluss"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/scan"
	"github.com/inlet-db/inlet/typemap"
)

// harness is an emulated Fluss cluster with a Paimon lake, a client to
// plan with (the test plans offsets itself, as the planner would) and an
// executor under test.
type harness struct {
	t  testing.TB
	c  *minifluss.Cluster
	cl *client.Client
	ex *scan.Executor
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	c, err := minifluss.Start(ctx, minifluss.Config{DataDir: t.TempDir(), TabletServers: 2, DatalakeFormat: "paimon",
		Lake: minifluss.LakeConfig{Warehouse: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(client.Config{BootstrapServers: []string{c.BootstrapAddr()}})
	if err != nil {
		t.Fatal(err)
	}
	ex := scan.NewExecutor(scan.Config{Name: "be-test"})
	t.Cleanup(func() {
		ex.Close()
		cl.Close()
		c.Close()
	})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	return h(t, c, cl, ex)
}

func h(t testing.TB, c *minifluss.Cluster, cl *client.Client, ex *scan.Executor) *harness {
	return &harness{t: t, c: c, cl: cl, ex: ex}
}

// plan is what the test fixed for one read: the lake snapshot and, per
// (partition, bucket), the tiered end and the stop offset.
type plan struct {
	table    string
	info     minifluss.TableInfo
	parts    []string // partition names ("" when unpartitioned)
	lake     *paimon.Plan
	lakePath string
	lakeSnap client.LakeSnapshot
	hasLake  bool
	stops    map[string]int64 // "part/bucket" → stop
}

func pb(part string, b int32) string { return fmt.Sprintf("%s/%d", part, b) }

// planRead fixes offsets the way the planner must: the readable lake
// snapshot first, then the latest offsets.
func (hs *harness) planRead(table string, parts []string) *plan {
	t := hs.t
	t.Helper()
	ctx := context.Background()
	info, err := hs.c.Table("db", table)
	if err != nil {
		t.Fatal(err)
	}
	p := &plan{table: table, info: info, parts: parts, stops: map[string]int64{}}
	if len(parts) == 0 {
		p.parts = []string{""}
	}
	snap, err := hs.cl.ReadableLakeSnapshot(ctx, client.TablePath{Database: "db", Table: table})
	if err == nil {
		p.hasLake, p.lakeSnap = true, snap
		p.lakePath, err = hs.c.LakeTablePath("db", table)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := paimon.OpenTable(ctx, fileio.Local{}, p.lakePath)
		if err != nil {
			t.Fatal(err)
		}
		if p.lake, err = tbl.Plan(ctx, paimon.ScanOptions{SnapshotID: snap.SnapshotID}); err != nil {
			t.Fatal(err)
		}
	}
	for _, part := range p.parts {
		for b := int32(0); b < info.Buckets; b++ {
			off, err := hs.c.Offsets("db", table, part, b)
			if err != nil {
				t.Fatal(err)
			}
			p.stops[pb(part, b)] = off.HighWatermark
		}
	}
	return p
}

func (hs *harness) partID(table, part string) (bool, int64) {
	if part == "" {
		return false, 0
	}
	id, err := hs.c.PartitionID("db", table, part)
	if err != nil {
		hs.t.Fatal(err)
	}
	return true, id
}

func (p *plan) lakeEnd(hs *harness, part string, b int32) int64 {
	has, id := hs.partID(p.table, part)
	if !p.hasLake {
		return 0
	}
	var pp *int64
	if has {
		pp = &id
	}
	off, ok := p.lakeSnap.LogOffset(pp, b)
	if !ok || off < 0 {
		return 0
	}
	return off
}

// fragment builds a fragment of the given ranges projecting cols.
func (hs *harness) fragment(p *plan, cols []int32, ranges []*inletpb.Range) *inletpb.Fragment {
	t := hs.t
	t.Helper()
	tcols := tableColumns(t, p.info)
	var fields []arrow.Field
	for _, c := range cols {
		f, err := typemap.ArrowField(tcols[c].Name, tcols[c].Type)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, f)
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, nil)))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := &inletpb.Fragment{QueryId: fmt.Sprintf("q-%d", time.Now().UnixNano()), OutputSchema: buf.Bytes(), Projection: cols, Limit: -1,
		Ranges: ranges, MaxTailRows: 1 << 20,
		Fluss: &inletpb.FlussTable{Database: "db", Table: p.table, TableId: p.info.ID, SchemaId: p.info.SchemaID, TableJson: p.info.JSON,
			ClientOptions: map[string]string{"bootstrap.servers": hs.c.BootstrapAddr()}, RemoteDataDir: hs.c.RemoteDataDir()},
		Options: &inletpb.ScanOptions{MaxConcurrency: 4}}
	if p.hasLake {
		f.Lake = &inletpb.LakeTable{TablePath: p.lakePath, SnapshotId: p.lakeSnap.SnapshotID, SchemaId: p.lake.Schema.ID}
	}
	for i := range ranges {
		ranges[i].Id = int64(i)
	}
	return f
}

func tableColumns(t testing.TB, info minifluss.TableInfo) []typemap.Column {
	t.Helper()
	cols, err := columnsOf(info.JSON)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// splitsOf returns the encoded lake splits per "part/bucket".
func (hs *harness) splitsOf(p *plan) map[string][][]byte {
	t := hs.t
	out := map[string][][]byte{}
	if !p.hasLake {
		return out
	}
	for i := range p.lake.Splits {
		s := &p.lake.Splits[i]
		var vals []string
		for _, v := range s.Partition {
			vals = append(vals, fmt.Sprint(v))
		}
		part := strings.Join(vals, "$")
		b, err := paimon.EncodeSplit(s)
		if err != nil {
			t.Fatal(err)
		}
		out[pb(part, s.Bucket)] = append(out[pb(part, s.Bucket)], b)
	}
	return out
}

// unionPK plans a union read of a primary-key table: LAKE_SUPPRESS splits
// bound to their bucket's tail, plus a PK_TAIL per bucket.
func (hs *harness) unionPK(p *plan) []*inletpb.Range {
	splits := hs.splitsOf(p)
	var rs []*inletpb.Range
	for _, part := range p.parts {
		has, id := hs.partID(p.table, part)
		for b := int32(0); b < p.info.Buckets; b++ {
			end, stop := p.lakeEnd(hs, part, b), p.stops[pb(part, b)]
			tail := &inletpb.Tail{HasPartition: has, PartitionId: id, Bucket: b, StartOffset: end, StopOffset: stop}
			for _, sp := range splits[pb(part, b)] {
				r := &inletpb.Range{Type: inletpb.RangeType_LAKE_SUPPRESS, LakeSplit: sp, Tail: tail, Affinity: pb(part, b)}
				if end == stop {
					r.Type, r.Tail = inletpb.RangeType_LAKE, nil
				}
				rs = append(rs, r)
			}
			if end < stop {
				rs = append(rs, &inletpb.Range{Type: inletpb.RangeType_PK_TAIL, HasPartition: has, PartitionId: id, PartitionName: part,
					Bucket: b, LogStartOffset: end, LogStopOffset: stop, DeclaredBytes: 1 << 20, Affinity: pb(part, b)})
			}
		}
	}
	return rs
}

// flussPK plans a Fluss-only read of a primary-key table.
func (hs *harness) flussPK(p *plan) []*inletpb.Range {
	var rs []*inletpb.Range
	for _, part := range p.parts {
		has, id := hs.partID(p.table, part)
		for b := int32(0); b < p.info.Buckets; b++ {
			rs = append(rs, &inletpb.Range{Type: inletpb.RangeType_PK_FULL, HasPartition: has, PartitionId: id, PartitionName: part,
				Bucket: b, LogStartOffset: -2, LogStopOffset: p.stops[pb(part, b)], KvSnapshotId: -1, DeclaredBytes: 1 << 20})
		}
	}
	return rs
}

// unionLog plans a union read of a log table: lake splits plus the log
// after the tiered offsets.
func (hs *harness) unionLog(p *plan) []*inletpb.Range {
	splits := hs.splitsOf(p)
	var rs []*inletpb.Range
	for _, ss := range splits {
		for _, sp := range ss {
			rs = append(rs, &inletpb.Range{Type: inletpb.RangeType_LAKE, LakeSplit: sp, Native: true})
		}
	}
	for _, part := range p.parts {
		has, id := hs.partID(p.table, part)
		for b := int32(0); b < p.info.Buckets; b++ {
			end, stop := p.lakeEnd(hs, part, b), p.stops[pb(part, b)]
			if end < stop {
				rs = append(rs, &inletpb.Range{Type: inletpb.RangeType_LOG, HasPartition: has, PartitionId: id, PartitionName: part,
					Bucket: b, LogStartOffset: end, LogStopOffset: stop})
			}
		}
	}
	return rs
}

// flussLog plans a Fluss-only read of a log table from the earliest offset.
func (hs *harness) flussLog(p *plan) []*inletpb.Range {
	var rs []*inletpb.Range
	for _, part := range p.parts {
		has, id := hs.partID(p.table, part)
		for b := int32(0); b < p.info.Buckets; b++ {
			rs = append(rs, &inletpb.Range{Type: inletpb.RangeType_LOG, HasPartition: has, PartitionId: id, PartitionName: part,
				Bucket: b, LogStartOffset: -2, LogStopOffset: p.stops[pb(part, b)]})
		}
	}
	return rs
}

// run executes a fragment and returns its rows as sorted text lines and
// its stats; it checks that every byte allocated was freed.
func (hs *harness) run(f *inletpb.Fragment) ([]string, *inletpb.ScanStats) {
	t := hs.t
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rd, err := hs.ex.Execute(context.Background(), f, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var rows []string
	for rd.Next() {
		rec := rd.RecordBatch()
		if !rec.Schema().Equal(rd.Schema()) {
			t.Fatalf("batch schema %s differs from stream schema %s", rec.Schema(), rd.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for c := 0; c < int(rec.NumCols()); c++ {
				cells = append(cells, rec.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return rows, rd.Stats()
}

func sameRows(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: %d rows differ from the expected %d\n got: %v\nwant: %v", what, len(got), len(want), head(got), head(want))
	}
}

func head(s []string) []string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}
