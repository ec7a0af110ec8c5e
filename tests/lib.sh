# shellcheck shell=bash disable=SC2034 # what it sets is for the suites that source it
# Shared helpers for the bash test suites (tests/*.t). Source it.
# Each check prints one TAP line; the plan is printed at the end.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A signal stops the suite, its guest and everything else it started.
. "$top/tools/signals.sh"
sb_supervise "$@"
VM_RUN=$top/guest-image/vm-run
_t_n=0
_t_failed=0

# ok DESC CMD...: run CMD; pass when it exits 0.
ok() {
	local desc=$1; shift
	_t_n=$((_t_n + 1))
	if "$@"; then
		echo "ok $_t_n - $desc"
	else
		echo "not ok $_t_n - $desc"
		_t_failed=$((_t_failed + 1))
	fi
}

# is DESC GOT WANT: pass when the two strings are equal.
is() {
	_t_n=$((_t_n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $_t_n - $1"
	else
		echo "not ok $_t_n - $1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
		_t_failed=$((_t_failed + 1))
	fi
}

# like DESC GOT REGEX: pass when GOT matches the extended regex.
like() {
	_t_n=$((_t_n + 1))
	if [[ $2 =~ $3 ]]; then
		echo "ok $_t_n - $1"
	else
		echo "not ok $_t_n - $1"
		echo "#   got:  '$2'"
		echo "#   want: /$3/"
		_t_failed=$((_t_failed + 1))
	fi
}

# unlike DESC GOT REGEX: pass when GOT does not match the extended regex.
unlike() {
	_t_n=$((_t_n + 1))
	if [[ $2 =~ $3 ]]; then
		echo "not ok $_t_n - $1"
		echo "#   got:  '$2'" | head -5
		echo "#   want no match of /$3/"
		_t_failed=$((_t_failed + 1))
	else
		echo "ok $_t_n - $1"
	fi
}

diag() { echo "# $*"; }

# jq_true FILTER FILE: the jq filter holds on the JSON file.
jq_true() { jq -e "$1" "$2" >/dev/null 2>&1; }

done_testing() {
	echo "1..$_t_n"
	[ $_t_failed = 0 ]
}

# A throwaway PostgreSQL server (Debian's postgresql package) on a Unix
# socket in a folder of the test's; never on the network. PostgreSQL will
# not run as root, so as root it runs as the postgres user.
# pg_start DIR: start it, set PG_DSN. pg_stop DIR: stop it.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
pg_as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_start() {
	local dir=$1 bin
	bin=$(pg_bin)
	[ -n "$bin" ] || { echo "no PostgreSQL server installed" >&2; return 1; }
	mkdir -p "$dir"
	if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; chmod 755 "$(dirname "$dir")"; fi
	pg_as "$bin/initdb" -D "$dir/data" -A trust -U slicebench >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; return 1; }
	pg_as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c max_connections=200 -c fsync=off" start >/dev/null ||
		{ cat "$dir/server.log" >&2; return 1; }
	PG_DSN="host=$dir user=slicebench dbname=postgres"
}
pg_stop() { pg_as "$(pg_bin)/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null 2>&1; }
