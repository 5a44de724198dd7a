package distribution

import (
	"context"
	"fmt"

	"coupond/coupon/keys"
	"coupond/ent/coupontask"
)

// Reap queues a run of every task that should be running and that no worker holds (no lease): an
// IN_PROGRESS task whose worker died, a due PENDING task whose queued run was lost, a
// CANCELED one whose worker has not stopped yet (it may have a batch to finish). The lease, not
// the queued task's id, decides who works. It returns how many it queued.
func (s *Service) Reap(ctx context.Context) (int, error) {
	now := s.now()
	tasks, err := s.db.CouponTask.Query().Where(coupontask.Or(
		coupontask.StatusEQ(coupontask.StatusIN_PROGRESS),
		coupontask.And(coupontask.StatusEQ(coupontask.StatusCANCELED), coupontask.CompletedAtIsNil()),
		coupontask.And(coupontask.StatusEQ(coupontask.StatusPENDING),
			coupontask.Or(coupontask.SendTimeIsNil(), coupontask.SendTimeLTE(now))),
	)).Select(coupontask.FieldID).Limit(1000).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("reap: %w", err)
	}
	queued := 0
	for _, t := range tasks {
		held, err := s.rdb.Exists(ctx, keys.DistributionLease(t.ID)).Result()
		if err != nil {
			return queued, fmt.Errorf("reap: %w", err)
		}
		if held > 0 {
			continue
		}
		if err := s.sched.RunDistribution(ctx, t.ID, now, false); err != nil {
			return queued, fmt.Errorf("reap task %d: %w", t.ID, err)
		}
		queued++
	}
	return queued, nil
}
