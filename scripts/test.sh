#!/usr/bin/env bash
# scripts/test.sh — the whole test suite: services ensured, gofmt, go vet, staticcheck, go test -race.
#
#   scripts/test.sh                    # everything
#   scripts/test.sh -run TestRedeem    # extra arguments go to `go test` (a package pattern such as
#   scripts/test.sh ./coupon/...       #   ./coupon/... replaces the default ./...)
#   scripts/test.sh -short             # skips the slow generated-code check
#
# Exits non-zero on the first failing step.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2

step() { printf '\n==> %s\n' "$*"; }
fail() {
	echo "test.sh: FAILED: $*" >&2
	exit 1
}

step "services"
"$root/scripts/services.sh"

step "gofmt"
# Hand-written Go files: tracked or new (untracked, not ignored), without the standard
# "// Code generated ... DO NOT EDIT." header.
go_files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	while IFS= read -r -d '' f; do
		go_files+=("$f")
	done < <(git ls-files -z --cached --others --exclude-standard -- '*.go')
else
	while IFS= read -r -d '' f; do
		go_files+=("${f#./}")
	done < <(find . -name .git -prune -o -type f -name '*.go' -print0)
fi
hand_written=()
for f in "${go_files[@]}"; do
	[[ -f $f ]] || continue # deleted in the work tree
	grep -qE '^// Code generated .* DO NOT EDIT\.$' "$f" && continue
	hand_written+=("$f")
done
if ((${#hand_written[@]} > 0)); then
	unformatted=$(gofmt -l "${hand_written[@]}") || fail "gofmt could not parse the files named above"
	if [[ -n $unformatted ]]; then
		echo "$unformatted" >&2
		fail "gofmt: the files above need formatting (gofmt -w FILE)"
	fi
fi
echo "ok (${#hand_written[@]} files)"

step "go vet ./..."
go vet ./... || fail "go vet"
echo "ok"

step "staticcheck ./..."
# staticcheck skips its findings in files marked "Code generated ... DO NOT EDIT." (ent/, graph/generated,
# graph/model), so hand-written code in every package is checked.
go run "$STATICCHECK" ./... || fail "staticcheck"
echo "ok"

step "npm ci (e2e/http: graphql-http audit, Apollo Client 3, graphql-ws)"
# Run by TestNodeClients against the whole app; node and npm come from Debian when missing.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null || fail "installing nodejs and npm"
fi
npm ci --prefix "$root/e2e/http" --no-audit --no-fund --loglevel=error || fail "npm ci in e2e/http"
export COUPON_E2E_NODE=1
echo "ok"

# Default package pattern ./..., unless the arguments name packages themselves.
pkgs=(./...)
for a in "$@"; do
	if [[ $a == -args ]]; then
		break
	fi
	if [[ $a == . || $a == ./* || $a == ../* || $a == coupond || $a == coupond/* ]]; then
		pkgs=()
		break
	fi
done

shown=("${pkgs[@]}" "$@")
step "go test -race -count=1 -timeout 20m ${shown[*]}"
go test -race -count=1 -timeout 20m "${pkgs[@]}" "$@" || fail "go test"
