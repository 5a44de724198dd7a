package distribution_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/keys"
	"coupond/coupon/template"
	"coupond/ent/coupontask"
	"coupond/ent/coupontaskfailure"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/ent/usercouponarchive"
	"coupond/services"
	"coupond/testutil/stack"
)

func newStack(t *testing.T, name string, batch int) *stack.Stack {
	t.Helper()
	return newShardedStack(t, name, batch, 1)
}

// newShardedStack is newStack with the user tables split into shards (one T2 per shard a batch touches).
func newShardedStack(t *testing.T, name string, batch, shards int) *stack.Stack {
	t.Helper()
	return stack.New(t, "dist", name, stack.Options{Config: services.Config{
		Distribution: distribution.Config{BatchSize: batch, UserShards: shards},
	}})
}

// create uploads content as a task of tpl and returns it (IMMEDIATE).
func create(t *testing.T, s *stack.Stack, tplID int64, name string, content []byte) *distribution.Task {
	t.Helper()
	task, err := s.Distribution.Create(s.Ctx, stack.Merchant, distribution.CreateInput{
		TemplateID: tplID, Name: "push", SendType: coupontask.SendTypeIMMEDIATE, FileName: name, File: bytes.NewReader(content),
	})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return task
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// csvOf is a CSV file with a userId header and the given ids.
func csvOf(ids ...int64) []byte {
	var b strings.Builder
	b.WriteString("userId\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "%d\n", id)
	}
	return []byte(b.String())
}

func ids(from, n int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

func run(t *testing.T, s *stack.Stack, id int64) *distribution.Task {
	t.Helper()
	if err := s.Distribution.Run(s.Ctx, id); err != nil {
		t.Fatalf("run: %v", err)
	}
	return get(t, s, id)
}

func get(t *testing.T, s *stack.Stack, id int64) *distribution.Task {
	t.Helper()
	task, err := s.Distribution.Get(s.Ctx, stack.Merchant, id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// failures returns the task's failure rows as "row:CODE".
func failures(t *testing.T, s *stack.Stack, id int64) []string {
	t.Helper()
	rows, err := s.DB.CouponTaskFailure.Query().Where(coupontaskfailure.TaskID(id)).Order(coupontaskfailure.ByRowNum()).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%d:%s", r.RowNum, r.Code)
	}
	return out
}

// books checks that every unit of the template is accounted for in both stores and no limit
// leaked: DB stock + coupons = total, Redis stock (with stock shards: the reserve, every shard's
// sub-stock and the lends not received) = DB stock, each user's Redis counter (on the user's stock
// shard) = the coupons MySQL has for them, none above the limit, no journal left on any shard. It
// returns the coupons per user.
func books(t *testing.T, s *stack.Stack, tpl *coupon.Template) map[int64]int {
	t.Helper()
	rows, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID)).All(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	row, err := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := tpl.StockShards()
	redisStock := redisUnits(t, s, tpl)
	if row.Stock+len(rows) != row.TotalStock || redisStock != row.Stock {
		t.Fatalf("books: DB stock %d + %d coupons vs total %d; Redis stock %d", row.Stock, len(rows), row.TotalStock, redisStock)
	}
	held := map[int64]int{}
	for _, r := range rows {
		held[r.UserID]++
	}
	for u, c := range held {
		got, _ := s.Redis.HGet(s.Ctx, keys.UserStock(tpl.ID, u, n).ClaimCounter(u), "n").Int()
		if got != c {
			t.Fatalf("user %d: Redis counts %d coupons, MySQL has %d", u, got, c)
		}
		if c > tpl.LimitPerPerson() {
			t.Fatalf("user %d holds %d coupons, limit %d", u, c, tpl.LimitPerPerson())
		}
	}
	for i := range n {
		if left, _ := s.Redis.SCard(s.Ctx, keys.StockShard(tpl.ID, i, n).DistributionJournals()).Result(); left != 0 {
			t.Fatalf("stock shard %d: %d journal hashes left in flight", i, left)
		}
	}
	return held
}

// redisUnits is what Redis may still hand out of the template: its hash's stock; with stock
// shards, the reserve + every shard's sub-stock + the units lent and not received.
func redisUnits(t *testing.T, s *stack.Stack, tpl *coupon.Template) int {
	t.Helper()
	units, err := s.Redis.HGet(s.Ctx, keys.Template(tpl.ID), "stock").Int()
	if err != nil {
		t.Fatal(err)
	}
	if n := tpl.StockShards(); n > 1 {
		stocks, err := s.Cache.ShardStocks(s.Ctx, tpl.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		open, err := s.Cache.OpenLendUnits(s.Ctx, tpl.ID, n)
		if err != nil {
			t.Fatal(err)
		}
		units += open
		for _, u := range stocks {
			units += u
		}
	}
	return units
}

// accounted checks the task ended SUCCESS with every data row issued or failed exactly once.
func accounted(t *testing.T, s *stack.Stack, task *distribution.Task, rows, issued int) {
	t.Helper()
	if task.Status != coupontask.StatusSUCCESS || task.CompletedAt == nil {
		t.Fatalf("status %s, completed %v; want SUCCESS", task.Status, task.CompletedAt)
	}
	fails := failures(t, s, task.ID)
	n, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(task.TemplateID), usercoupon.RedemptionIDHasPrefix(fmt.Sprintf("d%d-", task.ID))).Count(s.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if task.ProcessedRows != rows || task.SuccessCount != issued || n != issued || task.FailCount != len(fails) || issued+len(fails) != rows {
		t.Fatalf("processed %d success %d (coupons %d) fail %d (rows %d); want %d rows, %d issued", task.ProcessedRows, task.SuccessCount, n, task.FailCount, len(fails), rows, issued)
	}
}

// The LibreOffice-made fixtures end with every data row accounted for and the right reasons.
func TestFixturesDistribute(t *testing.T) {
	s := newStack(t, "fixtures", 4) // small batches: several per file, duplicates across batches
	for _, c := range []struct {
		file         string
		rows, issued int
		wantFailures []string
	}{
		{"en-header-numbers.xlsx", 20, 20, []string{}},
		{"zh-header-text.xlsx", 16, 16, []string{}},
		{"no-header-two-sheets.xlsx", 10, 10, []string{}},
		{"bad-rows.xlsx", 7, 2, []string{"3:INVALID_USER_ID", "4:INVALID_USER_ID", "5:DUPLICATE_IN_FILE", "6:INVALID_USER_ID", "9:INVALID_USER_ID"}},
		{"users-bom-crlf.csv", 4, 3, []string{"6:INVALID_USER_ID"}},
		{"formats.xlsx", 8, 5, []string{"6:INVALID_USER_ID", "7:INVALID_USER_ID", "8:INVALID_USER_ID"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			tpl := s.Template(t, 1000, 1, nil)
			task := run(t, s, create(t, s, tpl.ID, c.file, fixture(t, c.file)).ID)
			accounted(t, s, task, c.rows, c.issued)
			if got := failures(t, s, task.ID); strings.Join(got, " ") != strings.Join(c.wantFailures, " ") {
				t.Fatalf("failures %v, want %v", got, c.wantFailures)
			}
			books(t, s, tpl)
			if task.SendNum == nil || *task.SendNum != c.rows {
				t.Fatalf("send_num %v, want %d", task.SendNum, c.rows)
			}
		})
	}
}

// Stock 100, 150 valid rows: 100 issued, 50 OUT_OF_STOCK, DB and Redis stock 0. A user already at
// the limit through claims gets LIMIT_REACHED, and that row's unit stays for the others.
func TestStockShorterThanFileAndLimitReached(t *testing.T) {
	s := newStack(t, "short", 40)
	tpl := s.Template(t, 100, 1, nil)
	if _, err := s.Redeemer.Redeem(s.Ctx, 5, tpl.ID, ""); err != nil { // user 5 claims its one coupon
		t.Fatal(err)
	}
	if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	task := run(t, s, create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 151)...)).ID) // 151 rows, user 5 among them
	accounted(t, s, task, 151, 99)
	fails := failures(t, s, task.ID)
	if fails[0] != "6:LIMIT_REACHED" {
		t.Fatalf("first failure %s, want row 6 (user 5) LIMIT_REACHED", fails[0])
	}
	for _, f := range fails[1:] {
		if !strings.HasSuffix(f, ":OUT_OF_STOCK") {
			t.Fatalf("failure %s, want OUT_OF_STOCK", f)
		}
	}
	if len(fails) != 52 {
		t.Fatalf("%d failures, want 52 (1 limit, 51 out of stock)", len(fails))
	}
	books(t, s, tpl)
	if row, _ := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID); row.Stock != 0 {
		t.Fatalf("DB stock %d, want 0", row.Stock)
	}
}

