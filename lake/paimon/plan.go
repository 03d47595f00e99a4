package paimon

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/inlet-db/inlet/fileio"
)

// ScanOptions select what a Plan covers. The zero value plans the whole
// table at its latest snapshot.
type ScanOptions struct {
	// SnapshotID pins the snapshot; 0 means the latest.
	SnapshotID int64
	// Predicate prunes partitions and files by statistics; readers opened
	// from the plan also filter rows with it exactly.
	Predicate *Predicate
	// Partitions, when non-empty, keeps only partitions matching one of the
	// maps (an OR of ANDs of key = value). Values are written as in
	// partition paths; the default partition name selects NULL.
	Partitions []map[string]string
	// Bucket, when non-nil, keeps only splits of that bucket.
	Bucket *int32
	// Options override table options for this read (e.g. merge-engine,
	// ignore-delete, source.split.target-size).
	Options map[string]string
	// ReadSchemaID, when set, reads the snapshot with that schema instead
	// of the snapshot's own (a union read with a Fluss table altered since
	// the snapshot was written): files map by field id, fields they lack
	// read NULL. It must not be older than the snapshot's schema.
	ReadSchemaID *int64
	// FileSplitSize, when positive, plans raw-convertible splits as Doris
	// plans native reads (file_split_size): one split per data file, and
	// a Parquet or ORC file larger than FileSplitSize cut into slices of
	// about that many bytes, each its own split, so several readers share
	// it. See FileSlice.
	FileSplitSize int64
	// MinSplits, when positive (with FileSplitSize), cuts the sliceable
	// files of raw splits finer than FileSplitSize when the plan would
	// otherwise have fewer splits than that, down to minSliceBytes, so
	// that every scanner gets a share of a table of one or two large
	// files (one 44 MB file was one split: one scanner read it alone).
	MinSplits int
}

// minSliceBytes is the smallest slice MinSplits cuts a file into: a few
// row groups of a typical writer, so slices stay worth a reader each.
var minSliceBytes int64 = 8 << 20

// DeletionFile locates one data file's deletion vector.
type DeletionFile struct {
	Path        string
	Offset      int64
	Length      int64
	Cardinality *int64
}

// DataFile is a live data file of a split.
type DataFile struct {
	Meta DataFileMeta
	Path string
	DV   *DeletionFile
	// Slice, when set, reads only part of the file (a sliced raw split).
	Slice *FileSlice `json:",omitempty"`
}

// FileSlice is slice Index of Count equal byte ranges of a data file. A
// reader keeps the row groups (Parquet) or stripes (ORC) whose middle byte
// falls in its range; the first slice also takes anything before it and the
// last anything after, so the Count slices of a file read each row group
// exactly once whatever the file's real size. Row positions (deletion
// vectors) stay positions in the whole file.
type FileSlice struct {
	Index, Count int32
}

// owns reports whether the slice reads the unit whose bytes span
// [start, end) in a file of size bytes.
func (s *FileSlice) owns(start, end, size int64) bool {
	if s == nil || s.Count <= 1 {
		return true
	}
	mid := start + (end-start)/2
	n := int64(s.Count)
	i := int64(s.Index)
	// size*i/n, computed so that it cannot overflow (sliceBound).
	lo := sliceBound(size, i, n)
	hi := sliceBound(size, i+1, n)
	return (i == 0 || mid >= lo) && (i == n-1 || mid < hi)
}

// sliceBound is size*i/n for 0 <= i <= n, without forming size*i.
func sliceBound(size, i, n int64) int64 {
	return size/n*i + size%n*i/n
}

