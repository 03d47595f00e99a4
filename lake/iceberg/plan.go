package iceberg

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/inlet-db/inlet/lake/paimon"
)

// ScanOptions select what Plan reads.
type ScanOptions struct {
	// SnapshotID pins a snapshot (FOR VERSION AS OF); 0 is the current one.
	SnapshotID int64
	// AsOfMillis, when > 0 and SnapshotID is 0, reads the snapshot current
	// at that time (FOR TIME AS OF).
	AsOfMillis int64
	// Predicate prunes partitions and files by the manifests' partition
	// values and column bounds. It never filters rows: the caller applies
	// its filters to what the splits return.
	Predicate *paimon.Predicate
	// FileSplitSize and MinSplits cut Parquet and ORC data files into slices as
	// lake/paimon cuts a Paimon table's (paimon.ScanOptions): a file
	// larger than FileSplitSize in slices of about that many bytes, and
	// finer when the plan would have fewer than MinSplits splits, so that
	// every scanner gets a share of a table of few large files. A row
	// group larger than a slice is shared by rows (paimon.FileSlice).
	FileSplitSize int64
	MinSplits     int
}

// Plan is a read of one snapshot: one split per data file, with the delete
// files that apply to it.
type Plan struct {
	Table *Table
	// SnapshotID is the snapshot read; 0 for a table with no snapshot.
	SnapshotID int64
	// Fields are the columns read (the current schema), in the field model
	// of lake/paimon.
	Fields []paimon.DataField
	Splits []Split
	// Pruned is true when the predicate reached iceberg-go's planner (it is
	// dropped when a literal does not bind to the column's type).
	Pruned bool
	// Predicate, when set, also prunes the data files' row groups by their
	// statistics as Open reads them (never delete files, which are read
	// whole). Rows are not filtered.
	Predicate *paimon.Predicate
}

// Split is one data file and its deletes. Paths are as the metadata
// records them (delete files match data files on those).
type Split struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Records   int64  `json:"records"`
	Partition string `json:"partition,omitempty"`
	// Format is the manifest's file_format (PARQUET or ORC; "" reads as
	// PARQUET, what planners before ORC sent).
	Format string `json:"format,omitempty"`
	// Identity holds the identity partition values of the data file,
	// read for a column the file lacks (see IdentityValue).
	Identity []IdentityValue `json:"identity,omitempty"`
	// PosDeletes and EqDeletes are the delete files that apply.
	PosDeletes []DeleteFile `json:"pos,omitempty"`
	EqDeletes  []DeleteFile `json:"eq,omitempty"`
	// FlussBucket and FlussPartition place the file in a table Fluss
	// tiered (see FlussLayout); planner-side only.
	FlussBucket    int32    `json:"-"`
	FlussPartition []string `json:"-"`
	FlussLayoutOK  bool     `json:"-"`
	// Slice, when set, reads part of a Parquet or ORC file (see
	// paimon.FileSlice); Records is then its estimated share of the rows.
	Slice *paimon.FileSlice `json:"slice,omitempty"`
	// FileRecords is the data file's record_count when Slice is set (an
	// ORC file's row count is checked against it).
	FileRecords int64 `json:"file_records,omitempty"`
}

// DeleteFile is one position or equality delete file.
type DeleteFile struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	Records int64  `json:"records"`
	Format  string `json:"format,omitempty"`
	// EqualityIDs are the field ids an equality delete compares.
	EqualityIDs []int `json:"eq_ids,omitempty"`
}

// sliceable: a Parquet or ORC data file (an ORC slice reads the stripes
// whose middle byte it holds).
func (s *Split) sliceable() bool { return s.Format == "" || s.Format == string(iceberg.OrcFile) }

