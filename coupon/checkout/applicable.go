package checkout

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/usercoupon"

	"github.com/shopspring/decimal"
)

// MaxWallet bounds the coupons one applicableCoupons call weighs (the caller's UNUSED and
// LOCKED ones, those ending first), so one call costs bounded work.
const MaxWallet = 1000

// Quote is what one of the caller's coupons does for an order: applicable with its discount, or
// not, with a machine code and a human reason.
type Quote struct {
	Coupon     *ent.UserCoupon
	Template   *coupon.Template
	Applicable bool
	Discount   decimal.Decimal
	Code       coupon.Code // set when not applicable
	Reason     string      // set when not applicable
}

// Applicable weighs every UNUSED or LOCKED coupon of the caller against order o, read from the
// database (status, expiry and shop as they are now) and the template cache: the applicable ones
// first, best discount first (ties: the one that expires first), then the others with why —
// THRESHOLD_NOT_MET (and how much is missing), NOT_APPLICABLE (shop, goods), EXPIRED (past its end,
// before the expiry job ran), NOT_STARTED, ALREADY_LOCKED (held by another order). Each discount
// is the coupon's alone; a coupon locked for this very order is applicable with its locked
// discount. See Best for the best set under the stacking rule.
func (s *Service) Applicable(ctx context.Context, actor coupon.Actor, o Order) ([]Quote, error) {
	if err := o.Validate(); err != nil {
		return nil, underField(err, "order")
	}
	return s.quotes(ctx, actor.UserID, &o)
}

// walletQuery reads the coupons Applicable weighs (the caller's UNUSED and LOCKED ones, those
// ending first, at most MaxWallet), with the columns a quote and the API's UserCoupon read (not
// the bookkeeping ones: updated_at, redemption_id, request_id, stock_batch_id), scanned by
// wallet.
var walletQuery = fmt.Sprintf("SELECT id, created_at, user_id, template_id, receive_count, source, status, valid_start_time, valid_end_time, "+
	"order_id, used_at, discount_amount FROM %s WHERE user_id = ? AND status IN (?, ?) ORDER BY valid_end_time, id LIMIT %d", usercoupon.Table, MaxWallet)

func (s *Service) quotes(ctx context.Context, userID int64, o *Order) ([]Quote, error) {
	coupons, err := s.wallet(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("applicable coupons: %w", err)
	}
	ids := make([]int64, 0, len(coupons))
	seen := map[int64]bool{}
	for _, c := range coupons {
		if !seen[c.TemplateID] {
			seen[c.TemplateID] = true
			ids = append(ids, c.TemplateID)
		}
	}
	templates, err := s.templates.GetMany(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("applicable coupons: %w", err)
	}
	now := s.now()
	out := make([]Quote, 0, len(coupons))
	for _, c := range coupons {
		q := Quote{Coupon: c, Template: templates[c.TemplateID]}
		q.Discount, q.Code, q.Reason = quote(q.Template, c, o, now)
		q.Applicable = q.Code == ""
		out = append(out, q)
	}
	slices.SortStableFunc(out, func(a, b Quote) int {
		if a.Applicable != b.Applicable {
			if a.Applicable {
				return -1
			}
			return 1
		}
		if c := b.Discount.Cmp(a.Discount); c != 0 {
			return c
		}
		return cmp.Or(a.Coupon.ValidEndTime.Compare(b.Coupon.ValidEndTime), cmp.Compare(a.Coupon.ID, b.Coupon.ID))
	})
	return out, nil
}

// wallet runs walletQuery for userID, scanning each row straight into its coupon (no ent node
// per row: a wallet is hundreds of rows).
func (s *Service) wallet(ctx context.Context, userID int64) ([]*ent.UserCoupon, error) {
	rows, err := s.db.QueryContext(ctx, walletQuery, userID, usercoupon.StatusUNUSED, usercoupon.StatusLOCKED)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*ent.UserCoupon
	for rows.Next() {
		c := &ent.UserCoupon{}
		if err := rows.Scan(&c.ID, &c.CreatedAt, &c.UserID, &c.TemplateID, &c.ReceiveCount, &c.Source, &c.Status,
			&c.ValidStartTime, &c.ValidEndTime, &c.OrderID, &c.UsedAt, &c.DiscountAmount); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// quote is one coupon's discount on o alone, or the code and reason it does not apply.
func quote(t *coupon.Template, c *ent.UserCoupon, o *Order, now time.Time) (decimal.Decimal, coupon.Code, string) {
	switch {
	case t == nil:
		return decimal.Zero, coupon.CodeNotApplicable, "the coupon's template no longer exists"
	case c.Status == usercoupon.StatusLOCKED && c.OrderID != nil && *c.OrderID == o.ID && c.DiscountAmount != nil:
		return *c.DiscountAmount, "", ""
	case c.Status == usercoupon.StatusLOCKED:
		return decimal.Zero, coupon.CodeAlreadyLocked, "the coupon is locked by another order"
	case !now.Before(c.ValidEndTime):
		return decimal.Zero, coupon.CodeExpired, "the coupon expired at " + c.ValidEndTime.Format(time.RFC3339)
	case now.Before(c.ValidStartTime):
		return decimal.Zero, coupon.CodeNotStarted, "the coupon is valid from " + c.ValidStartTime.Format(time.RFC3339)
	}
	d, err := Discount(t, o, decimal.Zero)
	if err != nil {
		return decimal.Zero, err.Code, err.Message
	}
	return d, "", ""
}