// Split is the unit of parallel reading: files of one (partition, bucket).
type Split struct {
	SnapshotID     int64
	Partition      []any  // partition values in key order (nil = NULL)
	PartitionBytes []byte // serialized partition BinaryRow from the manifest
	PartitionPath  string // e.g. "f1=10/" ("" when unpartitioned)
	Bucket         int32
	TotalBuckets   int32
	Files          []DataFile
	// RawConvertible: the files can be read one by one (after deletion
	// vectors) without a merge; otherwise Open merges them by key.
	RawConvertible bool
	// RowCount is the physical row count minus deletion-vector
	// cardinalities: exact for raw splits, an upper bound for merge splits;
	// the slices of a file share its count out by bytes (exact in total).
	RowCount int64
}

// Plan is a pinned snapshot of a table cut into splits. It is immutable
// and may be shared by concurrent readers.
type Plan struct {
	Table    *Table
	Snapshot *Snapshot // nil when the table has no snapshot
	Schema   *TableSchema
	Options  map[string]string // effective options (table + overrides)
	Splits   []Split
	Stats    PlanStats

	pred *bound
}

// PlanStats count what planning pruned, for EXPLAIN-style reporting.
type PlanStats struct {
	ManifestsSkipped int // manifests not read (bucket range, partition stats)
	FilesPruned      int // live files dropped by partition/key/value statistics
	BucketsPruned    int // merge buckets dropped whole by value statistics
}

// Effective table options used by planning and reading.
type tableOptions struct {
	mergeEngine      string
	ignoreDelete     bool
	dv               bool
	target, openCost int64
	defaultPartition string
	legacyName       bool
	indexInDataDir   bool
	sequenceFields   []string
	sequenceDesc     bool
	agg              aggOptions
}

func parseOptions(o map[string]string) (tableOptions, error) {
	t := tableOptions{mergeEngine: "deduplicate", target: 128 << 20, openCost: 4 << 20, defaultPartition: "__DEFAULT_PARTITION__", legacyName: true}
	get := func(k string) (string, bool) { v, ok := o[k]; return strings.TrimSpace(v), ok }
	boolOpt := func(k string, dst *bool) error {
		if v, ok := get(k); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("paimon: option %s: %q is not a boolean", k, v)
			}
			*dst = b
		}
		return nil
	}
	if v, ok := get("merge-engine"); ok {
		t.mergeEngine = strings.ToLower(v)
	}
	switch t.mergeEngine {
	case "deduplicate", "first-row", "partial-update", "aggregation":
	default:
		return t, fmt.Errorf("%w: merge-engine %q", ErrUnsupported, t.mergeEngine)
	}
	for k, dst := range map[string]*bool{"ignore-delete": &t.ignoreDelete, "deletion-vectors.enabled": &t.dv,
		"partition.legacy-name": &t.legacyName, "index-file-in-data-file-dir": &t.indexInDataDir} {
		if err := boolOpt(k, dst); err != nil {
			return t, err
		}
	}
	if v, ok := get("partial-update.ignore-delete"); ok && v == "true" {
		t.ignoreDelete = true
	}
	if v, ok := get("first-row.ignore-delete"); ok && v == "true" {
		t.ignoreDelete = true
	}
	for k, dst := range map[string]*int64{"source.split.target-size": &t.target, "source.split.open-file-cost": &t.openCost} {
		if v, ok := get(k); ok {
			n, err := parseMemSize(v)
			if err != nil {
				return t, fmt.Errorf("paimon: option %s: %v", k, err)
			}
			*dst = n
		}
	}
	if v, ok := get("partition.default-name"); ok {
		t.defaultPartition = v
	}
	if v, ok := get("sequence.field"); ok && v != "" {
		t.sequenceFields = strings.Split(v, ",")
	}
	if v, ok := get("sequence.field.sort-order"); ok && strings.EqualFold(v, "descending") {
		t.sequenceDesc = true
	}
	if len(t.sequenceFields) > 0 && t.mergeEngine == "first-row" {
		return t, fmt.Errorf("%w: merge-engine first-row with sequence.field", ErrUnsupported)
	}
	if t.mergeEngine == "aggregation" {
		var err error
		if t.agg, err = parseAggOptions(o); err != nil {
			return t, err
		}
	}
	if t.mergeEngine == "partial-update" {
		for k := range o {
			if strings.HasPrefix(k, "fields.") && (strings.HasSuffix(k, ".sequence-group") || strings.HasSuffix(k, ".aggregate-function")) {
				return t, fmt.Errorf("%w: partial-update option %s", ErrUnsupported, k)
			}
		}
	}
	return t, nil
}

