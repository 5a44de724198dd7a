#!/usr/bin/env bash
# playground/build.sh — copies GraphiQL's standalone bundle and React's UMD builds, pinned in
# package.json and package-lock.json, from npm into playground/static/, which the Go package embeds.
# The copy is byte for byte, so the result depends only on the lock file. static/ is committed:
# `go build` on a clean clone needs neither npm nor the network.
#
#   playground/build.sh          # npm ci (when node_modules is not from this lock file), then copy
#   playground/build.sh --check  # the same npm ci, then fail if static/ differs from such a copy
#
# Not a go:generate step: npm ci needs the npm registry and ~40 s, and TestGeneratedCodeIsFresh runs
# `go generate ./...` on a copy of the module; scripts/test.sh runs --check instead.
set -euo pipefail

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$dir"

# source in node_modules → name in static/
assets=(
	"graphiql/graphiql.min.js graphiql.min.js"
	"graphiql/graphiql.min.css graphiql.min.css"
	"react/umd/react.production.min.js react.production.min.js"
	"react-dom/umd/react-dom.production.min.js react-dom.production.min.js"
)

"$dir/../scripts/npm-ci.sh" "$dir"

if [[ ${1:-} == --check ]]; then
	stale=0
	for a in "${assets[@]}"; do
		read -r src dst <<<"$a"
		if ! cmp -s "node_modules/$src" "static/$dst"; then
			echo "playground/static/$dst differs from node_modules/$src" >&2
			stale=1
		fi
	done
	extra=$(cd static && ls | grep -vxF -f <(for a in "${assets[@]}"; do echo "${a#* }"; done) || true)
	if [[ -n $extra ]]; then
		echo "playground/static/ holds files build.sh does not write: $extra" >&2
		stale=1
	fi
	((stale == 0)) || {
		echo "run playground/build.sh and commit playground/static/" >&2
		exit 1
	}
	echo "playground/static/ is what build.sh writes"
	exit 0
fi

rm -rf static
mkdir static
for a in "${assets[@]}"; do
	read -r src dst <<<"$a"
	cp "node_modules/$src" "static/$dst"
done
ls -l static
