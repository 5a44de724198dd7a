package issue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"entgo.io/ent/dialect/sql"

	"coupond/coupon"
	"coupond/ent"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/store"
)

// Item is one claim or distribution row asking for a coupon: the row it would become (Coupon,
// whose ReceiveCount is the slot Redis handed out) and, for claims, the user's Redis counter right
// after the claim (Counted, 0 when unknown).
type Item struct {
	Coupon
	Counted int
	// Epoch is the template's Redis epoch when Redis took the item's unit (the stock shard's, for
	// a template with stock shards): the reconciliation orders the item before or after its
	// snapshot by it (lua.Snapshot.Epochs).
	Epoch int64
}

// Refusal is an item MySQL refused, with the reason (coupon.ReasonLimitReached,
// coupon.ReasonDuplicateRequest, coupon.ReasonStockDrift, or a reason recorded earlier), and for a
// duplicate the redemption id of the coupon it repeats.
type Refusal struct {
	Item
	Reason      string
	DuplicateOf string
}

// Prior is what an earlier run recorded of the items (claims: their redemption_failure rows):
// redemption id → refusal. Items found there are not decided again.
type Prior func(ctx context.Context, tx *ent.Tx, users []int64, rids []string) (map[string]Refusal, error)

// Written is what one T2 transaction decided for its group.
type Written struct {
	Issued   []*ent.UserCoupon // the group's coupons: replayed ones (written before) first, then new ones
	Inserted int               // of which new
	Carried  []time.Time       // the created_at of each of them that carries this reservation's header: the units of it they hold (new ones, and those a run that died before T3 wrote)
	Refused  []Refusal         // refused now, and refused by an earlier run (Prior)
	Fresh    []Refusal         // the refusals decided now (to record), a subset of Refused
	Drifted  int               // items refused now for want of budget
	// Held: users whose Redis counter may be low → coupons of the template they hold after the
	// group (users refused, and users whose claim Redis counted below what MySQL holds).
	Held map[int64]int
}

// WriteOptions are a T2's per-path hooks.
type WriteOptions struct {
	Prior Prior // nil: no earlier refusals recorded
	// AnyPrior, with Prior, tells whether the template has any earlier refusal recorded, in one
	// index probe; on one user shard (where a query by template alone stays on T2's shard) the
	// group written without reading first reads Prior only when it says so: a sale without drift
	// records none, and Prior's read of a group's items costs MariaDB more than the rest of T2's
	// reads together (two IN lists over one index, up to 500 values each). nil: Prior is always read.
	AnyPrior func(ctx context.Context, tx *ent.Tx, templateID int64) (bool, error)
	Record   func(ctx context.Context, tx *ent.Tx, fresh []Refusal) error // records Fresh in the same transaction; nil: the caller records them in T3
	Vitess   bool                                                         // the database is a Vitess vtgate (COUPON_MYSQL_VITESS): coupons by multi-row INSERT, as it takes no LOAD DATA
	// OneUserShard: the user tables are one shard (COUPON_MYSQL_USER_SHARDS=1), so a query of the
	// archive by template alone stays on T2's shard; T2 then asks whether the template has any
	// archived coupon (one index probe) before reading the users' archived slots.
	OneUserShard bool
	// Prepared: the group's coupons made ahead (Prepare, for these items), sent as they are when
	// the group is written without reading first (writeFirst).
	Prepared *Prepared
}

// Write is T2 for one user-shard group (items of one template, in batch order): in one transaction
// on the group's shard it recognises items already written (a replay: their coupons count as
// issued, no unit needed) or refused before (opt.Prior), gives each new item a free slot 1…limit
// as its receive_count (LIMIT_REACHED when none, DUPLICATE_REQUEST when it repeats a requestId of
// a coupon the user holds), and writes coupons for the first budget of the slotted items, carrying
// the header's id, budget counting the units the group's coupons already carrying the header
// hold; the rest are refused STOCK_DRIFT (T1 reserved fewer units than items only when the
// database had no more). A claim batch's T2 takes its shard's fence (fenceWrite): it fails with
// ErrFenced when the sweep settled the header's share of that shard first.
//
// It first reads the users' coupons from the index (user_id, template_id, receive_count) alone
// (their counts and slots, no row lookups), or, for a group that insertFirst admits (one user
// shard, no drift, every slot Redis handed out within the limit), reads nothing but the items'
// earlier refusals and writes the coupons in Redis's slots (writeFirst): either commits only a group
// in which every item is new and gets a slot and a unit and whose coupons meet no unique key;
// anything else is rolled back and the group done again reading the coupons whole, where replays
// and duplicates are recognised and refusals decided.
func Write(ctx context.Context, db *ent.Client, r *Reservation, items []Item, budget int, opt WriteOptions) (Written, error) {
	w, err := write(ctx, db, r, items, budget, opt, false)
	if errors.Is(err, errReadWhole) || errors.Is(err, errUniqueKey) || ent.IsConstraintError(err) {
		rereadTotal.Inc()
		w, err = write(ctx, db, r, items, budget, opt, true)
	}
	return w, err
}

