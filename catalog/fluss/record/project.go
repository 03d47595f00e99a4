package record

import (
	"encoding/binary"
	"fmt"

	"github.com/inlet-db/inlet/typemap"
)

// Projection pushdown as the tablet server does it (REC/FileLogProjection):
//
//   - the header is copied with length updated and, for V1/V2, the
//     statistics dropped and statistics_length set to 0; the CRC is NOT
//     recomputed, so readers of projected fetches must skip CRC checks;
//   - the change-type vector is copied unchanged;
//   - a new RecordBatch message holds only the selected top-level fields
//     with their whole subtrees (field nodes and buffers), buffers copied
//     as stored (still compressed) and re-offset contiguously, 8-aligned;
//   - header-only (0-record) batches pass through untouched.

// ProjectArrowBatch appends the projection of one ARROW batch written with
// schema cols to the top-level columns at positions (strictly ascending).
func ProjectArrowBatch(dst []byte, batch []byte, cols []typemap.Column, positions []int) ([]byte, error) {
	if len(positions) == 0 {
		return dst, fmt.Errorf("%w: empty projection", ErrInvalid)
	}
	for i, p := range positions {
		if p < 0 || p >= len(cols) {
			return dst, fmt.Errorf("%w: projection position %d out of bound for %d columns", ErrInvalid, p, len(cols))
		}
		if i > 0 && p <= positions[i-1] {
			return dst, fmt.Errorf("%w: projection positions %v are not strictly ascending", ErrInvalid, positions)
		}
	}
	lb, err := DecodeLogBatch(batch, DecodeOptions{SkipCRC: true})
	if err != nil {
		return dst, err
	}
	if lb.Header.RecordCount == 0 {
		return append(dst, lb.Raw...), nil
	}
	ct, rest, err := changeTypesOf(&lb)
	if err != nil {
		return dst, err
	}
	schema, err := typemap.ArrowSchema(cols)
	if err != nil {
		return dst, err
	}
	nodeStart := make([]int, len(cols)+1)
	bufStart := make([]int, len(cols)+1)
	for i, f := range schema.Fields() {
		n, b := countLayout(f.Type)
		nodeStart[i+1] = nodeStart[i] + n
		bufStart[i+1] = bufStart[i] + b
	}
	meta, after, err := splitIPCMessage(rest)
	if err != nil {
		return dst, err
	}
	m, err := parseRecordBatchMeta(meta, nodeStart[len(cols)]+bufStart[len(cols)])
	if err != nil {
		return dst, err
	}
	if len(m.nodes) != nodeStart[len(cols)] || len(m.buffers) != bufStart[len(cols)] {
		return dst, fmt.Errorf("%w: batch has %d field nodes and %d buffers, schema needs %d and %d",
			ErrCorrupt, len(m.nodes), len(m.buffers), nodeStart[len(cols)], bufStart[len(cols)])
	}
	if m.bodyLength > int64(len(after)) {
		return dst, fmt.Errorf("%w: arrow body length %d, %d bytes left", ErrCorrupt, m.bodyLength, len(after))
	}
	body := after[:m.bodyLength]
	var nodes []fieldNode
	var specs []bufSpec
	var newBody []byte
	for _, p := range positions {
		nodes = append(nodes, m.nodes[nodeStart[p]:nodeStart[p+1]]...)
		for _, s := range m.buffers[bufStart[p]:bufStart[p+1]] {
			if s.offset < 0 || s.length < 0 || s.offset > int64(len(body)) || s.length > int64(len(body))-s.offset {
				return dst, fmt.Errorf("%w: column %q buffer at %d length %d outside the %d-byte body", ErrCorrupt, cols[p].Name, s.offset, s.length, len(body))
			}
			specs = append(specs, bufSpec{offset: int64(len(newBody)), length: s.length})
			newBody = append(newBody, body[s.offset:s.offset+s.length]...)
			for len(newBody)%8 != 0 {
				newBody = append(newBody, 0)
			}
		}
	}
	hs := HeaderSize(lb.Header.Magic)
	start := len(dst)
	dst = append(dst, lb.Raw[:hs]...)
	if !ct.AppendOnlyBatch() {
		dst = append(dst, ct.raw...)
	}
	dst = appendIPCMessage(dst, buildRecordBatchMeta(m.length, nodes, specs, m.codec, int64(len(newBody))))
	dst = append(dst, newBody...)
	h := dst[start:]
	binary.LittleEndian.PutUint32(h[8:], uint32(len(h)-LogOverhead))
	if lb.Header.Magic != MagicV0 {
		binary.LittleEndian.PutUint32(h[hs-4:], 0)
	}
	return dst, nil
}

// ProjectArrowBatches projects every whole batch of a concatenation; a
// truncated tail is dropped (as a fetch would end there).
func ProjectArrowBatches(dst []byte, b []byte, cols []typemap.Column, positions []int) ([]byte, error) {
	it := ReadBatches(b, DecodeOptions{SkipCRC: true})
	for it.Next() {
		var err error
		if dst, err = ProjectArrowBatch(dst, it.Batch().Raw, cols, positions); err != nil {
			return dst, fmt.Errorf("batch at byte %d: %w", it.Batch().Position, err)
		}
	}
	return dst, it.Err()
}

// ProjectColumns returns the columns at positions, the schema a projected
// batch must be decoded with.
func ProjectColumns(cols []typemap.Column, positions []int) ([]typemap.Column, error) {
	out := make([]typemap.Column, len(positions))
	for i, p := range positions {
		if p < 0 || p >= len(cols) {
			return nil, fmt.Errorf("%w: projection position %d out of bound for %d columns", ErrInvalid, p, len(cols))
		}
		out[i] = cols[p]
	}
	return out, nil
}
