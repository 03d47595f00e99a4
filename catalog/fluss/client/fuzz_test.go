package client

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

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