// errReadWhole rolls back a group read without readWhole that is not all new, clean items.
var errReadWhole = errors.New("the group needs its users' coupons read whole")

func write(ctx context.Context, db *ent.Client, r *Reservation, items []Item, budget int, opt WriteOptions, readWhole bool) (Written, error) {
	var w Written
	err := store.WithTx(ctx, db, func(tx *ent.Tx) error {
		w = Written{Held: map[int64]int{}}
		if !readWhole && insertFirst(r, items, budget, opt) {
			if err := writeFirst(ctx, tx, r, items, opt, &w); err != nil {
				return err
			}
			return fence(ctx, tx, r, items)
		}
		seen, err := loadSeen(ctx, tx, r, items, opt, readWhole)
		if err != nil {
			return err
		}
		fresh := seen.split(items, &w)
		for _, uc := range w.Issued {
			if uc.StockBatchID != nil && *uc.StockBatchID == r.Header.ID {
				w.Carried = append(w.Carried, uc.CreatedAt)
			}
		}
		slotted, refused := seen.assignSlots(fresh)
		k := max(0, min(len(slotted), budget-len(w.Carried)))
		if !readWhole && (len(refused) > 0 || k < len(slotted)) {
			return errReadWhole
		}
		if k > 0 {
			if err := insertCoupons(ctx, tx, r.Header.ID, slotted[:k], opt.Vitess, &w); err != nil {
				return err
			}
		}
		for _, it := range slotted[k:] {
			refused = append(refused, Refusal{Item: it, Reason: coupon.ReasonStockDrift})
			seen.count[it.UserID]-- // its slot was not used
		}
		w.Drifted = len(slotted) - k
		w.Fresh = refused
		w.Refused = append(w.Refused, refused...)
		for _, f := range w.Refused {
			w.Held[f.UserID] = seen.count[f.UserID]
		}
		for u := range seen.behind {
			w.Held[u] = seen.count[u]
		}
		if opt.Record != nil && len(refused) > 0 {
			if err := opt.Record(ctx, tx, refused); err != nil {
				return err
			}
		}
		return fence(ctx, tx, r, items)
	}, nil)
	return w, err
}

// fence takes, in a claim batch's T2, the fence of the header's share of the group's shard
// (fenceWrite); a distribution batch's T2 has none.
func fence(ctx context.Context, tx *ent.Tx, r *Reservation, items []Item) error {
	if r.Header.Source != stockbatch.SourceCLAIM {
		return nil
	}
	return fenceWrite(ctx, tx, r.Header.ID, items[0].UserID)
}

// insertFirst reports whether a group may be written by writeFirst, without reading its users'
// coupons first: a group (claims or distribution rows) on one user shard (opt.OneUserShard),
// within its budget, whose every receive_count from Redis is a slot within the limit.
func insertFirst(r *Reservation, items []Item, budget int, opt WriteOptions) bool {
	if !opt.OneUserShard || len(items) > budget {
		return false
	}
	limit := r.Template.ReceiveRule.LimitPerPerson
	for _, it := range items {
		if it.ReceiveCount < 1 || it.ReceiveCount > limit {
			return false
		}
	}
	return true
}

