// Package unionread merges a lake split with the Fluss log written after the
// tiered offset so every row comes out exactly once.
//
// Invariant: a lake row of (partition, bucket) is emitted only if its key is
// absent from that bucket's tail [lakeEnd, stop), and tail survivors come out
// once, in first-seen order.
package unionread
