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
//  5. now()/curdate() read Env.Now, fixed once per statement, so every row
//     and every batch of one statement sees the same instant.
//
// Values inside the generic (row-wise) paths use one canonical Go type per
// kind: int64 (all integer types), float64, decimal128.Num (scale from the
// type), string (string and binary), bool, arrow.Date32, arrow.Timestamp in
// microseconds, []any (list and struct), MapValue (map), nil (NULL).
package expr
