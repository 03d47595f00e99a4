package minifluss

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/proto/flusspb"
	"github.com/inlet-db/inlet/typemap"
)

// Server-side filtering of FetchLog, as Fluss 1.0 does it (apache/fluss
// 3d8df9fe7, LogSegment.readWithFilter and Replica.createFilterContext):
// the request's filter_predicate names columns by field id in the schema
// filter_schema_id; the server walks the batches from the fetch offset and
// leaves out every batch whose V1/V2 statistics prove that no row can match.
// Batches without statistics, with statistics that do not parse, or with an
// empty record set are kept, so a filtered fetch never loses a matching row.
// Only ARROW tables filter; a filter that cannot be resolved (unknown schema,
// field id or literal type) falls back to an unfiltered read. When batches
// were skipped after the last one returned (or all of them), the answer's
// filtered_end_offset tells the client where scanning stopped.

// schemaColumns returns the columns (name, type, id) of schema id.
func (t *table) schemaColumns(id int32) ([]columnJSON, []typemap.DataType, error) {
	if id == t.SchemaID {
		return t.Desc.Schema.Columns, t.types, nil
	}
	js, ok := t.Schemas[id]
	if !ok {
		return nil, nil, ferr(codeSchemaNotExist, "table %s has no schema id %d", t.path(), id)
	}
	var s schemaJSON
	if err := json.Unmarshal(js, &s); err != nil {
		return nil, nil, err
	}
	ts, err := t.typesOf(int16(id))
	if err != nil {
		return nil, nil, err
	}
	return s.Columns, ts, nil
}

// statsFilter resolves a FetchLog filter against schema id.
func (t *table) statsFilter(pb *flusspb.PbPredicate, schemaID int32) (*record.StatsPredicate, error) {
	cols, types, err := t.schemaColumns(schemaID)
	if err != nil {
		return nil, err
	}
	return resolvePredicate(pb, cols, types, 0)
}

