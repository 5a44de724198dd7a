#!/usr/bin/env bash
# bench/run.sh — the one command that reproduces every figure of the redeem benchmark (issue 3,
# "Measure"; bench/README.md explains what is measured and its limits).
#
#   bench/run.sh                       # async and sync bursts, half-peak runs, raw EVALSHA ceiling
#   bench/run.sh -d 30 -c 32 --pprof   # 30 s bursts, 32 workers, CPU profiles of the bursts
#
# Options (environment variable in brackets):
#   -d, --duration SECONDS   burst length, also of the half-peak run          [BENCH_DURATION=10]
#   -w, --warmup SECONDS     unmeasured warm-up before each run               [BENCH_WARMUP=2]
#   -c, --workers N          concurrent requests (loadgen workers) and the
#                            redis-benchmark -c of the raw ceiling            [BENCH_WORKERS=64]
#   -u, --users N            distinct users, one pre-minted token each        [BENCH_USERS=20000]
#   -m, --modes "api async sync"  what to measure: api = `serve --mode api` (async claims, no
#                            persister in the process: the burst only), async and sync = `serve`
#                            (API and persister) in that redeem mode          [BENCH_MODES]
#   -n, --raw-n N            EVALSHA calls of the raw ceiling (80000 stays under Redis's 64 MB
#                            automatic AOF rewrite, as the bursts do)         [BENCH_RAW_N=80000]
#       --quiet-wait SECONDS before each measured step, wait up to this long for the machine to be
#                            less than 25 % busy (other users' jobs)          [BENCH_QUIET_WAIT=90]
#       --user-rate N        COUPON_REDEEM_USER_RATE of the server (0 = off)  [BENCH_USER_RATE=0]
#       --pprof              CPU profile (10 s at most) of each burst and half-peak run, saved in
#                            bench/out/, with the bursts' top entries in the summary [BENCH_PPROF=1]
#       --keep               keep the coupond_bench database and Redis DBs    [BENCH_KEEP=1]
#       --no-compact-aof     do not BGREWRITEAOF before each measured step    [BENCH_COMPACT_AOF=0]
#   Also: BENCH_HALF_RATE (the open-loop rate instead of half the measured peak, to compare builds
#   at one rate), BENCH_DB (coupond_bench), BENCH_REDIS_DB (8), BENCH_QUEUE_REDIS_DB (9), BENCH_MYSQL_HOST/PORT
#   (127.0.0.1/3306), BENCH_REDIS_HOST/PORT (127.0.0.1/6379).
#
# Steps: scripts/services.sh; build coupond and the loadgen into a temp dir; for each mode: fresh
# database and Redis DBs, `coupond serve` on a free port, a closed-loop burst at max rate (the
# loadgen creates the template, samples Redis INFO commandstats and CPU times around the burst and
# waits for the last claim to reach MySQL), then an open-loop run at half the measured peak; then
# redis-benchmark EVALSHA of lua/redeem.lua at the same concurrency. The summary is printed and
# written to bench/out/summary-<date>.txt, with every JSON report next to it.
#
# Everything this script starts (servers, loadgens, profile fetches) is stopped on exit, the
# database is dropped and the two Redis DBs are flushed (unless --keep).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ORIG_ARGS="$*"
LOADAVG0=$(cut -d' ' -f1-3 /proc/loadavg)

DURATION=${BENCH_DURATION:-10}
WARMUP=${BENCH_WARMUP:-2}
WORKERS=${BENCH_WORKERS:-64}
USERS=${BENCH_USERS:-20000}
MODES=${BENCH_MODES:-api async sync}
RAW_N=${BENCH_RAW_N:-80000}
QUIET_WAIT=${BENCH_QUIET_WAIT:-90}
COMPACT_AOF=${BENCH_COMPACT_AOF:-1}
USER_RATE=${BENCH_USER_RATE:-0}
PPROF=${BENCH_PPROF:-0}
KEEP=${BENCH_KEEP:-0}
DB_NAME=${BENCH_DB:-coupond_bench}
REDIS_DB=${BENCH_REDIS_DB:-8}
QUEUE_DB=${BENCH_QUEUE_REDIS_DB:-9}
MYSQL_HOST=${BENCH_MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${BENCH_MYSQL_PORT:-3306}
REDIS_HOST=${BENCH_REDIS_HOST:-127.0.0.1}
REDIS_PORT=${BENCH_REDIS_PORT:-6379}

usage() { sed -n '2,/^$/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
	case $1 in
	-d | --duration) DURATION=$2; shift 2 ;;
	-w | --warmup) WARMUP=$2; shift 2 ;;
	-c | --workers) WORKERS=$2; shift 2 ;;
	-u | --users) USERS=$2; shift 2 ;;
	-m | --modes) MODES=$2; shift 2 ;;
	-n | --raw-n) RAW_N=$2; shift 2 ;;
	--user-rate) USER_RATE=$2; shift 2 ;;
	--pprof) PPROF=1; shift ;;
	--keep) KEEP=1; shift ;;
	--no-compact-aof) COMPACT_AOF=0; shift ;;
	--quiet-wait) QUIET_WAIT=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "bench: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
