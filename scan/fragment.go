package scan

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/catalog/fluss/client"
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/exec"
	"github.com/inlet-db/inlet/exec/expr"
	"github.com/inlet-db/inlet/internal/keybits"
	"github.com/inlet-db/inlet/internal/tzone"
	"github.com/inlet-db/inlet/lake/iceberg"
	"github.com/inlet-db/inlet/lake/paimon"
	"github.com/inlet-db/inlet/proto/inletpb"
	"github.com/inlet-db/inlet/typemap"
)

// fragExec is one Execute call: the fragment, its column layout and the
// state its range readers share.
//
// Every range reads the same "read layout": the distinct table columns the
// output, the filters and (for union reads) the key columns need, each cast
// to one engine type (the output type when projected, the column's Fluss
// Arrow type otherwise). Lake and log batches therefore agree column by
// column before keys are compared, filters run and the output is cut.
type fragExec struct {
	// topKeys order each range's rows for its Top-N (Fragment.range_top_n).
	topKeys []exec.SortKey
	e       *Executor
	f       *inletpb.Fragment
	mem     memory.Allocator
	env     *expr.Env
	ctr     *counters
	q       *queryState

	out       *arrow.Schema
	reads     []int // table column indexes read, distinct
	readTypes []arrow.DataType
	readNames []string
	outPos    []int // per output column: index in reads
	keyPos    []int // per key column: index in reads
	keyCols   []int // key columns as table indexes
	pred      expr.Expr
	// lakePred is pred without the filters the lake reader already
	// applied exactly (Filter.lake_applied): the one Paimon lake ranges
	// need. Evaluating those again cost a fifth of a TPC-H lake scan.
	lakePred expr.Expr
	// predRF and lakeRF select the rows of pred and lakePred (nil: no
	// filter) with exec's compiled kernels rather than evaluating the
	// whole predicate into a mask and copying every column through it.
	predRF, lakeRF *exec.RowFilter
	// outReads are the read positions the output keeps, distinct: the
	// only columns a filtered batch needs gathered.
	outReads []int
	// lakeRuntime are the indexes in Filters of the runtime filters the
	// lake predicate took over (withRuntimeFilters).
	lakeRuntime map[int]bool
	// lakeSkip marks the read positions a Paimon lake range does not ask
	// its reader for: columns only filters the reader applies exactly
	// read (Q6's l_shipdate). The reader still reads them to filter, but
	// never builds them into its batches; the layout holds a placeholder
	// there that nothing reads (not lakePred, not the output, not keys).
	// lakeCols are the other positions' names, what the reader is asked.
	lakeSkip  []bool
	lakeCols  []string
	batchSize int
	// hexPos are the read positions of BINARY/BYTES partition columns read
	// as text: their value is the hex text Fluss names the partition with
	// (the spec's partition columns), not the raw bytes.
	hexPos []int

	// changelog is set when the fragment names a metadata column of
	// tbl$changelog (a negative column number, record.ChangelogWireColumn):
	// its LOG ranges then also produce those columns. meta holds, per read
	// position, the metadata column index, or -1 for a table column.
	changelog bool
	meta      []int
	// binlog is ScanOptions.binlog (tbl$binlog): the changelog's records
	// are folded into insert/update/delete rows; meta 3 and 4 are the
	// before and after images (record.BinlogImageIndex).
	binlog bool
	// tableReads are the table columns among reads, in read order.
	tableReads []int

	// logFilter is sent with the fetches of LOG and PK_TAIL ranges (nil:
	// none is pushable, or fluss_log_filter_pushdown is off).
	logFilter *client.FetchFilter

	// Fluss side (nil for a plain Paimon fragment).
	info *client.TableInfo
	cols []typemap.Column
	cl   *client.Client

	// Lake side, opened once per fragment on first use.
	lakeOnce sync.Once
	lakePlan *paimon.Plan
	icePlan  *iceberg.Plan // instead of lakePlan for an Iceberg table
	lakeErr  error

	doneMu  sync.Mutex
	done    []int64
	timings []*inletpb.RangeTiming // noteTiming

	// Reusable lake read buffers, one set per range reading at a time
	// (paimon.ScanBuffers), freed when the fragment's readers are done.
	bufMu   sync.Mutex
	bufFree []*paimon.ScanBuffers
	bufAll  []*paimon.ScanBuffers
}

