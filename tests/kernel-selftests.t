#!/bin/bash
# The in-guest kernel selftests (kernel/selftests/, kselftest harness), all
# in one boot of the patched kernel. Their TAP lines are renumbered into
# this suite's; a guest failure (splat, panic, timeout) fails the suite.
. "$(dirname "$0")/lib.sh"

selftests=(slice_ext_test)
script='rc=0; for t in "$@"; do echo "=== $t"; "$t" || rc=1; done; exit $rc'
out=$("$VM_RUN" -q --cpus "${SLICEBENCH_SELFTEST_CPUS:-2}" --timeout 900 -- sh -c "$script" sh "${selftests[@]}" 2>&1)
rc=$?
current=""
while IFS= read -r line; do
	case "$line" in
	"=== "*) current=${line#=== } ;;
	"ok "*|"not ok "*)
		_t_n=$((_t_n + 1))
		status=${line%% [0-9]*}
		desc=${line#* [0-9]* }
		[ "$status" = ok ] || _t_failed=$((_t_failed + 1))
		echo "$status $_t_n - $current: $desc" ;;
	*) echo "# $line" ;;
	esac
done <<<"$out"
# 0: all passed. 1: a selftest failed (its lines say which). Else: the guest.
ok "the guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1
done_testing
