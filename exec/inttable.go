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
}

type intSlot struct {
	key int64
	id  uint32 // id+1; 0 marks an empty slot
}

func newIntTable() *intTable {
	t := &intTable{}
	t.resize(1 << 10)
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
				t.resize(len(t.slots) * 2)
			}
			return next, true
		}
		if s.key == k {
			return s.id - 1, false
		}
	}
}