// writeFirst writes the group's coupons in the slots Redis handed out, reading nothing first,
// then checks, with a locking read (the latest committed rows), that the template has no archived
// coupon; it returns errReadWhole when it has one (an archived coupon holds a slot outside
// user_coupon's unique key) and errUniqueKey when a coupon met a unique key (a slot taken, a
// replay, a requestId the user's coupons hold), and errReadWhole too when an item was refused
// before (opt.Prior, read first when opt.AnyPrior finds refusals of the template): Write then does the group again reading the coupons whole.
// Anything else leaves the group as the read-first path would: every user holds at most limit coupons, each in its own slot
// (the unique key (user_id, template_id, receive_count) over slots 1…limit, and no archived slot;
// a coupon the archive job moves meanwhile either still holds its slot in user_coupon when the
// insert checks the key, or is in the archive when the locking read looks).
func writeFirst(ctx context.Context, tx *ent.Tx, r *Reservation, items []Item, opt WriteOptions, w *Written) error {
	if opt.Prior != nil && opt.AnyPrior != nil {
		some, err := opt.AnyPrior(ctx, tx, r.Template.ID)
		if err != nil {
			return err
		}
		if !some {
			opt.Prior = nil // no earlier refusal of the template, so none of these items'
		}
	}
	if opt.Prior != nil {
		users, rids := keysOf(items)
		prior, err := opt.Prior(ctx, tx, users, rids)
		if err != nil {
			return err
		}
		if len(prior) > 0 {
			return errReadWhole
		}
	}
	if p := opt.Prepared; p != nil && len(p.items) == len(items) && (len(items) == 0 || &p.items[0] == &items[0]) {
		for _, c := range p.chunks {
			if err := insertChunk(ctx, tx, c, opt.Vitess, w); err != nil {
				return err
			}
		}
	} else if err := insertCoupons(ctx, tx, r.Header.ID, items, opt.Vitess, w); err != nil {
		return err
	}
	archived, err := tx.UserCouponArchive.Query().Where(usercouponarchive.TemplateID(r.Template.ID)).
		ForShare(sql.WithLockClause("LOCK IN SHARE MODE")).Exist(ctx)
	if err != nil {
		return fmt.Errorf("archived coupons of template %d: %w", r.Template.ID, err)
	}
	if archived {
		return errReadWhole
	}
	return nil
}

// reqKey is a user's requestId.
type reqKey struct {
	user int64
	req  string
}

// seen is what the database already holds of a group's users and items.
type seen struct {
	replayed []*ent.UserCoupon // whole rows of those that are items of the group
	prior    map[string]Refusal
	byReq    map[reqKey]string // (user, requestId) → redemption id of the coupon, held or inserted now
	count    map[int64]int     // user → coupons held
	slots    *Slots            // (user, receive_count) pairs in use
	done     map[string]bool   // redemption ids written or refused
	behind   map[int64]bool    // users whose claim Redis counted below the coupons MySQL holds with it
}

// loadSeen reads, inside the group's transaction, the users' coupons of the template (without
// readWhole only the two columns the index (user_id, template_id, receive_count) covers: counts
// and slots, no replay or duplicate requestId recognised), the items' earlier refusals (opt.Prior),
// and the slots of the users' archived coupons (none read when opt.OneUserShard and the template
// has no archived coupon).
func loadSeen(ctx context.Context, tx *ent.Tx, r *Reservation, items []Item, opt WriteOptions, readWhole bool) (*seen, error) {
	users, rids := keysOf(items)
	columns := []string{usercoupon.FieldUserID, usercoupon.FieldReceiveCount}
	if readWhole {
		columns = append(columns, usercoupon.FieldRedemptionID, usercoupon.FieldRequestID)
	}
	tpl := r.Template
	held, err := tx.UserCoupon.Query().
		Where(usercoupon.UserIDIn(users...), usercoupon.TemplateID(tpl.ID)).
		Select(columns...).
		All(ctx)
	if err != nil {
		return nil, fmt.Errorf("load existing coupons: %w", err)
	}
	inGroup := make(map[string]bool, len(rids))
	for _, rid := range rids {
		inGroup[rid] = true
	}
	var again []string
	for _, uc := range held {
		if readWhole && inGroup[uc.RedemptionID] {
			again = append(again, uc.RedemptionID)
		}
	}
	s := &seen{prior: map[string]Refusal{}, byReq: map[reqKey]string{}, count: map[int64]int{},
		slots: NewSlots(tpl.ReceiveRule.LimitPerPerson), done: map[string]bool{}, behind: map[int64]bool{}}
	if len(again) > 0 {
		if s.replayed, err = tx.UserCoupon.Query().Where(usercoupon.UserIDIn(users...), usercoupon.RedemptionIDIn(again...)).All(ctx); err != nil {
			return nil, fmt.Errorf("load replayed coupons: %w", err)
		}
	}
	if opt.Prior != nil {
		if s.prior, err = opt.Prior(ctx, tx, users, rids); err != nil {
			return nil, err
		}
	}
	for _, uc := range held {
		if uc.RequestID != nil {
			s.byReq[reqKey{uc.UserID, *uc.RequestID}] = uc.RedemptionID
		}
		if readWhole {
			s.done[uc.RedemptionID] = true
		}
		s.count[uc.UserID]++
		s.slots.Take(uc.UserID, uc.ReceiveCount)
	}
	archived, err := archivedSlots(ctx, tx, tpl.ID, users, opt.OneUserShard)
	if err != nil {
		return nil, err
	}
	for _, a := range archived { // old coupons long used or expired: they count toward the limit, nothing else
		s.count[a.UserID]++
		s.slots.Take(a.UserID, a.ReceiveCount)
	}
	for rid := range s.prior {
		s.done[rid] = true
	}
	return s, nil
}

