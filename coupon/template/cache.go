package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/coupon/issue"
	"coupond/coupon/keys"
	"coupond/ent"
	"coupond/ent/coupontemplate"
	"coupond/idgen"
	"coupond/lua"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// CacheOptions tunes the template cache. Zero fields take the defaults in their comments.
type CacheOptions struct {
	NullTTL       time.Duration // how long an id is remembered as absent; default 30m
	LockTTL       time.Duration // rebuild lock lifetime; default 5s
	LockWait      time.Duration // how long a lookup waits for another rebuilder before failing; default 3s
	BloomExpected uint          // ids the Bloom filter is sized for; default 1_000_000 (≤ ~290M at 0.001: 2^32-bit bitmap)
	BloomFPRate   float64       // false-positive rate at BloomExpected; default 0.001
	EndedTTL      time.Duration // cache lifetime of a template already past its end; default 10m
	// UserShards is how many shards the user tables are split into (COUPON_MYSQL_USER_SHARDS): a
	// rebuild reads the coupons of the outbox's claims in one read-only transaction per shard.
	UserShards int
}

func (o CacheOptions) withDefaults() CacheOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.NullTTL, 30*time.Minute)
	def(&o.LockTTL, 5*time.Second)
	def(&o.LockWait, 3*time.Second)
	def(&o.EndedTTL, 10*time.Minute)
	if o.BloomExpected == 0 {
		o.BloomExpected = 1_000_000
	}
	if o.BloomFPRate <= 0 || o.BloomFPRate >= 1 {
		o.BloomFPRate = 0.001
	}
	return o
}

// Cache is the Redis side of coupon templates, shared by all instances through Redis: the
// template hash (TTL at the template's end), the null-value key of absent ids, the Bloom filter
// of existing ids and the rebuild lock. Get is the lookup chain (lookup.go). Safe for concurrent
// use.
//
// The hash has the fields stock (live remaining stock), total, status (stored status, ACTIVE or
// ENDED), start and end (claim window, unix milliseconds), limit (per person), shop, ver (version)
// and data (JSON of the whole coupon.Template). Lua scripts read the plain fields; a hash is complete
// only when it has data, and no writer ever creates an incomplete one.
type Cache struct {
	rdb   redis.UniversalClient
	db    *ent.Client
	opts  CacheOptions
	group singleflight.Group
	// load reads a template from the database (loadTemplate; tests wrap it to count calls).
	load func(ctx context.Context, id int64) (*coupon.Template, error)
	// Bloom filter geometry: bits 0…bloomM-1 hold the filter, bit bloomM says it is complete.
	bloomM uint64
	bloomK uint
	// onBorrowStep, when set, is called after each step of a Borrow ("lent", "received"); an error
	// abandons the borrow there: the tests' crash between two steps.
	onBorrowStep func(name string) error
}

// NewCache returns the template cache over rdb. It reads db to load a template by id on a
// cache miss, and to list template ids when EnsureBloom rebuilds the filter.
func NewCache(rdb redis.UniversalClient, db *ent.Client, opts CacheOptions) *Cache {
	opts = opts.withDefaults()
	m, k := bloom.EstimateParameters(opts.BloomExpected, opts.BloomFPRate)
	c := &Cache{rdb: rdb, db: db, opts: opts, bloomM: uint64(m), bloomK: k}
	c.load = c.loadTemplate
	return c
}

// loadTemplate reads one template by id, or returns coupon.ErrNotFound, with the stock Redis
// should show: the row's stock, plus the units OPEN stock batches reserved that no coupon holds
// yet, less the claims in the template's outbox and the rows of distribution batches in flight
// that MySQL does not hold yet, never the row's stock alone. It is below 0 when the outbox
// holds more claims than MySQL can fill (Redis accepted them on a hash a restart had rewound): each
// of them fails, and its give-back brings the stock back up, to 0 once all are given back.
//
// It reads the outbox and the distribution journals first, then the template's view on its shard
// (issue.ReadView: the row with a shared lock, and the OPEN headers), then, per user shard, the
// coupons and failures of those claims and rows and the coupons the OPEN headers wrote
// (issue.ReadShards). No transaction spans shards. The shared lock makes a rebuild wait for an
// administrative transaction holding the row, so it never caches the row as it was before a change
// whose cache update already ran (a change committed after the view cancels the rebuild through
// its lock). A batch committed after the outbox was read is found by the later reads: its claims
// count once, whether or not their entries are acknowledged yet, and a coupon whose header is
// newer than the view counts as not written (its unit is in the view's stock). A distribution
// batch whose after-commit ran meanwhile (its give-back went to the hash this rebuild replaces) is
// seen by reading the journals again, and the template is read again.
func (c *Cache) loadTemplate(ctx context.Context, id int64) (*coupon.Template, error) {
	n, err := c.shardsOf(ctx, id)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		inOutbox, err := c.outbox(ctx, id, n)
		if err != nil {
			return nil, err
		}
		batches, err := c.distributions(ctx, id, n)
		if err != nil {
			return nil, err
		}
		t, err := c.read(ctx, id, inOutbox, batches)
		if err != nil || len(batches) == 0 || attempt == maxLoadAttempts-1 {
			return t, err
		}
		now, err := c.distributions(ctx, id, n)
		if err != nil {
			return nil, err
		}
		if sameBatches(batches, now) {
			return t, nil
		}
	}
}

