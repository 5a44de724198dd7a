package distribution

// idSet is a set of user ids (positive: 0 marks a free slot) in one open-addressed table of
// int64, 8 bytes a slot at a load of at most 3/4: about 16 MiB for a million ids where a Go map
// takes 38 MB, so the ids a run has seen (DUPLICATE_IN_FILE) are the one part of its memory that
// grows with the file, and grows slowly.
type idSet struct {
	slots []int64
	n     int
	shift uint // 64 − log2(len(slots))
}

// add inserts id and reports whether it was new.
func (s *idSet) add(id int64) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	if !place(s.slots, s.shift, id) {
		return false
	}
	s.n++
	return true
}

// grow doubles the table (16 slots to start with) and places the ids again.
func (s *idSet) grow() {
	size := max(16, 2*len(s.slots))
	slots := make([]int64, size)
	shift := uint(64)
	for n := size; n > 1; n >>= 1 {
		shift--
	}
	for _, id := range s.slots {
		if id != 0 {
			place(slots, shift, id)
		}
	}
	s.slots, s.shift = slots, shift
}

// place puts id in its slot of slots (Fibonacci hashing, linear probing) and reports whether it
// was not there already.
func place(slots []int64, shift uint, id int64) bool {
	mask := len(slots) - 1
	for i := int((uint64(id) * 0x9E3779B97F4A7C15) >> shift); ; i = (i + 1) & mask {
		switch slots[i] {
		case 0:
			slots[i] = id
			return true
		case id:
			return false
		}
	}
}
