#!/usr/bin/env bash
# bench/without-new-indexes.sh — the async steps of bench/run.sh with the secondary indexes of
# user_coupon that issue 11 added and that remain dropped right after the server migrates (the
# stats' (template_id, status, updated_at), the reconciliation's (template_id, user_id); the
# stats' (template_id, created_at) is gone since the stats count issued coupons through
# (template_id, status, updated_at), the archive's (status, updated_at) since issue 20, the archive
# walking its queue archive_due): what those indexes cost the claim path's persistence.
# Only for measuring; the jobs that use the indexes do not run within a bench step.
#
#   bench/isolated.sh bench/without-new-indexes.sh          # then compare with: bench/isolated.sh bench/run.sh -m async
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
db=${BENCH_DB:-coupond_bench}
(
	for _ in $(seq 900); do
		if mariadb -h"${BENCH_MYSQL_HOST:-127.0.0.1}" -P"${BENCH_MYSQL_PORT:-3306}" -uroot "$db" -e "ALTER TABLE user_coupon
			DROP INDEX usercoupon_template_id_status_updated_at,
			DROP INDEX usercoupon_template_id_user_id" 2>/dev/null; then
			echo "without-new-indexes: the two indexes are dropped" >&2
			break
		fi
		sleep 0.2
	done
) &
bench/run.sh -m async "$@"
