package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"coupond/coupon"
	"coupond/coupon/archive"
	"coupond/coupon/checkout"
	"coupond/coupon/claim"
	"coupond/coupon/distribution"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/coupon/reconcile"
	"coupond/coupon/reminder"
	"coupond/coupon/template"
	"coupond/ent"
	"coupond/ent/couponreminder"
	"coupond/ent/couponsettlement"
	"coupond/ent/coupontask"
	"coupond/ent/stockbatch"
	"coupond/ent/usercoupon"
	"coupond/jobs"
	"coupond/migrations"
	"coupond/services"
	"coupond/store"
	"coupond/testutil"
	"coupond/testutil/sqlcapture"
	"coupond/testutil/stack"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/go-sql-driver/mysql"
	"github.com/hibiken/asynq"
	"github.com/shopspring/decimal"
)

var updateCapture = flag.Bool("update-sharding", false, "rewrite sharding/testdata/*.sql from this run (also COUPON_SHARDING_UPDATE=1)")

// captureStack is a stack.Stack whose MySQL statements go through rec, configured as on Vitess
// where that changes the SQL: coupons written by multi-row INSERT (vtgate takes no LOAD DATA).
func captureStack(t *testing.T, rec *sqlcapture.Recorder, dsn string, cfg services.Config) *stack.Stack {
	t.Helper()
	norm, err := store.NormalizeDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := rec.OpenDB(norm)
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(16)
	client := ent.NewClient(ent.Driver(entsql.OpenDB("mysql", sqlDB)))
	t.Cleanup(func() { client.Close() })
	if cfg.Checkout.DB == nil { // the checkout's own pool, as the server opens it: several statements a query
		mcfg, err := mysql.ParseDSN(norm)
		if err != nil {
			t.Fatal(err)
		}
		mcfg.MultiStatements = true
		if cfg.Checkout.DB, err = rec.OpenDB(mcfg.FormatDSN()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cfg.Checkout.DB.Close() })
	}
	rdb := testutil.Redis(t, "sharding")
	q := asynq.NewClient(testutil.QueueOpt())
	t.Cleanup(func() { q.Close() })
	if cfg.Files == nil {
		cfg.Files = stack.TempFiles(t)
	}
	cfg.Redeem.TemplateRate = 1e9
	cfg.Persist.Vitess, cfg.Distribution.Vitess = true, true
	return &stack.Stack{Services: services.New(client, rdb, jobs.NewQueue(q), cfg), Ctx: context.Background(), DB: client, SQL: sqlDB, Redis: rdb}
}

