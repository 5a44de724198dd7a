// Package lua holds coupond's Redis Lua scripts, one .lua file per script, embedded at build time.
// Each file starts with "#!lua" (Redis 7's script flags line: the server refuses a script's access
// to a key outside its declared keys' slot, and refuses a write script as a whole when over
// maxmemory; the scripts that only give back, delete or renew carry flags=allow-oom so that
// outboxes still drain at maxmemory, the read-only reconcile_snapshot flags=no-writes), then a header that states its KEYS, ARGV and return value; each script has one
// typed Go wrapper here, so callers never build EVAL arguments by hand. Scripts return integers or
// arrays, never bit-packed numbers (a packed return overflows and can decode "no stock" as success). All keys of one call share one hash tag, so
// every script is Redis Cluster safe.
package lua

import (
	"context"
	"embed"
	"strconv"

	"github.com/redis/go-redis/v9"
)

//go:embed *.lua
var sources embed.FS

// script is one embedded script. Running it sends EVALSHA and falls back to EVAL when the server
// does not know the script yet (first use, restart, SCRIPT FLUSH).
type script struct{ *redis.Script }

// scripts are every script of the package, as mustLoad made them.
var scripts []script

// mustLoad returns the embedded script name; it panics at package initialisation when the file is
// missing, which the build would otherwise not notice.
func mustLoad(name string) script {
	src, err := sources.ReadFile(name)
	if err != nil {
		panic("lua: " + err.Error())
	}
	s := script{redis.NewScript(string(src))}
	scripts = append(scripts, s)
	return s
}

// Pipelined sends the commands fill queues (scripts through the wrappers' …In forms) in one
// pipeline — one round trip to a single Redis — and returns the first error among them. A script
// runs there as EVALSHA, which a server that does not know it yet (first use, a restart, SCRIPT
// FLUSH) refuses with NOSCRIPT, and a pipeline cannot fall back to EVAL as a single call does:
// Pipelined then loads the package's scripts and sends the commands once more. So every command
// fill queues must be safe to run twice.
func Pipelined(ctx context.Context, rdb redis.UniversalClient, fill func(redis.Pipeliner)) error {
	for attempt := 1; ; attempt++ {
		cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error { fill(p); return nil })
		if err == nil || attempt == 2 || !noScript(cmds) {
			return err
		}
		for _, s := range scripts {
			if err := s.Load(ctx, rdb).Err(); err != nil {
				return err
			}
		}
	}
}

// noScript reports whether one of cmds failed for a script the server did not know.
func noScript(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
			return true
		}
	}
	return false
}

// runFlag runs s and reports whether it returned 1 (its scripts return 1 or 0).
func (s script) runFlag(ctx context.Context, rdb redis.Scripter, keys []string, args ...any) (bool, error) {
	n, err := s.Run(ctx, rdb, keys, args...).Int64()
	return n == 1, err
}

var (
	templatePut       = mustLoad("template_put.lua")
	templateSetNull   = mustLoad("template_set_null.lua")
	templateAddStock  = mustLoad("template_add_stock.lua")
	templateMarkEnded = mustLoad("template_mark_ended.lua")
	unlock            = mustLoad("unlock.lua")
)

// TemplateKeys are the keys of one template that the template scripts use. All of them must carry
// the template's hash tag {t<id>} (package coupon/keys builds them).
type TemplateKeys struct {
	Hash string // the template cache hash
	Null string // the null-value key
	Lock string // the rebuild lock
}

// TemplatePut replaces the template hash by fields (which must include "stock" and "data"), sets it
// to expire at expireAtUnix (seconds) and deletes the null-value key, atomically.
//
// With lockToken "" the write is the data owner's (create, administration): it always happens, it
// deletes the rebuild lock (a rebuild in progress may hold an older database read), and when a
// complete hash already exists the stored stock is the smaller of the cached and the given one
// (claims deducted in Redis may not have reached the database yet). With a non-empty lockToken the write happens only while the rebuild lock still holds that
// token; written is false otherwise, and then nothing changed.
func TemplatePut(ctx context.Context, rdb redis.Scripter, k TemplateKeys, fields map[string]string, expireAtUnix int64, lockToken string) (written bool, err error) {
	args := make([]any, 0, 2+2*len(fields))
	args = append(args, expireAtUnix, lockToken)
	for name, value := range fields {
		args = append(args, name, value)
	}
	return templatePut.runFlag(ctx, rdb, []string{k.Hash, k.Null, k.Lock}, args...)
}

// TemplateSetNull sets the null-value key k.Null with time to live ttlMillis, but only while the
// rebuild lock k.Lock still holds lockToken; set is false otherwise, and then nothing changed.
func TemplateSetNull(ctx context.Context, rdb redis.Scripter, k TemplateKeys, ttlMillis int64, lockToken string) (set bool, err error) {
	return templateSetNull.runFlag(ctx, rdb, []string{k.Null, k.Lock}, ttlMillis, lockToken)
}

// TemplateAddStock adds n to the "stock" and "total" fields of the template hash (and one to "ver")
// when the complete hash exists, and reports cached=true. Without a complete hash it writes no
// hash field (a partial hash would break later reads), deletes the rebuild lock so that a rebuild racing with the caller's database
// change re-reads the database, and reports cached=false.
func TemplateAddStock(ctx context.Context, rdb redis.Scripter, k TemplateKeys, n int64) (cached bool, err error) {
	return templateAddStock.runFlag(ctx, rdb, []string{k.Hash, k.Lock}, strconv.FormatInt(n, 10))
}

// TemplateMarkEnded sets "status" of the template hash to ENDED when the complete hash exists, and
// reports cached=true; "ver" goes up by one only if the status was not ENDED already, so a repeat
// changes nothing. Without a complete hash it behaves like TemplateAddStock: no hash field written,
// rebuild lock deleted, cached=false.
func TemplateMarkEnded(ctx context.Context, rdb redis.Scripter, k TemplateKeys) (cached bool, err error) {
	return templateMarkEnded.runFlag(ctx, rdb, []string{k.Hash, k.Lock})
}

// Unlock deletes the lock key only when it still holds token, and reports whether it did. A lock
// that expired and was taken by someone else is left alone.
func Unlock(ctx context.Context, rdb redis.Scripter, key, token string) (released bool, err error) {
	return unlock.runFlag(ctx, rdb, []string{key}, token)
}
