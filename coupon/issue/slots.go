package issue

import (
	"context"
	"fmt"
	"slices"

	"coupond/ent"
	"coupond/ent/usercouponarchive"
)

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

// archivedUsersPerQuery is the users ArchivedSlots asks about in one query: a distribution batch
// (5,000 rows by default) in one round trip, as T2 reads the same users' coupons in one.
const archivedUsersPerQuery = 5000

// ArchivedSlots returns the user id and receive_count of the users' coupons of the template that
// the archive job moved to user_coupon_archive. They still hold their slots: limitPerPerson counts
// every coupon a user was ever issued, so callers that read slots or counts from user_coupon Take
// these too. It reads up to archivedUsersPerQuery users per query.
func ArchivedSlots(ctx context.Context, archive *ent.UserCouponArchiveClient, templateID int64, users []int64) ([]*ent.UserCouponArchive, error) {
	var out []*ent.UserCouponArchive
	for chunk := range slices.Chunk(users, archivedUsersPerQuery) {
		rows, err := archive.Query().Where(usercouponarchive.UserIDIn(chunk...), usercouponarchive.TemplateID(templateID)).
			Select(usercouponarchive.FieldUserID, usercouponarchive.FieldReceiveCount).All(ctx)
		if err != nil {
			return nil, fmt.Errorf("load archived coupons: %w", err)
		}
		out = append(out, rows...)
	}
	return out, nil
}
