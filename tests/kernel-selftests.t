#!/bin/bash
# The in-guest kernel selftests (kernel/selftests/, kselftest harness), all
# in one boot of the patched kernel. Their TAP lines are renumbered into
# this suite's; a guest failure (splat, panic, timeout) fails the suite.
. "$(dirname "$0")/lib.sh"

# SLICEBENCH_KERNEL picks another bzImage (make check-debug: the debug one).
VM_RUN=("$VM_RUN" ${SLICEBENCH_KERNEL:+--kernel "$SLICEBENCH_KERNEL"})

selftests=(slice_ext_test slice_ext_abi_test slice_ext_sched_test)
# With kmemleak in the kernel (the debug flavour), scan at the end and fail
# on any report.
script='rc=0; for t in "$@"; do echo "=== $t"; "$t" || rc=1; done
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "=== kmemleak"
	echo scan >/sys/kernel/debug/kmemleak; sleep 5; echo scan >/sys/kernel/debug/kmemleak
	if [ -s /sys/kernel/debug/kmemleak ]; then
		cat /sys/kernel/debug/kmemleak; echo "not ok 1 no kmemleak reports"; rc=1
	else
		echo "ok 1 no kmemleak reports"
	fi
fi
exit $rc'

# tap_from NAME: renumber the kselftest TAP lines of a guest run (on stdin).
tap_from() {
	local current=$1 line status desc
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
	done
}

out=$("${VM_RUN[@]}" -q --cpus "${SLICEBENCH_SELFTEST_CPUS:-2}" --timeout 1800 -- sh -c "$script" sh "${selftests[@]}" 2>&1)
rc=$?
tap_from "" <<<"$out"
# 0: all passed. 1: a selftest failed (its lines say which). Else: the guest.
ok "the guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1

# The mainline ABI disabled at boot: a second boot with rseq_slice_ext=0.
out=$("${VM_RUN[@]}" -q --cpus 1 --timeout 600 --append rseq_slice_ext=0 -- \
	slice_ext_abi_test -t mainline_boot_disabled 2>&1)
rc=$?
tap_from "slice_ext_abi_test (rseq_slice_ext=0)" <<<"$out"
ok "the rseq_slice_ext=0 guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1
done_testing
