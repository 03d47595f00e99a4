package exec

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/inlet-db/inlet/proto/inletpb"
)

// StatsReader is a stream of batches from a fragment (read on a BE, in
// process or over Flight) that also reports the fragment's counters. Stats
// is complete once Next has returned false; before that it may be partial
// or nil.
type StatsReader interface {
	array.RecordReader
	Stats() *inletpb.ScanStats
}