func parseMemSize(s string) (int64, error) {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSuffix(s, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad memory size %q", s)
	}
	return n * mult, nil
}

func mergedOptions(s *TableSchema, over map[string]string) map[string]string {
	m := make(map[string]string, len(s.Options)+len(over))
	for k, v := range s.Options {
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// Plan pins a snapshot and cuts its live files into splits.
func (t *Table) Plan(ctx context.Context, o ScanOptions) (*Plan, error) {
	id := o.SnapshotID
	if id == 0 {
		var err error
		if id, err = t.LatestSnapshotID(ctx); err != nil {
			return nil, err
		}
	}
	p := &Plan{Table: t}
	var schema *TableSchema
	var err error
	if id == 0 {
		if schema, err = t.LatestSchema(ctx); err != nil {
			return nil, err
		}
	} else {
		if p.Snapshot, err = t.Snapshot(ctx, id); err != nil {
			return nil, err
		}
		if schema, err = t.Schema(ctx, p.Snapshot.SchemaID); err != nil {
			return nil, err
		}
	}
	if r := o.ReadSchemaID; r != nil && *r != schema.ID {
		if *r < schema.ID {
			return nil, fmt.Errorf("table %s: read schema-%d is older than schema-%d of the snapshot", t.name, *r, schema.ID)
		}
		if schema, err = t.Schema(ctx, *r); err != nil {
			return nil, err
		}
	}
	p.Schema = schema
	p.Options = mergedOptions(schema, o.Options)
	opts, err := parseOptions(p.Options)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if p.pred, err = o.Predicate.bind(schema.Fields); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.name, err)
	}
	if p.Snapshot == nil {
		return p, nil
	}
	partFieldsM := schema.PartitionFields()
	live, skipped, err := t.liveFiles(ctx, p.Snapshot, func(m *ManifestFileMeta) bool {
		return manifestMayMatch(m, o.Bucket, p.pred, partFieldsM)
	})
	p.Stats.ManifestsSkipped = skipped
	if err != nil {
		return nil, err
	}
	dvs, err := t.deletionFiles(ctx, p.Snapshot, opts)
	if err != nil {
		return nil, err
	}
	pk := len(schema.PrimaryKeys) > 0
	skipL0 := pk && (opts.dv || opts.mergeEngine == "first-row")
	partFields := schema.PartitionFields()
	partTypes := fieldTypes(partFields)
	schemas := map[int64]*TableSchema{schema.ID: schema}
	schemaOf := func(id int64) (*TableSchema, error) {
		if s, ok := schemas[id]; ok {
			return s, nil
		}
		s, err := t.Schema(ctx, id)
		if err != nil {
			return nil, err
		}
		schemas[id] = s
		return s, nil
	}

	type groupKey struct {
		part   string
		bucket int32
	}
	type group struct {
		entries []ManifestEntry
		part    []any
	}
	groups := map[groupKey]*group{}
	var order []groupKey
	partCache := map[string][]any{}
	for _, e := range live {
		if o.Bucket != nil && e.Bucket != *o.Bucket {
			continue
		}
		if skipL0 && e.File.Level == 0 {
			continue
		}
		pkey := string(e.Partition)
		vals, ok := partCache[pkey]
		if !ok {
			vals, err = DeserializeRow(e.Partition, partTypes)
			if err != nil {
				return nil, fmt.Errorf("table %s: file %s: partition: %w", t.name, e.File.FileName, err)
			}
			partCache[pkey] = vals
		}
		if !partitionSelected(vals, partFields, o.Partitions, opts) {
			continue
		}
		k := groupKey{pkey, e.Bucket}
		g := groups[k]
		if g == nil {
			g = &group{part: vals}
			groups[k] = g
			order = append(order, k)
		}
		g.entries = append(g.entries, e)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].part != order[j].part {
			return order[i].part < order[j].part
		}
		return order[i].bucket < order[j].bucket
	})
	keyFields := schema.TrimmedPrimaryKeys()
	for _, k := range order {
		g := groups[k]
		valueStatsOK := !pk || skipL0
		var files []DataFile
		for _, e := range g.entries {
			if p.pred != nil {
				fs, err := schemaOf(e.File.SchemaID)
				if err != nil {
					return nil, fmt.Errorf("table %s: file %s: %w", t.name, e.File.FileName, err)
				}
				sf := fileStats(schema, fs, partFields, g.part, e.File, valueStatsOK)
				if !p.pred.mayMatch(sf, e.File.RowCount) {
					p.Stats.FilesPruned++
					continue
				}
			}
			df := DataFile{Meta: *e.File, Path: t.dataFilePath(schema, opts, g.part, e.Bucket, e.File)}
			if dv, ok := dvs[dvKey(e.Partition, e.Bucket, e.File.FileName)]; ok {
				d := dv
				df.DV = &d
			}
			files = append(files, df)
		}
		if len(files) == 0 {
			continue
		}
		// Merge inputs cannot be pruned one by one by value statistics, but
		// a whole bucket can: deduplicate and first-row emit one of the
		// stored rows per key, so if no file may hold a matching row, no
		// merged row matches either. (Partial-update mixes fields of
		// several rows and aggregation computes new values, so they are
		// excluded.)
		if pk && !valueStatsOK && p.pred != nil && opts.mergeEngine != "partial-update" && opts.mergeEngine != "aggregation" {
			mayMatch := false
			for _, f := range files {
				fs, err := schemaOf(f.Meta.SchemaID)
				if err != nil {
					return nil, err
				}
				if p.pred.mayMatch(fileStats(schema, fs, partFields, g.part, &f.Meta, true), f.Meta.RowCount) {
					mayMatch = true
					break
				}
			}
			if !mayMatch {
				p.Stats.BucketsPruned++
				continue
			}
		}
		base := Split{SnapshotID: p.Snapshot.ID, Partition: g.part, PartitionBytes: []byte(k.part),
			PartitionPath: partitionPath(partFields, g.part, opts), Bucket: k.bucket, TotalBuckets: g.entries[0].TotalBuckets}
		var bins [][]DataFile
		var raws []bool
		switch {
		case !pk:
			sort.SliceStable(files, func(i, j int) bool { return files[i].Meta.MinSequenceNumber < files[j].Meta.MinSequenceNumber })
			bins = packFiles(files, opts)
			raws = repeatBool(true, len(bins))
		default:
			noMerge, oneLevel := true, true
			for _, f := range files {
				if f.Meta.Level == 0 || f.Meta.HasDeleteRows() {
					noMerge = false
				}
				if f.Meta.Level != files[0].Meta.Level {
					oneLevel = false
				}
			}
			if noMerge && (opts.dv || opts.mergeEngine == "first-row" || oneLevel) {
				bins = packFiles(files, opts)
				raws = repeatBool(true, len(bins))
				break
			}
			sections, err := intervalPartition(files, keyFields)
			if err != nil {
				return nil, fmt.Errorf("table %s partition %s bucket %d: %w", t.name, base.PartitionPath, k.bucket, err)
			}
			bins = packSections(sections, opts)
			for _, b := range bins {
				raws = append(raws, len(b) == 1 && !b[0].Meta.HasDeleteRows())
			}
		}
		for i, b := range bins {
			if raws[i] && o.FileSplitSize > 0 {
				// As Doris plans native reads: every file of a raw split
				// is a split of its own, cut in slices when large.
				for _, f := range b {
					p.Splits = appendSlices(p.Splits, base, f, sliceCount(f, o.FileSplitSize))
				}
				continue
			}
			s := base
			s.Files = b
			s.RawConvertible = raws[i]
			for _, f := range b {
				s.RowCount += liveRows(f)
			}
			p.Splits = append(p.Splits, s)
		}
	}
	if o.FileSplitSize > 0 && o.MinSplits > len(p.Splits) {
		p.Splits = reslice(p.Splits, o.FileSplitSize, o.MinSplits)
	}
	return p, nil
}