// TestShardingCapture runs the code paths the sharding gate (sharding/, its own module) checks
// and compares the SQL each sent, transaction by transaction, with sharding/testdata/<path>.sql;
// -update-sharding or COUPON_SHARDING_UPDATE=1 rewrites the files instead. It also writes the
// schema the gate plans against (sharding/testdata/schema.sql, SHOW CREATE TABLE of the migrated
// database) and fails when a table is in no keyspace (migrations.Keyspaces).
func TestShardingCapture(t *testing.T) {
	rec := sqlcapture.NewRecorder()
	dsn := testutil.FreshDatabase(t, "sharding_capture")
	if err := migrations.Apply(dsn); err != nil {
		t.Fatal(err)
	}
	s := captureStack(t, rec, dsn, services.Config{
		// 8 user shards: their groups nest in those of 4 and 2, so one capture serves the three.
		Persist:          claim.PersistConfig{BatchSize: 50, ClaimIdle: time.Millisecond, UserShards: 8},
		Distribution:     distribution.Config{UserShards: 8},
		Reminder:         reminder.Config{UserShards: 8},
		ExpiryUserShards: 8,
		Archive:          archive.Config{After: time.Millisecond, UserShards: 8},
		Cache:            template.CacheOptions{UserShards: 8},
		Reconcile:        reconcile.Config{UserShards: 8},
	})
	sync := captureStack(t, rec, dsn, services.Config{Redeem: claim.Config{Mode: claim.ModeSync}, Persist: claim.PersistConfig{UserShards: 8},
		Cache: template.CacheOptions{UserShards: 8}, Reconcile: reconcile.Config{UserShards: 8}})
	ctx := s.Ctx
	users := []int64{11, 12, 13, 14, 15, 16, 17, 18}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// path runs f with the recorder tagging statements as name; setup between paths is not recorded.
	path := func(name string, f func()) {
		t.Helper()
		rec.Path(name)
		f()
		rec.Path("")
	}
	claimAll := func(r *claim.Redeemer, tplID int64, us ...int64) []string {
		t.Helper()
		var rids []string
		for _, u := range us {
			red, err := r.Redeem(ctx, u, tplID, fmt.Sprintf("req-%d", u))
			must(err)
			rids = append(rids, red.ID)
		}
		return rids
	}

	path("template_admin", func() {
		tpl := s.Template(t, 100, 1, nil)
		_, err := s.Templates.IncreaseStock(ctx, stack.Merchant, tpl.ID, 5)
		must(err)
		_, err = s.Templates.Get(ctx, &stack.Merchant, tpl.ID)
		must(err)
		_, err = s.Templates.Terminate(ctx, stack.Merchant, tpl.ID)
		must(err)
	})

	tpl := s.Template(t, 100, 2, nil)
	var rids []string
	path("persist_async", func() {
		rids = claimAll(s.Redeemer, tpl.ID, users...)
		_, err := s.Persister.Drain(ctx, tpl.ID)
		must(err)
	})
	path("redemption_lookup", func() {
		red, err := s.Redeemer.Redemption(ctx, users[0], rids[0])
		must(err)
		if red.Status != claim.RedemptionIssued {
			t.Fatalf("redemption %+v, want ISSUED", red)
		}
	})

	// The cache rebuild of a template whose outbox holds claims not persisted yet.
	rebuildTpl := s.Template(t, 100, 1, nil)
	claimAll(s.Redeemer, rebuildTpl.ID, users[:4]...)
	must(s.Cache.Invalidate(ctx, rebuildTpl.ID))
	path("cache_rebuild", func() {
		_, err := s.Cache.Get(ctx, rebuildTpl.ID)
		must(err)
	})
	_, err := s.Persister.Drain(ctx, rebuildTpl.ID)
	must(err)

	syncTpl := sync.Template(t, 100, 1, nil)
	path("persist_sync", func() { claimAll(sync.Redeemer, syncTpl.ID, users[:3]...) })

	// A refused batch: Redis lost user 11's counter, so it accepts a claim over the limit of 1 that
	// the database refuses (LIMIT_REACHED).
	refTpl := s.Template(t, 100, 1, nil)
	claimAll(s.Redeemer, refTpl.ID, users[:4]...)
	_, err = s.Persister.Drain(ctx, refTpl.ID)
	must(err)
	must(s.Redis.Del(ctx, keys.ClaimCounter(refTpl.ID, users[0])).Err())
	path("persist_refused", func() {
		_, err := s.Redeemer.Redeem(ctx, users[0], refTpl.ID, "again")
		must(err)
		claimAll(s.Redeemer, refTpl.ID, users[4:6]...)
		_, err = s.Persister.Drain(ctx, refTpl.ID)
		must(err)
	})

	// A drifting batch: the database lost stock the cache still has.
	driftTpl := s.Template(t, 8, 1, nil)
	claimAll(s.Redeemer, driftTpl.ID, users...)
	must(s.DB.CouponTemplate.UpdateOneID(driftTpl.ID).SetStock(5).Exec(ctx))
	path("persist_drift", func() {
		_, err := s.Persister.Drain(ctx, driftTpl.ID)
		must(err)
	})

	// A claim batch whose persister died after T1: the sweep fences the header's share of each
	// user shard and settles it.
	sweepTpl := s.Template(t, 100, 1, nil)
	var sweepItems []issue.Item
	for _, u := range users {
		sweepItems = append(sweepItems, issue.Item{Coupon: issue.Coupon{UserID: u, TemplateID: sweepTpl.ID, RedemptionID: fmt.Sprintf("dead-%d", u),
			ReceiveCount: 1, Source: usercoupon.SourceCLAIM, At: time.Now()}})
	}
	_, err = issue.Reserve(ctx, s.DB, issue.ReserveSpec{TemplateID: sweepTpl.ID, ShopNumber: sweepTpl.ShopNumber,
		Source: stockbatch.SourceCLAIM, Items: sweepItems})
	must(err)
	path("batch_sweep", func() {
		_, err := issue.Sweep(ctx, s.DB, 0, 8)
		must(err)
	})

	distTpl := s.Template(t, 100, 1, nil)
	var csv strings.Builder
	csv.WriteString("userId\n")
	for _, u := range append(users, 11, 99) { // a duplicate row and a new user
		fmt.Fprintf(&csv, "%d\n", u)
	}
	path("distribution", func() {
		task, err := s.Distribution.Create(ctx, stack.Merchant, distribution.CreateInput{
			TemplateID: distTpl.ID, Name: "push", SendType: coupontask.SendTypeIMMEDIATE, FileName: "users.csv", File: strings.NewReader(csv.String()),
		})
		must(err)
		must(s.Distribution.Run(ctx, task.ID))
		_, _, err = s.Distribution.Failures(ctx, task.ID, 0, 10)
		must(err)
		must(s.Distribution.WriteReport(ctx, task.ID, &bytes.Buffer{}))
	})

	// Checkout on the persisted coupons of tpl, one user each.
	coupons := map[int64]*ent.UserCoupon{}
	all, err := s.DB.UserCoupon.Query().Where(usercoupon.TemplateID(tpl.ID)).All(ctx)
	must(err)
	for _, c := range all {
		coupons[c.UserID] = c
	}
	user := func(id int64) coupon.Actor { return coupon.Actor{UserID: id, Role: coupon.RoleUser} }
	order := func(id int64) checkout.Order {
		return checkout.Order{ID: id, Shop: stack.Merchant.Shop, Amount: decimal.NewFromInt(100)}
	}
	path("checkout_applicable", func() {
		_, err := s.Checkout.Applicable(ctx, user(11), order(1))
		must(err)
		_, err = s.Checkout.Best(ctx, user(11), order(1))
		must(err)
	})
	path("checkout_lock", func() {
		for i, u := range users[:5] {
			_, err := s.Checkout.Lock(ctx, user(u), coupons[u].ID, order(int64(100+i)))
			must(err)
		}
	})
	path("checkout_confirm", func() {
		for i, u := range users[:2] {
			_, err := s.Checkout.Confirm(ctx, stack.Orders, int64(100+i), coupons[u].ID, decimal.NewFromInt(100))
			must(err)
		}
	})
	path("checkout_release", func() {
		_, err := s.Checkout.Release(ctx, user(users[2]), 102, coupons[users[2]].ID)
		must(err)
	})
	path("checkout_refund", func() {
		_, err := s.Checkout.Refund(ctx, stack.Orders, 101, coupons[users[1]].ID)
		must(err)
	})
	_, err = s.DB.CouponSettlement.Update().Where(couponsettlement.OrderID(103)).SetLockExpiresAt(time.Now().Add(-time.Second)).Save(ctx)
	must(err)
	path("checkout_expire", func() {
		_, err := s.Checkout.ExpireLock(ctx, users[3], 103, coupons[users[3]].ID)
		must(err)
		_, err = s.Checkout.Sweep(ctx)
		must(err)
	})

	path("my_coupons", func() {
		_, err := s.Wallet.MyCoupons(ctx, users[0], nil, coupon.Keyset{Size: 20}, false)
		must(err)
		_, err = s.Wallet.MyCoupons(ctx, users[0], nil, coupon.Keyset{Size: 20}, true)
		must(err)
		_, err = s.Wallet.Coupon(ctx, users[0], coupons[users[0]].ID)
		must(err)
	})

	soon := s.Template(t, 100, 1, func(in *template.CreateInput) {
		in.ValidStartTime = time.Now().Add(time.Hour)
		in.ValidEndTime = time.Now().Add(2 * time.Hour)
	})
	path("reminders", func() {
		for _, u := range users[:3] {
			_, err := s.Reminders.Create(ctx, u, soon.ID, couponreminder.ChannelAPP, 30)
			must(err)
		}
		_, err := s.Reminders.Cancel(ctx, users[2], soon.ID, couponreminder.ChannelAPP)
		must(err)
		_, err = s.Reminders.Mine(ctx, users[0], coupon.Keyset{Size: 20})
		must(err)
	})
	// Their delivery, made due a minute ago.
	minute := time.Now().Add(-time.Minute).UTC().Truncate(time.Minute)
	_, err = s.DB.CouponReminder.Update().SetRemindAt(minute).SetDueAt(minute).Save(ctx)
	must(err)
	path("reminder_delivery", func() {
		_, err := s.Reminders.SendBucket(ctx, soon.ID, minute)
		must(err)
		_, err = s.Reminders.Sweep(ctx)
		must(err)
	})

	// Expiry: the unused coupons of tpl end a minute ago.
	end := time.Now().Add(-time.Minute).UTC().Truncate(time.Minute)
	_, err = s.DB.UserCoupon.Update().Where(usercoupon.TemplateID(tpl.ID), usercoupon.StatusEQ(usercoupon.StatusUNUSED)).SetValidEndTime(end).Save(ctx)
	must(err)
	path("expiry", func() {
		_, err := s.Expirer.ExpireBucket(ctx, tpl.ID, end)
		must(err)
		_, err = s.Expirer.Sweep(ctx)
		must(err)
	})
	time.Sleep(10 * time.Millisecond) // past archive.Config.After
	path("archive", func() {
		_, err := s.Archiver.Run(ctx)
		must(err)
	})
	path("stats", func() {
		_, err := s.Stats.RollUp(ctx)
		must(err)
		_, err = s.Stats.TemplateStats(ctx, stack.Merchant, tpl.ID, nil, nil)
		must(err)
		shop := stack.Merchant.Shop
		_, err = s.Stats.ShopStats(ctx, stack.Merchant, &shop, nil, nil)
		must(err)
		_, err = s.Stats.Rebuild(ctx, tpl.ID, nil, nil)
		must(err)
	})
	path("reconcile", func() {
		_, err := s.Reconciler.Run(ctx)
		must(err)
		_, err = s.Reconciler.Check(ctx, stack.Merchant, tpl.ID)
		must(err)
	})

	dir := filepath.Join("sharding", "testdata")
	files := map[string]string{"schema.sql": schemaOf(t, s)}
	for _, p := range rec.Paths() {
		files[p+".sql"] = rec.File(p)
	}
	compareOrWrite(t, dir, files, *updateCapture || os.Getenv("COUPON_SHARDING_UPDATE") == "1")
}

