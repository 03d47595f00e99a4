package client

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/inlet-db/inlet/proto/flussapi"
	"github.com/inlet-db/inlet/proto/flusspb"
	"google.golang.org/protobuf/proto"
)

// Frames (shared/spec/fluss-protocol.md §1.1). Every integer of the frame
// header is big-endian; the payload formats inside messages are not.
//
// Request, client → server:
//
//	+----------------+---------+-------------+------------+-----------------+
//	| frame_len int32| api_key | api_version | request_id | protobuf body   |
//	| (bytes after   | int16   | int16       | int32      | (no length      |
//	|  this field)   |         |             |            |  prefix)        |
//	+----------------+---------+-------------+------------+-----------------+
//	  0                4         6             8            12
//
// Response, server → client:
//
//	+----------------+---------+------------------------+---------------------+
//	| frame_len int32| type u8 | request_id int32       | body                |
//	|                |         | (types 0 and 1 only)   | 0: API response     |
//	|                |         |                        | 1,2: ErrorResponse  |
//	+----------------+---------+------------------------+---------------------+
//	  0                4         5                        9 (5 for type 2)
//
// A type-2 (SERVER_FAILURE) frame answers no request: the server is closing
// the connection.

const (
	requestHeaderLen = 8 // api_key + api_version + request_id
	// DefaultMaxFrameSize caps a response frame before its body is allocated.
	DefaultMaxFrameSize = 256 << 20
)

// appendRequestFrame appends a complete request frame (length prefix
// included) carrying body to dst.
func appendRequestFrame(dst []byte, key flussapi.APIKey, version int16, id int32, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(requestHeaderLen+len(body)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(key))
	dst = binary.BigEndian.AppendUint16(dst, uint16(version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(id))
	return append(dst, body...)
}

// responseFrame is a parsed response frame body (the bytes after frame_len).
type responseFrame struct {
	typ   flussapi.ResponseType
	id    int32 // meaningless for ResponseServerFailure
	hasID bool
	body  []byte // aliases the input
	err   *Error // set for ResponseError and ResponseServerFailure
}

// parseResponseFrame decodes a response frame body. It is pure: the input is
// whatever the network delivered, so every length is checked and nothing is
// trusted. Errors wrap ErrProtocol and say which part was wrong.
func parseResponseFrame(b []byte) (responseFrame, error) {
	var f responseFrame
	if len(b) < 1 {
		return f, fmt.Errorf("%w: response frame of %d bytes has no type byte", ErrProtocol, len(b))
	}
	f.typ = flussapi.ResponseType(b[0])
	rest := b[1:]
	switch f.typ {
	case flussapi.ResponseSuccess, flussapi.ResponseError:
		if len(rest) < 4 {
			return f, fmt.Errorf("%w: response frame type %d of %d bytes has no request id", ErrProtocol, f.typ, len(b))
		}
		f.id = int32(binary.BigEndian.Uint32(rest))
		f.hasID = true
		rest = rest[4:]
	case flussapi.ResponseServerFailure:
	default:
		return f, fmt.Errorf("%w: unknown response type %d", ErrProtocol, b[0])
	}
	f.body = rest
	if f.typ == flussapi.ResponseSuccess {
		return f, nil
	}
	var er flusspb.ErrorResponse
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(rest, &er); err != nil {
		return f, fmt.Errorf("%w: error response body of request %d: %v", ErrProtocol, f.id, err)
	}
	if er.ErrorCode == nil {
		return f, fmt.Errorf("%w: error response of request %d has no error_code", ErrProtocol, f.id)
	}
	f.err = &Error{Code: er.GetErrorCode(), Message: er.GetErrorMessage()}
	return f, nil
}

// readFrame reads one length-prefixed frame and returns the bytes after the
// length. The length is checked against max before the body is allocated.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("%w: reading frame length: %v", ErrConnection, err)
	}
	n := binary.BigEndian.Uint32(lenBuf[:])
	if err := checkFrameLen(n, max); err != nil {
		return nil, err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("%w: reading %d-byte frame body: %v", ErrConnection, n, err)
	}
	return body, nil
}

// checkFrameLen validates a frame length prefix against the cap before any
// allocation.
func checkFrameLen(n uint32, max int) error {
	if n > uint32(max) || int64(n) > int64(max) {
		return fmt.Errorf("%w: response frame of %d bytes exceeds the %d byte limit", ErrProtocol, n, max)
	}
	if n < 1 {
		return fmt.Errorf("%w: empty response frame", ErrProtocol)
	}
	return nil
}

// unmarshal decodes a Fluss message; required fields may be missing (Fluss
// declares many), the callers check what they need.
func unmarshal(b []byte, m proto.Message) error {
	return proto.UnmarshalOptions{AllowPartial: true}.Unmarshal(b, m)
}
