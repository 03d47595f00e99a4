package iceberg

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// parquetSuffix is appended to the name of a Parquet file whose name does
// not end in ".parquet" (a migrated Hive file "000000_0", Impala's
// ".parq"): lake/paimon picks the format by the extension, Iceberg by the
// manifest's file_format. suffixFS takes it off again before opening.
const parquetSuffix = "#as.parquet"

// suffixFS opens name without parquetSuffix.
type suffixFS struct{ fileio.FS }

func (s suffixFS) Open(ctx context.Context, name string) (fileio.File, error) {
	return s.FS.Open(ctx, strings.TrimSuffix(name, parquetSuffix))
}

// openParquet opens one Parquet file through lake/paimon. For a data
// file (r.fileFields set): a file without field ids is matched through the
// name mapping (mappedFileFields), nested columns whose struct layout
// changed are rebuilt by id (nested.go), and wanted columns with an
// identity partition value read it where the file has none (identityFill).
func (p *Plan) openParquet(ctx context.Context, mem memory.Allocator, r fileRead) (fileReader, error) {
	ff := r.fileFields
	if ff == nil {
		ff = r.want
	}
	fsys, name := p.Table.fs, p.Table.rel.apply(r.path)
	if r.fileFields != nil && p.Table.tbl.Metadata().NameMapping() != nil {
		var err error
		if ff, err = p.mappedFileFields(ctx, fsys, name, r); err != nil {
			return nil, err
		}
	}
	readWant, changed := r.want, []int(nil)
	if r.fileFields != nil {
		var err error
		if readWant, changed, err = p.nestedLayouts(ctx, fsys, name, r.path, r.want); err != nil {
			return nil, err
		}
	}
	if !strings.HasSuffix(strings.ToLower(name), ".parquet") {
		fsys, name = suffixFS{fsys}, name+parquetSuffix
	}
	dr, err := paimon.OpenDataFile(ctx, mem, paimon.DataFileRead{FS: fsys, Path: name, Size: r.size,
		FileFields: ff, Want: readWant, Predicate: r.pred, BatchSize: r.batch, Buffers: r.bufs, Slice: r.slice})
	if err != nil {
		return nil, err
	}
	var fr fileReader = dr
	if len(changed) > 0 {
		out, err := paimon.ArrowSchema(r.want)
		if err != nil {
			dr.Close()
			return nil, err
		}
		fr = &relayoutReader{fileReader: dr, path: r.path, cols: changed, from: readWant, to: r.want, out: out, mem: mem}
	}
	fill := identityFill{fileReader: fr, path: r.path, want: r.want, mem: mem}
	for i, w := range r.want {
		for _, v := range r.consts {
			if v.ID == w.ID && v.Kind != "" {
				fill.cols = append(fill.cols, i)
				fill.vals = append(fill.vals, v)
			}
		}
	}
	if len(fill.cols) == 0 {
		return fr, nil
	}
	return &fill, nil
}

// identityFill gives a column the identity partition value of its data
// file where the Parquet file has none. The spec reads a column the file
// lacks from the partition tuple (migrated Hive files keep partition
// columns only in directory names); lake/paimon reads an absent column as
// NULL, and a file that has the column holds the partition value in every
// row (that is what identity partitioning means), so an all-NULL batch of
// a column with a non-NULL partition value is the absent column. A batch
// mixing NULLs and values there contradicts the partition and is refused.
type identityFill struct {
	fileReader
	path string
	want []paimon.DataField
	mem  memory.Allocator
	cols []int           // wanted column positions with a non-NULL value
	vals []IdentityValue // their values
}

func (f *identityFill) Next() (arrow.RecordBatch, int64, error) {
	rec, pos, err := f.fileReader.Next()
	if err != nil || rec == nil {
		return rec, pos, err
	}
	n := rec.NumRows()
	var cols []arrow.Array
	for k, c := range f.cols {
		a := rec.Column(c)
		switch nulls := int64(a.NullN()); {
		case nulls == 0 || n == 0:
			continue
		case nulls < n:
			rec.Release()
			releaseAll(cols)
			return nil, 0, fmt.Errorf("%w: Parquet data file %s: column %s holds NULL and non-NULL values, but its identity partition value is not NULL",
				ErrCorrupt, f.path, f.want[c].Name)
		}
		s, err := constScalar(f.vals[k], a.DataType())
		if err == nil {
			var c arrow.Array
			if c, err = constColumn(s, n, f.mem); err == nil {
				if cols == nil {
					cols = make([]arrow.Array, rec.NumCols())
				}
				cols[f.cols[k]] = c
				continue
			}
		}
		rec.Release()
		releaseAll(cols)
		return nil, 0, fmt.Errorf("data file %s: column %s: %w", f.path, f.want[c].Name, err)
	}
	if cols == nil {
		return rec, pos, nil
	}
	for i := range cols {
		if cols[i] == nil {
			cols[i] = rec.Column(i)
			cols[i].Retain()
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, n)
	releaseAll(cols)
	rec.Release()
	return out, pos, nil
}

func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// mappedFileFields are the fields a data file without field ids is read
// by, under the table's name mapping (schema.name-mapping.default, which
// the spec makes the rule for such files): each current column under the
// name the file gives it, one the mapping has no name of the file for
// left out (it reads as absent). A renamed column keeps its old name in
// the mapping; a column dropped and added again under the old name is a
// new id the mapping does not name. A file with ids is matched by them
// (r.fileFields as given). Only top-level columns are mapped; struct
// fields inside are matched by id or by their current names.
func (p *Plan) mappedFileFields(ctx context.Context, fsys fileio.FS, name string, r fileRead) ([]paimon.DataField, error) {
	f, err := fsys.Open(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", r.path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: data file %s: %v", ErrCorrupt, r.path, err)
	}
	defer pf.Close()
	root := pf.MetaData().Schema.Root()
	inFile := map[string]bool{}
	for i := 0; i < root.NumFields(); i++ {
		if root.Field(i).FieldID() >= 0 {
			return r.fileFields, nil
		}
		inFile[root.Field(i).Name()] = true
	}
	names := map[int][]string{}
	for _, m := range p.Table.nameMapping() {
		if m.FieldID != nil {
			names[*m.FieldID] = m.Names
		}
	}
	var out []paimon.DataField
	for _, fd := range r.fileFields {
		for _, n := range names[fd.ID] {
			if inFile[n] {
				fd.Name = n
				out = append(out, fd)
				break
			}
		}
	}
	return out, nil
}
