// Package bind turns a parsed query (fe/sql) into a bound logical plan:
// names resolved through the catalog interfaces (three-part names, the
// session's current catalog and database, CTEs, derived tables), every
// expression typed by exec/expr, aggregates split from their inputs,
// session values (@@x, DATABASE(), SET_VAR) fixed as literals.
//
// What must stay true:
//   - Binding does no I/O beyond catalog metadata calls; it never reads rows.
//   - Every Plan node knows its output columns (names and Arrow types)
//     before execution, so an empty result still has a described schema.
//   - Column indexes in expressions refer to the output of the node's input
//     (for Join: left columns then right columns); Join keys are bound in
//     their own side's columns.
//   - WHERE conjuncts move into a FROM clause of joins (joinwhere.go) only
//     where every row the joins produce meets the same conditions as
//     before: never below a FULL join or onto a null-supplying input.
//   - No subquery runs per row: IN/EXISTS conjuncts of WHERE become semi
//     and anti joins, uncorrelated scalar subqueries a join with a one-row
//     plan, and every other subquery (correlated, or in any expression
//     position) is decorrelated into a LEFT JOIN grouped back to one row
//     per input row (correlate.go). A correlated subquery with GROUP BY,
//     HAVING, DISTINCT, LIMIT or a subquery of its own, one whose
//     correlation has no equality, and a scalar aggregate one whose
//     correlation values come from a filtered table of the outer query
//     (TPC-H Q17, Q2) is evaluated over the distinct correlation values instead
//     (taken from a filtered table of the outer query when it reads them
//     from one, else a copy of the outer plan) and joined back NULL-safely
//     on them (lateral.go): its FROM meets only the outer query's keys,
//     with runtime filters, and the outer rows are never regrouped. A
//     scalar subquery without FROM is an expression over the outer row;
//     [NOT] EXISTS and [NOT] IN over a UNION of correlated blocks split
//     into one subquery per block. A scalar subquery the binder cannot prove to yield at
//     most one row (per outer row) runs under an AssertOneRow, which fails
//     the statement when a second row comes, as MySQL and Doris do at run
//     time; WHERE filters the outer rows first, so a dropped row never
//     trips it.
//   - LARGEINT is DECIMAL128 with precision 39 (exec/expr.LargeIntT): the
//     whole int128 range, never cut to 38 digits.
//   - A HAVING name outside aggregate functions is a GROUP BY column, else a
//     select alias, else a table column (Doris's order); a column neither
//     grouped nor aggregated is an error even where SQLite would fold it
//     away (COALESCE(77, c)), as under Doris's ONLY_FULL_GROUP_BY.
//   - ROLLUP, CUBE and GROUPING SETS run as one Repeat (grouping.go) under
//     one Aggregate that also groups by the set number, so a NULL a set
//     rolled up never merges with a NULL of the data; aggregate arguments
//     read the input columns, never the set's NULLs.
//   - x op ANY|ALL (S) and (x, y) IN (...) bind as expansions into
//     IN, scalar subqueries of count/min/max and EXISTS (quantified.go)
//     that keep MySQL's NULL answers; a row IN conjunct of WHERE over an
//     uncorrelated S is a semi join on every pair.
//   - A view binds like a derived table over its stored query, whose table
//     names were qualified when it was created (view.go).
//   - Errors name the column, table or function concerned and wrap one of
//     this package's kinds (ErrUnknownColumn, ErrAmbiguous, ErrUnsupported,
//     ErrAnalysis) or the catalog's, so the server can pick the wire code.
//
// Concurrency: a Binder binds one statement; Plans are immutable once built
// and may be shared.
package bind
