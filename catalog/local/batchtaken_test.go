package local

import (
	"errors"
	"testing"
)

// A rewrite in a commit group must not win over an earlier record of the
// same group that removed its inputs or replaced the table: validation
// alone sees only the state before the group.
func TestBatchTakenConflicts(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []logRecord
		want []bool // conflict per record
	}{
		{"overwrite then compaction", []logRecord{{Table: 1, Replace: true}, {Table: 1, Remove: []string{"a", "b"}}}, []bool{false, true}},
		{"compaction then overwrite", []logRecord{{Table: 1, Remove: []string{"a"}}, {Table: 1, Replace: true}}, []bool{false, false}},
		{"two compactions sharing an input", []logRecord{{Table: 1, Remove: []string{"a", "b"}}, {Table: 1, Remove: []string{"b", "c"}}}, []bool{false, true}},
		{"disjoint compactions", []logRecord{{Table: 1, Remove: []string{"a"}}, {Table: 1, Remove: []string{"b"}}}, []bool{false, false}},
		{"other table", []logRecord{{Table: 1, Replace: true}, {Table: 2, Remove: []string{"a"}}, {Table: 1, Remove: []string{"a"}}}, []bool{false, false, true}},
		{"plain loads", []logRecord{{Table: 1, Replace: true}, {Table: 1}, {Table: 1}}, []bool{false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b batchTaken
			for i := range tc.recs {
				err := b.claim(&tc.recs[i])
				if got := errors.Is(err, errConflict); got != tc.want[i] {
					t.Errorf("record %d: conflict %v (%v), want %v", i, got, err, tc.want[i])
				}
			}
		})
	}
}