// autoIncrement is a CREATE TABLE's next AUTO_INCREMENT value, which depends on the run.
var autoIncrement = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

// schemaOf is SHOW CREATE TABLE of every table of the database (not golang-migrate's own),
// which must each be in one keyspace of migrations.Keyspaces.
func schemaOf(t *testing.T, s *stack.Stack) string {
	t.Helper()
	rows, err := s.SQL.QueryContext(s.Ctx, "SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != "schema_migrations" {
			tables = append(tables, name)
		}
	}
	rows.Close()
	sort.Strings(tables)
	var b strings.Builder
	b.WriteString("-- the tables of a migrated database (SHOW CREATE TABLE); written by sharding_capture_test.go\n\n")
	for _, name := range tables {
		if migrations.KeyspaceOf(name) == "" {
			t.Errorf("table %s is in no keyspace: add it to migrations.Keyspaces and sharding/vschema.json", name)
		}
		var n, ddl string
		if err := s.SQL.QueryRowContext(s.Ctx, "SHOW CREATE TABLE `"+name+"`").Scan(&n, &ddl); err != nil {
			t.Fatal(err)
		}
		b.WriteString(autoIncrement.ReplaceAllString(ddl, "") + ";\n\n")
	}
	return b.String()
}

// compareOrWrite writes files into dir (update), or fails for each that differs from its
// committed copy or is missing, and for each committed .sql file no longer produced.
func compareOrWrite(t *testing.T, dir string, files map[string]string, update bool) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	if update {
		for _, f := range old {
			os.Remove(f)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != content {
			t.Errorf("sharding/testdata/%s is stale (the code's SQL changed): run go test -run TestShardingCapture . -update-sharding, then cd sharding && go test ./...\n--- now:\n%s", name, content)
		}
	}
	for _, f := range old {
		if _, ok := files[filepath.Base(f)]; !ok {
			t.Errorf("%s: no path records it any more; rerun with -update-sharding", f)
		}
	}
}
