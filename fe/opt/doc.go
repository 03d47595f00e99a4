// Package opt is the cost-based step between binding (fe/bind) and building
// operators (fe/physical): it estimates every plan node's row count from
// table statistics and chooses the order of inner joins.
//
// Estimates. A scan starts from its table's row count (catalog.RowCounter)
// and per-column statistics (catalog.ColumnStatser: NDV, null count,
// bounds). A filter multiplies by its selectivity: 1/NDV for column =
// constant, k/NDV for IN of k values, the covered share of [min, max] for
// ranges (bounds on one column combined first, so BETWEEN is one range),
// the null fraction for IS NULL, and fixed guesses where statistics are
// missing (0.1 for an equality, 1/3 for a range or anything else). An
// equi-join keeps |L|·|R|/max(NDV(l), NDV(r)); without NDVs the key is taken
// as unique on the larger side (|L|·|R|/max(|L|, |R|)). NDVs are capped by a
// node's row count, so filters shrink them too.
//
// Join order. A region is a maximal tree of inner and cross joins (with the
// filters directly over them); its inputs (anything else: scans, filters,
// aggregates, outer or semi joins, each optimised on its own first) and its
// conditions are collected, and the order is chosen by dynamic programming
// over connected subsets of inputs (DPsub, up to dpLimit inputs; a greedy
// pairing of the cheapest connected pair beyond). The cost of a plan is the
// sum of its intermediate results plus, per hash join, its probe rows and
// twice its build rows; each join builds on the smaller estimated side (the
// right input, which exec.HashJoin hashes). Inputs are combined only when
// an equality connects them while any such pairing is left: a cross product
// is built only between parts no equality links. Every condition sits at
// the lowest join that sees its columns, equalities between the two sides
// as hash keys. A projection restores the region's column order, so the
// nodes above see what the binder built.
//
// Before estimating, column = constant filters of an input are copied
// through the region's column equalities to the other inputs (a = b AND
// b = 5 gives a = 5), where they are implied, so they filter early.
// Column equalities linking three or more inputs form equivalence classes
// whose missing pairs are added as join edges (a = b AND b = c gives
// a = c: Q5's customer joins nation on c_nationkey), estimated as one
// class and applied as one hash key per join (equiv.go).
//
// Semi and anti joins keep the share of left rows whose keys the right
// side's distinct keys cover (the smaller set of values taken as
// contained in the larger). Estimates.MatchShare answers the same for a
// join's key, for fe/physical's choice of runtime filters. A semi or anti
// join whose right side is estimated at twice its left or more is marked
// to hash its left side instead (BuildLeft: the executor's RIGHT SEMI or
// RIGHT ANTI JOIN of the swapped inputs; semi.go).
//
// Totals from groups (total.go). An aggregate without GROUP BY over the
// same rows as a grouped aggregate elsewhere in the plan (TPC-H Q11's
// HAVING sum > (SELECT sum … over the same FROM and WHERE)), whose calls
// are sums of integers or decimals, mins or maxes the grouped one also
// computes, totals a copy of the grouped aggregate instead, which
// fe/physical computes once for both readers: the rows are joined once.
//
// A region is left as bound when an input's row count is unknown, or when
// an input's table keeps column statistics but has none (an internal table
// not analysed yet: a row count alone cannot tell a key from a low-NDV
// column, and guessing made TPC-H Q5 join customer to supplier on the
// nation key): the binder's order (FROM order, inputs no equality reaches
// deferred) stays. Tables that can only report row counts (Fluss, Paimon)
// are ordered with keys taken as unique on the larger side. Estimates are hints: a wrong one makes a slower
// plan, never a wrong answer, because only inner joins are reordered and
// every condition is applied exactly once.
package opt