// reslice cuts the files of raw single-file splits (whole or sliced by
// splitSize) into slices of about total/minSplits bytes, no smaller than
// minSliceBytes, when that is finer than splitSize. Slices of one file
// are consecutive in splits (appendSlices), so a file is cut once.
func reslice(splits []Split, splitSize int64, minSplits int) []Split {
	var total int64
	for i := 0; i < len(splits); i += sliceRun(splits[i]) {
		if s := splits[i]; s.RawConvertible && len(s.Files) == 1 {
			total += s.Files[0].Meta.FileSize
		}
	}
	size := SliceSize(total, splitSize, 0, minSplits)
	if size >= splitSize {
		return splits
	}
	out := make([]Split, 0, minSplits)
	for i := 0; i < len(splits); {
		s, n := splits[i], sliceRun(splits[i])
		i += n
		if !s.RawConvertible || len(s.Files) != 1 {
			out = append(out, s)
			continue
		}
		f := s.Files[0]
		f.Slice = nil
		base := s
		base.Files = nil
		out = appendSlices(out, base, f, sliceCount(f, size))
	}
	return out
}

// sliceRun is how many consecutive splits read slices of s's file (1 for
// any other split).
func sliceRun(s Split) int {
	if len(s.Files) == 1 && s.Files[0].Slice != nil && s.Files[0].Slice.Index == 0 {
		return int(s.Files[0].Slice.Count)
	}
	return 1
}

