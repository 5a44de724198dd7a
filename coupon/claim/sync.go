package claim

import (
	"context"
	"log/slog"
	"time"

	"coupond/coupon/keys"
	"coupond/lua"
)

// syncFinishTimeout bounds the work a sync request does for its claim after the script accepted it.
const syncFinishTimeout = 10 * time.Second

// finishNow is sync mode: the claim the script accepted and appended to the outbox is persisted in the request
// by the persister's own batch logic (one claim), on a context the client cannot cancel, and its
// outbox entry is acknowledged. Finish, don't undo: when that fails (a driver error, a stall), the
// claim stays in the outbox, the persister is asked to finish it, and the answer is PENDING. A claim
// MySQL refuses (no stock, no free slot under the limit) ends FAILED with its counters given back,
// and the request gets the refusal.
//
// The claim is on stock shard s (its outbox and its batch).
func (r *Redeemer) finishNow(ctx context.Context, s keys.Shard, userID int64, requestID string, res lua.RedeemResult, now time.Time) (*Redemption, error) {
	templateID := s.Template
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncFinishTimeout)
	defer cancel()
	c := claim{streamID: res.EntryID, redemptionID: res.RedemptionID, userID: userID,
		receiveCount: res.ReceiveCount, at: time.UnixMilli(now.UnixMilli()).UTC(), requestID: requestID, counted: res.Counted, epoch: res.Epoch}
	red, err := r.persister.finish(ctx, s, c)
	if err != nil {
		slog.WarnContext(ctx, "sync claim left to the persister", "template", templateID, "redemption", c.redemptionID, "err", err)
		r.markDirty(templateID)
		return &Redemption{ID: c.redemptionID, Status: RedemptionPending}, nil
	}
	if red.Status == RedemptionFailed { // (a repeated requestId ends ISSUED with the first coupon)
		r.storeRefusal(ctx, s, userID, requestID, *red.FailureReason, now)
		return nil, failureError(*red.FailureReason)
	}
	return red, nil
}

// storeRefusal makes the refusal a sync claim is answered with (MySQL refused what the script had
// accepted) the answer its requestId replays, in place of the acceptance the script stored: in
// Redis, and among the answers the loss watch stores again after a restart. A claim answered
// PENDING (finishNow could not finish it) keeps its acceptance: its replays answer the
// redemption as it stands, FAILED with the reason if it came to that.
func (r *Redeemer) storeRefusal(ctx context.Context, s keys.Shard, userID int64, requestID, reason string, now time.Time) {
	if requestID == "" {
		return
	}
	res := lua.RedeemResult{Code: lua.RedeemOutOfStock}
	if reason == ReasonLimitReached {
		res.Code = lua.RedeemLimitReached
	}
	if err := lua.StoreAnswer(ctx, r.rdb, s.Request(userID, requestID), res, r.cfg.RequestTTL); err != nil {
		slog.WarnContext(ctx, "refusal of a sync claim not stored for its replays", "template", s.Template, "user", userID, "err", err)
	}
	r.losses.remember(s.Template, s.Count, userID, requestID, res, now)
}
