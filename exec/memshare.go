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
