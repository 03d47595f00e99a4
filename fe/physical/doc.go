// Package physical turns a bound plan (fe/bind) into the vectorized
// operators that run it (exec). Scans of the tables the planner reads
// (Fluss and Paimon catalogs) are planned here into fragments (planner) and
// run on the BEs through a Runner; other tables are read through their
// catalog's Scan. LIMIT directly over such a scan and aggregates that read
// one directly are pushed into the fragment, so the BEs stop early or
// aggregate next to the readers.
//
// Runtime filters (runtime_filter_mode, runtime_filter_type,
// runtime_filter_max_in_num; RFConfig): each inner or semi join key whose
// probe expression is a scan column read unchanged (through filters,
// projections, casts, inner joins, the preserved side of outer joins)
// gets one filter per configured type, planned before the join's inputs
// are built so the scan applies it; never to outer joins' preserved side
// or anti joins. A filter is made only where it is expected to pay: the
// estimates (Config.MatchShare, fe/opt) must say the build keys match at
// most half the probe rows, and an internal table's scan must reach the
// join through another join (a scan read straight into the probe would
// only have the join's lookup done twice) unless the build side is big
// enough that its hash table misses the caches where the bloom filter
// does not.
//
// Aggregates that occur twice with the same subtree (a view read twice,
// TPC-H Q15) are built once and read through a VSHARED node (shared.go). A published min/max over an integer or text column also
// reaches the probe scan's BEs as a range filter. Semi and anti joins hash
// only the build columns their keys and residual read. A LEFT JOIN whose
// right side is estimated at four times its left or more runs as the
// executor's RIGHT OUTER JOIN of the swapped inputs, building the small
// preserved side and filtering the large one at its scan (more.go). A
// semi, anti or inner join of an estimated small probe side with a build
// side ten times larger or more reads the probe side first and filters the
// build side's scan by its keys ("probe-side runtime filters" in EXPLAIN).
//
// It also owns the per-statement state fragments need (Statement): the
// query id that names the statement in profiles and on the BEs, the scans
// it planned and the counters the BEs returned for them. fe/server begins
// and ends statements, files their profiles and renders them; this package
// only fills them in.
//
// What must stay true:
//   - EXPLAIN prints the operators and fragments that run: fe/server prints
//     the tree Build returns, and the fragment a scan's EXPLAIN lines
//     describe is the one its Open sends, fixed (ranges, offsets, limit,
//     partial aggregate) when Build returns.
//   - A scan the planner reads is planned exactly once per Build, and gets
//     one profile slot in its Statement; a table the planner declines
//     leaves no slot.
//   - A scan's counters are summed over its BEs and recorded once, when its
//     stream ends or is released before its end (a LIMIT met above it).
//   - Pushing down never changes a result: a LIMIT is pushed only when
//     nothing between it and the scan can drop rows other than a filter
//     the BEs apply exactly (filterIsPushed: every conjunct is one of the
//     scan's pushed predicates, its constant of the column's type); ORDER
//     BY columns LIMIT n over such a scan becomes a per-range Top-N of
//     offset+n rows while the FE still sorts and cuts the union; an
//     aggregate is pushed only when its partial states can carry every
//     group and call exactly.
//   - A conjunct of a WHERE right over a BE-read scan is left to the BEs
//     only when the scan's fragment carries it as a filter they apply
//     exactly (exactOnBE: the same column, operator and constants, of an
//     integer, string, boolean, date or decimal column at its scale);
//     every other conjunct stays in the FE's filter. The columns nothing
//     above the scan reads then (exec.PruneJoinColumns) become the
//     fragment's filter_only columns: the BEs filter by them and do not
//     send them, the FE's batches hold placeholders there, and EXPLAIN
//     lists the output and the filter-only columns apart.
//   - Errors this package detects itself carry its own kinds
//     (ErrNotSupported); fe/server maps kinds to wire codes. It imports
//     neither fe/server nor fe/mysqlwire.
//
// Concurrency: a Statement may be read (Scans) while its streams record
// counters; Build and the rest of a Statement are used by one statement's
// goroutine.
package physical
