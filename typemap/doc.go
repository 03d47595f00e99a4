// Package typemap is the type model of Inlet: the Fluss 1.0 data types (all 19
// roots, with nullability), their JSON form as Fluss writes it, and the pure
// mappings Fluss → Arrow and Fluss → engine (Doris-style) types. No I/O.
//
// What must stay true:
//
//  1. MarshalJSON of a DataType is byte-for-byte the string Fluss's
//     DataTypeJsonSerde writes ("type", then "nullable":false only for NOT
//     NULL, then the type's own keys), and ParseDataType accepts every form
//     Fluss 1.0 reads (including ROW fields without field_id).
//  2. ArrowType is the single source of the Arrow schema of a Fluss column:
//     the log codec (catalog/fluss/record), the lake reader and the engine all
//     call it, so a log batch and a lake batch of the same table have equal
//     schemas. It matches Fluss's own Arrow log format (ArrowUtils): CHAR is
//     Utf8, BINARY(n) is FixedSizeBinary(n), TIME/TIMESTAMP units follow the
//     precision, lists name their child "element", maps are
//     entries<key NOT NULL, value>. The one deliberate difference: a
//     TIMESTAMP_LTZ column gets time zone "UTC" (Java leaves it empty); no
//     schema travels on the wire, so bytes are unaffected, and the zone lets
//     the engine tell instants from local date-times.
//  3. Engine mapping follows the product spec's column type mapping table
//     (shared/seeds/fluss-catalog.md) exactly, including the cases that map to
//     UNSUPPORTED (TIME) and the precision caps.
//
// DataType values are immutable once built; share them freely.
package typemap