// takeBuffers lends a range a set of lake read buffers; putBuffers takes
// it back for the next range.
func (fx *fragExec) takeBuffers() *paimon.ScanBuffers {
	fx.bufMu.Lock()
	defer fx.bufMu.Unlock()
	if n := len(fx.bufFree); n > 0 {
		b := fx.bufFree[n-1]
		fx.bufFree = fx.bufFree[:n-1]
		return b
	}
	b := &paimon.ScanBuffers{}
	fx.bufAll = append(fx.bufAll, b)
	return b
}

func (fx *fragExec) putBuffers(b *paimon.ScanBuffers) {
	fx.bufMu.Lock()
	fx.bufFree = append(fx.bufFree, b)
	fx.bufMu.Unlock()
}

// releaseBuffers frees every set; no range may be reading any more.
func (fx *fragExec) releaseBuffers() {
	fx.bufMu.Lock()
	all := fx.bufAll
	fx.bufAll, fx.bufFree = nil, nil
	fx.bufMu.Unlock()
	for _, b := range all {
		b.Release()
	}
}

func (e *Executor) prepare(ctx context.Context, f *inletpb.Fragment, mem memory.Allocator) (*fragExec, error) {
	fx := &fragExec{e: e, f: f, mem: mem, ctr: newCounters(), batchSize: int(f.GetOptions().GetBatchSize())}
	if fx.batchSize <= 0 {
		fx.batchSize = 8192
	}
	loc := time.UTC
	if tz := f.GetOptions().GetTimeZone(); tz != "" {
		l, err := sessionZone(tz)
		if err != nil {
			return nil, fmt.Errorf("%w: fragment %s: time zone %q: %v", ErrInvalid, f.QueryId, tz, err)
		}
		loc = l
	}
	fx.env = &expr.Env{Mem: mem, Now: time.Now(), Loc: loc}

	var names []string
	var baseTypes []arrow.DataType
	needKeys := false
	for _, r := range f.Ranges {
		switch r.Type {
		case inletpb.RangeType_LOG, inletpb.RangeType_PK_FULL, inletpb.RangeType_LAKE:
		case inletpb.RangeType_PK_TAIL, inletpb.RangeType_LAKE_SUPPRESS:
			needKeys = true
		default:
			return nil, fmt.Errorf("%w: fragment %s: range %d has unknown type %v", ErrInvalid, f.QueryId, r.Id, r.Type)
		}
		if r.Type != inletpb.RangeType_LAKE && r.Type != inletpb.RangeType_LAKE_SUPPRESS && f.Fluss == nil {
			return nil, fmt.Errorf("%w: fragment %s: %v range %d without a Fluss table", ErrInvalid, f.QueryId, r.Type, r.Id)
		}
		if (r.Type == inletpb.RangeType_LAKE || r.Type == inletpb.RangeType_LAKE_SUPPRESS) && f.Lake == nil {
			return nil, fmt.Errorf("%w: fragment %s: %v range %d without a lake table", ErrInvalid, f.QueryId, r.Type, r.Id)
		}
	}
	if ft := f.Fluss; ft != nil {
		desc, err := record.ParseTableDescriptor(ft.TableJson)
		if err != nil {
			return nil, fmt.Errorf("%w: fragment %s: table %s.%s: %w", ErrInvalid, f.QueryId, ft.Database, ft.Table, err)
		}
		fx.info = &client.TableInfo{Path: client.TablePath{Database: ft.Database, Table: ft.Table}, TableID: ft.TableId,
			SchemaID: ft.SchemaId, TableJSON: ft.TableJson, RemoteDataDir: ft.RemoteDataDir, Descriptor: desc}
		fx.cols = desc.Schema.TypeColumns()
		for _, c := range fx.cols {
			t, err := typemap.ArrowType(c.Type)
			if err != nil {
				return nil, fmt.Errorf("%w: table %s column %q: %w", ErrUnsupported, fx.info.Path, c.Name, err)
			}
			names, baseTypes = append(names, c.Name), append(baseTypes, t)
		}
		if needKeys {
			fx.keyCols = slices.Collect(func(yield func(int) bool) {
				for _, k := range f.KeyColumns {
					if !yield(int(k)) {
						return
					}
				}
			})
			if len(fx.keyCols) == 0 {
				for _, k := range desc.PhysicalPrimaryKey() {
					fx.keyCols = append(fx.keyCols, desc.Schema.ColumnIndex(k))
				}
			}
			if len(fx.keyCols) == 0 {
				return nil, fmt.Errorf("%w: fragment %s: union read of %s without key columns", ErrInvalid, f.QueryId, fx.info.Path)
			}
		}
		if fx.cl, err = e.clientFor(ft.ClientOptions); err != nil {
			return nil, err
		}
		if hasLakeRange(f) && !isIceberg(f.Lake) {
			// A union read's lake plan opens here, before the filters are
			// compiled, so that the runtime bounds its reader applies
			// exactly (withRuntimeFilters, fx.lakeRuntime) leave its lake
			// rows' BE predicate as they do a Paimon catalog's: evaluating
			// them again on every lake row was a tenth of a union read's
			// TPC-H CPU. Log and tail rows keep every filter (fx.pred).
			if _, err := fx.lake(ctx); err != nil {
				return nil, err
			}
		}
	} else {
		var fields []paimon.DataField
		if isIceberg(f.Lake) {
			fs, err := fx.icebergFields(ctx)
			if err != nil {
				return nil, err
			}
			fields = fs
		} else {
			plan, err := fx.lake(ctx)
			if err != nil {
				return nil, err
			}
			fields = plan.Schema.Fields
		}
		for _, fd := range fields {
			t, err := paimon.ArrowType(fd.Type)
			if err != nil {
				return nil, fmt.Errorf("%w: lake table %s column %q: %w", ErrUnsupported, f.Lake.TablePath, fd.Name, err)
			}
			names, baseTypes = append(names, fd.Name), append(baseTypes, t)
		}
		if needKeys {
			return nil, fmt.Errorf("%w: fragment %s: tail ranges need a Fluss table", ErrInvalid, f.QueryId)
		}
	}

	// The read layout.
	index := map[int]int{}
	metaCols := record.ChangelogColumns()
	metaCount := len(metaCols)
	fx.binlog = f.GetOptions().GetBinlog() && fx.info != nil
	if f.GetOptions().GetBinlog() && fx.info == nil {
		return nil, fmt.Errorf("%w: fragment %s: binlog read without a Fluss table", ErrInvalid, f.QueryId)
	}
	use := func(c int, what string) (int, error) {
		if p, ok := index[c]; ok {
			return p, nil
		}
		name, typ, mi := "", arrow.DataType(nil), -1
		if i, ok := record.BinlogImageIndex(c); ok && fx.binlog {
			t, err := typemap.ArrowType(record.BinlogColumns(fx.cols)[metaCount+i].Type)
			if err != nil {
				return 0, err
			}
			name, typ, mi = record.BinlogColumns(nil)[metaCount+i].Name, t, metaCount+i
			fx.changelog = true
		} else if i, ok := record.ChangelogMetaIndex(c); ok && fx.info != nil {
			t, err := typemap.ArrowType(metaCols[i].Type)
			if err != nil {
				return 0, err
			}
			name, typ, mi = metaCols[i].Name, t, i
			fx.changelog = true
		} else if c < 0 || c >= len(names) {
			return 0, fmt.Errorf("%w: fragment %s: %s column %d out of %d table columns", ErrInvalid, f.QueryId, what, c, len(names))
		} else {
			name, typ = names[c], baseTypes[c]
			fx.tableReads = append(fx.tableReads, c)
		}
		index[c] = len(fx.reads)
		fx.reads = append(fx.reads, c)
		fx.meta = append(fx.meta, mi)
		fx.readNames = append(fx.readNames, name)
		fx.readTypes = append(fx.readTypes, typ)
		return index[c], nil
	}
	for _, c := range f.Projection {
		p, err := use(int(c), "projected")
		if err != nil {
			return nil, err
		}
		fx.outPos = append(fx.outPos, p)
	}
	if len(f.OutputSchema) > 0 {
		rd, err := ipc.NewReader(bytes.NewReader(f.OutputSchema), ipc.WithAllocator(mem))
		if err != nil {
			return nil, fmt.Errorf("%w: fragment %s: output schema: %v", ErrInvalid, f.QueryId, err)
		}
		fx.out = rd.Schema()
		rd.Release()
		if fx.out.NumFields() != len(f.Projection) {
			return nil, fmt.Errorf("%w: fragment %s: output schema has %d fields for %d projected columns", ErrInvalid, f.QueryId, fx.out.NumFields(), len(f.Projection))
		}
		seen := map[int]bool{}
		for i, p := range fx.outPos {
			if !seen[p] {
				fx.readTypes[p] = fx.out.Field(i).Type
				seen[p] = true
			}
		}
	} else {
		fields := make([]arrow.Field, len(fx.outPos))
		for i, p := range fx.outPos {
			fields[i] = arrow.Field{Name: fx.readNames[p], Type: fx.readTypes[p], Nullable: true}
		}
		fx.out = arrow.NewSchema(fields, nil)
	}
	if err := fx.dropFilterOnly(); err != nil {
		return nil, err
	}
	for _, k := range fx.keyCols {
		p, err := use(k, "key")
		if err != nil {
			return nil, err
		}
		fx.keyPos = append(fx.keyPos, p)
	}
	var conj, lakeConj []expr.Expr
	// Iceberg's predicate only prunes: its rows still need every filter.
	lakeFiltered := f.Lake != nil && len(f.Lake.Predicate) > 0 && !isIceberg(f.Lake)
	for fi, flt := range f.Filters {
		p, err := use(int(flt.Column), "filter")
		if err != nil {
			return nil, err
		}
		x, err := compileFilter(flt, p, fx.readNames[p], fx.readTypes[p])
		if err != nil {
			return nil, fmt.Errorf("%w: fragment %s: filter on column %q: %w", ErrInvalid, f.QueryId, fx.readNames[p], err)
		}
		conj = append(conj, x)
		if (!lakeFiltered || !flt.GetLakeApplied()) && !fx.lakeRuntime[fi] {
			lakeConj = append(lakeConj, x)
		}
	}
	if fx.info != nil && !f.GetOptions().GetLogFilterPushdownOff() {
		conds := logConditions(f.Filters, len(fx.cols))
		for _, o := range f.LogFilterOr {
			// All branches or none: a branch left out would make the
			// disjunction stricter than the WHERE it came from.
			if branches := logConditions(o.Any, len(fx.cols)); len(branches) == len(o.Any) && len(branches) > 1 {
				conds = append(conds, client.Condition{Or: branches})
			}
		}
		fx.logFilter = fx.info.LogFilter(conds)
	}
	if len(fx.reads) == 0 && len(names) > 0 { // COUNT(*): read one column for the row counts
		counted := 0
		if fx.binlog { // the folded rows are counted, not the records
			counted = record.ChangelogWireColumn(0)
		}
		if _, err := use(counted, "counted"); err != nil {
			return nil, err
		}
	}
	if fx.info != nil {
		for _, k := range fx.info.Descriptor.PartitionKeys {
			c := fx.info.Descriptor.Schema.ColumnIndex(k)
			p, read := index[c]
			if !read || c >= len(fx.cols) {
				continue
			}
			if r := fx.cols[c].Type.Root; (r == typemap.RootBinary || r == typemap.RootBytes) && isText(fx.readTypes[p]) {
				fx.hexPos = append(fx.hexPos, p)
			}
		}
	}
	if fx.binlog {
		for _, m := range fx.meta {
			if m < 0 {
				return nil, fmt.Errorf("%w: fragment %s: a binlog read names table columns (only metadata, before and after)", ErrInvalid, f.QueryId)
			}
		}
		fx.changelog = true
	}
	if fx.changelog {
		for _, r := range f.Ranges {
			if r.Type != inletpb.RangeType_LOG {
				return nil, fmt.Errorf("%w: fragment %s: changelog columns with a %v range (%d)", ErrInvalid, f.QueryId, r.Type, r.Id)
			}
		}
	}
	keys, err := topNKeys(f, fx.out)
	if err != nil {
		return nil, err
	}
	fx.topKeys = keys
	var err2 error
	if fx.pred, err2 = conjunction(conj); err2 != nil {
		return nil, fmt.Errorf("%w: fragment %s: filters: %w", ErrInvalid, f.QueryId, err2)
	}
	if fx.lakePred, err2 = conjunction(lakeConj); err2 != nil {
		return nil, fmt.Errorf("%w: fragment %s: filters: %w", ErrInvalid, f.QueryId, err2)
	}
	if fx.pred != nil {
		fx.predRF = exec.NewRowFilter(fx.pred)
	}
	if fx.lakePred != nil {
		fx.lakeRF = exec.NewRowFilter(fx.lakePred)
	}
	fx.outReads = distinctInts(fx.outPos)
	fx.lakeSkip, fx.lakeCols = fx.lakeFilterOnly(lakeFiltered)
	return fx, nil
}