done
for v in DURATION WARMUP WORKERS USERS RAW_N USER_RATE QUIET_WAIT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "bench: $v must be a whole number, got '${!v}'" >&2; exit 2; }
done
((DURATION > 0 && WORKERS > 0 && USERS > 0 && RAW_N > 0)) || { echo "bench: duration, workers, users and raw-n must be > 0" >&2; exit 2; }

say() { echo "bench: $*" >&2; }
die() { echo "bench: ERROR: $*" >&2; exit 1; }

MYSQL=(mysql -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u root --batch --skip-column-names)
RCLI=(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT")
DSN="root@tcp($MYSQL_HOST:$MYSQL_PORT)/$DB_NAME"
SECRET="coupond-bench-secret-$(date +%s)-$$-0123456789abcdef"
STAMP=$(date +%Y%m%d-%H%M%S)
OUT="$ROOT/bench/out"
mkdir -p "$OUT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/coupond-bench.XXXXXX")

SERVER_PID=""
LG_PID=""
cleanup() {
	local rc=$?
	set +e
	if [[ -n $LG_PID ]] && kill -0 "$LG_PID" 2>/dev/null; then kill "$LG_PID"; wait "$LG_PID" 2>/dev/null; fi
	stop_server
	if [[ $KEEP != 1 ]]; then
		"${MYSQL[@]}" -e "DROP DATABASE IF EXISTS \`$DB_NAME\`" 2>/dev/null
		"${RCLI[@]}" -n "$REDIS_DB" FLUSHDB >/dev/null 2>&1
		"${RCLI[@]}" -n "$QUEUE_DB" FLUSHDB >/dev/null 2>&1
	fi
	rm -rf "$TMP"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_server() {
	[[ -n $SERVER_PID ]] || return 0
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 1 200); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$SERVER_PID" 2>/dev/null; then
			say "server $SERVER_PID did not stop in 20 s; killing it"
			kill -KILL "$SERVER_PID" 2>/dev/null || true
		fi
	fi
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
}

# free_port START prints the first port from START on that nothing listens on.
free_port() {
	local p
	for ((p = $1; p < $1 + 200; p++)); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	die "no free port in $1..$(($1 + 199))"
}

# cpu_s PID prints the process's user+system CPU seconds.
cpu_s() { awk '{sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / 100}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# ---- services, build ----

say "services"
scripts/services.sh >&2
REDIS_PID=$("${RCLI[@]}" INFO server | tr -d '\r' | awk -F: '$1 == "process_id" {print $2}')
MYSQL_PID=$("${MYSQL[@]}" -e 'SELECT @@pid_file' 2>/dev/null | xargs cat 2>/dev/null || true)
[[ $MYSQL_PID =~ ^[0-9]+$ ]] || MYSQL_PID=$(pgrep -xo mariadbd || pgrep -xo mysqld || true)
[[ -n $REDIS_PID ]] || die "cannot read Redis's process id"

say "building coupond and the loadgen"
go build -o "$TMP/coupond" . && go build -o "$TMP/loadgen" ./bench/loadgen || die "go build failed"
BIN=$TMP/coupond
LG=$TMP/loadgen

# compact_aof: BGREWRITEAOF and wait for it, so that every measured step starts from a compacted AOF
# whatever ran before (an earlier step, other clients of the shared Redis): Redis's automatic
# rewrite (at 100 % growth, 64 MB at least) then starts during a step only when that step itself
# writes that much. A rewrite stalls the claim path for a few hundred ms on this box; the loadgen
# flags the slices it overlaps.
compact_aof() {
	[[ $COMPACT_AOF == 1 ]] || return 0
	"${RCLI[@]}" INFO persistence | grep -q '^aof_enabled:1' || return 0
	for _ in $(seq 1 600); do
		"${RCLI[@]}" INFO persistence | grep -q '^aof_rewrite_in_progress:1' || break
		sleep 0.1
	done
	"${RCLI[@]}" BGREWRITEAOF >/dev/null 2>&1 || true
	sleep 0.2
	for _ in $(seq 1 600); do
		"${RCLI[@]}" INFO persistence | tr -d '\r' | grep -Eq '^(aof_rewrite_in_progress|aof_rewrite_scheduled):1' || return 0
		sleep 0.1
	done
	say "the AOF rewrite did not finish within 60 s; going on"
}

# busy_pct prints how busy the machine's cores were over the last second (all processes).
busy_pct() {
	local a b
	a=$(head -1 /proc/stat)
	sleep 1
	b=$(head -1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x, " "); split(b, y, " "); tot = 0; idle = 0
		for (i = 2; i <= 9 && i <= n; i++) { d = y[i] - x[i]; tot += d; if (i == 5 || i == 6) idle += d }
		printf "%d", (tot > 0 ? 100 * (tot - idle) / tot : 0) }'
}