// read is one read of loadTemplate's MySQL side, for the claims inOutbox and the distribution
// batches in flight.
func (c *Cache) read(ctx context.Context, id int64, inOutbox []lua.OutboxEntry, batches []inFlight) (*coupon.Template, error) {
	v, err := issue.ReadView(ctx, c.db, id, true)
	if ent.IsNotFound(err) {
		return nil, coupon.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	look := issue.Lookup{Headers: v.Open}
	for _, e := range inOutbox {
		look.Refs = append(look.Refs, issue.Ref{User: e.UserID, RedemptionID: e.RedemptionID})
	}
	rows := acceptedRows(batches)
	look.Refs = append(look.Refs, rows...)
	f, err := issue.ReadShards(ctx, c.db, id, c.opts.UserShards, look)
	if err != nil {
		return nil, err
	}
	if err := v.Resolve(ctx, c.db, f); err != nil {
		return nil, err
	}
	owed, err := c.owedBack(ctx, id, inOutbox, f)
	if err != nil {
		return nil, err
	}
	t := coupon.TemplateFromRow(v.Row)
	for _, h := range v.Open { // units reserved by batches in flight that no coupon holds yet
		t.Stock += h.Reserved - f.Written[h.ID]
	}
	written := func(rid string) bool {
		h, ok := f.Coupon[rid]
		return ok && v.Counts(h)
	}
	for _, e := range inOutbox { // claims MySQL holds neither a coupon nor a given-back failure for
		if !written(e.RedemptionID) && (!f.Failed[e.RedemptionID] || owed[e.RedemptionID]) {
			t.Stock--
		}
	}
	for _, r := range rows { // distribution rows holding a unit of the cached stock (journals.go)
		if !written(r.RedemptionID) {
			t.Stock--
		}
	}
	return t, nil // below 0 while Redis holds more claims than MySQL can fill
}

// maxLoadAttempts bounds loadTemplate's reads while distribution batches finish under it (a new
// batch needs the cached hash, which is missing while it is rebuilt, so a second read normally
// finds the same batches as the first).
const maxLoadAttempts = 3

// outbox returns the claims in the outboxes of the template's n stock shards.
func (c *Cache) outbox(ctx context.Context, id int64, n int) ([]lua.OutboxEntry, error) {
	pipe := c.rdb.Pipeline()
	cmds := make([]*redis.XMessageSliceCmd, n)
	for i := range n {
		cmds[i] = pipe.XRange(ctx, keys.StockShard(id, i, n).Outbox(), "-", "+")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read outbox of %d: %w", id, err)
	}
	var out []lua.OutboxEntry
	for _, cmd := range cmds {
		for _, m := range cmd.Val() {
			if e, err := lua.ParseOutboxEntry(m); err == nil { // the persister drops malformed entries
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// owedBack returns the outbox claims MySQL refused whose unit the persister has still to give back
// to Redis (their redemption key is still there): such a claim counts as undecided, since the
// give-back will add that unit to the hash this rebuild writes.
func (c *Cache) owedBack(ctx context.Context, templateID int64, inOutbox []lua.OutboxEntry, f issue.Found) (map[string]bool, error) {
	pipe := c.rdb.Pipeline()
	pending := map[string]*redis.IntCmd{}
	for _, e := range inOutbox {
		if s, ok := keys.RedemptionShard(e.RedemptionID); ok && s.Template == templateID && f.Failed[e.RedemptionID] {
			pending[e.RedemptionID] = pipe.Exists(ctx, s.Redemption(e.RedemptionID))
		}
	}
	if len(pending) == 0 {
		return nil, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("read redemption keys: %w", err)
	}
	owed := map[string]bool{}
	for rid, e := range pending {
		owed[rid] = e.Val() > 0
	}
	return owed, nil
}

func templateKeys(id int64) lua.TemplateKeys { return shardTemplateKeys(keys.StockShard(id, 0, 1)) }

// shardTemplateKeys are the template-script keys of stock shard s (with one shard, the template's).
func shardTemplateKeys(s keys.Shard) lua.TemplateKeys {
	return lua.TemplateKeys{Hash: s.Stock(), Null: s.Null(), Lock: s.Lock()}
}

// Put writes the complete hash of t in one Lua script (DEL, HSET, EXPIREAT) and deletes its
// null-value key. The hash expires at the template's end, or EndedTTL from now when that end has
// passed. Put is the data owner's write: call it after the row is committed, also on create, so a
// null-value mark that a lookup wrote between BloomAdd and the commit is cleared. It cancels a
// rebuild in progress (whose database read may be older) by deleting the rebuild lock.
//
// When a complete hash already exists, the cached stock is kept if it is smaller than t.Stock:
// claims deducted in Redis may not have reached the database yet. Raise stock with AddStock.
func (c *Cache) Put(ctx context.Context, t *coupon.Template) error {
	if err := c.put(ctx, t, ""); err != nil {
		return fmt.Errorf("template cache: put %d: %w", t.ID, err)
	}
	return nil
}

// put runs template_put.lua; with a lockToken it writes only while the rebuild lock holds that
// token, and returns errLockLost when it did not write.
//
// A template with N > 1 stock shards keeps its stock in the shards' hashes, and its own hash holds
// the stock no shard holds (a reserve the shards borrow from: AddStock adds there). All of its
// hashes written together carry one new generation ("gen"): a lend between hashes of two
// generations is neither received nor given back (stock_receive.lua), so units a rebuild
// recounted are not added again. Writes:
//   - a rebuild (after freezeShards): each shard's hash with its share of t.Stock (SplitStock),
//     then the template's own hash, reserve 0, under the lock;
//   - the owner's write where none of the hashes exists (a new template): the same, without lock;
//   - the owner's write where all exist: the fields, each hash keeping its stock, generation and
//     borrow counts (given t.Stock, the script keeps the smaller);
//   - the owner's write where some exist: all are dropped (Invalidate) for the next lookup to
//     rebuild, as the owner cannot tell what the missing ones held.
func (c *Cache) put(ctx context.Context, t *coupon.Template, lockToken string) error {
	n := t.StockShards()
	if n == 1 {
		return c.putHash(ctx, t, templateKeys(t.ID), lockToken, "")
	}
	shares, reserve := SplitStock(t.Stock, n), 0
	if lockToken == "" {
		_, present, err := c.shardsComplete(ctx, t.ID, n)
		if err != nil {
			return err
		}
		own, err := c.rdb.HExists(ctx, keys.Template(t.ID), "data").Result()
		if err != nil {
			return err
		}
		switch {
		case own && present == n:
			reserve = t.Stock
			for i := range shares {
				shares[i] = t.Stock
			}
		case own || present > 0:
			return c.Invalidate(ctx, t.ID)
		}
	}
	gen := strconv.FormatInt(idgen.Next(), 10)
	for i, share := range shares {
		s := *t
		s.Stock = share
		if err := c.putHash(ctx, &s, shardTemplateKeys(keys.StockShard(t.ID, i, n)), "", gen); err != nil {
			return fmt.Errorf("shard %d: %w", i, err)
		}
	}
	own := *t
	own.Stock = reserve
	return c.putHash(ctx, &own, templateKeys(t.ID), lockToken, gen)
}

// putHash writes the complete hash of t at k (template_put.lua), with generation gen when it is
// not "".
func (c *Cache) putHash(ctx context.Context, t *coupon.Template, k lua.TemplateKeys, lockToken, gen string) error {
	fields, err := hashFields(t)
	if err != nil {
		return err
	}
	if gen != "" {
		fields["gen"] = gen
	}
	written, err := lua.TemplatePut(ctx, c.rdb, k, fields, c.expireAt(t, time.Now()), lockToken)
	if err != nil {
		return err
	}
	if !written {
		return errLockLost
	}
	return nil
}

// expireAt is when the hash of t expires, unix seconds: its end rounded up to a whole second, or
// EndedTTL from now for a template already past its end (EXPIREAT in the past would delete it).
func (c *Cache) expireAt(t *coupon.Template, now time.Time) int64 {
	if t.ValidEnd.After(now) {
		return t.ValidEnd.Add(time.Second - time.Nanosecond).Unix()
	}
	return now.Add(c.opts.EndedTTL).Unix()
}

// AddStock adds n (negative to undo an addition) to the cached stock and total of template id, in
// one script, only when its complete hash exists; cached is false when there was none, and
// then no hash field is written (the next Get rebuilds from the database). Call it inside the
// transaction that changed the row, while that transaction holds the row FOR UPDATE: a rebuild
// racing with the change is then either cancelled (the script deletes its lock) or reads the row
// only after the commit, so the addition is counted exactly once. Undo with -n when the
// transaction does not commit.
func (c *Cache) AddStock(ctx context.Context, id int64, n int) (cached bool, err error) {
	cached, err = lua.TemplateAddStock(ctx, c.rdb, templateKeys(id), int64(n))
	if err != nil {
		return false, fmt.Errorf("template cache: add stock %d: %w", id, err)
	}
	return cached, nil
}

// MarkEnded sets the cached status of template id to ENDED, in one script, only when its complete
// hash exists; cached is false when there was none, and then no hash field is written. It is
// idempotent; call it like AddStock, inside the transaction that ends the row.
//
// A template with stock shards has each shard's hash marked too (claims read the status there): n
// is its StockShards.
func (c *Cache) MarkEnded(ctx context.Context, id int64, n int) (cached bool, err error) {
	for i := 0; n > 1 && i < n; i++ {
		if _, err := lua.TemplateMarkEnded(ctx, c.rdb, shardTemplateKeys(keys.StockShard(id, i, n))); err != nil {
			return false, fmt.Errorf("template cache: mark ended %d shard %d: %w", id, i, err)
		}
	}
	cached, err = lua.TemplateMarkEnded(ctx, c.rdb, templateKeys(id))
	if err != nil {
		return false, fmt.Errorf("template cache: mark ended %d: %w", id, err)
	}
	return cached, nil
}

// Invalidate drops the hash of template id (with its stock shards' hashes, freezeShards) and
// cancels a rebuild in progress (its rebuild lock), so the next Get rebuilds from the database.
func (c *Cache) Invalidate(ctx context.Context, id int64) error {
	k := templateKeys(id)
	if err := c.rdb.Del(ctx, k.Hash, k.Lock).Err(); err != nil {
		return fmt.Errorf("template cache: invalidate %d: %w", id, err)
	}
	n, err := c.shardsOf(ctx, id)
	if errors.Is(err, coupon.ErrNotFound) {
		return nil
	}
	if err == nil {
		err = c.freezeShards(ctx, id, n)
	}
	if err != nil {
		return fmt.Errorf("template cache: invalidate %d: %w", id, err)
	}
	return nil
}

// hashFields is the hash of t as template_put.lua writes it.
func hashFields(t *coupon.Template) (map[string]string, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"stock":  strconv.Itoa(t.Stock),
		"total":  strconv.Itoa(t.TotalStock),
		"status": string(t.Stored),
		"start":  strconv.FormatInt(t.ValidStart.UnixMilli(), 10),
		"end":    strconv.FormatInt(t.ValidEnd.UnixMilli(), 10),
		"limit":  strconv.Itoa(t.Receive.LimitPerPerson),
		"shop":   strconv.FormatInt(t.ShopNumber, 10),
		"ver":    strconv.Itoa(t.Version),
		"data":   string(data),
	}, nil
}

// decodeHash returns the template in hash h, or nil when h is not a complete hash (missing, or
// without data). Stock, total, status and version come from their own fields, which scripts
// change; the rest from data.
func decodeHash(h map[string]string) (*coupon.Template, error) {
	data, ok := h["data"]
	if !ok {
		return nil, nil
	}
	var t coupon.Template
	if err := json.Unmarshal([]byte(data), &t); err != nil {
		return nil, fmt.Errorf("template cache: corrupt data: %w", err)
	}
	var err error
	if t.Stock, err = strconv.Atoi(h["stock"]); err != nil {
		return nil, fmt.Errorf("template cache %d: corrupt stock: %w", t.ID, err)
	}
	t.Stock = max(0, t.Stock) // below 0 only while claims Redis over-accepted are being failed
	if t.TotalStock, err = strconv.Atoi(h["total"]); err != nil {
		return nil, fmt.Errorf("template cache %d: corrupt total: %w", t.ID, err)
	}
	if t.Version, err = strconv.Atoi(h["ver"]); err != nil {
		return nil, fmt.Errorf("template cache %d: corrupt ver: %w", t.ID, err)
	}
	t.Stored = coupontemplate.Status(h["status"])
	if err := coupontemplate.StatusValidator(t.Stored); err != nil {
		return nil, fmt.Errorf("template cache %d: %w", t.ID, err)
	}
	return &t, nil
}
