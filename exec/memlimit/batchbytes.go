package memlimit

import "github.com/apache/arrow-go/v18/arrow"

// BatchBytes is what b's buffers take, children included (a sliced batch
// counts its buffers whole): the size operators charge for a batch they
// hold, spill files for what they write and senders for what is in flight.
func BatchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += arrayBytes(c.Data())
	}
	return n
}

func arrayBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayBytes(c)
	}
	return n
}
