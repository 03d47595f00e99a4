package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/catalog/fluss"
	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/typemap"
)

// flussMeta is every Fluss call planning makes; *client.Client satisfies it.
// Planning reads metadata only, so EXPLAIN is as safe as the query.
type flussMeta interface {
	ReadableLakeSnapshot(ctx context.Context, t client.TablePath) (client.LakeSnapshot, error)
	ListPartitionInfos(ctx context.Context, t client.TablePath, partial ...client.KeyValue) ([]client.PartitionInfo, error)
	LatestKvSnapshots(ctx context.Context, t client.TablePath, part *int64) (client.KvSnapshots, error)
	ListOffsets(ctx context.Context, t client.TablePath, part *int64, spec client.OffsetSpec) (map[int32]int64, error)
}

// Degraded reasons (EXPLAIN's degraded=).
const (
	degradedKeyType       = "key-type"
	degradedPartitionType = "partition-type"
	degradedTailTruncated = "tail-truncated"
	degradedTailTooLarge  = "tail-too-large"
)

// earliestOffset is Range.log_start_offset's "the bucket's earliest".
const earliestOffset = -2

// bucketKey names one bucket of one partition (part -1: unpartitioned).
type bucketKey struct {
	part   int64
	bucket int32
}

// partState is what planning read about one partition (or the whole of an
// unpartitioned table), in the order the read-order invariant demands.
type partState struct {
	info     *client.PartitionInfo // nil when unpartitioned
	kv       map[int32]client.KvSnapshot
	latest   map[int32]int64
	earliest map[int32]int64 // nil when not read
}

func (s *partState) id() int64 {
	if s.info == nil {
		return -1
	}
	return s.info.ID
}

func (s *partState) where(bucket int32) string {
	if s.info == nil {
		return fmt.Sprintf("bucket %d", bucket)
	}
	return fmt.Sprintf("partition '%s', bucket %d", s.info.Name(), bucket)
}

// flussPlan is one planning run over a Fluss table.
type flussPlan struct {
	st    *fluss.ScanTarget
	req   Request
	meta  flussMeta
	name  string // db.table, for messages
	mode  unionMode
	pk    bool
	nbkt  int32
	proj  []int
	width int64

	partKinds []partKind
	partIdx   []int // table column index of each partition key

	// Union state.
	snap     *client.LakeSnapshot
	lakeEnds map[bucketKey]int64
	lake     *fluss.Lake
	lakePlan *paimon.Plan
	lakePred *paimon.Predicate
	icePlan  *iceberg.Plan // the lake half when the lake is Iceberg

	frag     *inletpb.Fragment
	counts   Counts
	nextID   int64
	fileSize int64 // lake files of the emitted splits
}

func planFluss(ctx context.Context, st *fluss.ScanTarget, req Request) (*Result, error) {
	if st.Info == nil || st.Info.Descriptor == nil {
		return nil, fmt.Errorf("planner: table %s: no table info", st.Path)
	}
	p := &flussPlan{
		st:   st,
		req:  req,
		meta: st.Client,
		name: st.Path.Database + "." + st.Path.Table,
		pk:   st.Info.Descriptor.HasPrimaryKey(),
		nbkt: st.Info.Descriptor.BucketCount(),
	}
	if st.Client == nil {
		return nil, fmt.Errorf("planner: table %s: no fluss client", p.name)
	}
	return p.run(ctx)
}

func (p *flussPlan) run(ctx context.Context) (*Result, error) {
	var err error
	if p.mode, err = resolveMode(p.st.Options.UnionMode, p.req.Vars); err != nil {
		return nil, err
	}
	if p.proj, err = projection(p.name, p.st.Columns, p.req.Columns); err != nil {
		return nil, err
	}
	if err := p.partitionColumns(); err != nil {
		return nil, err
	}
	p.width = rowWidth(p.st.Columns, p.widthColumns())
	if p.st.Mode == fluss.ReadLake {
		return p.planLakeView(ctx)
	}
	if p.req.TimeTravel != nil {
		return nil, errTimeTravelFluss(p.name, p.st.Mode)
	}
	if p.st.Mode == fluss.ReadChangelog || p.st.Mode == fluss.ReadBinlog {
		return p.planChangelog(ctx)
	}
	schema, err := outputSchema(p.st.Columns, p.proj, p.req.Pruned)
	if err != nil {
		return nil, err
	}
	p.frag = &inletpb.Fragment{
		QueryId:      p.req.QueryID,
		ScanId:       p.req.ScanID,
		Fluss:        p.flussTable(),
		OutputSchema: schema,
		Projection:   int32s(p.proj),
		Filters:      filtersFor(p.req.Predicates, p.st.Columns),
		LogFilterOr:  orFiltersFor(p.req.OrPredicates, p.st.Columns),
		Limit:        limitOf(p.req.Limit),
		Options:      scanOptions(p.req.Vars),
	}
	p.counts.Mode = p.mode.String()
	p.counts.ReadMode = "default"
	if p.st.Mode == fluss.ReadLog {
		p.counts.ReadMode = "log"
		err = p.planLog(ctx)
	} else {
		err = p.planDefault(ctx)
	}
	if err != nil {
		return nil, err
	}
	l := p.capLogRanges()
	res := p.result()
	if l != "" {
		for i, x := range res.Lines {
			if strings.HasPrefix(x, "flussScan: ") {
				res.Lines = append(res.Lines[:i+1], append([]string{l}, res.Lines[i+1:]...)...)
				break
			}
		}
	}
	return res, nil
}

