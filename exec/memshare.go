package exec

import "github.com/inlet-db/inlet/exec/memlimit"

// nestedPairs bounds the pairs of one probe step of a keyless join: maxPairs,
// or fewer when the statement's limit is small, so one output batch (8 bytes
// a column a row at least) stays near a 128th of exec_mem_limit: the expressions above
// may widen each row many times (a padded string per pair).
func (j *HashJoin) nestedPairs(env *Env) int64 {
	_, limit, ok := memlimit.Usage(env.Mem)
	if !ok {
		return maxPairs
	}
	width := int64(8 * max(1, j.joined.NumFields()))
	return min(maxPairs, max(1024, limit/128/width))
}

// chargeGo counts n bytes of Go memory an operator holds for a while (index
// and flag slices of one batch) against the statement, and returns the
// refund to defer: the account sees the peak, not only the arrays.
func chargeGo(env *Env, n int64) func() {
	memlimit.Charge(env.Mem, n)
	return func() { memlimit.Refund(env.Mem, n) }
}
