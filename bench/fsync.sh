#!/usr/bin/env bash
# bench/fsync.sh — what COUPON_REDIS_FSYNC=always costs the claim script, against everysec, in one
# run: redis-benchmark EVALSHA of lua/redeem.lua (the async claim: outbox XADD, request and
# redemption keys) at the same concurrency, first with appendfsync everysec, then always, then
# everysec again (the machine is shared and noisy: the two everysec runs bound the noise). The
# Redis's appendfsync is restored on exit.
#
#   bench/fsync.sh                 # -c 64, 40000 calls per run   [BENCH_WORKERS, BENCH_RAW_N]
#
# Environment: BENCH_REDIS_HOST/PORT (127.0.0.1/6379), BENCH_REDIS_DB (8, flushed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HOST=${BENCH_REDIS_HOST:-127.0.0.1} PORT=${BENCH_REDIS_PORT:-6379} DB=${BENCH_REDIS_DB:-8}
WORKERS=${BENCH_WORKERS:-64} N=${BENCH_RAW_N:-40000}
R=(redis-cli -h "$HOST" -p "$PORT")
orig=$("${R[@]}" CONFIG GET appendfsync | sed -n 2p)
[[ $("${R[@]}" CONFIG GET appendonly | sed -n 2p) == yes ]] || { echo "fsync.sh: Redis runs without AOF" >&2; exit 1; }
trap '"${R[@]}" CONFIG SET appendfsync "$orig" >/dev/null; "${R[@]}" -n "$DB" FLUSHDB >/dev/null' EXIT
SHA=$("${R[@]}" -n "$DB" -x SCRIPT LOAD <lua/redeem.lua | tr -d '\r')
run() { # appendfsync → EVALSHA/s
	"${R[@]}" CONFIG SET appendfsync "$1" >/dev/null
	"${R[@]}" -n "$DB" FLUSHDB >/dev/null
	local now tid=990000002
	now=$(date +%s%3N)
	"${R[@]}" -n "$DB" HSET "{t$tid}:tpl" stock 2000000000 status ACTIVE start $((now - 60000)) \
		end $((now + 86400000)) limit 2000000000 data '{}' >/dev/null
	redis-benchmark -h "$HOST" -p "$PORT" --dbnum "$DB" --csv -c "$WORKERS" -n "$N" -r 1000000 \
		EVALSHA "$SHA" 6 "{t$tid}:tpl" "{t$tid}:u:__rand_int__" "{t$tid}:outbox" \
		"{t$tid}:req:__rand_int__:__rand_int__" "{t$tid}:rd:__rand_int__" "{t$tid}:rl:__rand_int__" \
		__rand_int__ "r__rand_int__" "$now" 86400 0 1000 1 604800 |
		awk -F'","' 'NR > 1 && NF > 1 {print $2}' | tail -1
}
a=$(run everysec) b=$(run always) c=$(run everysec)
echo "redeem.lua EVALSHA/s at -c $WORKERS: everysec $a, always $b, everysec again $c"
awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN {printf "always / everysec = %.2f (against the mean of the two everysec runs)\n", 2 * b / (a + c)}'
