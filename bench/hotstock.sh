#!/usr/bin/env bash
# bench/hotstock.sh — one hot template on the local Redis Cluster (scripts/services.sh
# --redis-cluster: 3 masters), with its stock in N = 1 shard (one master takes every claim) and in
# N = 3 shards (README "Hot templates"): accepted claims/s of each, their ratio, and the Redis CPU
# per accepted claim on each master. `coupond serve --mode api` (no persister: the claim path only)
# on a fresh database each run, bench/loadgen closed loop at max rate.
#
#   bench/hotstock.sh                     # 10 s bursts, 64 workers   [BENCH_DURATION, BENCH_WORKERS]
#
# On this 2-core box the three masters share two cores with coupond and the load generator: expect
# a ratio well under 3×. Meant to be run on a quiet machine (the lead's bench/isolated.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DURATION=${BENCH_DURATION:-10} WORKERS=${BENCH_WORKERS:-64} USERS=${BENCH_USERS:-20000}
SECRET=bench-hotstock-secret DB=coupond_bench_hotstock
NODES=(7000 7001 7002 7003 7004 7005)
TMP=$(mktemp -d)
SERVER_PID=""
trap '[[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
die() { echo "hotstock.sh: $*" >&2; exit 1; }

redis-cli -p 7000 cluster info 2>/dev/null | grep -q cluster_state:ok ||
	die "no Redis Cluster on 127.0.0.1:7000 (scripts/services.sh --redis-cluster)"
go build -o "$TMP/coupond" . && go build -o "$TMP/loadgen" ./bench/loadgen || die "go build failed"

masters=() pids=()
for p in "${NODES[@]}"; do
	info=$(redis-cli -p "$p" INFO server 2>/dev/null | tr -d '\r')
	if redis-cli -p "$p" ROLE 2>/dev/null | head -1 | grep -q master; then
		masters+=("$p")
		pids+=("r$p=$(awk -F: '$1 == "process_id" {print $2}' <<<"$info")")
	fi
done
((${#masters[@]} == 3)) || die "want 3 masters, found ${#masters[@]}"
addrs=$(printf '127.0.0.1:%s,' "${NODES[@]}")

run() { # N → $TMP/report-N.json
	local n=$1 port=18480
	mysql -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\`"
	env COUPON_ENV=dev COUPON_HTTP_ADDR="127.0.0.1:$port" COUPON_METRICS_ADDR=off \
		COUPON_MYSQL_DSN="root@tcp(127.0.0.1:3306)/$DB" \
		COUPON_REDIS_CLUSTER_ADDRS="${addrs%,}" COUPON_REDIS_NAMESPACE="bench_hotstock_$n:" \
		COUPON_QUEUE_REDIS_DB=9 COUPON_JWT_SECRET="$SECRET" \
		COUPON_REDEEM_TEMPLATE_RATE=10000000 COUPON_REDEEM_USER_RATE=0 \
		"$TMP/coupond" serve --mode api >"$TMP/server-$n.log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 1 600); do
		curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$TMP/server-$n.log" >&2; die "coupond exited"; }
		sleep 0.1
	done
	local p
	p=$(IFS=,; echo "coupond=$SERVER_PID,${pids[*]}")
	"$TMP/loadgen" -url "http://127.0.0.1:$port/query" -secret "$SECRET" -users "$USERS" -workers "$WORKERS" \
		-duration "${DURATION}s" -stock-shards "$n" -pids "$p" -label "stockShards=$n" -out "$TMP/report-$n.json" >/dev/null
	kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
	for m in "${masters[@]}"; do # the run's keys
		redis-cli -p "$m" --scan --pattern "bench_hotstock_$n:*" | xargs -r -n 100 redis-cli -p "$m" UNLINK >/dev/null 2>&1 || true
	done
}
run 1
run 3
python3 - "$TMP/report-1.json" "$TMP/report-3.json" <<'PY'
import json, sys
r = [json.load(open(f)) for f in sys.argv[1:]]
for rep in r:
    acc, rate = rep["accepted"], rep["accepted_per_s"]
    cpu = rep.get("cpu", {}).get("process_cpu_s", {})
    per = ", ".join(f"{k} {v / max(acc, 1) * 1e6:.1f} µs" for k, v in sorted(cpu.items()) if k.startswith("r"))
    print(f'{rep.get("label")}: {rate:.0f} accepted/s; Redis CPU per accepted claim: {per}')
print(f'N=3 / N=1 = {r[1]["accepted_per_s"] / max(r[0]["accepted_per_s"], 1):.2f}')
PY
