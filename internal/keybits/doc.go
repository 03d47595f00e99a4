// Package keybits is the exact bitmap of a set of integer join keys that a
// hash join's runtime filter keeps when its build keys span few values (bit
// k-lo set for key k), and the one test of a probe value against it. The
// FE's filter (exec), the BE's fragment filter (exec/expr's InBits) and the
// Paimon lake predicate's leaf (lake/paimon) all test here, so a row one of
// them keeps the others keep too, and the wire form (Encode, Decode) is
// defined once.
//
// What must stay true:
//   - A value below lo, at or past lo+64*len(words), or whose bit is clear
//     is not in the set; no value is in an empty set.
//   - NULL is never in the set: callers clear NULL rows themselves.
package keybits
