package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon/reminder"

	"github.com/hibiken/asynq"
)

// TypeRemindBucket sends one reminder bucket: the reminders of one template due within one minute.
const TypeRemindBucket = "reminder:send-bucket"

type remindBucketPayload struct {
	TemplateID int64 `json:"templateId,string"` // a string: asynqmon shows numbers above 2^53 rounded
	Minute     int64 `json:"minute"`            // unix seconds of the bucket's minute (UTC)
}

// NewRemindBucketTask returns the task of the template's reminder bucket of the minute starting at
// minute (truncated to its minute), processed from the first whole second at or after at (asynq
// keeps scheduled times in whole seconds). Its id "remind:<template>:<minuteUnix>" is
// deterministic, so a bucket has one task queued however many reminders join it. A failed
// delivery retries the task after its backoff (reminder.RetryError, read by RetryDelay); when
// the task's retries run out, the reminder sweep sends what is left.
func NewRemindBucketTask(templateID int64, minute, at time.Time) (*asynq.Task, []asynq.Option) {
	minute = reminder.BucketMinute(minute)
	p := remindBucketPayload{TemplateID: templateID, Minute: minute.Unix()}
	id := "remind:" + strconv.FormatInt(templateID, 10) + ":" + strconv.FormatInt(p.Minute, 10)
	due := at.Truncate(time.Second)
	if due.Before(at) {
		due = due.Add(time.Second)
	}
	return asynq.NewTask(TypeRemindBucket, payload(p)),
		[]asynq.Option{asynq.TaskID(id), asynq.ProcessAt(due), asynq.MaxRetry(25), asynq.Queue(QueueName(QueueDefault))}
}

// RemindBucket implements reminder.Scheduler: it schedules the bucket's task, succeeding when
// that task is already queued.
func (q *Queue) RemindBucket(ctx context.Context, templateID int64, minute, at time.Time) error {
	t, opts := NewRemindBucketTask(templateID, minute, at)
	return q.enqueue(ctx, t, opts...)
}

func (h ReminderHandlers) handleRemindBucket(ctx context.Context, t *asynq.Task) error {
	var p remindBucketPayload
	if err := decode(t, &p); err != nil {
		return err
	}
	minute := time.Unix(p.Minute, 0).UTC()
	if _, err := h.Reminders.SendBucket(ctx, p.TemplateID, minute); err != nil {
		return fmt.Errorf("reminder bucket %s of template %d: %w", minute.Format(time.RFC3339), p.TemplateID, err)
	}
	return nil
}
