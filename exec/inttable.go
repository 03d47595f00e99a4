package exec

// intTable maps int64 keys to dense ids with open addressing (linear
// probing, Fibonacci hashing). It is the group/join table for a single
// integer-like key; key and id share a slot so a probe touches one cache
// line.
type intTable struct {
	slots []intSlot
	shift uint
	mask  uint64
	n     int
	// grew, when set, is told of the slots' bytes before a resize
	// allocates them and of the old ones' after (groupgrow.go).
	grew func(delta int64)
	// hint is how many keys the table is expected to hold (0: unknown):
	// see nextSize.
	hint int
}

type intSlot struct {
	key int64
	id  uint32 // id+1; 0 marks an empty slot
}

func newIntTable() *intTable { return newIntTableSized(1 << 10) }

// newIntTableSized makes a table of size slots (a power of two).
func newIntTableSized(size int) *intTable {
	t := &intTable{}
	t.resize(size)
	return t
}

func (t *intTable) resize(size int) {
	old := t.slots
	if t.grew != nil {
		t.grew(int64(size) * intSlotBytes)
		defer t.grew(-int64(len(old)) * intSlotBytes)
	}
	t.slots = make([]intSlot, size)
	t.mask = uint64(size - 1)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	for _, s := range old {
		if s.id != 0 {
			for p := t.slot(s.key); ; p = (p + 1) & t.mask {
				if t.slots[p].id == 0 {
					t.slots[p] = s
					break
				}
			}
		}
	}
}

func (t *intTable) slot(k int64) uint64 {
	return (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift
}

// get returns the id of k and whether it is present.
func (t *intTable) get(k int64) (uint32, bool) {
	for p := t.slot(k); ; p = (p + 1) & t.mask {
		s := &t.slots[p]
		if s.id == 0 {
			return 0, false
		}
		if s.key == k {
			return s.id - 1, true
		}
	}
}

// getOrInsert returns the id of k, giving it next if absent (inserted
// reports which).
func (t *intTable) getOrInsert(k int64, next uint32) (id uint32, inserted bool) {
	for p := t.slot(k); ; p = (p + 1) & t.mask {
		s := &t.slots[p]
		if s.id == 0 {
			s.key, s.id = k, next+1
			t.n++
			if t.n*2 > len(t.slots) {
				t.resize(nextSize(len(t.slots), t.n, t.hint))
			}
			return next, true
		}
		if s.key == k {
			return s.id - 1, false
		}
	}
}

// nextSize is the size a table of size slots holding n keys grows to:
// twice its size, or at once the size that holds hint keys (the
// optimizer's group estimate) at most half full once the table holds an
// eighth of them. A table that would rehash a dozen times on its way up
// rehashes about twice; an estimate far above the truth is never
// allocated, as the table must first reach an eighth of it.
func nextSize(size, n, hint int) int {
	size *= 2
	if hint > 0 && n*hintShare >= hint {
		for size < 2*hint {
			size *= 2
		}
	}
	return size
}

// hintShare: see nextSize.
const hintShare = 8
