#!/usr/bin/env bash
# bench/mariadb-settings.sh — what coupond's MariaDB settings (scripts/mariadb-cnf.sh) buy, setting
# by setting, on this machine's disk. For each configuration below it starts a MariaDB of its own
# (a fresh data directory under a temp dir, its own port and socket; never the machine's server),
# runs the same write load (bench/mariadb-settings: multi-row INSERT batches of user_coupon rows,
# then one-row commits from many clients), stops it and deletes its data. Each configuration adds
# settings to the previous one; the last two are the full file and, for comparison only, the file
# with relaxed durability. It prints each one's rates and their ratio to the defaults.
#
#   bench/mariadb-settings.sh                          # for figures: a quiet machine
#   BENCH_ROWS=2000 BENCH_DURATION=2s bench/mariadb-settings.sh   # a smoke run
#
# BENCH_ROWS (1000000: about 1 GB of table and indexes, more than the default buffer pool),
# BENCH_BATCH (500), BENCH_WRITERS (4), BENCH_CLIENTS (64), BENCH_DURATION (20s), BENCH_PORT (3411),
# BENCH_DIR (a new directory under ${TMPDIR:-/tmp}; it must be on the disk to measure, not tmpfs),
# SERVICES_MYSQL_BUFFER_POOL (scripts/mariadb-cnf.sh's default: a quarter of the memory).
set -euo pipefail

cd "$(dirname "$0")/.."
rows=${BENCH_ROWS:-1000000}
batch=${BENCH_BATCH:-500}
writers=${BENCH_WRITERS:-4}
clients=${BENCH_CLIENTS:-64}
duration=${BENCH_DURATION:-20s}
port=${BENCH_PORT:-3411}

bin() { command -v "$1" 2>/dev/null || { [[ -x /usr/sbin/$1 ]] && echo "/usr/sbin/$1"; } || { echo "mariadb-settings: $1 not found" >&2; exit 1; }; }
mariadbd=$(bin mariadbd)
installdb=$(bin mariadb-install-db)
admin=$(bin mariadb-admin)

work=${BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mariadb-settings.XXXXXX")}
mkdir -p "$work"
server_pid=
cleanup() {
	if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/load" ./bench/mariadb-settings

# Configurations: a name, then the scripts/mariadb-cnf.sh keys it adds to the previous one.
configs=(
	"defaults|"
	"+ buffer pool|innodb_buffer_pool_size"
	"+ redo log|innodb_log_file_size innodb_log_buffer_size"
	"+ flushing and I/O|innodb_flush_log_at_trx_commit innodb_flush_method innodb_io_capacity innodb_io_capacity_max innodb_flush_neighbors innodb_autoinc_lock_mode max_connections skip_name_resolve"
	"+ binlog (the full file)|log_bin binlog_format sync_binlog binlog_expire_logs_seconds"
)
relaxed=$'innodb_flush_log_at_trx_commit = 2\nsync_binlog = 0'

# run NAME SETTINGS: one server with SETTINGS, the load against it; appends its result line to
# $work/results (run in this shell, not a subshell: the EXIT trap stops a server left running).
run() {
	local name=$1 settings=$2 d="$work/server"
	rm -rf "$d"
	mkdir -p "$d/data"
	{
		echo "[mysqld]"
		echo "datadir = $d/data"
		echo "socket = $d/sock"
		echo "port = $port"
		echo "bind-address = 127.0.0.1"
		echo "pid-file = $d/pid"
		echo "log-error = $d/error.log"
		echo "user = $(id -un)"
		[[ -n $settings ]] && echo "$settings"
	} >"$d/my.cnf"
	"$installdb" --defaults-file="$d/my.cnf" --auth-root-authentication-method=normal >"$d/install.log" 2>&1 ||
		{ cat "$d/install.log" >&2; exit 1; }
	"$mariadbd" --defaults-file="$d/my.cnf" 2>>"$d/stderr.log" &
	server_pid=$!
	local i
	for ((i = 0; i < 120; i++)); do
		"$admin" --no-defaults --socket="$d/sock" -uroot ping >/dev/null 2>&1 && break
		kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$d/stderr.log" "$d/error.log" >&2; exit 1; }
		sleep 0.5
	done
	local out
	out=$("$work/load" -dsn "root@unix($d/sock)/bench" -rows "$rows" -batch "$batch" -writers "$writers" \
		-clients "$clients" -duration "$duration")
	"$admin" --no-defaults --socket="$d/sock" -uroot shutdown
	wait "$server_pid" || true
	server_pid=
	echo "$name|$out" >>"$work/results"
}

echo "mariadb-settings: $rows rows in batches of $batch from $writers writers, then one-row commits from $clients clients for $duration; data in $work"
settings=
for c in "${configs[@]}"; do
	name=${c%%|*}
	keys=${c#*|}
	if [[ -n $keys ]]; then
		# shellcheck disable=SC2086 # keys are words
		settings+=$'\n'$(scripts/mariadb-cnf.sh $keys)
	fi
	run "$name" "$settings"
done
run "relaxed durability (not for production)" "$settings"$'\n'"$relaxed"

base_bulk= base_single=
printf '%-42s %14s %8s %18s %8s\n' configuration "bulk rows/s" ratio "single commits/s" ratio
while IFS= read -r r; do
	name=${r%%|*}
	bulk=$(sed -n 's/.*bulk_rows_per_s=\([0-9]*\).*/\1/p' <<<"$r")
	single=$(sed -n 's/.*single_commits_per_s=\([0-9]*\).*/\1/p' <<<"$r")
	: "${base_bulk:=$bulk}" "${base_single:=$single}"
	printf '%-42s %14s %8s %18s %8s\n' "$name" "$bulk" "$(awk -v a="$bulk" -v b="$base_bulk" 'BEGIN { printf "%.2f", a / b }')" \
		"$single" "$(awk -v a="$single" -v b="$base_single" 'BEGIN { printf "%.2f", a / b }')"
done <"$work/results"
