package exec

import (
	"testing"
)

// A Top-N whose N rows pass its share of exec_mem_limit hands them and
// the rest of its input to the sort that spills: the rows, in order, are
// DuckDB's; NULL keys sort where the key says, the offset is skipped;
// N past the input gives every row.
func TestSpillTopN(t *testing.T) {
	top := func(keys []SortKey, offset, count int64) func(Operator) Operator {
		return func(in Operator) Operator { return must(NewTopN(in, keys, offset, count)) }
	}
	kNullsFirstVDesc := []SortKey{{Expr: dk, Nulls: NullsFirst}, {Expr: dv, Desc: true}}
	sDescV := []SortKey{{Expr: ds, Desc: true, Nulls: NullsLast}, {Expr: dv}}
	checkSpillCases(t, 30000, 700, 4000, []spillCase{
		{name: "k nulls first, v desc", op: top(kNullsFirstVDesc, 100, 8000),
			duck:  "SELECT * FROM t ORDER BY k NULLS FIRST, v DESC LIMIT 8000 OFFSET 100",
			limit: []int64{2 << 20, 1 << 20}, ordered: true},
		{name: "s desc nulls last, v", op: top(sDescV, 0, 20000),
			duck:  "SELECT * FROM t ORDER BY s DESC NULLS LAST, v LIMIT 20000",
			limit: []int64{1 << 20}, ordered: true},
		{name: "n past the input", op: top(sDescV, 5, 50000),
			duck:  "SELECT * FROM t ORDER BY s DESC NULLS LAST, v LIMIT 50000 OFFSET 5",
			limit: []int64{1 << 20}, ordered: true},
	})
}

// A statement cancelled while a Top-N's sort spills leaves no file.
func TestSpillTopNCancel(t *testing.T) {
	checkSpillCancel(t, func(in Operator) Operator {
		return must(NewTopN(in, []SortKey{{Expr: ds}}, 0, 1<<40))
	})
}