func liveRows(f DataFile) int64 {
	n := f.Meta.RowCount
	if f.DV != nil && f.DV.Cardinality != nil {
		n -= *f.DV.Cardinality
	}
	return n
}

// maxSlices bounds the splits one file can become, whatever FileSplitSize
// says.
const maxSlices = 1 << 10

// sliceCount is how many slices f is cut into: one unless it is a Parquet
// or ORC file larger than splitSize (a tail under a tenth of splitSize
// joins the last slice rather than becoming its own).
func sliceCount(f DataFile, splitSize int64) int {
	if !sliceableFormat(f.Path) {
		return 1
	}
	return sliceCountBytes(f.Meta.FileSize, splitSize)
}

// sliceCountBytes is sliceCount for a sliceable file of size bytes.
func sliceCountBytes(size, splitSize int64) int {
	if size <= splitSize {
		return 1
	}
	n := size / splitSize
	if size-n*splitSize > splitSize/10 {
		n++
	}
	return int(min(max(n, 1), maxSlices))
}

func sliceableFormat(name string) bool {
	name = strings.ToLower(name)
	return strings.HasSuffix(name, ".parquet") || strings.HasSuffix(name, ".orc")
}

// appendSlices appends n single-file splits reading slices of f (one
// split of the whole file when n is 1). Their RowCount shares f's live
// rows out by bytes: an estimate per slice, exact in total.
func appendSlices(out []Split, base Split, f DataFile, n int) []Split {
	rows := liveRows(f)
	var given int64
	for i := 0; i < n; i++ {
		s := base
		g := f
		if n > 1 {
			g.Slice = &FileSlice{Index: int32(i), Count: int32(n)}
		}
		s.Files = []DataFile{g}
		s.RawConvertible = true
		s.RowCount = sliceBound(rows, int64(i+1), int64(n)) - given
		given += s.RowCount
		out = append(out, s)
	}
	return out
}