// partitionColumns finds the partition keys; the catalog's check refuses
// types whose values cannot be read back from a partition name.
func (p *flussPlan) partitionColumns() error {
	if err := fluss.CheckReadablePartitions(p.st); err != nil {
		return err
	}
	for _, k := range p.st.PartitionKeys {
		idx := -1
		for i, c := range p.st.FlussColumns {
			if c.Name == k {
				idx = i
			}
		}
		if idx < 0 {
			return fmt.Errorf("planner: table %s: partition key %q is not a column", p.name, k)
		}
		p.partIdx = append(p.partIdx, idx)
		p.partKinds = append(p.partKinds, partKindOf(p.st.FlussColumns[idx].Type))
	}
	return nil
}

func (p *flussPlan) flussTable() *inletpb.FlussTable {
	return &inletpb.FlussTable{
		Database:      p.st.Path.Database,
		Table:         p.st.Path.Table,
		TableId:       p.st.Info.TableID,
		SchemaId:      p.st.Info.SchemaID,
		TableJson:     p.st.Info.TableJSON,
		ClientOptions: maps.Clone(p.st.Options.ClientOptions),
		RemoteDataDir: p.st.Info.RemoteDataDir,
	}
}

// keyColumns are the physical primary key's positions.
func (p *flussPlan) keyColumns() []int {
	var out []int
	for _, k := range p.st.Info.Descriptor.PhysicalPrimaryKey() {
		for i, c := range p.st.FlussColumns {
			if c.Name == k {
				out = append(out, i)
			}
		}
	}
	return out
}

