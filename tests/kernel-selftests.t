#!/bin/bash
# The in-guest kernel selftests (kernel/selftests/, kselftest harness), all
# in one boot of the patched kernel. Their TAP lines are renumbered into
# this suite's; a guest failure (splat, panic, timeout) fails the suite.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# SLICEBENCH_KERNEL picks another bzImage (make check-debug: the debug one),
# SLICEBENCH_APPEND adds to every boot's command line (make check-debug: a
# longer RCU stall timeout, see the Makefile).
VM_RUN=("$VM_RUN" ${SLICEBENCH_KERNEL:+--kernel "$SLICEBENCH_KERNEL"}
	${SLICEBENCH_APPEND:+--append "$SLICEBENCH_APPEND"})

selftests=(slice_ext_test slice_ext_abi_test slice_ext_sched_test)
# The fuzzer runs last, SLICEBENCH_FUZZ_SECONDS long (make check-debug: 600),
# with a fresh seed each time (printed; SLICEBENCH_FUZZ_SEED repeats one).
fuzz_s=${SLICEBENCH_FUZZ_SECONDS:-20}
fuzz_seed=${SLICEBENCH_FUZZ_SEED:-$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) + 1 ))}
fuzz="slice_ext_fuzz -d $fuzz_s -s $fuzz_seed"
echo "# fuzz: $fuzz"
# With kmemleak in the kernel (the debug flavour), scan at the end and fail
# on any report. Each selftest's exit status follows its output.
script='rc=0; for t in "$@"; do echo "=== ${t%% *}"; $t; r=$?; echo "=== exit ${t%% *} $r"; [ $r = 0 ] || rc=1; done
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

# tap_from NAME: renumber the kselftest TAP lines of a guest run (on stdin)
# into this suite's, and record each selftest's plan ("1..N"), how many
# results it reported and its exit status, for check_ran.
declare -A st_plan st_results st_exit
tap_from() {
	local current=$1 line status desc
	while IFS= read -r line; do
		case "$line" in
		"=== exit "*)
			line=${line#=== exit }
			st_exit[${line% *}]=${line##* } ;;
		"=== "*) current=${line#=== } ;;
		1..*) st_plan[$current]=${line#1..}; echo "# $current: plan $line" ;;
		"ok "*|"not ok "*)
			_t_n=$((_t_n + 1))
			st_results[$current]=$((${st_results[$current]:-0} + 1))
			status=${line%% [0-9]*}
			desc=${line#* [0-9]* }
			[ "$status" = ok ] || _t_failed=$((_t_failed + 1))
			echo "$status $_t_n - $current: $desc" ;;
		*) echo "# $line" ;;
		esac
	done
}

# check_ran NAME: the selftest ran, reported every test of its plan, and
# exited 0. A missing binary or a crash fails here, whatever else passed.
check_ran() {
	local t=$1 plan=${st_plan[$1]:-none} got=${st_results[$1]:-0} rc=${st_exit[$1]:-none}
	ok "$t ran all of its plan ($got of $plan results) and exited 0 (exit $rc)" \
		test "$plan" != none -a "$got" = "$plan" -a "$rc" = 0
}

out=$("${VM_RUN[@]}" -q --cpus "${SLICEBENCH_SELFTEST_CPUS:-2}" --timeout $((1800 + fuzz_s)) -- \
	sh -c "$script" sh "${selftests[@]}" "$fuzz" 2>&1)
rc=$?
tap_from "" <<<"$out"
for t in "${selftests[@]}" slice_ext_fuzz; do check_ran "$t"; done
grep '^# slice_ext_fuzz\|^# operations' <<<"$out" | sed 's/^/# /' || true