func repeatBool(v bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func fieldTypes(fs []DataField) []DataType {
	out := make([]DataType, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out
}

// packFiles bin-packs files in order: a new bin starts when adding a file
// would exceed the target weight (weight = max(size, open-file cost)).
func packFiles(files []DataFile, o tableOptions) [][]DataFile {
	secs := make([][]DataFile, len(files))
	for i := range files {
		secs[i] = files[i : i+1]
	}
	return packSections(secs, o)
}

func packSections(secs [][]DataFile, o tableOptions) [][]DataFile {
	var bins [][]DataFile
	var cur []DataFile
	var w int64
	for _, s := range secs {
		var sw int64
		for _, f := range s {
			sw += f.Meta.FileSize
		}
		sw = max(sw, o.openCost)
		if len(cur) > 0 && w+sw > o.target {
			bins = append(bins, cur)
			cur, w = nil, 0
		}
		cur = append(cur, s...)
		w += sw
	}
	if len(cur) > 0 {
		bins = append(bins, cur)
	}
	return bins
}

// intervalPartition groups files whose key ranges overlap (transitively)
// into sections; sections are ordered by key.
func intervalPartition(files []DataFile, keyFields []DataField) ([][]DataFile, error) {
	types := fieldTypes(keyFields)
	type rng struct {
		f        DataFile
		min, max []any
	}
	rs := make([]rng, len(files))
	for i, f := range files {
		mn, err := DeserializeRow(f.Meta.MinKey, types)
		if err != nil {
			return nil, fmt.Errorf("file %s min key: %w", f.Meta.FileName, err)
		}
		mx, err := DeserializeRow(f.Meta.MaxKey, types)
		if err != nil {
			return nil, fmt.Errorf("file %s max key: %w", f.Meta.FileName, err)
		}
		rs[i] = rng{f, mn, mx}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if c := compareRows(rs[i].min, rs[j].min); c != 0 {
			return c < 0
		}
		return compareRows(rs[i].max, rs[j].max) < 0
	})
	var out [][]DataFile
	var cur []DataFile
	var end []any
	for _, r := range rs {
		if len(cur) > 0 && compareRows(r.min, end) > 0 {
			out = append(out, cur)
			cur, end = nil, nil
		}
		cur = append(cur, r.f)
		if end == nil || compareRows(r.max, end) > 0 {
			end = r.max
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// compareRows compares decoded rows field by field; NULL sorts first.
func compareRows(a, b []any) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		x, y := norm(a[i]), norm(b[i])
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		if c, _ := compareNorm(x, y); c != 0 {
			return c
		}
	}
	if len(a) < len(b) {
		return -1
	}
	return 0
}

// partitionString renders a partition value the way partition paths do.
func partitionString(v any, t DataType, o tableOptions) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		if strings.TrimSpace(x) == "" {
			return "", false
		}
		return x, true
	case []byte:
		return string(x), true
	case bool:
		return strconv.FormatBool(x), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case DecimalValue:
		return x.String(), true
	case TimestampValue:
		return formatTimestamp(x, t.Precision), true
	case int32:
		if t.Root == Date && !o.legacyName {
			return formatDate(x), true
		}
	}
	i, _ := toInt64(v)
	return strconv.FormatInt(i, 10), true
}

