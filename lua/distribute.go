package lua

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	distribute            = mustLoad("distribute.lua")
	distributeAfterCommit = mustLoad("distribute_after_commit.lua")
)

// DistributeStatus says what one Distribute call did as a whole.
type DistributeStatus int

// The statuses of distribute.lua; the numbers are the script's.
const (
	// DistributeDeducted means this call decided and journaled the batch.
	DistributeDeducted DistributeStatus = 0
	// DistributeReplayed means the journal already held this batch: its stored outcomes came
	// back and nothing was deducted again.
	DistributeReplayed DistributeStatus = 1
	// DistributeCacheMissing means the template hash is missing or incomplete: reload the cache
	// and call again. Nothing was written.
	DistributeCacheMissing DistributeStatus = 6
	// DistributeShort (borrowing only) means the stock is short of the rows whose user is below
	// the limit by DistributeResult.Short units: borrow them and call again. Nothing was written.
	DistributeShort DistributeStatus = 7
)

// DistributeCode is what distribute.lua decided for one row.
type DistributeCode int

// The row codes of distribute.lua (the claim script's numbers for the same outcomes).
const (
	DistributeOK           DistributeCode = 0 // stock taken, the user's counter raised
	DistributeOutOfStock   DistributeCode = 1 // no stock left for the row
	DistributeLimitReached DistributeCode = 2 // the user holds limitPerPerson coupons already
	DistributeEnded        DistributeCode = 4 // the template is not ACTIVE or past its end
)

// DistributeRow is one row of a batch: its row number in the file and its user.
type DistributeRow struct {
	Row    int
	UserID int64
}

// DistributeOutcome is what the script decided for one row.
type DistributeOutcome struct {
	Code         DistributeCode
	ReceiveCount int   // the user's 1-based coupon number when OK, else 0
	Epoch        int64 // the template hash's epoch when the batch was deducted (issue.Item.Epoch)
}

// DistributeResult is what one Distribute call answered.
type DistributeResult struct {
	Status DistributeStatus
	// Outcomes[i] belongs to rows[i] when Status is DistributeDeducted or DistributeReplayed.
	Outcomes []DistributeOutcome
	Short    int // DistributeShort: the units the stock lacks
}

// DistributeKeys are the keys of one task's batch on one stock shard; all carry the shard's hash
// tag (package coupon/keys, Shard: Stock, DistributionJournal, DistributionJournals,
// ClaimCounter; with one shard, the template's keys).
type DistributeKeys struct {
	Template string                    // the template cache hash (the shard's stock hash)
	Journal  string                    // the task's journals (a hash by batch start)
	Journals string                    // the shard's set of journal hashes with batches in flight
	Claims   func(userID int64) string // a user's claim hash
}

// Distribute runs distribute.lua for one batch: in one atomic round trip it deducts stock and
// checks and raises each row's user counter (the claim script's hash and sequence) and journals
// the outcome in k.Journal under start; or, when the hash already holds start, returns
// the stored outcomes without deducting again. borrowing: a stock short of the rows whose user is
// below the limit (template not ended, no journal yet) is answered DistributeShort with the
// units missing, and nothing is written; otherwise the rows beyond the stock are OUT_OF_STOCK. No
// user may appear twice in rows.
func Distribute(ctx context.Context, rdb redis.Scripter, k DistributeKeys, start int, now time.Time, rows []DistributeRow, borrowing bool) (DistributeResult, error) {
	if len(rows) == 0 {
		return DistributeResult{}, errors.New("lua: Distribute: empty batch")
	}
	keys := make([]string, 0, 3+len(rows))
	keys = append(keys, k.Template, k.Journal)
	flag := "0"
	if borrowing {
		flag = "1"
	}
	packed := make([]byte, 0, 20*len(rows))
	for i, r := range rows {
		keys = append(keys, k.Claims(r.UserID))
		if i > 0 {
			packed = append(packed, ',')
		}
		packed = strconv.AppendInt(append(strconv.AppendInt(packed, int64(r.Row), 10), ':'), r.UserID, 10)
	}
	keys = append(keys, k.Journals)
	res, err := distribute.Run(ctx, rdb, keys, start, now.UnixMilli(), flag, packed).Int64Slice()
	if err != nil {
		return DistributeResult{}, err
	}
	if len(res) == 0 {
		return DistributeResult{}, errors.New("lua: Distribute: empty answer")
	}
	out := DistributeResult{Status: DistributeStatus(res[0])}
	switch out.Status {
	case DistributeDeducted, DistributeReplayed:
	case DistributeShort:
		if len(res) != 2 || res[1] <= 0 {
			return DistributeResult{}, fmt.Errorf("lua: Distribute: malformed shortfall %v", res)
		}
		out.Short = int(res[1])
		return out, nil
	default:
		return out, nil
	}
	if len(res) != 2+2*len(rows) {
		return DistributeResult{}, fmt.Errorf("lua: Distribute: %d outcomes for %d rows (the journal holds another batch of the same start?)", (len(res)-2)/2, len(rows))
	}
	out.Outcomes = make([]DistributeOutcome, len(rows))
	for i := range rows {
		out.Outcomes[i] = DistributeOutcome{Code: DistributeCode(res[2+2*i]), ReceiveCount: int(res[3+2*i]), Epoch: res[1]}
	}
	return out, nil
}

// JournalRow is one row of a batch journal.
type JournalRow struct {
	Row          int
	UserID       int64
	Code         DistributeCode
	ReceiveCount int
}