# wait_quiet: on a shared box, give other users' jobs up to QUIET_WAIT s to finish before a step.
wait_quiet() {
	((QUIET_WAIT > 0)) || return 0
	local start=$SECONDS pct
	while :; do
		pct=$(busy_pct)
		((pct < 25)) && return 0
		if ((SECONDS - start >= QUIET_WAIT)); then
			say "the machine is still ${pct}% busy with other work after ${QUIET_WAIT}s; measuring anyway (see 'other' CPU)"
			return 0
		fi
		say "machine ${pct}% busy with other work; waiting (up to ${QUIET_WAIT}s)"
		sleep 4
	done
}

aof_rewrites() { "${RCLI[@]}" INFO persistence | tr -d '\r' | awk -F: '$1 == "aof_rewrites" {print $2}'; }

# ---- one mode ----

reset_state() {
	"${MYSQL[@]}" -e "DROP DATABASE IF EXISTS \`$DB_NAME\`; CREATE DATABASE \`$DB_NAME\`"
	"${RCLI[@]}" -n "$REDIS_DB" FLUSHDB >/dev/null
	"${RCLI[@]}" -n "$QUEUE_DB" FLUSHDB >/dev/null
}

start_server() { # MODE PORT METRICS_PORT [PPROF_PORT]; MODE api: serve --mode api with async claims
	local mode=$1 port=$2 metrics_port=$3 pprof_port=${4:-} redeem=$1 serve_args=()
	if [[ $mode == api ]]; then redeem=async serve_args=(--mode api); fi
	env COUPON_ENV=dev \
		COUPON_HTTP_ADDR="127.0.0.1:$port" \
		COUPON_MYSQL_DSN="$DSN" \
		COUPON_REDIS_ADDR="$REDIS_HOST:$REDIS_PORT" \
		COUPON_REDIS_DB="$REDIS_DB" COUPON_METRICS_ADDR="127.0.0.1:$metrics_port" \
		COUPON_QUEUE_REDIS_DB="$QUEUE_DB" \
		COUPON_JWT_SECRET="$SECRET" \
		COUPON_REDEEM_MODE="$redeem" \
		COUPON_REDEEM_USER_RATE="$USER_RATE" \
		COUPON_REDEEM_TEMPLATE_RATE=10000000 \
		COUPON_PPROF_ADDR="${pprof_port:+127.0.0.1:$pprof_port}" \
		"$BIN" serve "${serve_args[@]}" >"$TMP/server-$mode.log" 2>&1 &
	SERVER_PID=$!

	for _ in $(seq 1 600); do
		if curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null; then
			return 0
		fi
		kill -0 "$SERVER_PID" 2>/dev/null || { tail -20 "$TMP/server-$mode.log" >&2; die "coupond serve ($mode) exited"; }
		sleep 0.1
	done
	tail -20 "$TMP/server-$mode.log" >&2
	die "coupond serve ($mode) not ready after 60 s"
}

run_loadgen() { # ENVFILE ARGS...
	local envfile=$1
	shift
	"$LG" -secret "$SECRET" -users "$USERS" -workers "$WORKERS" -env-out "$envfile" "$@" >/dev/null &
	LG_PID=$!
	wait "$LG_PID" || die "loadgen failed"
	LG_PID=""
}

