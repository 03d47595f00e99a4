// Package arrowval reads one cell of an Arrow array as a Go value. It is the
// one place that knows how each Arrow array type, unit and nesting maps to
// Go: the expression evaluator (exec/expr), the Paimon reader (merge keys,
// predicates, fixture JSON), the Paimon writer (keys, partitions, stats) and
// the Fluss emulator (rows arriving as Arrow batches) all read cells here.
//
// What must stay true:
//   - NULL reads as nil, at every nesting level; a NULL struct, list or map
//     is nil, not an empty value.
//   - Nothing is lost: timestamps keep every nanosecond in the exact form
//     (floor division, so instants before 1970 stay ordered), decimals keep
//     their unscaled value and scale, binary stays bytes (copied, so a value
//     outlives the batch it was read from).
//   - A type this package cannot read is an error naming the Arrow type,
//     never a silent nil.
//
// Two forms, because callers truly compute on different representations:
//
//   - Exact (the default) keeps each value's declared width and precision:
//     int8…int64 and uint8…uint64 as themselves, float32 as float32, DATE as
//     int32 days, TIME as int32 milliseconds of the day, TIMESTAMP (with or
//     without a zone: the stored instant) as Timestamp{Millis, NanoOfMilli},
//     DECIMAL as Decimal, BINARY as []byte, LIST and STRUCT as []any, MAP as
//     Map. Serializers need this: Paimon's BinaryRow and Fluss rows encode
//     the exact width, and a key compares on every nanosecond. Options.Decimal,
//     Timestamp and Map let such a caller receive its own named type (the
//     same fields) without walking the value a second time.
//   - Widened is the evaluator's form: one Go type per family so arithmetic
//     and comparison need one case per family: every integer int64, every
//     float float64, DECIMAL decimal128.Num (the scale lives in the type),
//     strings and binary string, DATE arrow.Date32, TIME arrow.Time64 and
//     TIMESTAMP arrow.Timestamp in microseconds (the engine's precision),
//     nested values as in Exact.
package arrowval
