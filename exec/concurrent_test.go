package exec

import (
	"fmt"
	"sync"
	"testing"

	"github.com/inlet-db/inlet/exec/expr"
)

// TestPlanOpenedConcurrently checks the doc's promise that one plan may be
// opened by several goroutines at once (run with -race).
func TestPlanOpenedConcurrently(t *testing.T) {
	scan, c := aggInput()
	f := must(NewFilter(scan, must(expr.Like(c["g"], expr.Str("a%"), 0, true))))
	agg := must(NewHashAggregate(f, []expr.Expr{c["g"]}, []string{"g"}, []AggCall{{Func: Sum, Arg: c["x"], Name: "s"}}, AggSingle))
	plan := must(NewSort(agg, []SortKey{{Expr: expr.Col(0, "g", expr.StringT())}}))
	want := fmtRows(run(t, plan))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, _ := newEnv(t)
			rows, err := runEnv(env, plan)
			if err == nil && fmtRows(rows) != want {
				err = fmt.Errorf("got %s, want %s", fmtRows(rows), want)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