// lakeFilterOnly finds the read positions a Paimon lake range may leave
// to its reader (fragExec.lakeSkip): read only by filters the reader
// applies exactly (lake_applied under a lake predicate, or a runtime
// filter it took over). nil when there is none, or when skipping would
// leave the reader no column at all (its batches must still count rows).
func (fx *fragExec) lakeFilterOnly(lakeFiltered bool) ([]bool, []string) {
	if fx.f.Lake == nil || isIceberg(fx.f.Lake) || fx.changelog {
		return nil, nil
	}
	// Every position starts skipped; what the output, the keys, the hex
	// partitions and the filters the reader does not hold read stays. A
	// filter-only column of the output no filter reads any more needs no
	// read at all.
	skip := make([]bool, len(fx.reads))
	for p := range skip {
		skip[p] = true
	}
	keep := func(ps []int) {
		for _, p := range ps {
			skip[p] = false
		}
	}
	keep(fx.outPos)
	keep(fx.keyPos)
	keep(fx.hexPos)
	for fi, flt := range fx.f.Filters {
		// A column some filter the reader does not hold reads stays.
		if !((lakeFiltered && flt.GetLakeApplied()) || fx.lakeRuntime[fi]) {
			for p, c := range fx.reads {
				if c == int(flt.Column) {
					skip[p] = false
				}
			}
		}
	}
	var cols []string
	skipped := false
	for p, s := range skip {
		if s {
			skipped = true
		} else {
			cols = append(cols, fx.readNames[p])
		}
	}
	if !skipped || len(cols) == 0 {
		return nil, nil
	}
	return skip, cols
}