# bench_mode MODE sets <MODE>_* variables (ASYNC_ACCEPTED_PER_S, ...).
bench_mode() {
	local mode=$1 M
	M=$(echo "$mode" | tr '[:lower:]' '[:upper:]')
	say "=== $mode mode ==="
	reset_state
	local port metrics_port pprof_port="" pprof_args=()
	port=$(free_port 18080)
	metrics_port=$(free_port 19464)
	if [[ $PPROF == 1 ]]; then
		pprof_port=$(free_port 16060)
		local secs=$((DURATION < 10 ? DURATION : 10))
		pprof_args=(-pprof-url "http://127.0.0.1:$pprof_port/debug/pprof/profile?seconds=$secs"
			-pprof-out "$OUT/cpu-$mode-$STAMP.prof")
	fi
	start_server "$mode" "$port" "$metrics_port" "$pprof_port"
	say "coupond serve pid $SERVER_PID on 127.0.0.1:$port ($mode)"
	compact_aof
	wait_quiet

	local url="http://127.0.0.1:$port/query" pids="coupond=$SERVER_PID,redis=$REDIS_PID"
	[[ -n $MYSQL_PID ]] && pids+=",mariadb=$MYSQL_PID"

	say "$mode: burst ${DURATION}s at max rate (closed loop, $WORKERS workers, $USERS users, ${WARMUP}s warm-up)"
	local drain_args=(-drain-dsn "$DSN")
	[[ $mode == api ]] && drain_args=() # nothing persists in this process
	"${MYSQL[@]}" -e 'SHOW GLOBAL STATUS' >"$TMP/status0" 2>/dev/null || true
	run_loadgen "$TMP/$mode-burst.env" -url "$url" -duration "${DURATION}s" -warmup "${WARMUP}s" \
		-redis "$REDIS_HOST:$REDIS_PORT" "${drain_args[@]}" -pids "$pids" "${pprof_args[@]}" \
		-label "$mode burst" -out "$OUT/$mode-burst-$STAMP.json"
	# shellcheck disable=SC1090
	source "$TMP/$mode-burst.env"
	# coupond's own counters after the burst (and its drain): what the persister did, for comparing runs
	curl -fsS "http://127.0.0.1:$metrics_port/metrics" 2>/dev/null | grep '^coupond_' >"$OUT/metrics-$mode-burst-$STAMP.txt" || true
	# and MariaDB's: the change of each numeric status counter over the burst and its drain
	"${MYSQL[@]}" -e 'SHOW GLOBAL STATUS' 2>/dev/null | awk 'NR == FNR {a[$1] = $2; next}
		($1 in a) && $2 ~ /^[0-9]+$/ && $2 != a[$1] {print $1, $2 - a[$1]}' "$TMP/status0" - \
		>"$OUT/mysql-status-$mode-burst-$STAMP.txt" || true
	if [[ $mode == api ]]; then
		API_ACCEPTED_PER_S=$LG_ACCEPTED_PER_S API_P99=$LG_P99 API_CPU=$LG_CPU API_ERRORS=$LG_ERRORS
		say "api: $LG_ACCEPTED_PER_S accepted/s, p99 $LG_P99 ms"
		stop_server
		cp "$TMP/server-$mode.log" "$OUT/server-$mode-$STAMP.log"
		pprof_tables "$mode"
		return 0
	fi
	local rows
	rows=$("${MYSQL[@]}" -e "SELECT COUNT(*) FROM \`$DB_NAME\`.user_coupon WHERE template_id = $LG_TEMPLATE")
	say "$mode: $LG_ACCEPTED_PER_S accepted/s, p99 $LG_P99 ms, drain $LG_DRAIN_MS ms, user_coupon rows $rows (want $LG_DRAIN_EXPECTED)"
	printf -v "${M}_ROWS" '%s' "$rows"
	for v in ACCEPTED_PER_S ATTEMPTS ACCEPTED ERRORS ERROR_KINDS REFUSALS P50 P90 P99 MAX DRAIN_MS DRAIN_ROWS \
		DRAIN_EXPECTED DRAIN_TIMED_OUT REDIS_EVAL_PER_CLAIM REDIS_TOTAL_PER_CLAIM REDIS_EVALSHA_USEC \
		REDIS_INCR_PER_CLAIM REDIS_BREAKDOWN REDIS_BUSY_S CPU CPU_WALL CPU_MACHINE_PCT DRAIN_CPU; do
		local src="LG_$v"
		printf -v "${M}_$v" '%s' "${!src:-}"
	done

	printf -v "${M}_REWRITES" '%s' "$LG_REDIS_REWRITES"
	local half
	half=${BENCH_HALF_RATE:-$(awk -v r="$LG_ACCEPTED_PER_S" 'BEGIN {printf "%d", r / 2}')}
	if ((half > 0)); then
		compact_aof
		wait_quiet
		say "$mode: open loop at half of peak, $half claims/s for ${DURATION}s"
		local half_pprof=()
		if [[ $PPROF == 1 ]]; then
			half_pprof=(-pprof-url "http://127.0.0.1:$pprof_port/debug/pprof/profile?seconds=$((DURATION < 10 ? DURATION : 10))"
				-pprof-out "$OUT/cpu-$mode-half-$STAMP.prof")
		fi
		run_loadgen "$TMP/$mode-half.env" -url "$url" -template "$LG_TEMPLATE" -rate "$half" \
			-duration "${DURATION}s" -warmup "${WARMUP}s" -user-base 5000000 -pids "$pids" "${half_pprof[@]}" \
			-redis "$REDIS_HOST:$REDIS_PORT" \
			-label "$mode half of peak" -out "$OUT/$mode-half-$STAMP.json"
		# shellcheck disable=SC1090
		source "$TMP/$mode-half.env"
		printf -v "${M}_HALF_RATE" '%s' "$half"
		printf -v "${M}_HALF_ACHIEVED" '%s' "$LG_ACCEPTED_PER_S"
		printf -v "${M}_HALF_P50" '%s' "$LG_P50"
		printf -v "${M}_HALF_P99" '%s' "$LG_P99"
		printf -v "${M}_HALF_MAX" '%s' "$LG_MAX"
		printf -v "${M}_HALF_ERRORS" '%s' "$LG_ERRORS"
		printf -v "${M}_HALF_CPU" '%s' "$LG_CPU"
		printf -v "${M}_HALF_LAG" '%s' "$LG_MAX_LAG"
		printf -v "${M}_HALF_REWRITES" '%s' "$LG_REDIS_REWRITES"
		printf -v "${M}_HALF_DISTURBED" '%s' "$LG_DISTURBED"
		printf -v "${M}_HALF_CALM_P99" '%s' "$LG_UNDISTURBED_P99"
		say "$mode: half of peak: p50 $LG_P50 ms, p99 $LG_P99 ms, max $LG_MAX ms"
	fi
	stop_server
	cp "$TMP/server-$mode.log" "$OUT/server-$mode-$STAMP.log"
	pprof_tables "$mode"
}

