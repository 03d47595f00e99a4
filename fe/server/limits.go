package server

import (
	"github.com/inlet-db/inlet/exec/memlimit"
)

// ParseMemLimit reads --mem-limit as Doris reads mem_limit: a percentage of
// the memory this process may use ("80%": of the machine, or of its cgroup
// when that is lower) or bytes with an optional K/M/G/T suffix.
func ParseMemLimit(s string) (int64, error) {
	return memlimit.ParseSize(s, memlimit.PhysicalMemory())
}

// processAccount puts the process account (Options.MemLimit) over o.Mem, so
// that every statement's account draws from it and everything else is
// counted in it.
func processAccount(o *Options) *memlimit.Process {
	if p, ok := o.Mem.(*memlimit.Process); ok {
		if o.MemLimit > 0 {
			p.SetLimit(o.MemLimit)
		}
		return p
	}
	p := memlimit.NewProcess(o.Mem, o.MemLimit)
	o.Mem = p
	return p
}