// dropFilterOnly takes the output positions the FE reads nothing of
// (Fragment.filter_only) out of the output: they stay in the read layout,
// typed as output_schema says, for the filters; only the batches sent
// leave them out.
func (fx *fragExec) dropFilterOnly() error {
	f := fx.f
	if len(f.FilterOnly) == 0 {
		return nil
	}
	if f.PartialAgg != nil || f.RangeTopN != nil {
		return fmt.Errorf("%w: fragment %s: filter-only columns with a partial aggregate or a range top-n", ErrInvalid, f.QueryId)
	}
	drop := make([]bool, len(fx.outPos))
	for _, c := range f.FilterOnly {
		if c < 0 || int(c) >= len(drop) || drop[c] {
			return fmt.Errorf("%w: fragment %s: filter-only column %d of %d output columns (or named twice)", ErrInvalid, f.QueryId, c, len(drop))
		}
		drop[c] = true
	}
	if len(f.FilterOnly) == len(drop) {
		return fmt.Errorf("%w: fragment %s: every output column is filter-only", ErrInvalid, f.QueryId)
	}
	var pos []int
	var fields []arrow.Field
	for i, p := range fx.outPos {
		if !drop[i] {
			pos = append(pos, p)
			fields = append(fields, fx.out.Field(i))
		}
	}
	fx.outPos, fx.out = pos, arrow.NewSchema(fields, nil)
	return nil
}