// slice cuts the Parquet splits of p into slices (ScanOptions.FileSplitSize).
func (p *Plan) slice(splitSize int64, minSplits int) {
	if splitSize <= 0 {
		return
	}
	var total int64
	n := 0
	for i := range p.Splits {
		if s := &p.Splits[i]; s.sliceable() {
			total += s.Size
			n += paimon.SliceCount(s.Size, splitSize)
		} else {
			n++
		}
	}
	size := paimon.SliceSize(total, splitSize, n, minSplits)
	var out []Split
	for _, s := range p.Splits {
		k := 1
		if s.sliceable() {
			k = paimon.SliceCount(s.Size, size)
		}
		if k <= 1 {
			out = append(out, s)
			continue
		}
		for i := 0; i < k; i++ {
			c := s
			c.Slice = &paimon.FileSlice{Index: int32(i), Count: int32(k)}
			c.Records = paimon.SliceRows(s.Records, i, k)
			c.FileRecords = s.Records
			out = append(out, c)
		}
	}
	p.Splits = out
}

// EncodeSplit and DecodeSplit carry a split from the planner to a reader.
func EncodeSplit(s *Split) ([]byte, error) { return json.Marshal(s) }

// DecodeSplit is EncodeSplit's inverse.
func DecodeSplit(b []byte) (*Split, error) {
	var s Split
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: split: %v", ErrCorrupt, err)
	}
	if s.Path == "" {
		return nil, fmt.Errorf("%w: split without a data file", ErrCorrupt)
	}
	if sl := s.Slice; sl != nil && (!s.sliceable() || sl.Count < 1 || sl.Count > paimon.MaxSlices || sl.Index < 0 || sl.Index >= sl.Count) {
		return nil, fmt.Errorf("%w: split of %s: slice %d of %d of a %s file", ErrCorrupt, s.Path, sl.Index, sl.Count, formatName(s.Format))
	}
	return &s, nil
}

// Plan lists the splits of the selected snapshot. Planning reads the
// manifest list and manifests (through iceberg-go), never data files.
func (t *Table) Plan(ctx context.Context, o ScanOptions) (*Plan, error) {
	fields, err := t.Fields()
	if err != nil {
		return nil, err
	}
	p := &Plan{Table: t, Fields: fields, Predicate: o.Predicate}
	var snap *table.Snapshot
	switch {
	case o.SnapshotID != 0:
		if snap = t.tbl.SnapshotByID(o.SnapshotID); snap == nil {
			return nil, fmt.Errorf("%w: Iceberg table %s has no snapshot %d", ErrNotFound, t.Name, o.SnapshotID)
		}
	case o.AsOfMillis > 0:
		s, err := t.SnapshotAsOf(o.AsOfMillis)
		if err != nil {
			return nil, err
		}
		snap = t.tbl.SnapshotByID(s.ID)
	default:
		snap = t.tbl.CurrentSnapshot()
	}
	if snap == nil {
		return p, nil
	}
	p.SnapshotID = snap.SnapshotID
	tbl, err := t.pinned(ctx, snap)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("iceberg table %s: snapshot %d: manifest list: %w", t.Name, snap.SnapshotID, err)
	}
	scanOpts := []table.ScanOption{table.WithSnapshotID(snap.SnapshotID)}
	var tasks []table.FileScanTask
	if e := icebergFilter(o.Predicate, t.tbl.Schema()); e != nil {
		tasks, err = tbl.Scan(append(scanOpts, table.WithRowFilter(e))...).PlanFiles(ctx)
		p.Pruned = err == nil
	}
	if !p.Pruned {
		tasks, err = tbl.Scan(scanOpts...).PlanFiles(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("iceberg table %s: snapshot %d: %w", t.Name, snap.SnapshotID, err)
	}
	for _, task := range tasks {
		sp, err := t.splitOf(task)
		if err != nil {
			return nil, err
		}
		p.Splits = append(p.Splits, sp)
	}
	sort.SliceStable(p.Splits, func(i, j int) bool { return p.Splits[i].Path < p.Splits[j].Path })
	p.slice(o.FileSplitSize, o.MinSplits)
	return p, nil
}

