#!/usr/bin/env bash
# scripts/run.sh — start everything for a developer: MariaDB and Redis (scripts/services.sh), then the
# server: `coupond serve --demo` migrates the database, seeds a demo shop and template, prints demo
# tokens and serves the playground at http://localhost:8080/ (COUPON_HTTP_ADDR changes the address)
# and the web admin at /admin/; it prints the demo merchant's (and platform's) sign-in URL,
# http://localhost:8080/admin/#token=<jwt>.
# Extra arguments go to `serve`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

"$root/scripts/services.sh"
exec go run . serve --demo "$@"
