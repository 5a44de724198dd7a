package graph

import (
	"coupond/coupon"
	"coupond/coupon/reminder"
	"coupond/graph/model"
)

// reminderPayload is the payload of a reminder mutation.
func reminderPayload(r *reminder.Reminder, err error) (*model.ReminderPayload, error) {
	userErrors, err := payload(err)
	return &model.ReminderPayload{Reminder: r, UserErrors: userErrors}, err
}

// reminderConnection builds the Relay connection of a page of reminders.
func reminderConnection(p coupon.Page[*reminder.Reminder], req pageRequest) *model.ReminderConnection {
	edges, info := page(p.Items, p.HasMore, req, func(r *reminder.Reminder) int64 { return r.ID },
		func(cursor string, r *reminder.Reminder) *model.ReminderEdge {
			return &model.ReminderEdge{Cursor: cursor, Node: r}
		})
	return &model.ReminderConnection{Edges: edges, PageInfo: info, TotalCount: p.Total}
}
