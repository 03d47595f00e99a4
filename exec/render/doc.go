// Package render turns Arrow values into the bytes of the MySQL text
// protocol, formatted the way Doris prints them, for the MySQL wire layer
// and for CAST(x AS STRING).
//
// What must stay true:
//
//  1. Rendering is pure: the same value gives the same bytes, appended to
//     the caller's slice; nothing is kept between calls.
//  2. A top-level NULL is reported as NULL (ok=false) so the wire layer can
//     send the NULL marker; NULL inside ARRAY/MAP/STRUCT prints as null.
//  3. Formats: BOOLEAN 1/0; DATE 2024-01-02; DATETIME by the timestamp unit
//     (seconds → 2024-01-02 03:04:05, milliseconds → .123, microseconds →
//     .000000 always six digits, as DATETIME(6) does); TIME hh:mm:ss with
//     digits by unit likewise; BINARY as its raw bytes; DECIMAL with exactly
//     its scale; DOUBLE/FLOAT in the shortest form that reads back the same,
//     fixed notation for 1e-5 <= |x| < 1e16 and 1e+16 style otherwise; ARRAY
//     [1, 2]; MAP {"k":1, "k2":2}; STRUCT {"f":1, "g":"x"}; strings, dates
//     and datetimes inside nested values are double-quoted.
package render
