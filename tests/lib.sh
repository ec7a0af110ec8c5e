# Shared helpers for the bash test suites (tests/*.t). Source it.
# Each check prints one TAP line; the plan is printed at the end.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
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

diag() { echo "# $*"; }

done_testing() {
	echo "1..$_t_n"
	[ $_t_failed = 0 ]
}
