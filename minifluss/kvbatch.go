package minifluss

import (
	"fmt"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

// decodeKvBatch decodes and CRC-checks the KV write batch of a PutKv bucket
// request with the codec owner's decoder (record.DecodeKvBatch, which draws
// the byte layout), then adds what the emulator asks of a request beyond the
// codec: the payload is exactly one batch, and no key is empty. Record slices
// alias b.
func decodeKvBatch(b []byte) (record.KvBatch, error) {
	// The request frame cap already bounds b; cap the batch at the bytes sent
	// rather than at the codec's default limit.
	kb, size, err := record.DecodeKvBatch(b, record.DecodeOptions{MaxBatchSize: len(b)})
	if err != nil {
		return kb, err
	}
	if size != len(b) {
		return kb, fmt.Errorf("kv batch of %d bytes is followed by %d more bytes", size, len(b)-size)
	}
	for i, r := range kb.Records {
		if len(r.Key) == 0 {
			return kb, fmt.Errorf("kv record %d: empty key", i)
		}
	}
	return kb, nil
}