// widthColumns are the columns a heavy reader holds per row: the
// projection plus the key.
func (p *flussPlan) widthColumns() []int {
	seen := map[int]bool{}
	var out []int
	for _, i := range append(append([]int(nil), p.proj...), p.keyColumns()...) {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

// ---- reading metadata ------------------------------------------------------

// partitions lists the live partitions and selects those the predicates
// can match. Unpartitioned tables have one nil partition.
func (p *flussPlan) partitions(ctx context.Context) (live, selected []*client.PartitionInfo, err error) {
	if len(p.st.PartitionKeys) == 0 {
		p.counts.SelectedPartitions, p.counts.TotalPartitions = 1, 1
		return nil, []*client.PartitionInfo{nil}, nil
	}
	infos, err := p.meta.ListPartitionInfos(ctx, p.st.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("planner: table %s: list partitions: %w", p.name, err)
	}
	for i := range infos {
		pi := &infos[i]
		live = append(live, pi)
		if partitionMayMatch(p.req.Predicates, p.st.PartitionKeys, p.partKinds, specValues(pi)) {
			selected = append(selected, pi)
		}
	}
	p.counts.SelectedPartitions, p.counts.TotalPartitions = len(selected), len(live)
	return live, selected, nil
}

func specValues(pi *client.PartitionInfo) []string {
	out := make([]string, len(pi.Spec))
	for i, kv := range pi.Spec {
		out[i] = kv.Value
	}
	return out
}

// readState reads one partition: KV snapshots (PK tables) before latest
// offsets, earliest offsets last, each call covering every bucket of the
// partition at one instant.
func (p *flussPlan) readState(ctx context.Context, pi *client.PartitionInfo, earliest bool) (*partState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &partState{info: pi}
	var part *int64
	if pi != nil {
		id := pi.ID
		part = &id
	}
	if p.pk {
		kv, err := p.meta.LatestKvSnapshots(ctx, p.st.Path, part)
		if err != nil {
			return nil, fmt.Errorf("planner: table %s: %w", p.name, err)
		}
		s.kv = make(map[int32]client.KvSnapshot, len(kv.Buckets))
		for _, b := range kv.Buckets {
			s.kv[b.Bucket] = b
		}
	}
	latest, err := p.meta.ListOffsets(ctx, p.st.Path, part, client.Latest())
	if err != nil {
		return nil, fmt.Errorf("planner: table %s: latest offsets: %w", p.name, err)
	}
	s.latest = latest
	if earliest {
		if s.earliest, err = p.meta.ListOffsets(ctx, p.st.Path, part, client.Earliest()); err != nil {
			return nil, fmt.Errorf("planner: table %s: earliest offsets: %w", p.name, err)
		}
	}
	return s, nil
}

func (p *flussPlan) readStates(ctx context.Context, parts []*client.PartitionInfo, earliest bool) ([]*partState, error) {
	return readAll(ctx, parts, func(ctx context.Context, pi *client.PartitionInfo) (*partState, error) {
		return p.readState(ctx, pi, earliest)
	})
}

// readSnapshot reads the readable lake snapshot; ok is false when there is
// none.
func (p *flussPlan) readSnapshot(ctx context.Context) (ok bool, err error) {
	snap, err := p.meta.ReadableLakeSnapshot(ctx, p.st.Path)
	if errors.Is(err, client.ErrLakeSnapshotNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("planner: table %s: %w", p.name, err)
	}
	p.snap = &snap
	p.lakeEnds = make(map[bucketKey]int64, len(snap.Buckets))
	for _, b := range snap.Buckets {
		if b.LogOffset < 0 {
			continue
		}
		k := bucketKey{part: -1, bucket: b.Bucket}
		if b.PartitionID != nil {
			k.part = *b.PartitionID
		}
		p.lakeEnds[k] = b.LogOffset
	}
	return true, nil
}

func (p *flussPlan) lakeEnd(s *partState, bucket int32) (int64, bool) {
	v, ok := p.lakeEnds[bucketKey{part: s.id(), bucket: bucket}]
	return v, ok
}

// checkLakeFormat refuses lake formats other than paimon and iceberg.
func (p *flussPlan) checkLakeFormat() error {
	f, err := p.st.Info.Descriptor.LakeFormat()
	if err != nil || (f != record.LakePaimon && f != record.LakeIceberg) {
		name := p.st.Info.Descriptor.Properties["table.datalake.format"]
		return errLakeFormat(p.name, name)
	}
	return nil
}

// ---- tbl$log -----------------------------------------------------------------

func (p *flussPlan) planLog(ctx context.Context) error {
	if p.pk {
		return errLogOnPK(p.name, p.st.Path.Table)
	}
	if !p.st.Info.Descriptor.DatalakeEnabled() {
		return errLogNotLake(p.name, p.st.Path.Table)
	}
	ok, err := p.readSnapshot(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errLogNoSnapshot(p.name, p.st.Path.Table)
	}
	_, selected, err := p.partitions(ctx)
	if err != nil {
		return err
	}
	states, err := p.readStates(ctx, selected, true)
	if err != nil {
		return err
	}
	if err := p.checkLogTails(states); err != nil {
		return err
	}
	p.counts.UnionRead = true
	for _, s := range states {
		p.unionLogRanges(s)
	}
	return nil
}

// checkLogTails fails when the log after the lake snapshot of any bucket is
// no longer complete: a log table has no other copy of those rows.
func (p *flussPlan) checkLogTails(states []*partState) error {
	for _, s := range states {
		for b := int32(0); b < p.nbkt; b++ {
			if where := p.truncated(s, b); where != "" {
				return errLogTailExpired(p.name, where)
			}
		}
	}
	return nil
}

// truncated describes a bucket whose tail [lakeEnd, stop) Fluss can no
// longer serve in full, or "" when it can (or has no tail).
func (p *flussPlan) truncated(s *partState, b int32) string {
	end, ok := p.lakeEnd(s, b)
	stop := s.latest[b]
	if !ok || end >= stop {
		return ""
	}
	e, known := s.earliest[b]
	if !known {
		return s.where(b) + " (fluss did not report an earliest offset for it)"
	}
	if e > end {
		return fmt.Sprintf("%s (the lake ends at offset %d, but the log now starts at %d)", s.where(b), end, e)
	}
	return ""
}

// ---- the table itself --------------------------------------------------------

func (p *flussPlan) planDefault(ctx context.Context) error {
	desc := p.st.Info.Descriptor
	union := desc.DatalakeEnabled() && p.mode.mode != fluss.ModeDisabled
	degraded := ""
	if union && p.pk {
		why, reason := p.keyRejection()
		if why != "" {
			if p.mode.required() {
				return errKeyMerge(p.name, why, p.mode.session)
			}
			degraded = reason
		}
	}
	if union {
		// The lake snapshot comes before any offset, so the snapshot is at
		// or behind every stop offset read below.
		ok, err := p.readSnapshot(ctx)
		if err != nil {
			return err
		}
		if !ok {
			if p.mode.required() {
				return errNoSnapshotRequired(p.name, p.mode.session)
			}
			union = false
		} else if err := p.checkLakeFormat(); err != nil {
			return err
		}
	}
	live, selected, err := p.partitions(ctx)
	if err != nil {
		return err
	}
	// A LIMIT with nothing to filter may cut a log table's ranges short
	// (capLogRanges), which needs each bucket's first offset.
	capLimit := !p.pk && !union && p.req.Limit >= 0 && len(p.req.Predicates) == 0
	states, err := p.readStates(ctx, selected, (union && degraded == "") || capLimit)
	if err != nil {
		return err
	}
	if !p.pk {
		if !union {
			for _, s := range states {
				p.logRanges(s)
			}
			return nil
		}
		if err := p.checkLogTails(states); err != nil {
			return err
		}
		if err := p.planLake(ctx); err != nil {
			return err
		}
		p.counts.UnionRead = true
		if err := p.lakeRanges(states, live, bindPlain); err != nil {
			return err
		}
		for _, s := range states {
			p.unionLogRanges(s)
		}
		return nil
	}
	if union && degraded == "" {
		if where := p.firstTruncated(states); where != "" {
			if p.mode.required() {
				return errTailTruncated(p.name, where, p.mode.session)
			}
			degraded = degradedTailTruncated
		} else if why := p.tailOverBudget(states); why != "" {
			if p.mode.required() {
				return errTailTooLarge(p.name, why, p.mode.session)
			}
			degraded = degradedTailTooLarge
		}
	}
	p.counts.Degraded = degraded
	if !union {
		p.pkFullAll(states)
		return nil
	}
	if degraded != "" {
		// Fluss keeps the whole state of its live partitions; only
		// partitions it has dropped are still read from the lake.
		if len(p.st.PartitionKeys) > 0 {
			if err := p.planLake(ctx); err != nil {
				return err
			}
			mode := bindLakeOnly
			if degraded == degradedPartitionType {
				mode = bindLakeOnlyTyped
			}
			if err := p.lakeRanges(states, live, mode); err != nil {
				return err
			}
			p.counts.UnionRead = p.counts.LakeSplits > 0
		}
		p.pkFullAll(states)
		return nil
	}
	if err := p.planLake(ctx); err != nil {
		return err
	}
	p.counts.UnionRead = true
	p.frag.KeyColumns = int32s(p.keyColumns())
	p.frag.MaxTailRows = p.st.Options.MaxTailRows
	if err := p.lakeRanges(states, live, bindSuppress); err != nil {
		return err
	}
	for _, s := range states {
		for b := int32(0); b < p.nbkt; b++ {
			end, ok := p.lakeEnd(s, b)
			stop := s.latest[b]
			switch {
			case !ok:
				p.pkFull(s, b) // never tiered: the lake holds nothing of it
			case end < stop:
				r := p.flussRange(inletpb.RangeType_PK_TAIL, s, b, end, stop)
				r.DeclaredBytes = (stop - end) * p.width
				p.add(r)
			}
		}
	}
	return nil
}

// keyRejection says why a PK table's rows cannot be matched by key across
// the halves, and the degraded reason.
func (p *flussPlan) keyRejection() (why, reason string) {
	for _, k := range p.st.Info.Descriptor.PhysicalPrimaryKey() {
		t, ok := p.flussType(k)
		if !ok {
			return fmt.Sprintf("its primary key names column '%s', which the table does not have", k), degradedKeyType
		}
		if r := keyTypeRejection(t, p.st.Options.MapTimestampTZ); r != "" {
			return fmt.Sprintf("primary-key column '%s' has type %s, and %s", k, t, r), degradedKeyType
		}
	}
	for _, k := range p.st.PartitionKeys {
		t, _ := p.flussType(k)
		if t.Root != typemap.RootString {
			return fmt.Sprintf("partition column '%s' has type %s, and only STRING partition values are written identically by the lake and by fluss, so lake splits cannot be matched to fluss partitions", k, t), degradedPartitionType
		}
	}
	return "", ""
}

func (p *flussPlan) flussType(name string) (typemap.DataType, bool) {
	for _, c := range p.st.FlussColumns {
		if c.Name == name {
			return c.Type, true
		}
	}
	return typemap.DataType{}, false
}

// keyTypeRejection: key types whose values cannot be compared exactly
// between the lake and the log (spec, Cases where auto falls back).
func keyTypeRejection(t typemap.DataType, timestampTZ bool) string {
	switch t.Root {
	case typemap.RootFloat, typemap.RootDouble:
		return "floating-point values cannot be compared exactly between the lake and the log"
	case typemap.RootTime:
		return "TIME has no engine type to compare it with"
	case typemap.RootTimestamp:
		if t.Precision > typemap.MaxEngineDatetimePrecision {
			return "its precision above 6 is cut to datetime(6), so distinct keys can compare equal"
		}
	case typemap.RootTimestampLTZ:
		if !timestampTZ {
			return "TIMESTAMP_LTZ maps to DATETIMEV2, a local date-time that two instants share during a daylight-saving overlap (set enable.mapping.timestamp_tz=true to map it to timestamptz)"
		}
		if t.Precision > typemap.MaxEngineDatetimePrecision {
			return "its precision above 6 is cut to timestamptz(6), so distinct keys can compare equal"
		}
	}
	return ""
}

func (p *flussPlan) firstTruncated(states []*partState) string {
	for _, s := range states {
		for b := int32(0); b < p.nbkt; b++ {
			if w := p.truncated(s, b); w != "" {
				return w
			}
		}
	}
	return ""
}

// tailOverBudget checks the tails against the per-bucket and per-scan row
// ceilings; log offsets are dense, so stop - lakeEnd is the record count.
func (p *flussPlan) tailOverBudget(states []*partState) string {
	perBucket, total := p.st.Options.MaxTailRows, p.st.Options.MaxTotalTailRows
	var sum int64
	for _, s := range states {
		for b := int32(0); b < p.nbkt; b++ {
			end, ok := p.lakeEnd(s, b)
			stop := s.latest[b]
			if !ok || end >= stop {
				continue
			}
			rows := stop - end
			if perBucket > 0 && rows > perBucket {
				return fmt.Sprintf("%s has a log tail of %d records, over the %d allowed by 'fluss.union_read.max_tail_rows'", s.where(b), rows, perBucket)
			}
			sum += rows
		}
	}
	if total > 0 && sum > total {
		return fmt.Sprintf("its log tails hold %d records in total, over the %d allowed by 'fluss.union_read.max_total_tail_rows'", sum, total)
	}
	return ""
}

// ---- ranges ------------------------------------------------------------------

func affinity(part int64, bucket int32) string {
	if part < 0 {
		return "b" + strconv.Itoa(int(bucket))
	}
	return "p" + strconv.FormatInt(part, 10) + "/b" + strconv.Itoa(int(bucket))
}

func (p *flussPlan) add(r *inletpb.Range) {
	r.Id = p.nextID
	p.nextID++
	switch r.Type {
	case inletpb.RangeType_LOG:
		p.counts.LogRanges++
	case inletpb.RangeType_PK_FULL:
		p.counts.PKRanges++
	case inletpb.RangeType_PK_TAIL:
		p.counts.PKTailRanges++
	case inletpb.RangeType_LAKE:
		p.counts.LakeSplits++
	case inletpb.RangeType_LAKE_SUPPRESS:
		p.counts.LakeSplits++
		p.counts.SuppressedLakeSplits++
	}
	p.frag.Ranges = append(p.frag.Ranges, r)
}

func (p *flussPlan) flussRange(t inletpb.RangeType, s *partState, b int32, start, stop int64) *inletpb.Range {
	r := &inletpb.Range{
		Type:           t,
		Bucket:         b,
		LogStartOffset: start,
		LogStopOffset:  stop,
		KvSnapshotId:   -1,
		Affinity:       affinity(s.id(), b),
	}
	if s.info != nil {
		r.HasPartition = true
		r.PartitionId = s.info.ID
		r.PartitionName = s.info.Name()
		r.PartitionValues = make(map[int32]string, len(p.partIdx))
		for i, idx := range p.partIdx {
			if i < len(s.info.Spec) {
				r.PartitionValues[int32(idx)] = s.info.Spec[i].Value
			}
		}
	}
	return r
}

// logRanges: a log table read from Fluss alone, [earliest, stop) per bucket;
// the BE resolves the earliest offset unless planning read it.
func (p *flussPlan) logRanges(s *partState) {
	for b := int32(0); b < p.nbkt; b++ {
		stop := s.latest[b]
		if stop <= 0 {
			continue
		}
		start := int64(earliestOffset)
		if e, ok := s.earliest[b]; ok {
			if e >= stop {
				continue
			}
			start = e
		}
		p.add(p.flussRange(inletpb.RangeType_LOG, s, b, start, stop))
	}
}

// unionLogRanges: the log half of a union (or tbl$log), from where the lake
// snapshot ends; a bucket the snapshot never saw starts at its earliest. A
// long tail is cut into several ranges (tailPieces).
func (p *flussPlan) unionLogRanges(s *partState) {
	for b := int32(0); b < p.nbkt; b++ {
		stop := s.latest[b]
		if stop <= 0 {
			continue
		}
		end, ok := p.lakeEnd(s, b)
		switch {
		case !ok:
			p.add(p.flussRange(inletpb.RangeType_LOG, s, b, earliestOffset, stop))
		case end < stop:
			pieces := tailPieces(end, stop, p.tailPieceCap())
			for _, c := range pieces {
				r := p.flussRange(inletpb.RangeType_LOG, s, b, c[0], c[1])
				if len(pieces) > 1 {
					r.LogTailStartOffset, r.LogTailStopOffset = end, stop
				}
				p.add(r)
			}
		}
	}
}

// A log tail of at least 2*tailPieceRecords records is read as up to
// maxTailPieces ranges (the session's fluss_log_tail_pieces) of at least
// tailPieceRecords each. One range is one
// reader: a chain of fetch round trips, each waiting for the tablet server
// and for the BE's scheduler to notice the answer. While the lake splits
// keep every core busy those waits add up (Go's scheduler polls the
// network only when a core runs out of work, or every 10 ms), and the
// tail's one reader could end well after the lake (TPC-H lineitem: 5 % of
// the rows, ~18 fetches in a row). Pieces read side by side overlap their
// waits and spread the decoding over the cores. Each piece owns the Fluss
// batches that start in it (Range.log_tail_stop_offset), so a batch
// across a cut is decoded once; it is still fetched by both pieces, and
// the pieces are few.
const (
	tailPieceRecords = 32 << 10
	maxTailPieces    = 4
)

// tailPieceCap is fluss_log_tail_pieces, or maxTailPieces when unset.
func (p *flussPlan) tailPieceCap() int64 {
	if n, err := strconv.ParseInt(strings.TrimSpace(p.req.Vars[varTailPieces]), 10, 64); err == nil && n > 0 {
		return n
	}
	return maxTailPieces
}

// tailPieces cuts [start, stop) into consecutive offset ranges, at most
// most of them.
func tailPieces(start, stop, most int64) [][2]int64 {
	n := min((stop-start)/tailPieceRecords, most)
	if n <= 1 {
		return [][2]int64{{start, stop}}
	}
	out := make([][2]int64, 0, n)
	for i := int64(0); i < n; i++ {
		out = append(out, [2]int64{start + (stop-start)*i/n, start + (stop-start)*(i+1)/n})
	}
	return out
}

// pkFull emits one bucket's state from Fluss alone: KV snapshot plus the
// changelog up to stop. An empty bucket (no snapshot, nothing logged) gets
// no range.
func (p *flussPlan) pkFull(s *partState, b int32) {
	stop := s.latest[b]
	kv, has := s.kv[b]
	has = has && kv.HasSnapshot
	if !has && stop <= 0 {
		return
	}
	start := int64(earliestOffset)
	snapID := int64(-1)
	if has {
		start, snapID = kv.LogOffset, kv.SnapshotID
	}
	r := p.flussRange(inletpb.RangeType_PK_FULL, s, b, start, stop)
	r.KvSnapshotId = snapID
	rows := stop
	if has {
		rows = stop - kv.LogOffset
	}
	r.DeclaredBytes = max(rows, 0) * p.width
	p.add(r)
}

func (p *flussPlan) pkFullAll(states []*partState) {
	for _, s := range states {
		for b := int32(0); b < p.nbkt; b++ {
			p.pkFull(s, b)
		}
	}
}
