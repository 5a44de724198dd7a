#!/usr/bin/env bash
# bench/claim_commands.sh — the Redis commands one claim costs: TestRedisCommandsPerClaim
# (coupon/claim) runs N claims of distinct users through Redeem and the persister's Drain, in the
# production settings, against a Redis server of its own started here (port 6391, no
# persistence, stopped on exit), and prints per claim the commands the services sent (a go-redis
# hook) and the commands the server executed (INFO commandstats after CONFIG RESETSTAT: the
# scripts' own redis.call()s included).
#
#   bench/claim_commands.sh          # 500 claims   [COUPON_MEASURE_CLAIMS]
#
# MySQL is the tests' one (COUPON_TEST_MYSQL_DSN, 127.0.0.1:3306 root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PORT=${BENCH_COMMANDS_PORT:-6391}
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
until redis-cli -p "$PORT" PING >/dev/null 2>&1; do sleep 0.1; done
COUPON_TEST_REDIS=127.0.0.1:$PORT COUPON_MEASURE_SERVER=1 \
	go test -count=1 -run '^TestRedisCommandsPerClaim$' -v ./coupon/claim/ | grep -E 'per claim|^(ok|FAIL|---)'