pprof_tables() { # MODE
	local p
	[[ $PPROF == 1 ]] || return 0
	for p in "$1" "$1-half"; do
		[[ -s $OUT/cpu-$p-$STAMP.prof ]] || continue
		go tool pprof -top -nodecount=25 "$BIN" "$OUT/cpu-$p-$STAMP.prof" >"$OUT/pprof-top-$p-$STAMP.txt" 2>/dev/null || true
		go tool pprof -top -cum -nodecount=40 "$BIN" "$OUT/cpu-$p-$STAMP.prof" >"$OUT/pprof-cum-$p-$STAMP.txt" 2>/dev/null || true
	done
}

for mode in $MODES; do
	case $mode in api | async | sync) bench_mode "$mode" ;; *) die "unknown mode $mode" ;; esac
done

# ---- raw ceiling: redis-benchmark EVALSHA of lua/redeem.lua ----

say "=== raw ceiling: redis-benchmark EVALSHA of lua/redeem.lua ==="
# The script's per-user rate limit runs in the script when COUPON_REDEEM_USER_RATE > 0, and also when
# the server ran it with 0 anyway (INCR calls during the async burst); the raw run then does the same
# work (limit 10 per 1 s window, never reached by random users).
RAW_RATE=$USER_RATE
if ((RAW_RATE == 0)) && awk -v x="${ASYNC_REDIS_INCR_PER_CLAIM:-0}" 'BEGIN {exit !(x >= 0.5)}'; then
	RAW_RATE=10
	RATE_NOTE="the server ran the per-user rate limit in the script although COUPON_REDEEM_USER_RATE=0 ($ASYNC_REDIS_INCR_PER_CLAIM INCR per claim): the raw run does too (ARGV[5]=10)"
	say "$RATE_NOTE"
fi
"${RCLI[@]}" -n "$REDIS_DB" FLUSHDB >/dev/null
SHA=$("${RCLI[@]}" -n "$REDIS_DB" -x SCRIPT LOAD <lua/redeem.lua | tr -d '\r')
[[ $SHA == "$(sha1sum lua/redeem.lua | cut -d' ' -f1)" ]] || die "SCRIPT LOAD answered '$SHA'"
TID=990000001
NOW_MS=$(date +%s%3N)
"${RCLI[@]}" -n "$REDIS_DB" HSET "{t$TID}:tpl" stock 2000000000 status ACTIVE start $((NOW_MS - 60000)) \
	end $((NOW_MS + 86400000)) limit 2000000000 data '{}' >/dev/null
RAW_KEYS=("{t$TID}:tpl" "{t$TID}:u:__rand_int__" "{t$TID}:outbox" "{t$TID}:req:__rand_int__:__rand_int__"
	"{t$TID}:rd:__rand_int__" "{t$TID}:rl:__rand_int__")
# ARGV: user id, redemption id, now ms, request TTL s, rate limit, window ms, outbox flag, redemption TTL s
# (the server's: requestId on every claim, 24 h request TTL, async outbox, 7-day redemption key).
RAW_ARGS=(__rand_int__ "r__rand_int__" "$NOW_MS" 86400 "$RAW_RATE" 1000 1 604800)
probe=$("${RCLI[@]}" -n "$REDIS_DB" EVALSHA "$SHA" 6 "${RAW_KEYS[@]//__rand_int__/0}" "${RAW_ARGS[@]//__rand_int__/0}" | sed -n 1p)
[[ $probe == 0 ]] || die "a probe EVALSHA answered code '$probe' instead of 0 (OK)"
compact_aof
wait_quiet
rewrites0=$(aof_rewrites)
aof_size0=$("${RCLI[@]}" INFO persistence | tr -d '\r' | awk -F: '$1 == "aof_current_size" {print $2}')
stats_before=$("${RCLI[@]}" INFO commandstats | tr -d '\r')
redis_cpu0=$(cpu_s "$REDIS_PID")
t0=$(date +%s.%N)
redis-benchmark -h "$REDIS_HOST" -p "$REDIS_PORT" --dbnum "$REDIS_DB" --csv -c "$WORKERS" -n "$RAW_N" -r 1000000 \
	EVALSHA "$SHA" 6 "${RAW_KEYS[@]}" "${RAW_ARGS[@]}" >"$TMP/raw.csv" 2>"$TMP/raw.err" &
