package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon/expiry"

	"github.com/hibiken/asynq"
)

// TypeExpireBucket expires one expiry bucket: the coupons of one template ending within one minute.
const TypeExpireBucket = "coupon:expire-bucket"

type expireBucketPayload struct {
	TemplateID int64 `json:"templateId,string"` // a string: asynqmon shows numbers above 2^53 rounded
	Minute     int64 `json:"minute"`            // unix seconds of the bucket's minute (UTC)
}

// NewExpireBucketTask returns the task for the template's bucket of the minute starting at minute
// (truncated to its minute). It is processed once that minute is over (minute + 1m; at once when
// that is past) and its id "expire:<template>:<minuteUnix>" is deterministic, so a bucket has at
// most one task queued however many coupons join it. asynq keeps scheduled tasks in a sorted set
// by time, so a minute months ahead is scheduled like one a minute ahead: no limit on how far ahead a coupon may expire.
func NewExpireBucketTask(templateID int64, minute time.Time) (*asynq.Task, []asynq.Option) {
	minute = expiry.BucketMinute(minute)
	p := expireBucketPayload{TemplateID: templateID, Minute: minute.Unix()}
	id := "expire:" + strconv.FormatInt(templateID, 10) + ":" + strconv.FormatInt(p.Minute, 10)
	return asynq.NewTask(TypeExpireBucket, payload(p)),
		[]asynq.Option{asynq.TaskID(id), asynq.ProcessAt(minute.Add(time.Minute)), asynq.MaxRetry(25),
			asynq.Queue(QueueName(QueueDefault))}
}

// ExpireBucket implements expiry.Scheduler: it schedules the bucket's task, succeeding when that
// task is already queued. A bucket whose task is running when a member joins it is re-read by that
// task before it ends, or else left to the periodic sweep.
func (q *Queue) ExpireBucket(ctx context.Context, templateID int64, minute time.Time) error {
	t, opts := NewExpireBucketTask(templateID, minute)
	return q.enqueue(ctx, t, opts...)
}

func (h ExpiryHandlers) handleExpireBucket(ctx context.Context, t *asynq.Task) error {
	var p expireBucketPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	minute := time.Unix(p.Minute, 0).UTC()
	if _, err := h.Expirer.ExpireBucket(ctx, p.TemplateID, minute); err != nil {
		return fmt.Errorf("expire bucket %s of template %d: %w", minute.Format(time.RFC3339), p.TemplateID, err)
	}
	return nil
}