// distinctInts returns xs without repeats, in first-seen order.
func distinctInts(xs []int) []int {
	out := make([]int, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// conjunction ANDs filters; nil for none.
func conjunction(conj []expr.Expr) (expr.Expr, error) {
	switch len(conj) {
	case 0:
		return nil, nil
	case 1:
		return conj[0], nil
	}
	return expr.And(conj...)
}

// lakeInMax bounds the keys of a runtime IN filter the lake predicate
// takes: each is a pass over the rows there (and a test per row group),
// while the BE's own IN is one hash lookup a row.
const lakeInMax = 64

// maxBitsBytes bounds one IN_BITS filter's bitmap (the FE sends at most
// 1 MiB): a bigger one is a bad fragment, not a filter to allocate.
const maxBitsBytes = 4 << 20

func compileFilter(flt *inletpb.Filter, pos int, name string, t arrow.DataType) (expr.Expr, error) {
	col := expr.Col(pos, name, t)
	if flt.Op == "IN_BITS" {
		if len(flt.Bits) > maxBitsBytes {
			return nil, fmt.Errorf("key bitmap of %d bytes (at most %d)", len(flt.Bits), maxBitsBytes)
		}
		if len(flt.Values) > 0 {
			return nil, fmt.Errorf("operator IN_BITS takes no values, got %d", len(flt.Values))
		}
		words, err := keybits.Decode(flt.Bits)
		if err != nil {
			return nil, err
		}
		return expr.InBits(col, flt.BitsLo, words)
	}
	lits := make([]expr.Expr, 0, len(flt.Values))
	for _, v := range flt.Values {
		var g any
		switch x := v.V.(type) {
		case *inletpb.Value_IsNull:
			g = nil
		case *inletpb.Value_Int:
			g = x.Int
		case *inletpb.Value_Float:
			g = x.Float
		case *inletpb.Value_Bool:
			g = x.Bool
		case *inletpb.Value_Text:
			g = x.Text
		default:
			return nil, fmt.Errorf("empty value")
		}
		l, err := expr.Lit(g, t)
		if err != nil {
			return nil, err
		}
		lits = append(lits, l)
	}
	one := func() (expr.Expr, error) {
		if len(lits) != 1 {
			return nil, fmt.Errorf("operator %s takes one value, got %d", flt.Op, len(lits))
		}
		return lits[0], nil
	}
	cmp := map[string]expr.CmpOp{"=": expr.Eq, "!=": expr.Ne, "<>": expr.Ne, "<": expr.Lt, "<=": expr.Le, ">": expr.Gt, ">=": expr.Ge}
	switch op := flt.Op; op {
	case "IS NULL", "IS NOT NULL":
		return expr.IsNull(col, op == "IS NOT NULL"), nil
	case "IN", "NOT IN":
		return expr.In(col, lits, op == "NOT IN")
	default:
		c, ok := cmp[op]
		if !ok {
			return nil, fmt.Errorf("unknown operator %q", op)
		}
		l, err := one()
		if err != nil {
			return nil, err
		}
		return expr.Cmp(c, col, l)
	}
}

// conform casts a batch read in the read layout to the layout's types. The
// result is a new reference.
func (fx *fragExec) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) != len(fx.reads) {
		return nil, fmt.Errorf("scan: reader returned %d columns, expected %d", rec.NumCols(), len(fx.reads))
	}
	c, err := castColumns(fx.env, rec, fx.readNames, fx.readTypes)
	if err != nil || len(fx.hexPos) == 0 {
		return c, err
	}
	defer c.Release()
	cols := make([]arrow.Array, c.NumCols())
	defer releaseAll(cols)
	for i := range cols {
		cols[i] = c.Column(i)
		cols[i].Retain()
	}
	for _, p := range fx.hexPos {
		h := hexText(cols[p], fx.mem)
		cols[p].Release()
		cols[p] = h
	}
	return array.NewRecordBatch(c.Schema(), cols, c.NumRows()), nil
}

