package memlimit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/inlet-db/inlet/internal/sysmem"
)

// ProcessVariable names the process-wide limit in errors (Doris mem_limit;
// the FE flag --mem-limit).
const ProcessVariable = "mem_limit"

// Process is the account of a whole process (Doris mem_limit): every
// statement Allocator made over it draws from it, so statements under
// their own limits cannot together take the process past its cap. The one
// whose allocation would pass it fails; the others go on.
//
// Used directly as a memory.Allocator (catalogs, caches, anything outside
// a statement) it counts but never refuses: that code has nobody to
// recover the panic of a refused allocation.
type Process struct {
	parent memory.Allocator
	limit  atomic.Int64
	used   atomic.Int64
	peak   atomic.Int64
}

// NewProcess returns the process account over parent; limit <= 0 means no
// limit.
func NewProcess(parent memory.Allocator, limit int64) *Process {
	p := &Process{parent: parent}
	p.SetLimit(limit)
	return p
}

// SetLimit changes the limit; <= 0 means none. Bytes already held stay.
func (p *Process) SetLimit(limit int64) {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	p.limit.Store(limit)
}

// Limit is the limit in bytes (math.MaxInt64 when there is none).
func (p *Process) Limit() int64 { return p.limit.Load() }

// Used is what the process' allocations hold now.
func (p *Process) Used() int64 { return p.used.Load() }

// Peak is the most held at once since the last ResetPeak.
func (p *Process) Peak() int64 { return p.peak.Load() }

// ResetPeak starts a new peak from what is held now.
func (p *Process) ResetPeak() { p.peak.Store(p.used.Load()) }

// reserve counts n more bytes; strict refuses (and counts nothing) past
// the limit, returning the error to panic with. Not strict, it counts and
// returns the error when the count passed the limit.
func (p *Process) reserve(n int64, strict bool) *Exceeded {
	var u int64
	if strict && n > 0 {
		// Compare-and-swap, so the count never shows more than the limit
		// even for an instant: a refused statement may not make another
		// one's allocation fail.
		for {
			old := p.used.Load()
			if lim := p.limit.Load(); old+n > lim {
				return &Exceeded{Variable: ProcessVariable, Limit: lim, Used: old, Want: n, Process: true}
			}
			if p.used.CompareAndSwap(old, old+n) {
				u = old + n
				break
			}
		}
	} else {
		u = p.used.Add(n)
		if lim := p.limit.Load(); n > 0 && u > lim {
			defer p.notePeak(u)
			return &Exceeded{Variable: ProcessVariable, Limit: lim, Used: u - n, Want: n, Process: true}
		}
	}
	p.notePeak(u)
	return nil
}

func (p *Process) notePeak(u int64) {
	for {
		pk := p.peak.Load()
		if u <= pk || p.peak.CompareAndSwap(pk, u) {
			return
		}
	}
}

// Allocate implements memory.Allocator; it never refuses.
func (p *Process) Allocate(size int) []byte {
	p.reserve(int64(size), false)
	return p.parent.Allocate(size)
}

// Reallocate implements memory.Allocator; it never refuses.
func (p *Process) Reallocate(size int, b []byte) []byte {
	p.reserve(int64(size-len(b)), false)
	return p.parent.Reallocate(size, b)
}

// Free implements memory.Allocator.
func (p *Process) Free(b []byte) {
	p.used.Add(-int64(len(b)))
	p.parent.Free(b)
}

// ParseSize reads a memory size as Doris' mem_limit takes it: a percentage
// of total ("80%"), or bytes with an optional K, M, G or T suffix (binary
// multiples, "B" allowed after it: "8G", "512MB", "1073741824").
func ParseSize(s string, total int64) (int64, error) {
	v := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("memory size %q: the percentage must be in (0, 100]", s)
		}
		if total <= 0 {
			return 0, fmt.Errorf("memory size %q: the machine's memory is unknown; give bytes", s)
		}
		return int64(f / 100 * float64(total)), nil
	}
	u := strings.ToUpper(v)
	u = strings.TrimSuffix(u, "B")
	mult := int64(1)
	if n := len(u); n > 0 {
		switch u[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			u = u[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(u), 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("memory size %q: want a positive number of bytes (K, M, G, T suffixes) or a percentage such as 80%%", s)
	}
	return n * mult, nil
}

// PhysicalMemory is the memory this process may use (internal/sysmem):
// the machine's, or the cgroup's limit when that is lower; 0 when neither
// can be read.
func PhysicalMemory() int64 { return sysmem.PhysicalMemory() }