func (t *Table) splitOf(task table.FileScanTask) (Split, error) {
	df := task.File
	if len(task.DeletionVectorFiles) > 0 {
		return Split{}, fmt.Errorf("%w: Iceberg table %s: data file %s has a deletion vector (%s); format v3 deletion vectors are not read",
			ErrUnsupported, t.Name, df.FilePath(), task.DeletionVectorFiles[0].FilePath())
	}
	if err := t.checkFormat("data", df); err != nil {
		return Split{}, err
	}
	sp := Split{Path: df.FilePath(), Size: df.FileSizeBytes(), Records: df.Count(), Partition: t.partitionText(df), Format: formatOf(df)}
	sp.Identity = t.identityValues(df)
	sp.FlussBucket, sp.FlussPartition, sp.FlussLayoutOK = t.flussLayout(df)
	for _, d := range task.DeleteFiles {
		if err := t.checkFormat("position delete", d); err != nil {
			return Split{}, err
		}
		sp.PosDeletes = append(sp.PosDeletes, DeleteFile{Path: d.FilePath(), Size: d.FileSizeBytes(), Records: d.Count(), Format: formatOf(d)})
	}
	for _, d := range task.EqualityDeleteFiles {
		if err := t.checkFormat("equality delete", d); err != nil {
			return Split{}, err
		}
		if len(d.EqualityFieldIDs()) == 0 {
			return Split{}, fmt.Errorf("%w: Iceberg table %s: equality delete file %s names no equality fields", ErrCorrupt, t.Name, d.FilePath())
		}
		sp.EqDeletes = append(sp.EqDeletes, DeleteFile{Path: d.FilePath(), Size: d.FileSizeBytes(), Records: d.Count(), Format: formatOf(d),
			EqualityIDs: append([]int(nil), d.EqualityFieldIDs()...)})
	}
	return sp, nil
}

func (t *Table) checkFormat(kind string, df iceberg.DataFile) error {
	switch df.FileFormat() {
	case iceberg.ParquetFile, iceberg.OrcFile:
		return nil
	}
	return fmt.Errorf("%w: Iceberg table %s: %s file %s is %s; only Parquet and ORC files are read", ErrUnsupported, t.Name, kind, df.FilePath(), df.FileFormat())
}

// formatOf is the split's Format of df: "" for Parquet, so splits of
// Parquet tables encode as before.
func formatOf(df iceberg.DataFile) string {
	if df.FileFormat() == iceberg.ParquetFile {
		return ""
	}
	return string(df.FileFormat())
}

// partitionText renders a data file's partition as name=value/..., in spec
// order, for EXPLAIN and split affinity.
func (t *Table) partitionText(df iceberg.DataFile) string {
	spec := t.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	if spec == nil || spec.NumFields() == 0 {
		return ""
	}
	vals := df.Partition()
	var parts []string
	for _, f := range spec.Fields() {
		parts = append(parts, fmt.Sprintf("%s=%v", f.Name, vals[f.FieldID]))
	}
	return strings.Join(parts, "/")
}

// icebergFilter translates a lake predicate to an Iceberg expression for
// pruning; nil when some part has no translation (then nothing is pruned:
// dropping a conjunct would be sound, dropping a disjunct would not, so
// only AND may lose children).
func icebergFilter(p *paimon.Predicate, sc *iceberg.Schema) iceberg.BooleanExpression {
	if p == nil {
		return nil
	}
	e, _ := toIceberg(p, sc)
	return e
}