func isText(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

// hexText renders a text column holding raw bytes as the lower-case hex
// text of those bytes, the way Fluss names a BINARY partition.
func hexText(a arrow.Array, mem memory.Allocator) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(a.Len())
	type valuer interface{ ValueStr(int) string }
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		var raw string
		switch x := a.(type) {
		case *array.String:
			raw = x.Value(i)
		case *array.LargeString:
			raw = x.Value(i)
		case *array.StringView:
			raw = x.Value(i)
		default:
			raw = a.(valuer).ValueStr(i)
		}
		b.Append(hex.EncodeToString([]byte(raw)))
	}
	return b.NewArray()
}

// castColumns casts every column of rec to types (names label the fields).
func castColumns(env *expr.Env, rec arrow.RecordBatch, names []string, types []arrow.DataType) (arrow.RecordBatch, error) {
	same := true
	for i, t := range types {
		if !arrow.TypeEqual(rec.Column(i).DataType(), t) {
			same = false
			break
		}
	}
	if same && rec.Schema().NumFields() == len(names) {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, len(types))
	fields := make([]arrow.Field, len(types))
	defer releaseAll(cols)
	for i, t := range types {
		a := rec.Column(i)
		fields[i] = arrow.Field{Name: names[i], Type: t, Nullable: true}
		if arrow.TypeEqual(a.DataType(), t) {
			a.Retain()
			cols[i] = a
			continue
		}
		c, err := conformExpr(expr.Col(i, names[i], a.DataType()), t)
		if err != nil {
			return nil, fmt.Errorf("%w: column %q: %v to %v: %w", ErrUnsupported, names[i], a.DataType(), t, err)
		}
		if cols[i], err = c.Eval(env, rec); err != nil {
			return nil, fmt.Errorf("column %q: %w", names[i], err)
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// finish applies the pushed filters (rf: fx.predRF, or fx.lakeRF for
// rows a Paimon reader filtered; nil: none) to a conformed batch and cuts
// it to the output schema. It returns nil when no row is left. Only the
// output's columns are gathered for the rows kept.
func (fx *fragExec) finish(ctx context.Context, rec arrow.RecordBatch, rf *exec.RowFilter) (arrow.RecordBatch, error) {
	if rec.NumRows() == 0 {
		return nil, nil
	}
	if rf != nil {
		var scratch []int64
		f, err := rf.Apply(ctx, fx.env, rec, fx.outReads, &scratch)
		if err != nil || f == nil {
			return nil, err
		}
		rec = f
		defer rec.Release()
	}
	cols := make([]arrow.Array, len(fx.outPos))
	defer releaseAll(cols)
	for i, p := range fx.outPos {
		a := rec.Column(p)
		t := fx.out.Field(i).Type
		if arrow.TypeEqual(a.DataType(), t) {
			a.Retain()
			cols[i] = a
			continue
		}
		c, err := conformExpr(expr.Col(p, fx.readNames[p], a.DataType()), t)
		if err != nil {
			return nil, fmt.Errorf("%w: output column %q: %w", ErrUnsupported, fx.out.Field(i).Name, err)
		}
		if cols[i], err = c.Eval(fx.env, rec); err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(fx.out, cols, rec.NumRows()), nil
}

// lake opens the lake table and its read plan once per fragment.
func (fx *fragExec) lake(ctx context.Context) (*paimon.Plan, error) {
	fx.lakeOnce.Do(func() {
		lt := fx.f.Lake
		fsys, err := fx.e.cfg.FS(lt.StorageOptions)
		if err != nil {
			fx.lakeErr = fmt.Errorf("lake table %s: storage: %w", lt.TablePath, err)
			return
		}
		tbl, err := paimon.OpenTable(ctx, fsys, lt.TablePath)
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
		if pred, err = fx.withRuntimeFilters(ctx, tbl, lt.SchemaId, pred); err != nil {
			fx.lakeErr = fmt.Errorf("lake table %s: %w", lt.TablePath, err)
			return
		}
		fx.lakePlan, fx.lakeErr = tbl.ReadPlan(ctx, lt.SchemaId, lt.Options, pred)
		if fx.lakeErr != nil {
			fx.lakeErr = fmt.Errorf("lake table %s: %w", lt.TablePath, fx.lakeErr)
		}
	})
	return fx.lakePlan, fx.lakeErr
}

// withRuntimeFilters adds to the lake predicate the runtime filters on
// integer columns (Filter.runtime: min/max bounds, IN_BITS key bitmaps,
// IN lists of at most lakeInMax keys), so the reader skips row groups by
// their statistics and drops rows before decoding the other columns, and
// notes them in fx.lakeRuntime: the reader applies them exactly, so lake
// rows need them no more (prepare reads the map, and opens the plan before
// it does, for a Paimon catalog's fragment and a union read's alike; log
// and tail rows still get every filter). Integer bounds on integer columns
// compare alike in both; anything else stays a BE filter only.
func (fx *fragExec) withRuntimeFilters(ctx context.Context, tbl *paimon.Table, schemaID int64, pred *paimon.Predicate) (*paimon.Predicate, error) {
	var leaves []*paimon.Predicate
	for i, flt := range fx.f.Filters {
		if !flt.GetRuntime() {
			continue
		}
		var v *inletpb.Value_Int
		var words []uint64
		var ins []any
		switch {
		case flt.Op == "IN" && len(flt.Values) > 0 && len(flt.Values) <= lakeInMax:
			for _, x := range flt.Values {
				iv, ok := x.GetV().(*inletpb.Value_Int)
				if !ok {
					ins = nil
					break
				}
				ins = append(ins, iv.Int)
			}
			if ins == nil {
				continue
			}
		case flt.Op == "IN_BITS":
			var err error
			if words, err = keybits.Decode(flt.Bits); err != nil || len(flt.Bits) > maxBitsBytes {
				continue // prepare reports it
			}
		case (flt.Op == ">=" || flt.Op == "<=") && len(flt.Values) == 1:
			var ok bool
			if v, ok = flt.Values[0].GetV().(*inletpb.Value_Int); !ok {
				continue
			}
		default:
			continue
		}
		if len(leaves) == 0 && fx.lakeRuntime == nil {
			fx.lakeRuntime = map[int]bool{}
		}
		schema, err := tbl.Schema(ctx, schemaID)
		if err != nil {
			return nil, err
		}
		var fd paimon.DataField
		switch {
		case fx.f.Fluss == nil:
			// A Paimon catalog's fragment: columns index the lake schema.
			if flt.Column < 0 || int(flt.Column) >= len(schema.Fields) {
				continue // prepare reports the bad column
			}
			fd = schema.Fields[flt.Column]
		default:
			// A union read's: columns index the Fluss table, whose lake
			// table names its columns alike (prepare opens the plan once
			// fx.cols is known).
			if flt.Column < 0 || int(flt.Column) >= len(fx.cols) {
				continue
			}
			f, ok := schema.Field(fx.cols[flt.Column].Name)
			if !ok {
				continue
			}
			fd = f
		}
		switch fd.Type.Root {
		case paimon.TinyInt, paimon.SmallInt, paimon.Int, paimon.BigInt:
		default:
			continue
		}
		switch flt.Op {
		case "IN":
			leaves = append(leaves, paimon.In(fd.Name, ins...))
		case "IN_BITS":
			leaves = append(leaves, paimon.InBits(fd.Name, flt.BitsLo, words))
		case ">=":
			leaves = append(leaves, paimon.Ge(fd.Name, v.Int))
		default:
			leaves = append(leaves, paimon.Le(fd.Name, v.Int))
		}
		fx.lakeRuntime[i] = true
	}
	if len(leaves) == 0 {
		return pred, nil
	}
	if pred != nil {
		leaves = append([]*paimon.Predicate{pred}, leaves...)
	}
	if len(leaves) == 1 {
		return leaves[0], nil
	}
	return paimon.And(leaves...), nil
}

func (fx *fragExec) markDone(id int64) {
	fx.doneMu.Lock()
	fx.done = append(fx.done, id)
	fx.doneMu.Unlock()
}

// maxTimings bounds the per-range timings a fragment reports: a fragment of
// thousands of ranges keeps the profile small (the counters still cover
// every range).
const maxTimings = 512

// noteTiming records when range r was read, for the profile's per-range
// bars.
func (fx *fragExec) noteTiming(r *inletpb.Range, start, end time.Time, rows int64) {
	fx.doneMu.Lock()
	defer fx.doneMu.Unlock()
	if len(fx.timings) >= maxTimings {
		return
	}
	fx.timings = append(fx.timings, &inletpb.RangeTiming{RangeId: r.GetId(), Kind: r.GetType().String(),
		Backend: fx.e.cfg.Name, StartUs: start.UnixMicro(), EndUs: end.UnixMicro(), Rows: rows})
}

// conformExpr turns a column read from a range into the fragment's type:
// a struct the planner narrowed (nested column pruning) keeps only the
// fields it names, without copying; anything else is cast.
func conformExpr(e expr.Expr, t arrow.DataType) (expr.Expr, error) {
	if e.DataType().ID() == arrow.STRUCT && t.ID() == arrow.STRUCT && expr.Prunable(e.DataType(), t) {
		return expr.Prune(e, t)
	}
	return expr.Cast(e, t)
}

// sessionZone reads a session time_zone as the FE accepts it (the one
// reader in internal/tzone).
func sessionZone(tz string) (*time.Location, error) { return tzone.Location(tz) }

// logConditions are the filters on table columns (not on $changelog
// metadata columns) in the form client.LogFilter takes.
func logConditions(fs []*inletpb.Filter, ncols int) []client.Condition {
	var out []client.Condition
	for _, f := range fs {
		if f.Column < 0 || int(f.Column) >= ncols {
			continue
		}
		c := client.Condition{Column: int(f.Column), Op: f.Op}
		for _, v := range f.Values {
			switch x := v.GetV().(type) {
			case *inletpb.Value_IsNull:
				c.Values = append(c.Values, nil)
			case *inletpb.Value_Int:
				c.Values = append(c.Values, x.Int)
			case *inletpb.Value_Float:
				c.Values = append(c.Values, x.Float)
			case *inletpb.Value_Bool:
				c.Values = append(c.Values, x.Bool)
			case *inletpb.Value_Text:
				c.Values = append(c.Values, x.Text)
			default:
				c.Values = append(c.Values, nil)
			}
		}
		out = append(out, c)
	}
	return out
}

// hasLakeRange reports whether f reads any lake split.
func hasLakeRange(f *inletpb.Fragment) bool {
	for _, r := range f.Ranges {
		if r.Type == inletpb.RangeType_LAKE || r.Type == inletpb.RangeType_LAKE_SUPPRESS {
			return true
		}
	}
	return false
}
