package local

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"regexp"
	"strconv"
	"strings"

	"context"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// keyCoder turns the key columns of a row into bytes that are equal exactly
// when the keys are equal (NULL equals NULL, as Doris treats NULL keys), and
// hashes them to a bucket. The bytes are what the bucket hash is computed
// over, so they must never change for a stored table.
type keyCoder struct {
	cols    []int // key column indexes in the batch
	buckets int
}

func (k keyCoder) encode(rec arrow.RecordBatch, row int, buf []byte) []byte {
	buf = buf[:0]
	for _, c := range k.cols {
		a := rec.Column(c)
		if a.IsNull(row) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		switch x := a.(type) {
		case *array.Int8:
			buf = binary.BigEndian.AppendUint64(buf, uint64(int64(x.Value(row))))
		case *array.Int16:
			buf = binary.BigEndian.AppendUint64(buf, uint64(int64(x.Value(row))))
		case *array.Int32:
			buf = binary.BigEndian.AppendUint64(buf, uint64(int64(x.Value(row))))
		case *array.Int64:
			buf = binary.BigEndian.AppendUint64(buf, uint64(x.Value(row)))
		case *array.Uint8:
			buf = binary.BigEndian.AppendUint64(buf, uint64(x.Value(row)))
		case *array.Uint16:
			buf = binary.BigEndian.AppendUint64(buf, uint64(x.Value(row)))
		case *array.Uint32:
			buf = binary.BigEndian.AppendUint64(buf, uint64(x.Value(row)))
		case *array.Uint64:
			buf = binary.BigEndian.AppendUint64(buf, x.Value(row))
		case *array.Float32:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(float64(x.Value(row))))
		case *array.Float64:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(x.Value(row)))
		case *array.Date32:
			buf = binary.BigEndian.AppendUint64(buf, uint64(int64(x.Value(row))))
		case *array.Timestamp:
			buf = binary.BigEndian.AppendUint64(buf, uint64(int64(x.Value(row))))
		case *array.String:
			buf = appendBytes(buf, x.Value(row))
		case *array.LargeString:
			buf = appendBytes(buf, x.Value(row))
		case *array.Binary:
			buf = appendBytes(buf, string(x.Value(row)))
		default:
			// Decimals, booleans and the rest: their text is canonical.
			buf = appendBytes(buf, a.ValueStr(row))
		}
	}
	return buf
}

func appendBytes(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

func (k keyCoder) bucket(key []byte) int {
	if k.buckets <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write(key)
	return int(h.Sum64() % uint64(k.buckets))
}

var bucketsRE = regexp.MustCompile(`(?i)\bBUCKETS\s+(\d+)`)

// bucketCount reads BUCKETS n from a DISTRIBUTED BY clause; 1 otherwise
// (BUCKETS AUTO, RANDOM, none).
func bucketCount(distribution string) int {
	m := bucketsRE.FindStringSubmatch(distribution)
	if m == nil {
		return 1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 1024)
}

// isUnique reports whether a table uses the UNIQUE KEY model.
func isUnique(keysType string) bool { return strings.EqualFold(keysType, "UNIQUE") }

// splitBuckets splits rec into one batch per bucket (nil where empty). The
// caller releases the results.
func splitBuckets(ctx context.Context, mem memory.Allocator, k keyCoder, rec arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, max(k.buckets, 1))
	if k.buckets <= 1 {
		rec.Retain()
		out[0] = rec
		return out, nil
	}
	idx := make([][]int32, k.buckets)
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		buf = k.encode(rec, i, buf)
		b := k.bucket(buf)
		idx[b] = append(idx[b], int32(i))
	}
	for b, rows := range idx {
		if len(rows) == 0 {
			continue
		}
		if len(rows) == int(rec.NumRows()) {
			rec.Retain()
			out[b] = rec
			continue
		}
		r, err := takeRows(ctx, mem, rec, rows)
		if err != nil {
			for _, o := range out {
				if o != nil {
					o.Release()
				}
			}
			return nil, err
		}
		out[b] = r
	}
	return out, nil
}

// takeRows returns the rows of rec at idx, in that order.
func takeRows(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	ctx = compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		a, err := compute.TakeArray(ctx, rec.Column(c), ia)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	r := array.NewRecordBatch(rec.Schema(), cols, int64(len(idx)))
	for _, a := range cols {
		a.Release()
	}
	return r, nil
}