LG_PID=$!
wait "$LG_PID" || { cat "$TMP/raw.err" >&2; die "redis-benchmark failed"; }
LG_PID=""
t1=$(date +%s.%N)
redis_cpu1=$(cpu_s "$REDIS_PID")
stats_after=$("${RCLI[@]}" INFO commandstats | tr -d '\r')
RAW_REWRITES=$(($(aof_rewrites) - rewrites0))
aof_size1=$("${RCLI[@]}" INFO persistence | tr -d '\r' | awk -F: '$1 == "aof_current_size" {print $2}')
RAW_AOF_BYTES="-"
if ((RAW_REWRITES == 0)) && [[ -n $aof_size0 && -n $aof_size1 ]]; then RAW_AOF_BYTES=$(((aof_size1 - aof_size0) / RAW_N)); fi
cp "$TMP/raw.csv" "$OUT/raw-evalsha-$STAMP.csv"
RAW_RPS=$(awk -F'","' 'NR > 1 && NF > 1 {print $2}' "$TMP/raw.csv" | tail -1)
RAW_P50=$(awk -F'","' 'NR > 1 && NF > 4 {print $5}' "$TMP/raw.csv" | tail -1)
RAW_P99=$(awk -F'","' 'NR > 1 && NF > 6 {print $7}' "$TMP/raw.csv" | tail -1)
[[ -n $RAW_RPS ]] || { cat "$TMP/raw.csv" "$TMP/raw.err" >&2; die "cannot read redis-benchmark's answer"; }
RAW_ACCEPTED=$((2000000000 - $("${RCLI[@]}" -n "$REDIS_DB" HGET "{t$TID}:tpl" stock) - 1))
# calls of each command during the run: commands run inside the script count too.
read -r RAW_EVALSHA RAW_TOTAL < <(
	{ awk '{print "B " $0}' <<<"$stats_before"; awk '{print "A " $0}' <<<"$stats_after"; } |
		awk -F'[ :=,]' '$2 ~ /^cmdstat_/ {c[$1 $2] = $4; n[$2] = 1}
			END {for (k in n) {d = c["A" k] - c["B" k]; if (d > 0) tot += d}
			     printf "%d %d\n", c["Acmdstat_evalsha"] - c["Bcmdstat_evalsha"], tot}')
RAW_INTERNAL=$(awk -v t="$RAW_TOTAL" -v e="$RAW_EVALSHA" 'BEGIN {if (e > 0) printf "%.1f", (t - e) / e; else print "?"}')
RAW_REDIS_CPU=$(awk -v a="$redis_cpu0" -v b="$redis_cpu1" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.0f", 100 * (b - a) / (t1 - t0)}')
say "raw: $RAW_RPS EVALSHA/s (p50 $RAW_P50 ms, p99 $RAW_P99 ms), $RAW_ACCEPTED of $RAW_N accepted, Redis at $RAW_REDIS_CPU% of a core"
"${RCLI[@]}" -n "$REDIS_DB" FLUSHDB >/dev/null

# ---- summary ----

fmt() { awk -v x="$1" 'BEGIN {if (x == "") print "-"; else printf "%.0f", x}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }
verdict() { # VALUE OP LIMIT
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		if (v == "" || v == "-") {print "not measured"; exit}
		ok = (op == ">=") ? (v + 0 >= l + 0) : (v + 0 < l + 0); print ok ? "MET" : "NOT MET"}'
}
R_SYNC=$(ratio "${ASYNC_ACCEPTED_PER_S:-}" "${SYNC_ACCEPTED_PER_S:-}")
R_API=$(ratio "${ASYNC_ACCEPTED_PER_S:-}" "${API_ACCEPTED_PER_S:-}")
R_RAW=$(ratio "${ASYNC_ACCEPTED_PER_S:-}" "$RAW_RPS")
DRAIN_S=$(awk -v x="${ASYNC_DRAIN_MS:-}" 'BEGIN {if (x == "") print ""; else printf "%.2f", x / 1000}')
RT_EST=$(awk -v t="${ASYNC_REDIS_TOTAL_PER_CLAIM:-}" -v e="${ASYNC_REDIS_EVAL_PER_CLAIM:-}" -v i="$RAW_INTERNAL" \
	'BEGIN {if (t == "" || i == "?") print "-"; else printf "%.2f", t - e * i}')

SUMMARY=$OUT/summary-$STAMP.txt
{
	echo "coupond redeem benchmark, $(date '+%Y-%m-%d %H:%M:%S %Z') on $(hostname)"
	echo "machine: $(nproc) cores shared by the load generator, coupond, Redis, MariaDB (and whatever else runs: see 'other');"
	echo "         load average before the run: $LOADAVG0"
	echo "versions: $(go version | cut -d' ' -f3), Redis $("${RCLI[@]}" INFO server | tr -d '\r' | awk -F: '$1 == "redis_version" {print $2}'), $("${MYSQL[@]}" -e 'SELECT VERSION()')"
	echo "load: closed loop, $WORKERS workers (requests in flight), $USERS users (one token each), ${DURATION}s burst after ${WARMUP}s warm-up;"
	echo "      Redis AOF compacted (BGREWRITEAOF) before each measured step: $([[ $COMPACT_AOF == 1 ]] && echo yes || echo no)"
	echo "      a unique requestId on every claim; COUPON_REDEEM_USER_RATE=$USER_RATE, COUPON_REDEEM_TEMPLATE_RATE=10000000"
	echo
	printf '%-44s %16s %16s\n' "" "async" "sync"
	printf '%-44s %16s %16s\n' "accepted claims/s (burst)" "$(fmt "${ASYNC_ACCEPTED_PER_S:-}")" "$(fmt "${SYNC_ACCEPTED_PER_S:-}")"
	printf '%-44s %16s %16s\n' "attempts / accepted / errors" "${ASYNC_ATTEMPTS:--}/${ASYNC_ACCEPTED:--}/${ASYNC_ERRORS:--}" "${SYNC_ATTEMPTS:--}/${SYNC_ACCEPTED:--}/${SYNC_ERRORS:--}"
	printf '%-44s %16s %16s\n' "refusals" "${ASYNC_REFUSALS:-none}" "${SYNC_REFUSALS:-none}"
	printf '%-44s %16s %16s\n' "latency p50 / p99 / max at peak (ms)" "${ASYNC_P50:--}/${ASYNC_P99:--}/${ASYNC_MAX:--}" "${SYNC_P50:--}/${SYNC_P99:--}/${SYNC_MAX:--}"
	printf '%-44s %16s %16s\n' "half of peak: target claims/s (achieved)" "${ASYNC_HALF_RATE:--} (${ASYNC_HALF_ACHIEVED:--})" "${SYNC_HALF_RATE:--} (${SYNC_HALF_ACHIEVED:--})"
	printf '%-44s %16s %16s\n' "half of peak: latency p50 / p99 / max (ms)" "${ASYNC_HALF_P50:--}/${ASYNC_HALF_P99:--}/${ASYNC_HALF_MAX:--}" "${SYNC_HALF_P50:--}/${SYNC_HALF_P99:--}/${SYNC_HALF_MAX:--}"
	printf '%-44s %16s %16s\n' "  same, claims outside Redis AOF rewrites" "${ASYNC_HALF_CALM_P99:--}" "${SYNC_HALF_CALM_P99:--}"
	printf '%-44s %16s %16s\n' "Redis AOF rewrites during burst / half run" "${ASYNC_REWRITES:--} / ${ASYNC_HALF_REWRITES:--}" "${SYNC_REWRITES:--} / ${SYNC_HALF_REWRITES:--}"
	printf '%-44s %16s %16s\n' "last claim in MySQL after the burst (ms)" "${ASYNC_DRAIN_MS:--}" "${SYNC_DRAIN_MS:--}"
	printf '%-44s %16s %16s\n' "user_coupon rows / accepted (incl. warm-up)" "${ASYNC_ROWS:--}/${ASYNC_DRAIN_EXPECTED:--}" "${SYNC_ROWS:--}/${SYNC_DRAIN_EXPECTED:--}"
	printf '%-44s %16s %16s\n' "Redis EVALSHA+EVAL calls per claim" "${ASYNC_REDIS_EVAL_PER_CLAIM:--}" "${SYNC_REDIS_EVAL_PER_CLAIM:--}"
	printf '%-44s %16s %16s\n' "Redis commands per claim, all (incl. in-script)" "${ASYNC_REDIS_TOTAL_PER_CLAIM:--}" "${SYNC_REDIS_TOTAL_PER_CLAIM:--}"
	printf '%-44s %16s %16s\n' "Redis usec per EVALSHA (server side)" "${ASYNC_REDIS_EVALSHA_USEC:--}" "${SYNC_REDIS_EVALSHA_USEC:--}"
	printf '%-44s %16s %16s\n' "machine CPU busy during the burst (%)" "${ASYNC_CPU_MACHINE_PCT:--}" "${SYNC_CPU_MACHINE_PCT:--}"
	echo
	printf '%-44s %16s\n' "serve --mode api (no persister): accepted/s" "$(fmt "${API_ACCEPTED_PER_S:-}")"
	printf '%-44s %16s\n' "  its p99 at peak (ms) / errors" "${API_P99:--} / ${API_ERRORS:--}"
	echo
	echo "CPU seconds during the burst (wall ${ASYNC_CPU_WALL:--} s async, ${SYNC_CPU_WALL:--} s sync; $(nproc) cores = $(nproc) CPU s per s):"
	echo "  api:   ${API_CPU:--}"
	echo "  async: ${ASYNC_CPU:--}"
	echo "  sync:  ${SYNC_CPU:--}"
	echo "CPU seconds from the burst's end to the drain's:"
	echo "  async: ${ASYNC_DRAIN_CPU:--}"
	echo "  sync:  ${SYNC_DRAIN_CPU:--}"
	echo "CPU seconds during the half-peak run (same wall time); the loadgen's worst send delay behind schedule:"
	echo "  async: ${ASYNC_HALF_CPU:--}; lag ${ASYNC_HALF_LAG:--} ms"
	echo "  sync:  ${SYNC_HALF_CPU:--}; lag ${SYNC_HALF_LAG:--} ms"
	echo "Redis commands per accepted claim, burst and drain (commandstats are server-wide: they include asynq,"
	echo "the commands run inside scripts, and other clients of the same Redis):"
	echo "  async: ${ASYNC_REDIS_BREAKDOWN:--}"
	echo "  sync:  ${SYNC_REDIS_BREAKDOWN:--}"
	echo "  redeem.lua runs $RAW_INTERNAL commands inside one accepted EVALSHA (measured in the raw run), so in async mode"
	echo "  clients send about $RT_EST commands per claim (claim script, persister pipelines, asynq), of which"
	echo "  ${ASYNC_REDIS_EVAL_PER_CLAIM:--} EVALSHA: the claim itself is one round trip; the persister's per-claim commands are pipelined"
	echo
	echo "raw ceiling: redis-benchmark -c $WORKERS -n $RAW_N -r 1000000 EVALSHA redeem.lua (async flavour: outbox XADD,"
	echo "  request key, redemption key$( ((RAW_RATE > 0)) && echo ", per-user rate counter"))"
	echo "  $RAW_RPS EVALSHA/s, p50 $RAW_P50 ms, p99 $RAW_P99 ms; $RAW_ACCEPTED of $RAW_N accepted; Redis used $RAW_REDIS_CPU% of one core;"
	echo "  $RAW_REWRITES AOF rewrite(s) during the run; AOF bytes written per claim: $RAW_AOF_BYTES"
	if [[ -n ${RATE_NOTE:-} ]]; then echo "  note: $RATE_NOTE"; fi
	echo
	echo "targets"
	printf '  %-40s %10s   %s\n' "async/sync accepted claims/s >= 10" "$R_SYNC" "$(verdict "$R_SYNC" ">=" 10)"
	printf '  %-40s %10s   %s\n' "serve/serve --mode api claims/s >= 0.8" "$R_API" "$(verdict "$R_API" ">=" 0.8)"
	printf '  %-40s %10s   %s\n' "async/raw EVALSHA ceiling >= 0.5" "$R_RAW" "$(verdict "$R_RAW" ">=" 0.5)"
	printf '  %-40s %10s   %s\n' "async p99 at half of peak < 20 ms" "${ASYNC_HALF_P99:--}" "$(verdict "${ASYNC_HALF_P99:-}" "<" 20)"
	printf '  %-40s %10s   %s\n' "async drain after the burst < 2 s" "${DRAIN_S:--}" "$(verdict "$DRAIN_S" "<" 2)"
	if [[ -n ${ASYNC_ERROR_KINDS:-}${SYNC_ERROR_KINDS:-} ]]; then
		echo
		echo "errors: async: ${ASYNC_ERROR_KINDS:-none}; sync: ${SYNC_ERROR_KINDS:-none}"
	fi
	for mode in $MODES; do
		if [[ -s $OUT/pprof-top-$mode-$STAMP.txt ]]; then
			echo
			echo "pprof ($mode burst, bench/out/cpu-$mode-$STAMP.prof), top by flat CPU:"
			sed -n '1,22p' "$OUT/pprof-top-$mode-$STAMP.txt" | sed 's/^/  /'
		fi
	done
	echo
	echo "reports: bench/out/*-$STAMP.json, raw-evalsha-$STAMP.csv, server logs; command: bench/run.sh $ORIG_ARGS"
} | tee "$SUMMARY"
say "summary written to ${SUMMARY#"$ROOT"/}"
