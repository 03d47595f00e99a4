// Package exec is the FE's vectorized query executor: physical operators
// over arrow-go RecordBatches, shaped like DataFusion's ExecutionPlan (one
// file per operator, one small interface).
//
// A plan is a tree of Operator values built by fe/bind (or fe/server) from
// the expression IR in exec/expr. Building a plan does no work; Open
// starts execution and returns an array.RecordReader, and no batch is
// computed before the first Next.
//
// Operators (one file each): Scan (any Source; sources may add EXPLAIN
// lines through ExplainSource), Values, Filter, Project, Limit,
// HashAggregate (AggSingle, or AggPartial + AggFinal via FinalFor), Distinct,
// Union (ALL or DISTINCT), Sort, TopN, HashJoin (inner, left outer, full
// outer, right outer, left semi, left anti, null-aware anti, right semi,
// right anti; no keys = nested loop),
// Window, Repeat (one projection per grouping set, under the aggregate of
// ROLLUP/CUBE/GROUPING SETS), AssertOneRow (a scalar subquery's one-row
// check, per key for a correlated one: MySQL's 1242 at run time). Every
// operator needs a single input stream in any order; ExplainTree prints a
// plan the Doris way.
//
// Runtime filters (runtimefilter.go): an inner, left or right semi, right
// anti or right outer HashJoin given RuntimeFilters publishes, once its
// build side is read, a min/max, IN or bloom filter per key for that
// execution (keyed by its Env); a Scan below its probe side holding the
// same filters (ScanFilter) drops the rows no build key can match before
// they reach the operators in between; under a parallel pipeline's
// Filter or Project the workers test them in the same selection as the
// Filter and gather the rows kept once (pipeline.applyFirst). A filter
// not yet published passes every row, one that drops too few stops being
// applied, and a Source can read a published range (FilterRange) to skip
// data itself.
//
// SUM and AVG of a DECIMAL expression of +, - and * (agg_dec64.go, over
// expr.Dec64) fold on int64 lanes without building 128-bit arrays; a batch
// whose values or steps leave the int64 range takes the general path,
// with the same results and errors.
//
// What must stay true:
//
//  1. Schema() is known before Open and every batch a reader yields has
//     exactly that schema (same field count and types), so an empty
//     result still describes its columns.
//  2. Filter, Project, Limit, Union ALL, Repeat, AssertOneRow and Scan stream: they hold
//     at most one input batch. HashAggregate, Sort, Window and Distinct read their
//     whole input before the first output batch; HashJoin materializes its
//     build (right) side only and streams the probe (left) side, opening
//     each input once (a full outer join too); TopN keeps
//     at most offset+limit rows. HashAggregate emits groups in first-seen
//     order, except past aggParallelAfter rows, where up to
//     parallel_pipeline_task_num-1 more goroutines fold batches in turn
//     and their new groups follow. Without GROUP BY
//     it keeps no group table: batches fold into registers (over a Filter
//     directly below, into the rows the predicate selects, copying no
//     column a COUNT(*) or a plain column argument does not need), and
//     past aggParallelAfter rows up to parallel_pipeline_task_num
//     goroutines (WithParallelism; at most GOMAXPROCS) fold batches the
//     reading goroutine hands them into partial states merged at the end.
//     Parallel pipelines (parallel.go): a HashJoin with keys (not a full
//     outer join) probes in parallel_pipeline_task_num goroutines, which
//     also run the Filter and Project steps directly under its probe side;
//     the steps under its build side and under a HashAggregate run the
//     same way (the Filter right under a HashAggregate hands it the batch
//     and the rows it selects, selBatch, instead of copying them). One goroutine reads the source, workers transform batches,
//     and results come out in input order, so the orders promised above
//     hold at any parallelism.
//  3. NULL is SQL NULL everywhere: a filter keeps a row only when the
//     predicate is TRUE; NULL join keys never match; GROUP BY and DISTINCT
//     put all NULL keys in one group (and -0 with +0, every NaN with every
//     NaN, as Doris); Sort puts NULLs first ascending and
//     last descending unless told otherwise (MySQL/Doris default).
//  4. Every array an operator allocates comes from Env.Mem and is released
//     by the time the reader is released, whether or not it was drained;
//     tests check this with memory.NewCheckedAllocator.
//  5. A batch returned by Next belongs to the reader until the next call to
//     Next or Release; callers Retain it to keep it longer.
//  6. The context passed to Open cancels the query: readers check it
//     between batches and report ctx.Err() through Err.
//  7. A reader belongs to one goroutine (a parallel pipeline's source
//     reader belongs to its reading goroutine until it is released). Plans (Operator trees) are
//     immutable once built and may be opened many times, concurrently.
//  8. Env.Mem may be a statement's limited allocator (exec/memlimit), which
//     panics past exec_mem_limit: pull readers recover that panic into Err.
//     Code that allocates on goroutines it does not own (arrow compute
//     kernels, Sources) gets memlimit.Lenient(Env.Mem), which counts but
//     never refuses, so no panic is raised where nobody recovers it. A
//     Scan fails at its next batch once such counting took the statement
//     past its limit (memlimit.Check), so nothing above holds more than a
//     batch or two past it. Go memory an operator holds is charged before
//     it is allocated where it can be (group tables grow ahead of a batch,
//     groupgrow.go): the old and new arrays of a growing slice both count.
//  9. Under WithSpill (Doris enable_spill) HashJoin, HashAggregate (GROUP BY
//     with mergeable states) and Sort write rows to Arrow IPC files in the
//     statement's directory past their share of exec_mem_limit (spill_*.go):
//     a grace join, partial states partitioned by key hash, sorted runs
//     merged. Each file is deleted once read and by the reader's Release;
//     the caller removes the directory when the statement ends. A spilled
//     join or aggregate no longer keeps probe or first-seen order.
package exec