// A run that dies after any step of any batch (here: the step panics, as a kill would stop it
// there: after the deduction on one stock shard (with four: the 1st or 3rd of a run's), after the
// deduction, after T1, after a T2 (with four user shards: the 1st or 3rd of a batch's), after T3,
// after the after-commit script on one stock shard, after the after-commit work) and is run again
// ends with every row issued or failed exactly once, the books exact (with four stock shards:
// the reserve and every shard's sub-stock 0, a row refused OUT_OF_STOCK only once all were empty),
// and no stock batch left OPEN.
func TestCrashAtEveryStepResumesExactly(t *testing.T) {
	for _, c := range []struct{ userShards, stockShards int }{{1, 1}, {4, 1}, {1, 4}} {
		s := newShardedStack(t, fmt.Sprintf("crash%d_%d", c.userShards, c.stockShards), 7, c.userShards)
		for _, step := range []string{"shard deducted", "deducted", "reserved", "written", "committed", "shard after-commit", "after-commit"} {
			for _, atBatch := range []int{1, 3} {
				t.Run(fmt.Sprintf("users%d/stock%d/%s#%d", c.userShards, c.stockShards, step, atBatch), func(t *testing.T) {
					crashAndResume(t, s, c.stockShards, step, atBatch)
				})
			}
		}
	}
}

