// Package unionread merges a lake split with the Fluss log written after the
// tiered offset so every row comes out exactly once.
//
// Invariant: a lake row of (partition, bucket) is emitted only if its key is
// absent from that bucket's tail [lakeEnd, stop), and tail survivors come out
// once, in first-seen order.
//
// The fast paths must stay equivalent to the plain ones (tests compare
// them): KeyEncoder.AppendAll lays out exactly the bytes Append gives row by
// row; a KeySet hashes a key from its bytes alone (the hash picked by the
// key's length), so a key inserted from a tail batch is found from a lake
// batch; and the suppressor's run-by-run copy returns what Arrow's filter
// kernel returns for the same mask.
package unionread