# Every test that ran is in kernel/selftests/since (the first patch it
# needs; kernel/check-series --boot runs it from there on): a new test
# cannot be left out of the per-prefix runs.
unlisted=$(awk -v since="$top/kernel/selftests/since" '
	BEGIN {
		while ((getline line < since) > 0) {
			sub(/#.*/, "", line)
			n = split(line, f)
			for (i = 3; i < n; i += 2) sel[f[2] " " f[i] " " f[i + 1]] = 1
		}
	}
	/^=== / && !/^=== exit/ { bin = $2 }
	/^(not )?ok [0-9]+ / && bin ~ /^slice_ext_(abi_|sched_)?test$/ {
		name = ($1 == "not") ? $4 : $3
		k = split(name, part, ".")
		if (!((bin " -t " part[k]) in sel) && !(k == 3 && (bin " -v " part[2]) in sel))
			print bin ":" name
	}' <<<"$out" | sort -u)
ok "every selftest that ran is in kernel/selftests/since${unlisted:+ (not: $(echo $unlisted))}" test -z "$unlisted"
# 0: all passed. 1: a selftest failed (its lines say which). Else: the guest.
ok "the guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1

# The mainline ABI disabled at boot: a second boot with rseq_slice_ext=0.
name="slice_ext_abi_test (rseq_slice_ext=0)"
out=$("${VM_RUN[@]}" -q --cpus 1 --timeout 600 --append rseq_slice_ext=0 -- \
	sh -c "echo '=== $name'; slice_ext_abi_test -t mainline_boot_disabled -t mainline_boot_disabled_7_0_rules_advertise; echo \"=== exit $name \$?\"" 2>&1)
rc=$?
tap_from "$name" <<<"$out"
check_ran "$name"
ok "the rseq_slice_ext=0 guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1

# 6.12's own rseq selftests, unchanged, under rseq_rules 7.1 and 7.0, with
# glibc's registration (guest-image/run-rseq-selftests says why not their
# own): the series changes rseq's registration and update for every task.
# SLICEBENCH_RSEQ_SELFTESTS=0 (make check-debug) leaves them out: under
# KASAN and TCG, param_test alone outlasts the boot's 25 minutes (2 runs of
# 32 in one); make check runs them on the same series.
name="6.12's rseq selftests"
if [ "${SLICEBENCH_RSEQ_SELFTESTS:-1}" = 0 ]; then
	_t_n=$((_t_n + 1))
	echo "ok $_t_n - $name # SKIP SLICEBENCH_RSEQ_SELFTESTS=0 (make check runs them)"
else
	out=$("${VM_RUN[@]}" -q --cpus 2 --timeout 1500 -- run-rseq-selftests 2>&1)
	rc=$?
	runs=0
	while IFS= read -r line; do
		case "$line" in
		"rseq-selftest "*)
			runs=$((runs + 1))
			desc=${line%: exit *}
			is "$desc" "${line##*: exit }" 0 ;;
		esac
	done <<<"$out"
	is "$name: 32 runs (17 under 7.1, 15 under 7.0)" "$runs" 32
	ok "the $name guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1
fi

# 6.12 has PREEMPT_DYNAMIC: the other two preemption models, one boot each,
# with the main selftest and a short fuzz. preempt=full runs the ABI tests
# too: there a grant can also end by a preemption inside a system call's
# entry, the case fork_inside_grant and thread_exit_inside_grant watch.
for model in full none; do
	name="preempt=$model"
	model_tests=(slice_ext_test)
	[ "$model" = none ] || model_tests+=(slice_ext_abi_test)
	out=$("${VM_RUN[@]}" -q --cpus 2 --timeout 1500 --append "preempt=$model" -- \
		sh -c "$script" sh "${model_tests[@]}" "slice_ext_fuzz -d 10 -s $fuzz_seed" 2>&1)
	rc=$?
	st_plan=() st_results=() st_exit=()
	tap_from "" < <(sed -e "s/^=== exit \([a-z_]*\)/=== exit \1@$model/" \
		-e "/^=== exit/!s/^=== \([a-z_]*\)$/=== \1@$model/" <<<"$out")
	for t in "${model_tests[@]}" slice_ext_fuzz; do check_ran "$t@$model"; done
	ok "the $name guest run ended cleanly (vm-run exit $rc)" test "$rc" -le 1
done
done_testing