// keysOf is the items' users and redemption ids, in the items' order.
func keysOf(items []Item) (users []int64, rids []string) {
	users = make([]int64, len(items))
	rids = make([]string, len(items))
	for i, it := range items {
		users[i], rids[i] = it.UserID, it.RedemptionID
	}
	return users, rids
}

// archivedSlots is ArchivedSlots of the users in tx; with oneShard it first asks whether the
// template has any archived coupon at all, and reads nothing more when it has none (a template
// being distributed usually has none: the archive takes coupons long used or expired).
func archivedSlots(ctx context.Context, tx *ent.Tx, templateID int64, users []int64, oneShard bool) ([]*ent.UserCouponArchive, error) {
	if oneShard {
		some, err := tx.UserCouponArchive.Query().Where(usercouponarchive.TemplateID(templateID)).Exist(ctx)
		if err != nil || !some {
			return nil, err
		}
	}
	return ArchivedSlots(ctx, tx.UserCouponArchive, templateID, users)
}

// split returns the items the database has not seen, and records in w those it has: their coupons
// as issued, their earlier refusals as refused.
func (s *seen) split(items []Item, w *Written) []Item {
	fresh := make([]Item, 0, len(items)) // most are: one allocation, not a doubling per append
	for _, it := range items {
		f, refused := s.prior[it.RedemptionID]
		switch {
		case !s.done[it.RedemptionID]:
			fresh = append(fresh, it)
			s.done[it.RedemptionID] = true // an item twice in one group counts once
		case refused:
			f.Item = it
			w.Refused = append(w.Refused, f)
		}
	}
	w.Issued = append(w.Issued, s.replayed...)
	return fresh
}

// assignSlots gives each item a free receive_count in 1…limit for its user (Slots: its own when
// free and within the limit, else the lowest free one). An item repeating a requestId of a coupon
// the user holds (or of an earlier item of the group) is refused as a duplicate of it; items with
// no free slot are refused (LIMIT_REACHED).
func (s *seen) assignSlots(items []Item) (slotted []Item, refused []Refusal) {
	slotted = make([]Item, 0, len(items))
	for _, it := range items {
		if first, dup := s.byReq[reqKey{it.UserID, it.RequestID}]; dup && it.RequestID != "" {
			refused = append(refused, Refusal{Item: it, Reason: coupon.ReasonDuplicateRequest, DuplicateOf: first})
			continue
		}
		rc := s.slots.Pick(it.UserID, it.ReceiveCount)
		if rc == 0 {
			refused = append(refused, Refusal{Item: it, Reason: coupon.ReasonLimitReached})
			continue
		}
		s.count[it.UserID]++
		if it.Counted > 0 && it.Counted < s.count[it.UserID] {
			s.behind[it.UserID] = true // Redis lost claims MySQL holds: raise its counter after the batch
		}
		if it.RequestID != "" {
			s.byReq[reqKey{it.UserID, it.RequestID}] = it.RedemptionID
		}
		it.ReceiveCount = rc
		slotted = append(slotted, it)
	}
	return slotted, refused
}
