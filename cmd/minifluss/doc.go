// Command minifluss runs the Fluss 1.0 emulator (package minifluss) as a
// process: it opens a data directory, optionally applies a scenario file
// (tables, rows, retention and leader controls; see minifluss/README.md),
// prints the bootstrap address and serves until interrupted.
//
//	go run ./cmd/minifluss --data-dir DIR --scenario FILE
package main
