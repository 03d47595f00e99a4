package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/inlet-db/inlet/catalog/fluss/record"

	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

func frameOf(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// FuzzResponseStream feeds arbitrary bytes to the response-side decoder (the
// frame reader, the frame parser and the error body decoder, exactly as the
// connection's read loop chains them). It must never panic, never allocate
// past the cap, and every error must say what was wrong by kind.
func FuzzResponseStream(f *testing.F) {
	errBody, _ := proto.Marshal(&flusspb.ErrorResponse{ErrorCode: proto.Int32(12), ErrorMessage: proto.String("not leader")})
	okBody, _ := proto.Marshal(&flusspb.ListOffsetsResponse{BucketsResp: []*flusspb.PbListOffsetsRespForBucket{{BucketId: proto.Int32(0), Offset: proto.Int64(9)}}})
	f.Add(frameOf(append([]byte{0, 0, 0, 0, 1}, okBody...)))
	f.Add(frameOf(append([]byte{1, 0, 0, 0, 2}, errBody...)))
	f.Add(frameOf(append([]byte{2}, errBody...)))
	f.Add(append(frameOf([]byte{0, 0, 0, 0, 3}), frameOf(append([]byte{1, 0, 0, 0, 4}, errBody...))...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		for i := 0; i < 64; i++ {
			body, err := readFrame(r, 1<<16)
			if err != nil {
				if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrConnection) {
					t.Fatalf("frame error of no kind: %v", err)
				}
				return
			}
			fr, err := parseResponseFrame(body)
			if err != nil {
				if !errors.Is(err, ErrProtocol) || err.Error() == "" {
					t.Fatalf("parse error of no kind: %v", err)
				}
				continue
			}
			if fr.typ != 0 && fr.err == nil {
				t.Fatalf("error frame without error: %+v", fr)
			}
			var resp flusspb.ListOffsetsResponse
			_ = unmarshal(fr.body, &resp)
		}
	})
}

// FuzzLogReaderConsume feeds arbitrary fetched bytes, offsets and bounds to
// the reader's batch step (decode, trim to [start, stop), project): it must
// never panic or leak, and every row it queues must lie in the range.
func FuzzLogReaderConsume(f *testing.F) {
	for _, seed := range seedLogBlobs(f) {
		f.Add(seed, int64(0), int64(1), int64(100), false)
		f.Add(seed, int64(3), int64(2), int64(5), true)
	}
	cl, err := New(Config{BootstrapServers: []string{"127.0.0.1:1"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, blob []byte, next, start, stop int64, arrowFmt bool) {
		if start < 0 || stop < start || next < start {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		format := record.LogFormatCompacted
		if arrowFmt {
			format = record.LogFormatArrow
		}
		lr, err := cl.NewLogReader(context.Background(), LogRange{Start: start, Stop: stop, Columns: fakeCols, Format: format, Projection: []int{1, 0}, LocalProjection: true}, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Release()
		lr.next = next
		_, err = lr.consume(blob, 0, false, true)
		if err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
		for _, p := range lr.queue {
			if int(p.rec.NumRows()) != len(p.changes) || p.rec.NumRows() == 0 || p.rec.NumRows() > stop-start {
				t.Fatalf("queued %d rows with %d change types for range [%d, %d)", p.rec.NumRows(), len(p.changes), start, stop)
			}
		}
	})
}

// seedLogBlobs returns real log batches (COMPACTED and ARROW) to seed fuzzing.
func seedLogBlobs(tb testing.TB) [][]byte {
	var out [][]byte
	var blob []byte
	base := int64(0)
	for _, n := range []int{3, 0, 2} {
		var rows [][]any
		for i := 0; i < n; i++ {
			rows = append(rows, []any{int32(base) + int32(i), "v"})
		}
		b, err := record.AppendRowLogBatch(nil, record.BatchParams{BaseOffset: base, SchemaID: 1, WriterID: -1, BatchSequence: -1}, record.RowCompacted, record.Types(fakeCols), rows, nil)
		if err != nil {
			tb.Fatal(err)
		}
		blob = append(blob, b...)
		base += int64(max(n, 1))
	}
	out = append(out, blob, blob[:len(blob)-5])
	rd, err := record.NewRowDecoder(fakeCols, record.RowCompacted, memory.NewGoAllocator())
	if err != nil {
		tb.Fatal(err)
	}
	defer rd.Release()
	for i := 0; i < 4; i++ {
		if err := rd.AppendValues([]any{int32(i), "a"}); err != nil {
			tb.Fatal(err)
		}
	}
	rec := rd.NewRecordBatch()
	defer rec.Release()
	enc, err := record.NewArrowEncoder(record.CompressionNone, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	ab, err := enc.AppendBatch(nil, record.BatchParams{BaseOffset: 2, SchemaID: 1, WriterID: -1, BatchSequence: -1}, rec, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return append(out, ab)
}