// crashAndResume is one case of TestCrashAtEveryStepResumesExactly: the run, on a template of
// stockShards stock shards, dies at the atNth step named step, then runs again.
func crashAndResume(t *testing.T, s *stack.Stack, stockShards int, step string, atNth int) {
	tpl := s.Template(t, 40, 2, func(in *template.CreateInput) { in.StockShards = &stockShards })
	// 50 rows: 45 distinct users, 5 repeats; stock 40 runs out.
	list := append(ids(1000, 45), 1000, 1001, 1002, 1003, 1004)
	task := create(t, s, tpl.ID, "u.csv", csvOf(list...))
	seen := 0
	s.Distribution.SetStep(func(name string) {
		if name == step {
			if seen++; seen == atNth {
				panic("killed after " + name)
			}
		}
	})
	func() {
		defer func() { _ = recover() }()
		_ = s.Distribution.Run(s.Ctx, task.ID)
		t.Fatal("the run was not interrupted")
	}()
	s.Distribution.SetStep(nil)
	done := run(t, s, task.ID)
	accounted(t, s, done, 50, 40)
	f := failures(t, s, task.ID)
	sort.Strings(f)
	dups, oos := 0, 0
	for _, x := range f {
		switch {
		case strings.HasSuffix(x, "DUPLICATE_IN_FILE"):
			dups++
		case strings.HasSuffix(x, "OUT_OF_STOCK"):
			oos++
		}
	}
	if dups != 5 || oos != 5 {
		t.Fatalf("failures %v: want 5 duplicates, 5 out of stock", f)
	}
	outOfStockLast(t, s, task.ID, 7)
	books(t, s, tpl)
	if st, _ := s.Redis.HGet(s.Ctx, keys.DailyStats(tpl.ID, keys.StatsDay(time.Now())), keys.StatIssuedDistribution).Int(); st != 40 {
		t.Fatalf("stats issued %d, want 40", st)
	}
	if open, err := s.DB.StockBatch.Query().Where(stockbatch.TemplateID(tpl.ID), stockbatch.StateEQ(stockbatch.StateOPEN)).Count(s.Ctx); err != nil || open != 0 {
		t.Fatalf("OPEN stock batches after the run: %d, %v", open, err)
	}
	if row, _ := s.DB.CouponTemplate.Get(s.Ctx, tpl.ID); row.Issued != 40 {
		t.Fatalf("template issued %d, want 40", row.Issued)
	}
}

// The template hash evicted and rebuilt while a batch is in flight (deducted, or committed but
// its after-commit not done) counts the batch's units exactly: after the run Redis shows what MySQL has. The
// batches include a row MySQL refuses at the limit (Redis had lost that user's counter), whose
// unit the settlement gives back.
func TestCacheRebuiltUnderABatchInFlight(t *testing.T) {
	s := newStack(t, "rebuild_in_flight", 10)
	for _, step := range []string{"deducted", "committed"} {
		t.Run(step, func(t *testing.T) {
			tpl := s.Template(t, 100, 1, nil)
			if _, err := s.Redeemer.Redeem(s.Ctx, 3, tpl.ID, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
				t.Fatal(err)
			}
			s.Redis.Del(s.Ctx, keys.ClaimCounter(tpl.ID, 3)) // Redis forgets user 3's coupon
			rebuilt := 0
			s.Distribution.SetStep(func(name string) {
				if name != step {
					return
				}
				if err := s.Cache.Invalidate(s.Ctx, tpl.ID); err != nil {
					t.Error(err)
				}
				if _, err := s.Cache.Get(s.Ctx, tpl.ID); err != nil {
					t.Error(err)
				}
				rebuilt++
			})
			defer s.Distribution.SetStep(nil)
			task := run(t, s, create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 30)...)).ID) // users 1…30, user 3 among them
			if rebuilt != 3 {
				t.Fatalf("rebuilt %d times, want once per batch (3)", rebuilt)
			}
			accounted(t, s, task, 30, 29)
			books(t, s, tpl)
		})
	}
}

