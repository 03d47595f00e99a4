package paimon

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/fileio"
)

// DataFileRead names one Parquet data file to read outside a Paimon table:
// the seam through which lake/iceberg reuses this package's Parquet path
// (the page decoder, pqarrow fallback, INT96, field-id matching, casts to
// the wanted types) instead of a second copy of it.
type DataFileRead struct {
	FS   fileio.FS
	Path string
	// Size is the length the table's metadata records (0: unknown); a file
	// of another length is refused as damaged.
	Size int64
	// FileFields are the fields the file was written with; Want are the
	// fields to return, in order, matched to the file by field id (by name
	// when the file carries no ids). A wanted field the file lacks reads
	// as NULL.
	FileFields, Want []DataField
	// Predicate, optional, prunes row groups by their statistics only;
	// every row of a surviving row group is returned.
	Predicate *Predicate
	BatchSize int
	// Buffers carries page readers over from the previous file read with
	// the same allocator (see ScanBuffers).
	Buffers *ScanBuffers
	// Slice, optional, reads only part of the file: the row groups (or
	// row ranges of large ones) its byte range owns; positions stay
	// positions in the whole file.
	Slice *FileSlice
}

// DataFileReader streams one data file's batches.
type DataFileReader struct {
	fb      *fileBatches
	metrics Metrics
}

// OpenDataFile opens r.Path (Parquet only) for reading with mem.
func OpenDataFile(ctx context.Context, mem memory.Allocator, r DataFileRead) (*DataFileReader, error) {
	if !strings.EqualFold(path.Ext(r.Path), ".parquet") {
		return nil, fmt.Errorf("%w: data file format of %s (only Parquet is read here)", ErrUnsupported, r.Path)
	}
	var pred *bound
	if r.Predicate != nil {
		b, err := r.Predicate.bind(r.Want)
		if err == nil {
			pred = b
		}
	}
	d := &DataFileReader{}
	fb, err := openDataFile(ctx, fileReadSpec{fsys: r.FS, path: r.Path, fileSchema: &TableSchema{Fields: r.FileFields}, want: r.Want,
		pred: pred, batchSize: r.BatchSize, mem: mem, metrics: &d.metrics, pool: r.Buffers.poolFor(mem), size: r.Size, statsOnly: true, slice: r.Slice})
	if err != nil {
		return nil, err
	}
	d.fb = fb
	return d, nil
}

// Schema is the batches' schema: the wanted fields' Arrow types.
func (d *DataFileReader) Schema() *arrow.Schema { return d.fb.schema }

// Next returns the next batch and the file position of its first row; a
// nil batch at the end. The caller releases the batch.
func (d *DataFileReader) Next() (arrow.RecordBatch, int64, error) { return d.fb.next() }

// SkippedRowGroups counts the row groups the predicate pruned.
func (d *DataFileReader) SkippedRowGroups() int64 { return d.metrics.RowGroupsSkipped }

// Close releases the reader and closes the file.
func (d *DataFileReader) Close() {
	if d.fb != nil {
		d.fb.close()
		d.fb = nil
	}
}
