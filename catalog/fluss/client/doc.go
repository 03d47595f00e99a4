// Package client is the Go Fluss 1.0 wire client: framed TCP connections with
// ApiVersions negotiation and SASL PLAIN, a pool keyed by client configuration,
// metadata and bucket leaders, offsets, lake and KV snapshots, and log and KV
// scanners that produce Arrow record batches. A Client is safe for concurrent
// use; a scanner belongs to one goroutine.

package client
