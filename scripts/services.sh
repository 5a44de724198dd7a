#!/usr/bin/env bash
# scripts/services.sh — make sure the local MariaDB and Redis that coupond needs are reachable.
#
#   scripts/services.sh                   # or: source scripts/services.sh
#   scripts/services.sh --redis-cluster   # also the local Redis Cluster (or SERVICES_REDIS_CLUSTER=1
#                                         #   when sourced)
#
# MariaDB: 127.0.0.1:3306, user root with an empty password over TCP.
# Redis:   127.0.0.1:6379, with AOF on (appendonly yes, appendfsync $COUPON_REDIS_FSYNC: everysec by
#          default, or always): the redeem outbox streams live in Redis and must survive a restart.
#          With everysec a power loss can cost the last second of accepted claims; always costs
#          nothing accepted but one fsync per write (README "Durability" has the measured price).
#
# For a service that does not answer: install it with apt-get when its binary is missing
# (mariadb-server / redis-server), start it, wait until it answers (SERVICES_TIMEOUT seconds, default
# 60). A MariaDB whose root cannot log in over TCP with an empty password (fresh Debian: unix_socket
# auth) is fixed through the unix socket. On a fresh machine (MariaDB about to be installed, or a data
# directory about to be created) coupond's production settings are written first to
# $SERVICES_MYSQL_CNF (scripts/mariadb-cnf.sh: buffer pool, redo log, flushing, binlog; README
# "MariaDB settings"); a server with data keeps its configuration, and a running one is never
# reconfigured or restarted. A Redis that is already running is never restarted; if it
# runs with AOF off, AOF is switched on with CONFIG SET. Idempotent; when everything is up it only
# runs three quick checks. Works sourced or executed, with or without `set -euo pipefail` in the
# caller (the work runs in a subshell, so sourcing changes no shell option or variable).
#
# Redis Cluster (--redis-cluster; README "Running on Redis Cluster"): six redis-server processes on
#          127.0.0.1:7000-7005 (SERVICES_CLUSTER_PORT and the five after it), data in
#          SERVICES_CLUSTER_DIR (/tmp/coupond-redis-cluster/<port>), cluster mode with
#          cluster-node-timeout 2000, AOF everysec, maxmemory-policy noeviction; 3 masters with one
#          replica each. Idempotent: a healthy cluster is left alone (six PINGs and CLUSTER INFOs);
#          nodes that do not answer are started; nodes that are not one healthy cluster within 5 s
#          are flushed, reset and made into a new one (a dev and CI cluster: its data is disposable).
#
# Overrides: SERVICES_MYSQL_HOST/PORT (127.0.0.1/3306), SERVICES_MYSQL_SOCKET (the unix socket used to
# fix root's login; default: the client's), SERVICES_MYSQL_CNF (/etc/mysql/mariadb.conf.d/90-coupond.cnf),
# SERVICES_MYSQL_BUFFER_POOL (a quarter of the memory), SERVICES_REDIS_HOST/PORT (127.0.0.1/6379),
# SERVICES_REDIS_DIR (/var/lib/redis), SERVICES_REDIS_LOG (/var/log/redis/coupond-redis.log),
# SERVICES_TIMEOUT (60).

