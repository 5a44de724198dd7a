#!/usr/bin/env bash
# scripts/mariadb-cnf.sh — print coupond's MariaDB settings for production, a [mysqld] option file.
#
#   scripts/mariadb-cnf.sh [KEY...]     # no KEY: every setting; else only those KEYs' lines
#
# scripts/services.sh writes it to /etc/mysql/mariadb.conf.d/90-coupond.cnf on a fresh machine
# (before it installs or first starts MariaDB; a running server is never reconfigured), and
# bench/mariadb-settings.sh measures it against the defaults, setting by setting. README "MariaDB
# settings" explains each with its measured effect. The buffer pool is a quarter of this machine's
# memory (coupond and Redis share the box) unless SERVICES_MYSQL_BUFFER_POOL says otherwise (e.g.
# 16G on a database host of its own: about 70% of its memory).
set -euo pipefail

pool=${SERVICES_MYSQL_BUFFER_POOL:-}
if [[ -z $pool ]]; then
	kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
	mib=$((kib / 1024 / 4 / 128 * 128)) # a multiple of the 128 MiB chunk
	((mib >= 128)) || mib=128
	pool=${mib}M
fi

settings="innodb_buffer_pool_size = $pool
innodb_log_file_size = 1G
innodb_log_buffer_size = 64M
innodb_flush_log_at_trx_commit = 1
innodb_flush_method = O_DIRECT
innodb_io_capacity = 2000
innodb_io_capacity_max = 4000
innodb_flush_neighbors = 0
innodb_autoinc_lock_mode = 2
log_bin = coupond-bin
binlog_format = ROW
sync_binlog = 1
binlog_expire_logs_seconds = 604800
max_connections = 500
skip_name_resolve = ON"

if (($# == 0)); then
	echo "# coupond's MariaDB settings (scripts/mariadb-cnf.sh; README \"MariaDB settings\")"
	echo "[mysqld]"
	echo "$settings"
	exit 0
fi
for key in "$@"; do
	line=$(grep "^$key = " <<<"$settings") || {
		echo "mariadb-cnf.sh: no setting $key" >&2
		exit 1
	}
	echo "$line"
done
