// Package typemap defines the engine's column types and the pure mappings
// between Fluss, engine, Paimon and Arrow types. No I/O.

package typemap