// Journal is a task's batch in flight, as distribute.lua journaled it.
type Journal struct {
	Start int   // the resume position the batch follows
	Epoch int64 // the template hash's epoch when the batch was deducted (0 in an older journal)
	Rows  []JournalRow
}

// ReadJournals returns the journals of every batch in flight in the task's hash at key, ordered by
// start (none: an empty slice).
func ReadJournals(ctx context.Context, rdb redis.Cmdable, key string) ([]*Journal, error) {
	vals, err := rdb.HVals(ctx, key).Result()
	if err != nil {
		return nil, err
	}
	raw := make([]any, len(vals))
	for i, v := range vals {
		raw[i] = v
	}
	return parseJournals(key, raw)
}

// parseJournals parses the journals vals (strings) of the hash at key, ordered by start.
func parseJournals(key string, vals []any) ([]*Journal, error) {
	out := make([]*Journal, 0, len(vals))
	for _, v := range vals {
		str, _ := v.(string)
		j, err := ParseJournal(key, []byte(str))
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b *Journal) int { return a.Start - b.Start })
	return out, nil
}

// ParseJournal reads the journal raw that was stored at key (key only names it in errors): the
// string distribute.lua writes, or the JSON an earlier version wrote.
func ParseJournal(key string, raw []byte) (*Journal, error) {
	if len(raw) > 0 && raw[0] == '{' {
		return parseJSONJournal(key, raw)
	}
	malformed := func(what string) error { return fmt.Errorf("lua: journal %s: malformed %s", key, what) }
	head, rest, ok1 := bytes.Cut(raw, []byte{'|'})
	rows, outcomes, ok2 := bytes.Cut(rest, []byte{'|'})
	start, epoch, stamped := bytes.Cut(head, []byte{':'})
	s, err := strconv.Atoi(string(start))
	var e int64
	if stamped {
		e, err = strconv.ParseInt(string(epoch), 10, 64)
	}
	if !ok1 || !ok2 || err != nil {
		return nil, malformed("journal")
	}
	n := bytes.Count(rows, []byte{','}) + 1
	out := &Journal{Start: s, Epoch: e, Rows: make([]JournalRow, 0, n)}
	for len(rows) > 0 {
		var row, code, rc []byte
		row, rows, _ = bytes.Cut(rows, []byte{','})
		code, outcomes, _ = bytes.Cut(outcomes, []byte{','})
		rc, outcomes, _ = bytes.Cut(outcomes, []byte{','})
		num, user, _ := bytes.Cut(row, []byte{':'})
		r, err1 := strconv.Atoi(string(num))
		uid, err2 := strconv.ParseInt(string(user), 10, 64)
		c, err3 := strconv.Atoi(string(code))
		k, err4 := strconv.Atoi(string(rc))
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, malformed(fmt.Sprintf("row %q", row))
		}
		out.Rows = append(out.Rows, JournalRow{Row: r, UserID: uid, Code: DistributeCode(c), ReceiveCount: k})
	}
	if len(outcomes) > 0 || len(out.Rows) == 0 {
		return nil, malformed("outcomes")
	}
	return out, nil
}

// parseJSONJournal reads a journal as distribute.lua wrote it before its string form:
// {start, rows: [[row, user, code, rc], …]} (a batch in flight across the upgrade).
func parseJSONJournal(key string, raw []byte) (*Journal, error) {
	var j struct {
		Start int               `json:"start"`
		Rows  []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("lua: journal %s: %w", key, err)
	}
	out := &Journal{Start: j.Start, Rows: make([]JournalRow, 0, len(j.Rows))}
	for _, r := range j.Rows {
		var row []any
		if err := json.Unmarshal(r, &row); err != nil || len(row) != 4 {
			return nil, fmt.Errorf("lua: journal %s: malformed row %s", key, r)
		}
		num, ok1 := row[0].(float64)
		user, ok2 := row[1].(string)
		code, ok3 := row[2].(float64)
		rc, ok4 := row[3].(float64)
		uid, err := strconv.ParseInt(user, 10, 64)
		if !ok1 || !ok2 || !ok3 || !ok4 || err != nil {
			return nil, fmt.Errorf("lua: journal %s: malformed row %s", key, r)
		}
		out.Rows = append(out.Rows, JournalRow{Row: int(num), UserID: uid, Code: DistributeCode(code), ReceiveCount: int(rc)})
	}
	return out, nil
}

// AfterCommitKeys are the keys of one batch's after-commit script on one stock shard (the
// shard's hash tag on all of them).
type AfterCommitKeys struct {
	Template string   // the template cache hash (the shard's stock hash)
	Journal  string   // the task's journals (a hash by batch start)
	Refused  []string // claim hashes of the users the journal accepted and MySQL refused
	Journals string   // the shard's set of journal hashes with batches in flight
}

// DistributeAfterCommit runs distribute_after_commit.lua: when k.Journal still holds the batch of
// start, it deletes that journal (and the hash's entry in k.Journals when it was its last), gives
// giveBack units back to the cached stock (complete hash only) or, on drift (MySQL refused rows
// for want of stock Redis had shown), deletes the template hash for an exact rebuild, and lowers
// each refused user's counter by one, atomically, and reports done=true. A repeat (the batch's
// journal gone) changes nothing.
func DistributeAfterCommit(ctx context.Context, rdb redis.Scripter, k AfterCommitKeys, start, giveBack int, drift bool) (done bool, err error) {
	keys := append(append([]string{k.Template, k.Journal}, k.Refused...), k.Journals)
	flag := "0"
	if drift {
		flag = "1"
	}
	return distributeAfterCommit.runFlag(ctx, rdb, keys, start, giveBack, flag)
}
