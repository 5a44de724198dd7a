package distribution

import (
	"coupond/ent"
	"coupond/ent/coupontask"
)

// Task is a distribution task as the API shows it.
type Task struct {
	*ent.CouponTask
}

// Done reports whether the task has stopped for good: SUCCESS, FAILED, or CANCELED and
// acknowledged by its worker (completed_at set).
func (t Task) Done() bool {
	switch t.Status {
	case coupontask.StatusSUCCESS, coupontask.StatusFAILED:
		return true
	case coupontask.StatusCANCELED:
		return t.CompletedAt != nil
	}
	return false
}

// Failure is one row that did not become a coupon.
type Failure struct {
	RowNum int
	UserID *string // the id as written; nil when the cell was empty
	Code   string
	Reason string
}

// FailureCount is how many of a task's rows failed with one code.
type FailureCount struct {
	Code  string
	Count int
}
