// Command be is the Inlet BE worker: it executes scan ranges (lake splits,
// Fluss log and primary-key ranges, log tails) and streams Arrow batches back
// to the FE over Arrow Flight.
package main
