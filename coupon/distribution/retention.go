package distribution

import (
	"context"
	"fmt"
	"time"

	"coupond/ent/coupontask"
)

// Retain deletes the uploaded files of tasks that ended (completed_at) more than keep ago, 500 at
// a time, and marks them file_deleted. It returns how many it deleted. The failures stay in MySQL,
// so the failure report still downloads.
func (s *Service) Retain(ctx context.Context, keep time.Duration) (int, error) {
	tasks, err := s.db.CouponTask.Query().
		Where(coupontask.FileDeleted(false), coupontask.CompletedAtLT(s.now().Add(-keep))).
		Limit(500).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("retention: %w", err)
	}
	for i, t := range tasks {
		if err := s.files.Delete(ctx, t.FilePath); err != nil {
			return i, err
		}
		if err := s.db.CouponTask.UpdateOneID(t.ID).SetFileDeleted(true).Exec(ctx); err != nil {
			return i, fmt.Errorf("retention: %w", err)
		}
	}
	return len(tasks), nil
}
