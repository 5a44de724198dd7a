package lua

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// OutboxEntry is one claim redeem.lua appended to a template's outbox stream (XADD … rid user rc
// ts n e [req]).
type OutboxEntry struct {
	StreamID     string
	RedemptionID string
	UserID       int64
	ReceiveCount int
	At           time.Time // the claim's time, milliseconds, UTC
	RequestID    string    // the client's requestId, "" when it sent none
	// Counted is the user's claim counter right after this claim (0 in an entry appended before
	// the field existed): fewer than the coupons MySQL holds with this one means Redis lost claims.
	Counted int
	// Epoch is the template hash's epoch when Redis took the unit (0 in an entry appended before
	// the field existed): see ReconcileSnapshot.
	Epoch int64
}

// ParseOutboxEntry reads one outbox stream entry.
func ParseOutboxEntry(m redis.XMessage) (OutboxEntry, error) {
	e := OutboxEntry{StreamID: m.ID}
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	var err1, err2, err3 error
	e.RedemptionID, e.RequestID = str("rid"), str("req")
	e.UserID, err1 = strconv.ParseInt(str("user"), 10, 64)
	e.ReceiveCount, err2 = strconv.Atoi(str("rc"))
	ms, err3 := strconv.ParseInt(str("ts"), 10, 64)
	e.At = time.UnixMilli(ms).UTC()
	if n := str("n"); n != "" {
		e.Counted, _ = strconv.Atoi(n)
	}
	if ep := str("e"); ep != "" {
		e.Epoch, _ = strconv.ParseInt(ep, 10, 64)
	}
	if err := errors.Join(err1, err2, err3); err != nil || e.RedemptionID == "" {
		return e, fmt.Errorf("outbox entry %s is malformed: %v", m.ID, m.Values)
	}
	return e, nil
}