func partitionSelected(vals []any, fields []DataField, filters []map[string]string, o tableOptions) bool {
	if len(filters) == 0 {
		return true
	}
	for _, f := range filters {
		ok := true
		for k, want := range f {
			idx := -1
			for i, pf := range fields {
				if pf.Name == k {
					idx = i
				}
			}
			if idx < 0 {
				ok = false
				break
			}
			s, notNull := partitionString(vals[idx], fields[idx].Type, o)
			if !notNull {
				s = o.defaultPartition
			}
			if s != want {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func escapePathName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune("\"#%'*/:=?\\{}[]^", r) {
			fmt.Fprintf(&b, "%%%02X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func partitionPath(fields []DataField, vals []any, o tableOptions) string {
	var b strings.Builder
	for i, f := range fields {
		s, ok := partitionString(vals[i], f.Type, o)
		if !ok {
			s = o.defaultPartition
		}
		b.WriteString(escapePathName(f.Name) + "=" + escapePathName(s) + "/")
	}
	return b.String()
}

func (t *Table) bucketDir(schema *TableSchema, o tableOptions, part []any, bucket int32) string {
	dir := t.path
	if d, ok := schema.Options["data-file.path-directory"]; ok && d != "" {
		dir = fileio.Join(dir, d)
	}
	b := "bucket-" + strconv.Itoa(int(bucket))
	if bucket == -2 {
		b = "bucket-postpone"
	}
	return fileio.Join(dir, partitionPath(schema.PartitionFields(), part, o), b)
}

func externalPath(p string) string {
	switch {
	case strings.HasPrefix(p, "FILE:"), strings.HasPrefix(p, "file:"):
		p = strings.TrimPrefix(p[5:], "//")
	}
	return p
}

func (t *Table) dataFilePath(schema *TableSchema, o tableOptions, part []any, bucket int32, f *DataFileMeta) string {
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		return externalPath(*f.ExternalPath)
	}
	return fileio.Join(t.bucketDir(schema, o, part, bucket), f.FileName)
}

func dvKey(part []byte, bucket int32, file string) string {
	return hex.EncodeToString(part) + "|" + strconv.Itoa(int(bucket)) + "|" + file
}

// deletionFiles maps (partition, bucket, data file) to its deletion vector,
// from the snapshot's index manifest (a complete state, not a delta).
func (t *Table) deletionFiles(ctx context.Context, snap *Snapshot, o tableOptions) (map[string]DeletionFile, error) {
	out := map[string]DeletionFile{}
	if snap.IndexManifest == nil || *snap.IndexManifest == "" {
		return out, nil
	}
	ents, err := t.IndexManifest(ctx, *snap.IndexManifest)
	if err != nil {
		return nil, err
	}
	schema, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, err
	}
	partTypes := fieldTypes(schema.PartitionFields())
	for _, e := range ents {
		if e.Kind != FileKindAdd || e.IndexType != "DELETION_VECTORS" || e.DVRanges == nil {
			continue
		}
		var path string
		switch {
		case e.ExternalPath != nil && *e.ExternalPath != "":
			path = externalPath(*e.ExternalPath)
		case o.indexInDataDir:
			part, err := DeserializeRow(e.Partition, partTypes)
			if err != nil {
				return nil, fmt.Errorf("table %s: index file %s: partition: %w", t.name, e.FileName, err)
			}
			path = fileio.Join(t.bucketDir(schema, o, part, e.Bucket), e.FileName)
		default:
			path = fileio.Join(t.path, "index", e.FileName)
		}
		for _, r := range *e.DVRanges {
			if r == nil {
				continue
			}
			if r.Offset < 0 || r.Length < 0 {
				return nil, fmt.Errorf("%w: table %s: index file %s: range for %s", ErrCorrupt, t.name, e.FileName, r.DataFile)
			}
			out[dvKey(e.Partition, e.Bucket, r.DataFile)] = DeletionFile{Path: path, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: r.Cardinality}
		}
	}
	return out, nil
}

// fileStats builds the statistics lookup used to prune one file: partition
// columns are constants, key columns come from key stats, value columns from
// value stats when valueOK (values are final rows, not merge inputs).
func fileStats(table, file *TableSchema, partFields []DataField, part []any, f *DataFileMeta, valueOK bool) func(string) colStats {
	return func(name string) colStats {
		for i, pf := range partFields {
			if pf.Name == name {
				v := norm(part[i])
				nc := int64(0)
				if v == nil {
					nc = f.RowCount
				}
				return colStats{min: v, max: v, nullCount: nc, known: true}
			}
		}
		tf, ok := table.Field(name)
		if !ok {
			return colStats{}
		}
		// Find the column in the file's schema by field id.
		var ff *DataField
		for i := range file.Fields {
			if file.Fields[i].ID == tf.ID {
				ff = &file.Fields[i]
			}
		}
		if ff == nil {
			// Column added after the file was written: all NULL.
			return colStats{nullCount: f.RowCount, known: true}
		}
		if ff.Type.Root != tf.Type.Root {
			return colStats{}
		}
		if keys := file.TrimmedPrimaryKeys(); len(keys) > 0 && f.KeyStats != nil {
			for i, k := range keys {
				if k.ID == ff.ID {
					if s, ok := statsColumn(f.KeyStats, keys, i, f.RowCount); ok {
						return s
					}
				}
			}
		}
		if !valueOK || f.ValueStats == nil {
			return colStats{}
		}
		cols := file.Fields
		if f.ValueStatsCols != nil {
			cols = file.fieldsNamed(*f.ValueStatsCols)
		}
		for i, c := range cols {
			if c.ID == ff.ID && c.Name == ff.Name {
				if s, ok := statsColumn(f.ValueStats, cols, i, f.RowCount); ok {
					return s
				}
			}
		}
		return colStats{}
	}
}

// statsColumn extracts column i of SimpleStats over cols; ok is false when
// the stats do not decode (then they are simply not used).
func statsColumn(s *SimpleStats, cols []DataField, i int, rowCount int64) (colStats, bool) {
	types := fieldTypes(cols)
	for j := range types {
		types[j].Nullable = true
	}
	mn, err1 := DeserializeRow(s.MinValues, types)
	mx, err2 := DeserializeRow(s.MaxValues, types)
	if err1 != nil || err2 != nil {
		return colStats{}, false
	}
	cs := colStats{min: norm(mn[i]), max: norm(mx[i]), nullCount: -1, known: true}
	if s.NullCounts != nil && i < len(*s.NullCounts) && (*s.NullCounts)[i] != nil {
		cs.nullCount = *(*s.NullCounts)[i]
	}
	_ = rowCount
	return cs, true
}

// manifestMayMatch prunes a whole manifest by its bucket range and its
// partition statistics. It must never be stricter than the per-entry
// filters of Plan (bucket equality, partition predicate on exact values).
func manifestMayMatch(m *ManifestFileMeta, bucket *int32, pred *bound, partFields []DataField) bool {
	if bucket != nil && m.MinBucket != nil && m.MaxBucket != nil && (*bucket < *m.MinBucket || *bucket > *m.MaxBucket) {
		return false
	}
	if pred == nil || len(partFields) == 0 || m.PartitionStats == nil {
		return true
	}
	types := fieldTypes(partFields)
	for i := range types {
		types[i].Nullable = true
	}
	mn, err1 := DeserializeRow(m.PartitionStats.MinValues, types)
	mx, err2 := DeserializeRow(m.PartitionStats.MaxValues, types)
	if err1 != nil || err2 != nil {
		return true
	}
	total := m.NumAddedFiles + m.NumDeletedFiles
	return pred.mayMatch(func(name string) colStats {
		for i, f := range partFields {
			if f.Name != name {
				continue
			}
			cs := colStats{min: norm(mn[i]), max: norm(mx[i]), nullCount: -1, known: true}
			if nc := m.PartitionStats.NullCounts; nc != nil && i < len(*nc) && (*nc)[i] != nil {
				// Null counts count entries, not rows; entries are what
				// the manifest holds, so compare them with the entry count.
				cs.nullCount = *(*nc)[i]
			}
			return cs
		}
		return colStats{}
	}, total)
}
