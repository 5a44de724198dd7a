// Package wallet is a user's side of coupons: the coupons they hold.
package wallet

import (
	"cmp"
	"context"
	stdsql "database/sql"
	"fmt"
	"slices"
	"time"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/predicate"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"

	"entgo.io/ent/dialect/sql"
)

// Wallet reads a user's coupons.
type Wallet struct {
	db  *ent.Client
	now func() time.Time
}

// New returns a Wallet over the database.
func New(db *ent.Client) *Wallet { return &Wallet{db: db, now: time.Now} }

// MyCoupons returns the page k of the user's coupons, newest first, optionally only those with the
// given status as the user sees it (an UNUSED coupon past its end is EXPIRED). With archived set
// it lists the coupons of user_coupon_archive too, merged by id (one id space: a coupon is in one
// table or the other), so cursors page across both; both tables are read in one snapshot, so a
// coupon the archive moves meanwhile is listed and counted once.
func (w *Wallet) MyCoupons(ctx context.Context, userID int64, status *usercoupon.Status, k coupon.Keyset, archived bool) (coupon.Page[*coupon.UserCoupon], error) {
	where := []predicate.UserCoupon{usercoupon.UserID(userID)}
	if status != nil {
		where = append(where, statusAsSeen(*status, w.now()))
	}
	if !archived {
		total, err := w.db.UserCoupon.Query().Where(where...).Count(ctx)
		if err != nil {
			return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("count coupons: %w", err)
		}
		rows, err := hotPage(ctx, w.db, where, k)
		return coupon.NewPage(rows, k, total, hot), err
	}
	tx, err := w.db.BeginTx(ctx, &stdsql.TxOptions{Isolation: stdsql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("list coupons: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	db := tx.Client()
	// The archive's rows answer the same predicates: they select on the same column names.
	awhere := make([]predicate.UserCouponArchive, len(where))
	for i, p := range where {
		awhere[i] = predicate.UserCouponArchive(p)
	}
	total, err := db.UserCoupon.Query().Where(where...).Count(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("count coupons: %w", err)
	}
	totalArchived, err := db.UserCouponArchive.Query().Where(awhere...).Count(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("count archived coupons: %w", err)
	}
	hotRows, err := hotPage(ctx, db, where, k)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, err
	}
	q := db.UserCouponArchive.Query().Where(awhere...).Where(predicate.UserCouponArchive(after(k)))
	archivedRows, err := q.Order(usercouponarchive.ByID(direction(k))).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return coupon.Page[*coupon.UserCoupon]{}, fmt.Errorf("list archived coupons: %w", err)
	}
	rows := make([]*coupon.UserCoupon, 0, len(hotRows)+len(archivedRows))
	for _, r := range hotRows {
		rows = append(rows, hot(r))
	}
	for _, r := range archivedRows {
		rows = append(rows, cold(r))
	}
	// Both lists are in page order (id descending forward, ascending backward); merged, the first
	// k.Size+1 are the page's rows plus the one telling that more follow.
	slices.SortFunc(rows, func(a, b *coupon.UserCoupon) int {
		if k.Backward {
			return cmp.Compare(a.ID, b.ID)
		}
		return cmp.Compare(b.ID, a.ID)
	})
	if len(rows) > k.Size+1 {
		rows = rows[:k.Size+1]
	}
	return coupon.NewPage(rows, k, total+totalArchived, func(c *coupon.UserCoupon) *coupon.UserCoupon { return c }), nil
}

// hotPage reads up to k.Size+1 rows of user_coupon matching where past k's cursor, in page order.
func hotPage(ctx context.Context, db *ent.Client, where []predicate.UserCoupon, k coupon.Keyset) ([]*ent.UserCoupon, error) {
	rows, err := db.UserCoupon.Query().Where(where...).Where(after(k)).
		Order(usercoupon.ByID(direction(k))).Limit(k.Size + 1).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("list coupons: %w", err)
	}
	return rows, nil
}

// after selects the ids past k's cursor (all when it has none).
func after(k coupon.Keyset) predicate.UserCoupon {
	switch {
	case k.Backward && k.Before > 0:
		return usercoupon.IDGT(k.Before)
	case !k.Backward && k.After > 0:
		return usercoupon.IDLT(k.After)
	}
	return func(*sql.Selector) {}
}

// direction is the id order of k's page: descending forward, ascending backward.
func direction(k coupon.Keyset) sql.OrderTermOption {
	if k.Backward {
		return sql.OrderAsc()
	}
	return sql.OrderDesc()
}

func hot(uc *ent.UserCoupon) *coupon.UserCoupon { return &coupon.UserCoupon{UserCoupon: uc} }

// cold is an archived coupon as the API shows it: the same columns, and when it was archived.
func cold(a *ent.UserCouponArchive) *coupon.UserCoupon {
	at := a.ArchivedAt
	return &coupon.UserCoupon{ArchivedAt: &at, UserCoupon: &ent.UserCoupon{
		ID: a.ID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, UserID: a.UserID, TemplateID: a.TemplateID,
		RedemptionID: a.RedemptionID, ReceiveCount: a.ReceiveCount,
		Source: usercoupon.Source(a.Source), Status: usercoupon.Status(a.Status),
		ValidStartTime: a.ValidStartTime, ValidEndTime: a.ValidEndTime, OrderID: a.OrderID, UsedAt: a.UsedAt,
		DiscountAmount: a.DiscountAmount, RequestID: a.RequestID,
	}}
}

// Coupon returns the user's coupon with this id, or coupon.ErrNotFound.
func (w *Wallet) Coupon(ctx context.Context, userID, id int64) (*coupon.UserCoupon, error) {
	uc, err := w.db.UserCoupon.Query().Where(usercoupon.UserID(userID), usercoupon.ID(id)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, coupon.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("load coupon: %w", err)
	}
	return &coupon.UserCoupon{UserCoupon: uc}, nil
}

// statusAsSeen selects coupons whose status as the user sees it at now is s.
func statusAsSeen(s usercoupon.Status, now time.Time) predicate.UserCoupon {
	switch s {
	case usercoupon.StatusUNUSED:
		return usercoupon.And(usercoupon.StatusEQ(s), usercoupon.ValidEndTimeGT(now))
	case usercoupon.StatusEXPIRED:
		return usercoupon.Or(usercoupon.StatusEQ(s),
			usercoupon.And(usercoupon.StatusEQ(usercoupon.StatusUNUSED), usercoupon.ValidEndTimeLTE(now)))
	}
	return usercoupon.StatusEQ(s)
}
