package minifluss

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Frame layout (spec §1.1). Every header integer is BIG-endian; the record
// payloads inside bodies are little-endian and are not touched here.
//
//	request  : [frame_len int32][api_key int16][api_version int16][request_id int32][protobuf body]
//	response : [frame_len int32][type int8][request_id int32][body]        type 0 SUCCESS, 1 ERROR
//	           [frame_len int32][type int8=2][ErrorResponse]                SERVER_FAILURE, no id
//
// frame_len counts the bytes after itself.

const (
	requestHeaderLen = 8 // api_key + api_version + request_id

	respSuccess       byte = 0
	respError         byte = 1
	respServerFailure byte = 2

	// DefaultMaxFrameBytes is the server's largest accepted request frame,
	// netty.server.max-request-size in Fluss.
	DefaultMaxFrameBytes = 100 << 20
)

// ErrFrame marks a malformed or oversized frame; the connection that sent it is closed.
var ErrFrame = errors.New("minifluss: bad frame")

// requestHeader is the fixed part of a request frame.
type requestHeader struct {
	APIKey     int16
	APIVersion int16
	RequestID  int32
}

// readFrame reads one length-prefixed frame body. The length is checked
// against max before anything is allocated.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(lb[:]))
	if n < 0 || int64(n) > int64(max) {
		return nil, fmt.Errorf("%w: frame length %d outside [0, %d]", ErrFrame, n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("%w: frame of %d bytes cut short: %v", ErrFrame, n, err)
	}
	return buf, nil
}

// parseRequest splits a request frame body into header and protobuf body. It
// is pure so the fuzzer can drive it.
func parseRequest(frame []byte) (requestHeader, []byte, error) {
	if len(frame) < requestHeaderLen {
		return requestHeader{}, nil, fmt.Errorf("%w: request frame of %d bytes is shorter than the %d-byte header", ErrFrame, len(frame), requestHeaderLen)
	}
	h := requestHeader{
		APIKey:     int16(binary.BigEndian.Uint16(frame[0:2])),
		APIVersion: int16(binary.BigEndian.Uint16(frame[2:4])),
		RequestID:  int32(binary.BigEndian.Uint32(frame[4:8])),
	}
	return h, frame[requestHeaderLen:], nil
}

// appendResponse appends a complete response frame (length included) to dst.
// For respServerFailure the request id is omitted, as the protocol says.
func appendResponse(dst []byte, typ byte, requestID int32, body []byte) []byte {
	n := 1 + len(body)
	if typ != respServerFailure {
		n += 4
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	dst = append(dst, typ)
	if typ != respServerFailure {
		dst = binary.BigEndian.AppendUint32(dst, uint32(requestID))
	}
	return append(dst, body...)
}
