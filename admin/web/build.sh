#!/usr/bin/env bash
# admin/web/build.sh — builds the web admin (GraphQL codegen from ../../schema.graphql, tsc, vite)
# into dist/, which the Go package embeds, and checks the bundle sizes (size.mjs). dist/ and the
# generated src/gql/ are committed: `go build` on a clean clone needs neither node nor the network.
# The build is deterministic (content-hashed names, no timestamps), so a rebuild must equal the commit.
#
#   admin/web/build.sh          # npm ci (when node_modules is not from this lock file), build, sizes
#   admin/web/build.sh --check  # the same into a temporary directory; fails if dist/ or src/gql/ differ,
#                               # or a size is over its limit (a schema change that breaks the app fails here)
#   admin/web/build.sh --test   # vitest (component tests)
#
# Not a go:generate step, for the reasons playground/build.sh gives; scripts/test.sh runs --check.
set -euo pipefail

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$dir"
"$dir/../../scripts/npm-ci.sh" "$dir"

case ${1:-} in
--test)
	exec npx vitest run
	;;
--check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp -r src/gql "$tmp/gql.committed"
	npx graphql-codegen --config codegen.ts --errors-only
	stale=0
	diff -r "$tmp/gql.committed" src/gql >/dev/null || {
		echo "admin/web/src/gql/ differs from what codegen writes for ../../schema.graphql" >&2
		stale=1
	}
	npx tsc -b
	npx vite build --logLevel warn --outDir "$tmp/dist"
	diff -r "$tmp/dist" dist >&2 || {
		echo "admin/web/dist/ differs from a build of the sources" >&2
		stale=1
	}
	node size.mjs "$tmp/dist"
	((stale == 0)) || {
		echo "run admin/web/build.sh and commit admin/web/dist/ and admin/web/src/gql/" >&2
		exit 1
	}
	echo "admin/web/dist/ is what build.sh writes"
	;;
'')
	npm run --silent build -- --logLevel warn
	node size.mjs
	;;
*)
	echo "usage: admin/web/build.sh [--check|--test]" >&2
	exit 2
	;;
esac
