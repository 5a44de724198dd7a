package claim_test

import (
	"sync"
	"testing"

	"coupond/coupon"
	"coupond/coupon/claim"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/services"
	"coupond/testutil/stack"
)

// 64 clients claim one template in sync mode at once: the claims are written in shared batches
// (fewer stock batch headers than claims), each answered ISSUED with its own coupon only once it
// is committed, none twice; the stock runs out exactly (OUT_OF_STOCK past it) and nobody is over
// the limit.
func TestConcurrentSyncClaimsShareBatches(t *testing.T) {
	s := stack.New(t, "claim", "group_commit", stack.Options{Config: services.Config{
		Redeem: claim.Config{Mode: claim.ModeSync}, Persist: claim.PersistConfig{UserShards: 2},
	}})
	const clients, each, stock = 64, 8, 400
	tpl := s.Template(t, stock, 2, nil)
	var mu sync.Mutex
	issued := map[int64]int64{} // coupon id → user
	refused := 0
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				user := int64(1 + (c*each+i)/2) // each user claims twice: at the limit
				red, err := s.Redeemer.Redeem(s.Ctx, user, tpl.ID, "")
				mu.Lock()
				switch {
				case err == nil && red.Status == claim.RedemptionIssued && red.Coupon != nil && red.Coupon.UserID == user:
					if _, dup := issued[red.Coupon.ID]; dup {
						t.Errorf("coupon %d answered twice", red.Coupon.ID)
					}
					issued[red.Coupon.ID] = user
				case err != nil && codeOf(err) == coupon.CodeOutOfStock:
					refused++
				default:
					t.Errorf("user %d: %+v, %v; want ISSUED with a coupon or OUT_OF_STOCK", user, red, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(issued) != stock || refused != clients*each-stock {
		t.Fatalf("issued %d, refused %d; want %d and %d", len(issued), refused, stock, clients*each-stock)
	}
	coupons, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID)).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int64]int{}
	for _, uc := range coupons {
		if issued[uc.ID] != uc.UserID {
			t.Fatalf("coupon %d of user %d was not answered to that user", uc.ID, uc.UserID)
		}
		if per[uc.UserID]++; per[uc.UserID] > 2 {
			t.Fatalf("user %d holds %d coupons", uc.UserID, per[uc.UserID])
		}
	}
	headers, err := s.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID)).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, h := range headers {
		if h.State != stockbatch.StateSETTLED {
			t.Fatalf("header %d is %s", h.ID, h.State)
		}
		used += h.Used
	}
	row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(coupons) != stock || used != stock || row.Stock != 0 || row.Issued != stock {
		t.Fatalf("coupons %d, headers' used %d, stock %d, issued %d", len(coupons), used, row.Stock, row.Issued)
	}
	if len(headers) >= stock {
		t.Fatalf("%d headers for %d claims: no batch was shared", len(headers), stock)
	}
	t.Logf("%d claims written in %d batches", stock, len(headers))
}