// Redis showing more stock than MySQL (drift): MySQL issues what it has, the rows beyond fail
// OUT_OF_STOCK, the settlement drops the hash and the rebuilt one shows MySQL's stock, also when
// the hash was rebuilt under the batch (which then counted the batch's rows MySQL could not fill).
func TestDistributionDriftDropsTheHash(t *testing.T) {
	s := newStack(t, "drift", 30)
	tpl := s.Template(t, 20, 1, nil)
	if err := s.Redis.HIncrBy(s.Ctx, keys.Template(tpl.ID), "stock", 5).Err(); err != nil {
		t.Fatal(err)
	}
	s.Distribution.SetStep(func(name string) {
		if name == "deducted" {
			if err := s.Cache.Invalidate(s.Ctx, tpl.ID); err != nil {
				t.Error(err)
			}
			if _, err := s.Cache.Get(s.Ctx, tpl.ID); err != nil {
				t.Error(err)
			}
		}
	})
	defer s.Distribution.SetStep(nil)
	task := run(t, s, create(t, s, tpl.ID, "u.csv", csvOf(ids(1, 25)...)).ID)
	accounted(t, s, task, 25, 20)
	if _, err := s.Cache.Get(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	books(t, s, tpl)
}

// Coupons the archive job moved out of user_coupon still count toward limitPerPerson: with Redis
// having lost the user's counter, a new claim and a distribution row for that user are refused
// LIMIT_REACHED by MySQL, and the user holds one coupon in all.
func TestArchivedCouponsStillCountTowardTheLimit(t *testing.T) {
	s := newStack(t, "archived_limit", 10)
	tpl := s.Template(t, 10, 1, nil)
	const user = 7
	if _, err := s.Redeemer.Redeem(s.Ctx, user, tpl.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SQL.Exec("UPDATE user_coupon SET status = 'EXPIRED', updated_at = ? WHERE user_id = ? AND template_id = ?",
		time.Now().Add(-time.Hour), user, tpl.ID); err != nil {
		t.Fatal(err)
	}
	// (the expiry's own transition queues what it expires for the archive; a raw UPDATE does it by hand)
	if _, err := s.SQL.Exec("INSERT INTO archive_due (id, user_id, ended_at) SELECT id, user_id, updated_at FROM user_coupon WHERE user_id = ? AND template_id = ?",
		user, tpl.ID); err != nil {
		t.Fatal(err)
	}
	if res, err := archive.New(s.DB, s.Redis, archive.Config{After: time.Minute}).Run(s.Ctx); err != nil || res.Moved != 1 {
		t.Fatalf("archive: %+v %v; want 1 moved", res, err)
	}
	held := func() (live, archived int) {
		live, _ = s.DB.UserCoupon.Query().Where(usercoupon.UserID(user), usercoupon.TemplateID(tpl.ID)).Count(s.Ctx)
		archived, _ = s.DB.UserCouponArchive.Query().Where(usercouponarchive.UserID(user), usercouponarchive.TemplateID(tpl.ID)).Count(s.Ctx)
		return live, archived
	}

	s.Redis.Del(s.Ctx, keys.ClaimCounter(tpl.ID, user)) // Redis forgets the user's claim
	red, err := s.Redeemer.Redeem(s.Ctx, user, tpl.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Persister.Drain(s.Ctx, tpl.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.Redeemer.Redemption(s.Ctx, user, red.ID)
	if err != nil || got.Status != claim.RedemptionFailed || *got.FailureReason != claim.ReasonLimitReached {
		t.Fatalf("second claim: %+v %v; want FAILED LIMIT_REACHED", got, err)
	}
	if live, archived := held(); live != 0 || archived != 1 {
		t.Fatalf("after the claim: %d live + %d archived coupons, want 0 + 1", live, archived)
	}
	if n, _ := s.Redis.HGet(s.Ctx, keys.ClaimCounter(tpl.ID, user), "n").Int(); n != 1 {
		t.Fatalf("claim counter %d after the refusal, want 1 (raised to the coupons MySQL holds)", n)
	}

	s.Redis.Del(s.Ctx, keys.ClaimCounter(tpl.ID, user)) // and forgets it again
	task := run(t, s, create(t, s, tpl.ID, "u.csv", csvOf(user, 8)).ID)
	accounted(t, s, task, 2, 1)
	if f := failures(t, s, task.ID); len(f) != 1 || f[0] != "2:LIMIT_REACHED" {
		t.Fatalf("failures %v, want row 2 LIMIT_REACHED", f)
	}
	if live, archived := held(); live != 0 || archived != 1 {
		t.Fatalf("after the distribution: %d live + %d archived coupons, want 0 + 1", live, archived)
	}
}
