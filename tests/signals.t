#!/bin/bash
# A signal stops everything: vm-run and run-all, sent SIGINT or SIGHUP
# once their guest is up, exit 128+N within 30 s and leave no QEMU of this
# checkout behind; an interrupted run-all keeps its finished runs.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
name=ci-signals-$$
trap 'rm -rf "$tmp" "$top/results/$name"' EXIT

# QEMU processes booting this checkout's kernels.
our_qemus() { pgrep -f "qemu-system-x86_64 .*-kernel $top/build/" || true; }

# wait_for FILE REGEX SECONDS: until FILE matches REGEX.
wait_for() {
	local _
	for _ in $(seq $(($3 * 5))); do
		grep -q -E "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# stop_after_up SIG LOG READY CMD...: start CMD as a terminal's shell
# would (its own process group, SIGINT and SIGHUP not ignored), send SIG to
# it once LOG matches READY, and set stop_rc, stop_s (seconds from the
# signal to its exit) and left (QEMUs).
stop_after_up() {
	local sig=$1 log=$2 ready=$3 pid t0
	shift 3
	set -m
	env --default-signal=INT,HUP "$@" >"$log" 2>&1 &
	pid=$!
	set +m
	if ! wait_for "$log" "$ready" 600; then
		diag "never saw /$ready/ in $log"
		kill -KILL "$pid"
	fi
	sleep 2
	t0=$(date +%s)
	kill -s "$sig" "$pid"
	wait "$pid"
	stop_rc=$?
	stop_s=$(($(date +%s) - t0))
	sleep 1
	left=$(our_qemus)
}

for sig in INT HUP; do
	want=$((128 + $(kill -l $sig)))
	stop_after_up $sig "$tmp/vm-$sig.log" '^guest is up$' \
		"$VM_RUN" --cpus 1 --timeout 900 -- sh -c 'echo guest is up; sleep 800'
	is "vm-run, SIG$sig while the guest runs: exits $want" "$stop_rc" "$want"
	ok "... within 30 s (took ${stop_s} s)" test "$stop_s" -le 30
	is "... and no QEMU of this checkout is left" "$left" ""
done

# run-all: interrupted in the middle of its sweep.
stop_after_up INT "$tmp/run-all.log" '\[point 3/' \
	"$top/run-all" --smoke --name "$name" --benchmarks locktable,extend-sched
is "run-all --smoke, SIGINT during the sweep: exits 130" "$stop_rc" 130
ok "... within 30 s (took ${stop_s} s)" test "$stop_s" -le 30
is "... and no QEMU of this checkout is left" "$left" ""
ok "... the runs that finished are kept" test "$(ls "$top/results/$name/raw/"*.json 2>/dev/null | wc -l)" -ge 2
ok "... and it did not boot again" bash -c "! grep -q 'booting again' '$tmp/run-all.log'"

stop_after_up HUP "$tmp/run-all-hup.log" '\[point [0-9]+/' \
	"$top/run-all" --smoke --name "$name" --benchmarks locktable,extend-sched
is "run-all resumed, then SIGHUP: exits 129" "$stop_rc" 129
is "... and no QEMU of this checkout is left" "$left" ""
like "... it had resumed after the finished runs" "$(cat "$tmp/run-all-hup.log")" \
	'\[point ([3-9]|[1-9][0-9])/'
done_testing
