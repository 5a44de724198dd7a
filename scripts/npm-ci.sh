#!/usr/bin/env bash
# scripts/npm-ci.sh DIR... — `npm ci` in each DIR (a node project with a committed package-lock.json),
# skipped when its node_modules was installed from the same lock file.
set -euo pipefail
for dir in "$@"; do
	if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json"; then
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
		cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json"
	fi
done
