package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/catalog/fluss/record"
)

// TestFoldBinlog: Fluss's $binlog folding, hand-derived per case: +I an
// insert, -D a delete, -U then +U one update at the +U's offset (also
// across a batch boundary); a +U whose -U is not in the range has no
// before, a -U without its +U no after.
func TestFoldBinlog(t *testing.T) {
	const (
		I = record.Insert
		B = record.UpdateBefore
		A = record.UpdateAfter
		D = record.Delete
	)
	show := func(evs []binlogEvent, open *binlogEvent) string {
		var s []string
		for _, e := range evs {
			s = append(s, fmt.Sprintf("%s@%d/%d(%d,%d)", e.kind, e.offset, e.ts, e.before, e.after))
		}
		if open != nil {
			s = append(s, fmt.Sprintf("open@%d(%d)", open.offset, open.before))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name    string
		cts     []record.ChangeType
		shift   int
		carried *binlogEvent
		want    string
	}{
		{"docs example", []record.ChangeType{I, B, A, D}, 0, nil,
			"insert@10/7(-1,0) update@12/7(1,2) delete@13/7(3,-1)"},
		{"starts at a +U", []record.ChangeType{A, I}, 0, nil, "update@10/7(-1,0) insert@11/7(-1,1)"},
		{"ends at a -U", []record.ChangeType{I, B}, 0, nil, "insert@10/7(-1,0) open@11(1)"},
		{"-U then -D", []record.ChangeType{B, D}, 0, nil, "update@10/7(0,-1) delete@11/7(1,-1)"},
		{"two -U", []record.ChangeType{B, B, A}, 0, nil, "update@10/7(0,-1) update@12/7(1,2)"},
		{"carried -U paired", []record.ChangeType{A, I}, 1, &binlogEvent{offset: 9, ts: 6, before: 0},
			"update@10/7(0,1) insert@11/7(-1,2)"},
		{"carried -U unpaired", []record.ChangeType{I}, 1, &binlogEvent{offset: 9, ts: 6, before: 0},
			"update@9/6(0,-1) insert@10/7(-1,1)"},
		{"carried -U, empty batch", nil, 1, &binlogEvent{offset: 9, ts: 6, before: 0}, "open@9(0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, open := foldBinlog(c.cts, 10, 7, c.shift, c.carried)
			if got := show(evs, open); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
