package issue

// Slots hands out receive_count values the way MySQL enforces the per-person limit: each coupon
// of a template holds a slot in 1…limit of its user, unique by (user_id, template_id,
// receive_count), so no user can hold more than limit coupons even when Redis lost the counters.
type Slots struct {
	limit int
	taken map[[2]int64]bool
}

// NewSlots returns the slots of a template whose limitPerPerson is limit, all free.
func NewSlots(limit int) *Slots { return &Slots{limit: limit, taken: map[[2]int64]bool{}} }

// Take marks the user's slot rc as held (by a coupon already in the database).
func (s *Slots) Take(user int64, rc int) { s.taken[[2]int64{user, int64(rc)}] = true }

// Pick takes a free slot for the user and returns it: want (the receive_count the claim counter
// handed out) when it is within the limit and free, else the lowest free one; 0 when the user
// has none left.
func (s *Slots) Pick(user int64, want int) int {
	rc := want
	if rc < 1 || rc > s.limit || s.taken[[2]int64{user, int64(rc)}] {
		rc = 0
		for slot := 1; slot <= s.limit && rc == 0; slot++ {
			if !s.taken[[2]int64{user, int64(slot)}] {
				rc = slot
			}
		}
	}
	if rc > 0 {
		s.Take(user, rc)
	}
	return rc
}
