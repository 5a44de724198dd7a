#!/usr/bin/env bash
# bench/hotstock.sh — one hot template on the local Redis Cluster (scripts/services.sh
# --redis-cluster: 3 masters), with its stock in N = 1 shard (one master takes every claim) and in
# N = 3 shards (README "Hot templates"): accepted claims/s of each, their ratio, and the Redis CPU
# per accepted claim on each master; and the same N = 1 template with coupon data on the one
# standalone Redis (127.0.0.1:6379, DB 10), for the cluster's cost (README "Running on Redis
# Cluster": cluster ÷ single Redis). The single-Redis and cluster N = 1 runs alternate twice
# (single, cluster, N = 3, single, cluster) and each ratio uses their means. `coupond serve --mode
# api` (no persister: the claim path only) on a fresh database each run, bench/loadgen closed loop
# at max rate.
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

single_pid=$(redis-cli -p 6379 INFO server | tr -d '\r' | awk -F: '$1 == "process_id" {print $2}')

run() { # NAME N [single] → $TMP/report-NAME.json
	local name=$1 n=$2 port=18480 p
	local where=(COUPON_REDIS_CLUSTER_ADDRS="${addrs%,}")
	mysql -uroot -h127.0.0.1 -e "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\`"
	if [[ ${3:-} == single ]]; then
		where=(COUPON_REDIS_ADDR=127.0.0.1:6379 COUPON_REDIS_DB=10)
		redis-cli -p 6379 -n 10 FLUSHDB >/dev/null
	fi
	env COUPON_ENV=dev COUPON_HTTP_ADDR="127.0.0.1:$port" COUPON_METRICS_ADDR=off \
		COUPON_MYSQL_DSN="root@tcp(127.0.0.1:3306)/$DB" \
		"${where[@]}" COUPON_REDIS_NAMESPACE="bench_hotstock_$n:" \
		COUPON_QUEUE_REDIS_DB=9 COUPON_JWT_SECRET="$SECRET" \
		COUPON_REDEEM_TEMPLATE_RATE=10000000 COUPON_REDEEM_USER_RATE=0 \
		"$TMP/coupond" serve --mode api >"$TMP/server-$name.log" 2>&1 &
	SERVER_PID=$!
	for _ in $(seq 1 600); do
		curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$TMP/server-$name.log" >&2; die "coupond exited"; }
		sleep 0.1
	done
	p="coupond=$SERVER_PID,$(IFS=,; echo "${pids[*]}")"
	[[ ${3:-} == single ]] && p="coupond=$SERVER_PID,r6379=$single_pid"
	"$TMP/loadgen" -url "http://127.0.0.1:$port/query" -secret "$SECRET" -users "$USERS" -workers "$WORKERS" \
		-duration "${DURATION}s" -stock-shards "$n" -pids "$p" -label "$name" -out "$TMP/report-$name.json" >/dev/null
	kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
	for m in "${masters[@]}"; do # the run's keys
		redis-cli -p "$m" --scan --pattern "bench_hotstock_$n:*" | xargs -r -n 100 redis-cli -p "$m" UNLINK >/dev/null 2>&1 || true
	done
	redis-cli -p 6379 -n 10 FLUSHDB >/dev/null
}
run single-1 1 single
run cluster-1 1
run cluster-3 3
run single-2 1 single
run cluster-2 1
python3 - "$TMP" <<'PY'
import json, sys
r = {n: json.load(open(f"{sys.argv[1]}/report-{n}.json")) for n in ("single-1", "cluster-1", "cluster-3", "single-2", "cluster-2")}
for name, rep in r.items():
    acc, rate = rep["accepted"], rep["accepted_per_s"]
    cpu = rep.get("cpu", {}).get("process_cpu_s", {})
    per = ", ".join(f"{k} {v / max(acc, 1) * 1e6:.1f} µs" for k, v in sorted(cpu.items()) if k.startswith("r"))
    print(f'{name} (stockShards={3 if name == "cluster-3" else 1}): {rate:.0f} accepted/s; Redis CPU per accepted claim: {per}')
rate = lambda *names: sum(r[n]["accepted_per_s"] for n in names) / len(names)
single, cluster = rate("single-1", "single-2"), rate("cluster-1", "cluster-2")
print(f'cluster N=1 / single Redis = {cluster / max(single, 1):.2f}')
print(f'cluster N=3 / cluster N=1 = {rate("cluster-3") / max(cluster, 1):.2f}')
PY
