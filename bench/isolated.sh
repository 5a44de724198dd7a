#!/usr/bin/env bash
# bench/isolated.sh — run a benchmark command against a Redis and a MariaDB of its own, on the
# standard ports (127.0.0.1:6379 and :3306) of a private network and process namespace, so that a
# benchmark that flushes Redis databases or drops MySQL databases on those ports cannot touch the
# services other people on a shared box use, and `pgrep` inside sees only the benchmark's processes.
#
#   bench/isolated.sh ../shared/bench-peer/compare.sh     # the peer comparison (issue 12)
#   bench/isolated.sh bench/run.sh -m async               # the redeem benchmark
#
# Redis runs as scripts/services.sh sets it up (AOF on, appendfsync everysec, no RDB snapshots);
# MariaDB with its defaults (innodb_flush_log_at_trx_commit=1, a 96 MiB redo log) and a 256 MiB
# buffer pool, or with BENCH_MARIADB=prod with coupond's production settings
# (scripts/mariadb-cnf.sh: a 1 GiB redo log, a quarter of the memory for the buffer pool, the
# binlog with sync_binlog 1, ...). Data lives under
# ${BENCH_ISOLATED_DIR:-/tmp/coupond-bench-isolated} (the MariaDB system tables are kept between
# runs, the Redis AOF is not). Needs root (or unprivileged user namespaces) and iproute2. The Go
# module cache must already hold the modules (the namespace has no network): run `go build ./...`
# once outside. Before the command it waits up to ${BENCH_QUIET_WAIT:-120} s for the machine to be
# less than 25 % busy (other people's jobs on a shared box). Everything started inside ends with
# the namespace.
set -euo pipefail

if [[ ${1:-} == "" || ${1:-} == -h || ${1:-} == --help ]]; then
	sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 0
fi

if [[ ${BENCH_ISOLATED_INSIDE:-} != 1 ]]; then
	userns=()
	((EUID == 0)) || userns=(-r)
	exec env BENCH_ISOLATED_INSIDE=1 GOFLAGS="${GOFLAGS:-} -mod=readonly" GOPROXY=off \
		unshare "${userns[@]}" --net --pid --fork --kill-child --mount-proc -- "${BASH_SOURCE[0]}" "$@"
fi

dir=${BENCH_ISOLATED_DIR:-/tmp/coupond-bench-isolated}
mkdir -p "$dir"
ip link set lo up

rm -rf "$dir/redis"
mkdir -p "$dir/redis"
redis-server --port 6379 --bind 127.0.0.1 --dir "$dir/redis" --appendonly yes --appendfsync everysec \
	--save '' --daemonize no >"$dir/redis.log" 2>&1 &
if [[ ! -d $dir/db/mysql ]]; then
	mariadb-install-db --no-defaults --user=root --datadir="$dir/db" --skip-test-db \
		--auth-root-authentication-method=normal >"$dir/install.log" 2>&1
fi
if [[ ${BENCH_MARIADB:-} == prod ]]; then
	"$(dirname "${BASH_SOURCE[0]}")/../scripts/mariadb-cnf.sh" >"$dir/prod.cnf"
	db_opts=(--defaults-file="$dir/prod.cnf")
	echo "isolated: MariaDB with coupond's production settings (scripts/mariadb-cnf.sh)" >&2
else
	db_opts=(--no-defaults --skip-log-bin --innodb-buffer-pool-size=256M)
fi
mariadbd "${db_opts[@]}" --user=root --datadir="$dir/db" --port=3306 --socket="$dir/db.sock" \
	--pid-file="$dir/db.pid" --bind-address=127.0.0.1 --skip-grant-tables \
	--max-connections=1000 >"$dir/mariadb.log" 2>&1 &
for _ in $(seq 120); do
	redis-cli ping >/dev/null 2>&1 && mariadb -h127.0.0.1 -uroot -e 'select 1' >/dev/null 2>&1 && break
	sleep 0.5
done
redis-cli ping >/dev/null || { cat "$dir/redis.log" >&2; exit 1; }
mariadb -h127.0.0.1 -uroot -e 'select 1' >/dev/null || { tail "$dir/mariadb.log" >&2; exit 1; }
echo "isolated: Redis and MariaDB of this run on 127.0.0.1:6379 and :3306 (private network namespace)" >&2

# busy_pct: how busy the machine's cores were over the last second (all processes).
busy_pct() {
	local a b
	a=$(head -1 /proc/stat)
	sleep 1
	b=$(head -1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 2; i <= 9 && i <= n; i++) { d = y[i] - x[i]; tot += d; if (i == 5 || i == 6) idle += d }
		printf "%d", (tot > 0 ? 100 * (tot - idle) / tot : 0) }'
}
start=$SECONDS
while pct=$(busy_pct) && ((pct >= 25 && SECONDS - start < ${BENCH_QUIET_WAIT:-120})); do
	sleep 2
done
echo "isolated: machine ${pct}% busy after $((SECONDS - start)) s of waiting for quiet" >&2
"$@"