func resolvePredicate(pb *flusspb.PbPredicate, cols []columnJSON, types []typemap.DataType, depth int) (*record.StatsPredicate, error) {
	if depth > 64 {
		return nil, errors.New("filter nested too deeply")
	}
	switch pb.GetType() {
	case 0:
		leaf := pb.GetLeaf()
		if leaf == nil {
			return nil, errors.New("leaf predicate without a leaf")
		}
		fid := leaf.GetFieldId()
		pos := -1
		for i, c := range cols {
			if (c.ID != nil && *c.ID == fid) || (c.ID == nil && int32(i) == fid) {
				pos = i
				break
			}
		}
		if pos < 0 {
			return nil, fmt.Errorf("cannot resolve field id %d", fid)
		}
		fn := record.LeafFunction(leaf.GetFunction())
		if fn < record.FnEqual || fn > record.FnNotIn {
			return nil, fmt.Errorf("unknown leaf function %d", fn)
		}
		p := &record.StatsPredicate{Leaf: true, Func: fn, Field: pos, Type: types[pos]}
		for _, l := range leaf.GetLiterals() {
			v, err := literalValue(l, types[pos])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", cols[pos].Name, err)
			}
			p.Literals = append(p.Literals, v)
		}
		return p, nil
	case 1:
		cp := pb.GetCompound()
		if cp == nil {
			return nil, errors.New("compound predicate without children")
		}
		fn := record.CompoundFunction(cp.GetFunction())
		if fn != record.FnAnd && fn != record.FnOr {
			return nil, fmt.Errorf("unknown compound function %d", fn)
		}
		p := &record.StatsPredicate{Compound: fn}
		for _, c := range cp.GetChildren() {
			k, err := resolvePredicate(c, cols, types, depth+1)
			if err != nil {
				return nil, err
			}
			p.Children = append(p.Children, k)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown predicate type %d", pb.GetType())
}

// literalRoot maps PbLiteralValue.literal_type (PredicateMessageUtils'
// DataTypeRootCode) to the type root it stands for.
var literalRoot = map[int32]typemap.Root{
	0: typemap.RootBoolean, 1: typemap.RootTinyInt, 2: typemap.RootSmallInt, 3: typemap.RootInt,
	4: typemap.RootBigInt, 5: typemap.RootFloat, 6: typemap.RootDouble, 7: typemap.RootChar,
	8: typemap.RootString, 9: typemap.RootDecimal, 10: typemap.RootDate, 11: typemap.RootTime,
	12: typemap.RootTimestamp, 13: typemap.RootTimestampLTZ, 14: typemap.RootBinary, 15: typemap.RootBytes,
}

// literalValue converts a literal to the canonical value of the field's type;
// the literal's type must be the field's (CHAR/STRING and BINARY/BYTES mix).
func literalValue(l *flusspb.PbLiteralValue, t typemap.DataType) (any, error) {
	if l.GetIsNull() {
		return nil, nil
	}
	root, ok := literalRoot[l.GetLiteralType()]
	str := func(r typemap.Root) bool { return r == typemap.RootChar || r == typemap.RootString }
	bin := func(r typemap.Root) bool { return r == typemap.RootBinary || r == typemap.RootBytes }
	if !ok || (root != t.Root && !(str(root) && str(t.Root)) && !(bin(root) && bin(t.Root))) {
		return nil, fmt.Errorf("literal type %d does not match %s", l.GetLiteralType(), t.Root)
	}
	switch t.Root {
	case typemap.RootBoolean:
		return l.GetBooleanValue(), nil
	case typemap.RootTinyInt:
		return int8(l.GetIntValue()), nil
	case typemap.RootSmallInt:
		return int16(l.GetIntValue()), nil
	case typemap.RootInt, typemap.RootTime:
		return l.GetIntValue(), nil
	case typemap.RootDate:
		return int32(l.GetBigintValue()), nil
	case typemap.RootBigInt:
		return l.GetBigintValue(), nil
	case typemap.RootFloat:
		return l.GetFloatValue(), nil
	case typemap.RootDouble:
		return l.GetDoubleValue(), nil
	case typemap.RootChar, typemap.RootString:
		return l.GetStringValue(), nil
	case typemap.RootBinary, typemap.RootBytes:
		return l.GetBinaryValue(), nil
	case typemap.RootDecimal:
		if l.DecimalBytes != nil {
			b := l.GetDecimalBytes()
			if len(b) == 0 || len(b) > 16 {
				return nil, fmt.Errorf("decimal of %d bytes", len(b))
			}
			v := new(big.Int).SetBytes(b)
			if b[0]&0x80 != 0 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			return decimal128.FromBigInt(v), nil
		}
		return decimal128.FromI64(l.GetDecimalValue()), nil
	case typemap.RootTimestamp, typemap.RootTimestampLTZ:
		n := l.GetTimestampNanoOfMillisValue()
		if n < 0 || n > 999_999 {
			return nil, fmt.Errorf("nano of millisecond %d", n)
		}
		return record.Timestamp{Millis: l.GetTimestampMillisValue(), NanoOfMilli: n}, nil
	}
	return nil, fmt.Errorf("no literal of type %s", t.Root)
}

// keepBatch decides from a batch's header and statistics whether it may
// hold a matching row. types is the row type of the batch's schema.
func keepBatch(f *record.StatsPredicate, recordCount int32, stats []byte, types []typemap.DataType) bool {
	if len(stats) == 0 || recordCount == 0 {
		return true
	}
	s, err := record.DecodeStatistics(stats, types)
	if err != nil {
		return true // Fluss logs the failure and keeps the batch
	}
	return f.MayMatch(int64(recordCount), &s)
}

// filteredRead is read with a filter: from the batch holding off to the end
// of the log, it keeps the batches keep accepts, up to maxBytes (at least one
// batch), and returns them with the offset scanning ended at when skipped
// batches follow the last kept one (-1 otherwise) and the number skipped.
func (l *bucketLog) filteredRead(off int64, maxBytes int, keep func(recordCount int32, schemaID int16, stats []byte) bool) ([]byte, int64, int, error) {
	var out []byte
	lastKept, lastScanned := int64(-1), int64(-1)
	skipped := 0
	hdr := make([]byte, 56)
	for i := l.find(off); i < len(l.batches); i++ {
		b := l.batches[i]
		n := min(int(b.size), len(hdr))
		if _, err := l.f.ReadAt(hdr[:n], b.pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, -1, skipped, err
		}
		var stats []byte
		magic := hdr[12]
		if (magic == 1 || magic == 2) && n >= headerLen(magic) {
			hl := headerLen(magic)
			sl := int(int32(binary.LittleEndian.Uint32(hdr[hl-4:])))
			if sl > 0 && sl <= int(b.size)-hl {
				stats = make([]byte, sl)
				if _, err := l.f.ReadAt(stats, b.pos+int64(hl)); err != nil && !errors.Is(err, io.EOF) {
					return nil, -1, skipped, err
				}
			}
		}
		schemaAt := 25
		if magic == 2 {
			schemaAt = 29
		}
		schemaID := int16(binary.LittleEndian.Uint16(hdr[schemaAt:]))
		if !keep(b.records, schemaID, stats) {
			lastScanned = b.next
			skipped++
			continue
		}
		if len(out) > 0 && len(out)+int(b.size) > maxBytes {
			// A size break: the skipped batches before it are behind us
			// only if one was kept after them, which this one was not.
			return out, -1, skipped, nil
		}
		buf := make([]byte, b.size)
		if _, err := l.f.ReadAt(buf, b.pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, -1, skipped, err
		}
		out = append(out, buf...)
		lastScanned, lastKept = b.next, b.next
	}
	if lastScanned > lastKept && lastScanned >= 0 {
		return out, lastScanned, skipped, nil
	}
	return out, -1, skipped, nil
}

// fetchFilter is the resolved filter of one table in a FetchLog request,
// nil when the read is unfiltered.
func fetchFilter(t *table, tr *flusspb.PbFetchLogReqForTable) (*record.StatsPredicate, error) {
	if t == nil || tr.FilterPredicate == nil {
		return nil, nil
	}
	if tr.FilterSchemaId == nil || tr.GetFilterSchemaId() < 0 || tr.GetFilterSchemaId() > math.MaxInt16 {
		// ServerRpcMessageUtils.getFetchLogFilters fails the request.
		return nil, ferr(codeInvalidConfig, "filter predicate is set but filter_schema_id is missing or invalid for table %d", t.ID)
	}
	if t.logFormat() != "ARROW" {
		return nil, nil
	}
	f, err := t.statsFilter(tr.GetFilterPredicate(), tr.GetFilterSchemaId())
	if err != nil {
		return nil, nil // Replica.createFilterContext falls back to an unfiltered read
	}
	return f, nil
}

// FilterSkippedBatches is how many log batches filtered fetches have left
// out since the cluster started (the server-side counterpart of the
// client's FlussLogBatchesSkipped).
func (c *Cluster) FilterSkippedBatches() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.filterSkipped
}