_coupond_services() (
	set -euo pipefail

	local with_cluster=${SERVICES_REDIS_CLUSTER:-0} a
	for a in "$@"; do
		case $a in
		--redis-cluster) with_cluster=1 ;;
		*)
			echo "services: ERROR: unknown argument $a (want --redis-cluster or nothing)" >&2
			exit 2
			;;
		esac
	done

	local mysql_host=${SERVICES_MYSQL_HOST:-127.0.0.1}
	local mysql_port=${SERVICES_MYSQL_PORT:-3306}
	local mysql_socket=${SERVICES_MYSQL_SOCKET:-} # for the root-login fix; default: the client's own
	local mysql_cnf=${SERVICES_MYSQL_CNF:-/etc/mysql/mariadb.conf.d/90-coupond.cnf}
	local here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	local redis_host=${SERVICES_REDIS_HOST:-127.0.0.1}
	local redis_port=${SERVICES_REDIS_PORT:-6379}
	local redis_dir=${SERVICES_REDIS_DIR:-/var/lib/redis}
	local redis_log=${SERVICES_REDIS_LOG:-/var/log/redis/coupond-redis.log}
	local timeout_s=${SERVICES_TIMEOUT:-60}

	say() { echo "services: $*"; }
	die() {
		echo "services: ERROR: $*" >&2
		exit 1
	}

	# Run as root: directly when we are root, else through sudo.
	asroot() {
		if [[ $EUID -eq 0 ]]; then
			"$@"
		elif command -v sudo >/dev/null 2>&1; then
			sudo "$@"
		else
			die "need root (or sudo) to run: $*"
		fi
	}

	# first_bin NAME... prints the path of the first NAME found in PATH or in /usr/sbin, /usr/bin.
	first_bin() {
		local n d
		for n in "$@"; do
			if command -v "$n" >/dev/null 2>&1; then
				command -v "$n"
				return 0
			fi
			for d in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin; do
				if [[ -x $d/$n ]]; then
					echo "$d/$n"
					return 0
				fi
			done
		done
		return 1
	}

	# proc_running NAME: a process whose command name is NAME exists (reads /proc; no procps needed).
	proc_running() {
		local f c
		for f in /proc/[0-9]*/comm; do
			{ read -r c <"$f"; } 2>/dev/null || continue
			[[ $c == "$1" ]] && return 0
		done
		return 1
	}

	# tcp_open HOST PORT: something accepts TCP connections there.
	tcp_open() {
		# shellcheck disable=SC2016 # expanded by the inner bash
		timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
	}

	# ---------------------------------------------------------------- Redis

	local redis_cli
	redis_cli=$(first_bin redis-cli || true)

	# redis CMD ARGS...: prints the reply, one line per element (like redis-cli without a tty). Uses
	# redis-cli when present, else speaks RESP over bash's /dev/tcp.
	redis() {
		if [[ -n $redis_cli ]]; then
			timeout 5 "$redis_cli" -h "$redis_host" -p "$redis_port" "$@" 2>&1
			return
		fi
		# shellcheck disable=SC2016 # the script is for the inner bash
		timeout 5 bash -c '
			exec 3<>"/dev/tcp/$0/$1" || exit 1
			shift # $0 is the host, $1 the port
			printf "*%d\r\n" $# >&3
			for a in "$@"; do printf "\$%d\r\n%s\r\n" "${#a}" "$a" >&3; done
			cr=$(printf "\r")
			bulk() { # $1: a "$n" header line already read
				if [[ $1 == "\$-1" ]]; then echo; return; fi
				IFS= read -r v <&3; echo "${v%"$cr"}"
			}
			IFS= read -r line <&3 || exit 1
			line=${line%"$cr"}
			case $line in
			"+"* | ":"*) echo "${line:1}" ;;
			"-"*) echo "${line:1}" ;;
			"\$"*) bulk "$line" ;;
			"*"*)
				n=${line:1}
				for ((i = 0; i < n; i++)); do
					IFS= read -r l <&3; l=${l%"$cr"}
					case $l in "\$"*) bulk "$l" ;; *) echo "${l:1}" ;; esac
				done
				;;
			esac
		' "$redis_host" "$redis_port" "$@" 2>&1
	}

	redis_up() { [[ $(redis PING 2>/dev/null || true) == PONG ]]; }

	fsync=${COUPON_REDIS_FSYNC:-everysec}
	[[ $fsync == everysec || $fsync == always ]] || die "COUPON_REDIS_FSYNC=$fsync: want everysec or always"

	start_redis() {
		local bin
		bin=$(first_bin redis-server) || die "redis-server not found after install"
		if proc_running redis-server; then
			say "a redis-server process exists but $redis_host:$redis_port does not answer yet; waiting for it"
			return 0
		fi
		say "starting Redis on $redis_host:$redis_port (AOF on, dir $redis_dir)"
		asroot mkdir -p "$redis_dir" "$(dirname "$redis_log")"
		local bind=(127.0.0.1 -::1)
		[[ $redis_host == 127.0.0.1 || $redis_host == localhost ]] || bind=("$redis_host")
		asroot "$bin" --daemonize yes --bind "${bind[@]}" --port "$redis_port" \
			--save "" --appendonly yes --appendfsync "$fsync" \
			--dir "$redis_dir" --logfile "$redis_log" >/dev/null ||
			die "redis-server did not start; see $redis_log"
	}

	ensure_aof() {
		local out
		out=$(redis CONFIG GET appendonly || true)
		case $out in
		*$'\n'yes)
			# An explicit COUPON_REDIS_FSYNC is applied to a running Redis; the default leaves it be.
			if [[ -n ${COUPON_REDIS_FSYNC:-} ]] && [[ $(redis CONFIG GET appendfsync || true) != *$'\n'$fsync ]]; then
				out=$(redis CONFIG SET appendfsync "$fsync" || true)
				[[ $out == OK ]] && say "Redis $redis_host:$redis_port: appendfsync set to $fsync" ||
					echo "services: WARNING: could not set appendfsync $fsync on Redis $redis_host:$redis_port: $out" >&2
			fi
			return 0
			;;
		*$'\n'no)
			out=$(redis CONFIG SET appendonly yes appendfsync "$fsync" || true)
			if [[ $out == OK ]]; then
				say "Redis $redis_host:$redis_port ran with AOF off: enabled it (CONFIG SET appendonly yes, appendfsync $fsync)"
			else
				echo "services: WARNING: could not enable AOF on Redis $redis_host:$redis_port: $out" >&2
			fi
			;;
		*) echo "services: WARNING: cannot read Redis appendonly setting: $out" >&2 ;;
		esac
	}

	# ---------------------------------------------------------------- MariaDB

	local mysql_client
	mysql_client=$(first_bin mariadb mysql || true)

	mysql_tcp() {
		if [[ -n $mysql_client ]]; then
			"$mysql_client" --no-defaults --protocol=TCP -h "$mysql_host" -P "$mysql_port" -uroot \
				--connect-timeout=3 "$@"
		else
			return 2
		fi
	}

	# mysql_up: root logs in over TCP with an empty password (without a client: the port is open).
	mysql_up() {
		if [[ -n $mysql_client ]]; then
			mysql_tcp -e 'SELECT 1' >/dev/null 2>&1
		else
			tcp_open "$mysql_host" "$mysql_port"
		fi
	}

	# write_mariadb_cnf: put coupond's settings where the server reads them, for a fresh machine; a
	# file already there (an operator's edit) is kept. Debian's my.cnf includes mariadb.conf.d/.
	write_mariadb_cnf() {
		if [[ -e $mysql_cnf ]]; then
			return 0
		fi
		say "writing MariaDB's production settings to $mysql_cnf (scripts/mariadb-cnf.sh)"
		local cnf
		cnf=$("$here/mariadb-cnf.sh")
		asroot mkdir -p "$(dirname "$mysql_cnf")"
		printf '%s\n' "$cnf" | asroot tee "$mysql_cnf" >/dev/null
		if [[ -f /etc/mysql/my.cnf && $mysql_cnf == /etc/mysql/mariadb.conf.d/* ]] &&
			! grep -q '^!includedir /etc/mysql/mariadb.conf.d' /etc/mysql/my.cnf; then
			echo "services: WARNING: /etc/mysql/my.cnf does not include /etc/mysql/mariadb.conf.d/: $mysql_cnf is not read" >&2
		fi
	}

	start_mariadb() {
		local bin
		bin=$(first_bin mariadbd mysqld) || die "mariadbd not found after install"
		if proc_running mariadbd || proc_running mysqld; then
			say "a mariadbd process exists but $mysql_host:$mysql_port does not answer yet; waiting for it"
			return 0
		fi
		say "starting MariaDB ($bin)"
		local args=() datadir=/var/lib/mysql d
		if [[ $EUID -eq 0 ]] || command -v sudo >/dev/null 2>&1; then
			if id mysql >/dev/null 2>&1; then
				args+=(--user=mysql)
				asroot install -d -o mysql -g mysql /run/mysqld
			fi
		fi
		[[ $mysql_port == 3306 ]] || args+=(--port="$mysql_port")
		d=$( (my_print_defaults --mysqld 2>/dev/null || true) | sed -n 's/^--datadir=//p' | tail -n1)
		[[ -n $d ]] && datadir=$d
		if [[ ! -d $datadir/mysql ]]; then
			write_mariadb_cnf
			local installdb
			installdb=$(first_bin mariadb-install-db mysql_install_db) || die "no mariadb-install-db to create $datadir"
			say "initialising the data directory $datadir"
			asroot "$installdb" --user=mysql --datadir="$datadir" >/dev/null
		fi
		if command -v start-stop-daemon >/dev/null 2>&1 || [[ -x /usr/sbin/start-stop-daemon ]]; then
			asroot start-stop-daemon --start --oknodo --background --exec "$bin" -- "${args[@]}"
		else
			local safe
			safe=$(first_bin mysqld_safe mariadbd-safe) || die "neither start-stop-daemon nor mysqld_safe to start MariaDB"
			asroot setsid "$safe" "${args[@]}" </dev/null >/dev/null 2>&1 &
		fi
	}

	# fix_root_login: fresh Debian installs give root@localhost unix_socket auth only; allow an empty
	# password over TCP too (keeping the socket login), for localhost and the loopback addresses.
	fix_root_login() {
		[[ -n $mysql_client ]] || return 1
		say "MariaDB root cannot log in over TCP with an empty password; enabling it through the unix socket"
		local sql
		sql="ALTER USER root@localhost IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket;"
		local h
		for h in 127.0.0.1 ::1; do
			sql+="CREATE USER IF NOT EXISTS root@'$h' IDENTIFIED VIA mysql_native_password USING PASSWORD('');"
			sql+="ALTER USER root@'$h' IDENTIFIED VIA mysql_native_password USING PASSWORD('');"
			sql+="GRANT ALL PRIVILEGES ON *.* TO root@'$h' WITH GRANT OPTION;"
		done
		sql+="FLUSH PRIVILEGES;"
		local sock=()
		[[ -n $mysql_socket ]] && sock=(--socket="$mysql_socket")
		asroot "$mysql_client" -uroot --protocol=SOCKET "${sock[@]}" -e "$sql"
	}

	mysql_err_log() {
		local f
		f=$( (my_print_defaults --mysqld 2>/dev/null || true) | sed -n 's/^--log-error=//p' | tail -n1)
		[[ -n $f ]] || f=/var/log/mysql/error.log
		echo "$f"
	}

	# ---------------------------------------------------------------- Redis Cluster (--redis-cluster)

	# cluster_ports: the six nodes' ports, SERVICES_CLUSTER_PORT (7000) and the five after it.
	local cluster_base=${SERVICES_CLUSTER_PORT:-7000}
	local cluster_dir=${SERVICES_CLUSTER_DIR:-/tmp/coupond-redis-cluster}
	local cluster_ports=()
	local p
	for ((p = cluster_base; p < cluster_base + 6; p++)); do cluster_ports+=("$p"); done

	# cnode PORT CMD ARGS...: redis CMD on the cluster node at PORT.
	cnode() {
		local port=$1
		shift
		redis_port=$port redis "$@"
	}

	# cluster_field PORT NAME: the value of NAME in the node's CLUSTER INFO.
	cluster_field() { cnode "$1" CLUSTER INFO | tr -d '\r' | sed -n "s/^$2://p"; }

	# cluster_healthy: every node answers, sees six nodes and cluster_state ok with all 16384 slots
	# assigned and ok, and three masters each have a replica.
	cluster_healthy() {
		local port info
		for port in "${cluster_ports[@]}"; do
			info=$(cnode "$port" CLUSTER INFO | tr -d '\r')
			[[ $info == *$'cluster_state:ok\n'* && $info == *$'cluster_slots_ok:16384\n'* &&
				$info == *$'cluster_known_nodes:6\n'* ]] || return 1
		done
		[[ $(cnode "${cluster_ports[0]}" CLUSTER NODES | grep -c ' slave ') == 3 ]]
	}

	start_cluster_node() {
		local port=$1 bin
		bin=$(first_bin redis-server) || die "redis-server not found after install"
		mkdir -p "$cluster_dir/$port"
		"$bin" --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$cluster_dir/$port" \
			--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
			--save "" --appendonly yes --appendfsync everysec --maxmemory-policy noeviction \
			--pidfile "$cluster_dir/$port/redis.pid" --logfile "$cluster_dir/$port/redis.log" >/dev/null ||
			die "redis-server on port $port did not start; see $cluster_dir/$port/redis.log"
	}

	# ensure_cluster: six nodes up (started when not answering), AOF everysec and noeviction on each,
	# and one healthy cluster over them: created when the nodes are fresh, recreated (every node
	# flushed and reset) when they are not one healthy cluster after a short wait (a node that was
	# restarted rejoins by itself within the node timeout).
	ensure_cluster() {
		local port deadline
		if [[ -z $redis_cli ]] || ! first_bin redis-server >/dev/null; then
			command -v apt-get >/dev/null 2>&1 || die "redis-server and redis-cli are needed for --redis-cluster (no apt-get here: install them yourself)"
			say "installing redis-server redis-tools with apt-get"
			asroot env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || die "apt-get update failed"
			asroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				redis-server redis-tools >/dev/null || die "apt-get install redis-server redis-tools failed"
			redis_cli=$(first_bin redis-cli) || die "redis-cli not found after install"
		fi
		if cluster_healthy; then
			say "Redis Cluster 127.0.0.1:${cluster_ports[0]}-${cluster_ports[5]} is up"
			return 0
		fi
		for port in "${cluster_ports[@]}"; do
			[[ $(cnode "$port" PING 2>/dev/null || true) == PONG ]] || start_cluster_node "$port"
		done
		deadline=$((SECONDS + timeout_s))
		for port in "${cluster_ports[@]}"; do
			until [[ $(cnode "$port" PING 2>/dev/null || true) == PONG ]]; do
				((SECONDS < deadline)) || die "Redis Cluster node 127.0.0.1:$port did not answer PING within ${timeout_s}s"
				sleep 0.1
			done
			[[ $(cnode "$port" CONFIG SET appendonly yes appendfsync everysec maxmemory-policy noeviction) == OK ]] ||
				die "CONFIG SET on cluster node 127.0.0.1:$port failed"
		done
		deadline=$((SECONDS + 5))
		while ((SECONDS < deadline)); do
			cluster_healthy && break
			# A fresh node knows only itself: nothing to wait for.
			[[ $(cluster_field "${cluster_ports[0]}" cluster_known_nodes) == 1 ]] && break
			sleep 0.3
		done
		if ! cluster_healthy; then
			say "creating Redis Cluster on 127.0.0.1:${cluster_ports[0]}-${cluster_ports[5]} (3 masters, 3 replicas; data in $cluster_dir)"
			for port in "${cluster_ports[@]}"; do
				cnode "$port" FLUSHALL >/dev/null
				cnode "$port" CLUSTER RESET HARD >/dev/null
			done
			local addrs=()
			for port in "${cluster_ports[@]}"; do addrs+=("127.0.0.1:$port"); done
			timeout 30 "$redis_cli" --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$cluster_dir/create.log" 2>&1 ||
				die "redis-cli --cluster create failed; see $cluster_dir/create.log"
			deadline=$((SECONDS + timeout_s))
			until cluster_healthy; do
				((SECONDS < deadline)) || die "Redis Cluster not healthy within ${timeout_s}s after creation"
				sleep 0.2
			done
		fi
		say "Redis Cluster 127.0.0.1:${cluster_ports[0]}-${cluster_ports[5]} is up (cluster_state ok, 16384 slots)"
	}

	# ---------------------------------------------------------------- main

	local mysql_ok=0 redis_ok=0
	mysql_up && mysql_ok=1
	redis_up && redis_ok=1

	if ((mysql_ok == 0 || redis_ok == 0)); then
		local pkgs=()
		if ((mysql_ok == 0)) && ! first_bin mariadbd mysqld >/dev/null; then
			pkgs+=(mariadb-server mariadb-client)
		fi
		if ((redis_ok == 0)) && ! first_bin redis-server >/dev/null; then
			pkgs+=(redis-server redis-tools)
		fi
		if ((${#pkgs[@]} > 0)); then
			command -v apt-get >/dev/null 2>&1 || die "not reachable and not installed: ${pkgs[*]} (no apt-get here: install them yourself)"
			# The package starts its server at once: the settings go first.
			if [[ " ${pkgs[*]} " == *" mariadb-server "* ]]; then
				write_mariadb_cnf
			fi
			say "installing ${pkgs[*]} with apt-get"
			asroot env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null ||
				die "apt-get update failed"
			asroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
				"${pkgs[@]}" >/dev/null || die "apt-get install ${pkgs[*]} failed"
			# The packages may have started their service; the clients may be new.
			redis_cli=$(first_bin redis-cli || true)
			mysql_client=$(first_bin mariadb mysql || true)
			mysql_up && mysql_ok=1
			redis_up && redis_ok=1
		fi

		# MariaDB may be running with socket-only root auth: port open, login refused.
		local mysql_started=0 redis_started=0
		if ((mysql_ok == 0)) && ! tcp_open "$mysql_host" "$mysql_port"; then
			start_mariadb
			mysql_started=1
		fi
		if ((redis_ok == 0)); then
			start_redis
			redis_started=1
		fi

		# Wait. A process seen at start may have been one that was shutting down: when the port is
		# still closed and no such process is left, start again (at most 3 times).
		local deadline=$((SECONDS + timeout_s)) fixed=0 next_check=$((SECONDS + 2))
		while ((mysql_ok == 0)); do
			if mysql_up; then
				mysql_ok=1
				break
			fi
			if tcp_open "$mysql_host" "$mysql_port"; then
				if ((fixed == 0)) && [[ -n $mysql_client ]]; then
					# Listening but refusing root: fix the auth once (tolerate a server still starting).
					sleep 1
					mysql_up && continue
					fix_root_login || true
					fixed=1
					continue
				fi
			elif ((SECONDS >= next_check && mysql_started < 3)) && ! proc_running mariadbd && ! proc_running mysqld; then
				start_mariadb
				mysql_started=$((mysql_started + 1))
				next_check=$((SECONDS + 2))
			fi
			if ((SECONDS >= deadline)); then
				local log
				log=$(mysql_err_log)
				echo "services: ERROR: MariaDB did not answer on $mysql_host:$mysql_port (root, empty password) within ${timeout_s}s" >&2
				if [[ -n $mysql_client ]]; then
					mysql_tcp -e 'SELECT 1' 2>&1 | sed 's/^/services:   /' >&2 || true
				fi
				[[ -r $log ]] && tail -n 20 "$log" | sed 's/^/services:   log: /' >&2
				exit 1
			fi
			sleep 0.5
		done
		deadline=$((SECONDS + timeout_s)) next_check=$((SECONDS + 2))
		while ! redis_up; do
			if ((SECONDS >= next_check && redis_started < 3)) && ! tcp_open "$redis_host" "$redis_port" && ! proc_running redis-server; then
				start_redis
				redis_started=$((redis_started + 1))
				next_check=$((SECONDS + 2))
			fi
			if ((SECONDS >= deadline)); then
				echo "services: ERROR: Redis did not answer PING on $redis_host:$redis_port within ${timeout_s}s: $(redis PING || true)" >&2
				[[ -r $redis_log ]] && tail -n 20 "$redis_log" | sed 's/^/services:   log: /' >&2
				exit 1
			fi
			sleep 0.3
		done
	fi

	ensure_aof
	say "MariaDB $mysql_host:$mysql_port and Redis $redis_host:$redis_port are up"
	if [[ $with_cluster == 1 ]]; then
		ensure_cluster
	fi
)

if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
	# sourced: report failure through return, never exit the caller's shell ourselves
	if _coupond_services; then
		unset -f _coupond_services
	else
		unset -f _coupond_services
		return 1
	fi
else
	_coupond_services "$@"
fi
