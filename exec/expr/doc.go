// Package expr is the bound, typed scalar expression IR of the FE executor
// and its vectorized evaluator over arrow-go RecordBatches.
//
// The binder (fe/bind) builds expressions with the constructors of this
// package (Col, Lit, Null, Arith, Cmp, And, Or, Not, IsNull, Between, In,
// Like, Case, If, Coalesce, Cast, Func, DateArith, Element, Field); they
// check operand types and insert the implicit casts MySQL/Doris would, so
// every Expr knows its result type before any row is seen. Nothing here
// parses SQL or touches a catalog.
//
// Functions reachable through Func (names case-insensitive):
//
//	control: if, ifnull/nvl, coalesce, nullif, regexp/rlike, regexp_extract
//	string:  concat, concat_ws, upper/ucase, lower/lcase, length/octet_length,
//	         char_length/character_length, substr/substring/mid, left, right,
//	         trim, ltrim, rtrim, replace, lpad, rpad, instr, locate/position,
//	         split_part, reverse, starts_with, ends_with, repeat, space, ascii,
//	         strcmp (every one that builds a string obeys MaxStringBytes)
//	math:    abs, ceil/ceiling, floor, round/dround, truncate, mod, pow/power,
//	         sqrt, ln, log10, log2, exp, sign, pi, greatest, least
//	date:    now/current_timestamp/localtime/localtimestamp/sysdate, curdate/
//	         current_date, year, quarter, month, day/dayofmonth, dayofweek,
//	         weekday, dayofyear, hour, minute, second, to_date/date, datediff,
//	         date_format, unix_timestamp, from_unixtime, date_trunc, date_add/
//	         adddate/days_add, date_sub/subdate/days_sub, {years,months,weeks,
//	         hours,minutes,seconds}_{add,sub}
//	nested:  element_at, struct_element, size/array_size/cardinality/map_size,
//	         map_keys, map_values, reverse (arrays), array
//	arrays:  Doris's array functions (func_array.go: array_sort, array_distinct,
//	         array_join, the set functions, aggregates over elements,
//	         array_range, ...). A lambda (x -> body) is evaluated by
//	         ArrayMapExpr, ArrayReduceExpr and ArraySortByExpr (lambda.go):
//	         the body is bound over a batch of its parameters followed by the
//	         outer columns it reads (captures), built from the elements of
//	         the input batch's arrays, so it runs vectorized; the other
//	         higher-order functions are their forms over array_map's result
//	Doris:   the families added from Doris's function list (issue 15): JSON
//	         (func_json.go; JSON values are STRING holding JSON text), date
//	         and time (func_doris_date.go: *_floor/*_ceil, convert_tz, TIME
//	         results, ISO 8601), string/URL/regexp (func_doris_string.go) and
//	         math/hash (func_doris_math.go), the rest (func_doris_rest.go:
//	         int_to_uuid, uuid_numeric, ngram_search, tokenize, the first
//	         significant subdomain, random_bytes, {fmt}-style format,
//	         parse_data_size; seqpattern.go parses SEQUENCE_MATCH patterns
//	         for the binder and exec); fe/bind/testdata/doris_functions.txt
//	         lists every name. rand(seed) is the one function with state: its
//	         generator (mutex-guarded) lives in the Expr, so the rows of a
//	         statement draw one repeatable sequence
//
// What must stay true:
//
//  1. Eval returns a new array of exactly batch.NumRows() rows whose type
//     is DataType(); the caller owns it and must Release it.
//  2. NULL follows SQL three-valued logic: any NULL operand of an arithmetic,
//     comparison or scalar function yields NULL unless the function says
//     otherwise (AND/OR/IS NULL/COALESCE/IFNULL/IF/CASE/CONCAT_WS, <=>).
//  3. A bad cast or a division by zero does not abort the query: as in
//     Doris, it yields NULL. Arithmetic overflow of BIGINT or DECIMAL(38)
//     is an ErrOverflow error (never a wrapped, wrong value). Other errors
//     returned by Eval are about the plan or resources.
//  4. Evaluation allocates only from Env.Mem and holds no state between
//     calls, so one Expr may be evaluated by many goroutines at once.
//  5. No function builds a string longer than MaxStringBytes (16 MiB): one
//     that would fails the statement with ErrTooLarge (a kind of
//     ErrOverflow) before allocating it, as Doris fails such a query; the
//     check is on the size the arguments ask for, so lpad('a', 1e11, 'b')
//     costs nothing.
//  6. now()/curdate() read Env.Now, fixed once per statement, so every row
//     and every batch of one statement sees the same instant.
//  7. The typed kernels (kernels*.go: string, decimal, narrow integer,
//     FLOAT and BOOLEAN comparisons, IN, decimal + - * / % DIV, rescales
//     and casts, DATE/DATETIME casts to and from strings, integers and
//     each other, abs and unary DOUBLE functions, COALESCE, CASE assembly
//     of every common result type, and the string functions) give exactly
//     what the row-wise paths give, NULLs and errors included, and
//     allocate per batch, never per row (TestKernelsAllocationFree). A
//     kernel may hand a row it has no fast step for back to the row-wise
//     code (invalid UTF-8 for functions that decode characters, decimals
//     beyond int64, text in a non-canonical date form); each family has a
//     differential test against the row-wise path. Decimal steps use
//     128-bit integers and fall back to big.Int only beyond int64
//     operands; nothing may call decimal128's IncreaseScaleBy on a value
//     that can exceed 128 bits (it panics): use scaleUp.
//  8. Fold (fold.go) replaces a constant subtree by its literal only when
//     the literal has the subtree's exact type and gives the same rows:
//     never rand/uuid (volatile), never now()-like functions (the fold may
//     run with another instant), never a JSON-producing call (parents know
//     JSON by the node), never a subtree whose evaluation fails (the error
//     stays where rows are evaluated). A new stateful or row-varying
//     function must be added to volatile.
//
// Values inside the generic (row-wise) paths use one canonical Go type per
// kind: int64 (all integer types), float64, decimal128.Num (scale from the
// type), string (string and binary), bool, arrow.Date32, arrow.Timestamp in
// microseconds, []any (list and struct), MapValue (map), nil (NULL).
package expr
