package claim_test

import (
	"testing"

	"coupond/ent"
	"coupond/ent/usercoupon"
	"coupond/testutil/stack"
)

// mysqlBooks reads template id's coupons and row from MySQL and returns them with the coupons each
// user holds; a user holding more than limit fails the test.
func mysqlBooks(t *testing.T, s *stack.Stack, id int64, limit int) ([]*ent.UserCoupon, *ent.CouponTemplate, map[int64]int) {
	t.Helper()
	coupons, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(id)).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	row, err := s.DB.CouponTemplate.Get(s.Ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	held := map[int64]int{}
	for _, uc := range coupons {
		if held[uc.UserID]++; held[uc.UserID] > limit {
			t.Fatalf("user %d holds %d coupons, limit %d", uc.UserID, held[uc.UserID], limit)
		}
	}
	return coupons, row, held
}

// drainAll drains template id's outbox until a drain persists nothing.
func drainAll(t *testing.T, s *stack.Stack, id int64) {
	t.Helper()
	for {
		n, err := s.Persister.Drain(s.Ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}
