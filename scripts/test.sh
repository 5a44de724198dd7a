#!/usr/bin/env bash
# scripts/test.sh — the whole test suite: services ensured, gofmt, go vet, staticcheck, go test -race.
#
#   scripts/test.sh                    # everything
#   scripts/test.sh -run TestRedeem    # extra arguments go to `go test` (a package pattern such as
#   scripts/test.sh ./coupon/...       #   ./coupon/... replaces the default ./...)
#   scripts/test.sh -short             # skips the slow generated-code check
#
#   scripts/test.sh --redis-cluster [args]   # only the cluster pass (below), on the packages
#                                            #   named in args or the default ones
#
# The cluster pass: the packages whose coupon data a Redis Cluster changes most (cluster_pkgs
# below) run again with their coupon data on the local Redis Cluster (scripts/services.sh
# --redis-cluster: 3 masters, 3 replicas on 127.0.0.1:7000-7005; asynq stays on the one Redis),
# with the slot guard on their clients (testutil.SlotGuard: a command whose keys span slots fails
# its test). A full run (no package named) ends with it.
#
# Exits non-zero on the first failing step.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

cluster_pkgs=(./coupon/claim/ ./coupon/template/ ./coupon/reconcile/ ./coupon/distribution/ ./coupon/checkout/ ./jobs/)
cluster_addrs=127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2

step() { printf '\n==> %s\n' "$*"; }
fail() {
	echo "test.sh: FAILED: $*" >&2
	exit 1
}

# names_packages ARGS...: the arguments name packages (a pattern such as ./coupon/... or coupond/x).
names_packages() {
	local a
	for a in "$@"; do
		[[ $a == -args ]] && return 1
		if [[ $a == . || $a == ./* || $a == ../* || $a == coupond || $a == coupond/* ]]; then
			return 0
		fi
	done
	return 1
}

# cluster_pass ARGS...: go test -race of the named packages (default cluster_pkgs) with coupon data
# on the Redis Cluster and the slot guard on; it reports the slot guard's refusals and its time.
cluster_pass() {
	local pkgs=("${cluster_pkgs[@]}") log start=$SECONDS status=0 violations
	names_packages "$@" && pkgs=()
	step "cluster pass: COUPON_TEST_REDIS_CLUSTER=$cluster_addrs go test -race -count=1 -timeout 20m ${pkgs[*]} $*"
	log=$(mktemp)
	COUPON_TEST_REDIS_CLUSTER=$cluster_addrs go test -race -count=1 -timeout 20m "${pkgs[@]}" "$@" 2>&1 | tee "$log" || status=1
	violations=$(grep -c 'slot guard: CROSSSLOT' "$log" || true)
	rm -f "$log"
	echo "cluster pass: $((SECONDS - start)) s, slot guard refusals: $violations"
	((status == 0 && violations == 0)) || fail "cluster pass (Redis Cluster ${cluster_addrs%%,*}…)"
}

if [[ ${1:-} == --redis-cluster ]]; then
	shift
	step "services (with the Redis Cluster)"
	"$root/scripts/services.sh" --redis-cluster
	cluster_pass "$@"
	exit 0
fi

step "services"
with_cluster=()
names_packages "$@" || with_cluster=(--redis-cluster)
"$root/scripts/services.sh" "${with_cluster[@]}"

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

step "node tools: playground assets, the web admin (admin/web), relay-compiler and graphql-schema-linter, e2e/browser, e2e/http"
# Installs what the node steps need when missing (Debian packages, as root or through sudo), then
# `npm ci` per project (scripts/npm-ci.sh: skipped when node_modules is from the same lock file).
apt_install() {
	local run=()
	[[ $EUID -eq 0 ]] || run=(sudo)
	echo "installing $* with apt-get"
	"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || fail "apt-get update"
	"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
		fail "apt-get install $*"
}
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || apt_install nodejs npm
(($(node -p 'process.versions.node.split(".")[0]') >= 20)) || fail "node $(node --version) is too old: playwright-core needs Node 20 or later"
[[ -x ${CHROMIUM:-/usr/bin/chromium} ]] || apt_install chromium
playground/build.sh --check || fail "playground/static/ is stale: run playground/build.sh and commit it"
admin/web/build.sh --check || fail "admin/web: the build is stale, does not compile against schema.graphql, or is over its size limits"
admin/web/build.sh --test || fail "admin/web: component tests (vitest)"
scripts/npm-ci.sh e2e/relay e2e/browser e2e/http || fail "npm ci"
(cd e2e/relay && npm test --silent) || fail "relay-compiler or graphql-schema-linter refused schema.graphql (e2e/relay)"
export COUPON_TEST_BROWSER=1 # TestPlaygroundInChromium, TestAdminInChromium fail instead of skipping when a piece is missing
export COUPON_E2E_NODE=1     # TestNodeClients: the graphql-http audit, Apollo Client 3, graphql-ws (e2e/http)
echo "ok"

# Default package pattern ./..., unless the arguments name packages themselves.
pkgs=(./...)
names_packages "$@" && pkgs=()

shown=("${pkgs[@]}" "$@")
step "go test -race -count=1 -timeout 20m ${shown[*]}"
go test -race -count=1 -timeout 20m "${pkgs[@]}" "$@" || fail "go test"

step "sharding gate: cd sharding && go test ./..."
# Its own module (Vitess's vtexplain). Always run: warm it takes about 30 s; a cold build cache costs
# about 12 minutes once, whether or not sharding/ changed (sharding/README.md).
(cd sharding && go test -count=1 ./...) || fail "sharding gate (sharding/PLANS.md lists the transactions that span shards)"
echo "ok"

if ((${#with_cluster[@]} > 0)); then
	cluster_pass "$@"
fi