func toIceberg(p *paimon.Predicate, sc *iceberg.Schema) (iceberg.BooleanExpression, bool) {
	switch p.Op {
	case paimon.OpAnd:
		var kids []iceberg.BooleanExpression
		for _, c := range p.Children {
			if e, ok := toIceberg(c, sc); ok {
				kids = append(kids, e)
			}
		}
		switch len(kids) {
		case 0:
			return nil, false
		case 1:
			return kids[0], true
		}
		return iceberg.NewAnd(kids[0], kids[1], kids[2:]...), true
	case paimon.OpOr:
		var kids []iceberg.BooleanExpression
		for _, c := range p.Children {
			e, ok := toIceberg(c, sc)
			if !ok {
				return nil, false
			}
			kids = append(kids, e)
		}
		if len(kids) < 2 {
			return nil, false
		}
		return iceberg.NewOr(kids[0], kids[1], kids[2:]...), true
	}
	f, ok := sc.FindFieldByNameCaseInsensitive(p.Field)
	if !ok {
		return nil, false
	}
	ref := iceberg.Reference(f.Name)
	switch p.Op {
	case paimon.OpIsNull:
		return iceberg.UnaryPredicate(iceberg.OpIsNull, ref), true
	case paimon.OpIsNotNull:
		return iceberg.UnaryPredicate(iceberg.OpNotNull, ref), true
	case paimon.OpIn:
		lits := make([]iceberg.Literal, 0, len(p.Values))
		for _, v := range p.Values {
			l, ok := literal(v, f.Type)
			if !ok {
				return nil, false
			}
			lits = append(lits, l)
		}
		return iceberg.SetPredicate(iceberg.OpIn, ref, lits), true
	}
	ops := map[paimon.Op]iceberg.Operation{paimon.OpEq: iceberg.OpEQ, paimon.OpNe: iceberg.OpNEQ, paimon.OpLt: iceberg.OpLT,
		paimon.OpLe: iceberg.OpLTEQ, paimon.OpGt: iceberg.OpGT, paimon.OpGe: iceberg.OpGTEQ}
	op, ok := ops[p.Op]
	if !ok {
		return nil, false
	}
	l, ok := literal(p.Value, f.Type)
	if !ok {
		return nil, false
	}
	return iceberg.LiteralPredicate(op, ref, l), true
}

// literal converts a lake predicate literal (int64, bool, string; decimals
// and dates as text) to an Iceberg literal of the column's type; false
// when it does not convert exactly.
func literal(v any, t iceberg.Type) (iceberg.Literal, bool) {
	var l iceberg.Literal
	switch x := v.(type) {
	case int64:
		l = iceberg.NewLiteral(x)
	case float64:
		l = iceberg.NewLiteral(x)
	case bool:
		l = iceberg.NewLiteral(x)
	case string:
		l = iceberg.NewLiteral(x)
	default:
		return nil, false
	}
	switch t.(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.StringType, iceberg.DateType, iceberg.DecimalType, iceberg.BooleanType:
	default:
		return nil, false
	}
	if d, ok := t.(iceberg.DecimalType); ok {
		// A literal finer than the column's scale would be rounded by the
		// conversion and could prune a file holding the rows it compares to.
		s, ok := v.(string)
		if i := strings.IndexByte(s, '.'); ok && i >= 0 && len(s)-i-1 > d.Scale() {
			return nil, false
		}
	}
	c, err := l.To(t)
	if err != nil {
		return nil, false
	}
	switch c.(type) {
	case iceberg.AboveMaxLiteral, iceberg.BelowMinLiteral:
		return nil, false
	}
	return c, true
}

// Options of the FE→BE lake table message (inletpb.LakeTable, made for
// Paimon) that mark an Iceberg read: its format, and the table directory
// OpenIn relocates paths to; its table path is then the metadata file the
// planner read.
const (
	FormatOption = "inlet.lake.format"
	FormatName   = "iceberg"
	DirOption    = "inlet.iceberg.dir"
)

func formatName(f string) string {
	if f == "" {
		return "PARQUET"
	}
	return f
}

// first reports whether s is a whole file or the first slice of one, so
// that per-file figures (bytes, delete files) are counted once a file.
func (s *Split) first() bool { return s.Slice == nil || s.Slice.Index == 0 }

// FileBytes is the data file's size for its first split, 0 for its other
// slices: summed over a plan, the bytes of its data files.
func (s *Split) FileBytes() int64 {
	if s.first() {
		return s.Size
	}
	return 0
}

// FileCounts are the plan's data files and the delete files that apply
// to them, each file counted once however many slices read it.
func (p *Plan) FileCounts() (data, pos, eq int) {
	for i := range p.Splits {
		if s := &p.Splits[i]; s.first() {
			data++
			pos += len(s.PosDeletes)
			eq += len(s.EqDeletes)
		}
	}
	return data, pos, eq
}
