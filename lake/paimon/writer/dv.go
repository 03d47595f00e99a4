package writer

import (
	"bytes"
	"context"
	"fmt"

	"github.com/inlet-db/inlet/fileio"
	"github.com/inlet-db/inlet/lake/paimon"
)

// DeleteRows marks row positions of a live data file of (partition,
// bucket) as deleted with a deletion vector (32-bit layout): positions
// already deleted by the file's current vector are kept. The new vector
// goes to its own index file under index/, and the index manifest written
// by Commit replaces the file's old range. Readers apply it only when the
// table has deletion-vectors.enabled=true.
func (c *Commit) DeleteRows(ctx context.Context, part []any, bucket int32, fileName string, positions []uint32) error {
	t := c.t
	partRow, err := paimon.SerializeRow(part, t.partitionTypes())
	if err != nil {
		return fmt.Errorf("%w: table %s partition %v: %v", ErrInvalid, t.path, part, err)
	}
	var file *paimon.DataFileMeta
	for _, e := range t.live {
		if e.Bucket == bucket && bytes.Equal(e.Partition, partRow) && e.File.FileName == fileName {
			file = e.File
		}
	}
	if file == nil {
		return fmt.Errorf("%w: table %s bucket %d has no live data file %s", ErrInvalid, t.path, bucket, fileName)
	}
	set := map[uint32]bool{}
	for _, p := range positions {
		if int64(p) >= file.RowCount {
			return fmt.Errorf("%w: table %s file %s: row position %d is beyond its %d rows", ErrInvalid, t.path, fileName, p, file.RowCount)
		}
		set[p] = true
	}
	if old := c.currentDV(partRow, bucket, fileName); old != nil {
		dv, err := paimon.ReadDeletionVector(ctx, t.fs, *old)
		if err != nil {
			return err
		}
		for p := int64(0); p < file.RowCount; p++ {
			if dv.Contains(p) {
				set[uint32(p)] = true
			}
		}
	}
	all := make([]uint32, 0, len(set))
	for p := range set {
		all = append(all, p)
	}
	enc := paimon.EncodeDeletionVector(all)
	name := t.name("index", "")
	if err := fileio.WriteFile(ctx, t.fs, fileio.Join(t.path, "index", name), append([]byte{1}, enc...)); err != nil {
		return err
	}
	card := int64(len(all))
	rng := []*paimon.DVRange{{DataFile: fileName, Offset: 1, Length: int32(len(enc) - 8), Cardinality: &card}}
	key := bucketID(partRow, bucket) + "|" + fileName
	c.dropDV[key] = true
	kept := c.dvs[:0]
	for _, e := range c.dvs {
		if !(bytes.Equal(e.Partition, partRow) && e.Bucket == bucket && (*e.DVRanges)[0].DataFile == fileName) {
			kept = append(kept, e)
		}
	}
	c.dvs = append(kept, paimon.IndexManifestEntry{Kind: paimon.FileKindAdd, Partition: partRow, Bucket: bucket, IndexType: "DELETION_VECTORS",
		FileName: name, FileSize: int64(len(enc) + 1), RowCount: 1, DVRanges: &rng})
	return nil
}

// currentDV locates the vector of a data file: one staged in this commit,
// else the one of the latest snapshot.
func (c *Commit) currentDV(partRow []byte, bucket int32, file string) *paimon.DeletionFile {
	find := func(es []paimon.IndexManifestEntry) *paimon.DeletionFile {
		for _, e := range es {
			if e.IndexType != "DELETION_VECTORS" || e.Bucket != bucket || !bytes.Equal(e.Partition, partRow) || e.DVRanges == nil {
				continue
			}
			for _, r := range *e.DVRanges {
				if r != nil && r.DataFile == file {
					return &paimon.DeletionFile{Path: fileio.Join(c.t.path, "index", e.FileName), Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: r.Cardinality}
				}
			}
		}
		return nil
	}
	if d := find(c.dvs); d != nil {
		return d
	}
	return find(c.t.index)
}
