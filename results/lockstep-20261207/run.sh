#!/bin/bash
# The lockstep precise testbed's validation (issue 37; predictions in
# experiments/lockstep-prediction.md, committed before these runs).
#
#   run.sh speed | timers | pingpong | determinism | stability | cost | parallel
#
# Each part writes its JSON, output and wall seconds into this folder;
# `analyze` reads them into analysis.txt. Run from a clean, committed tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vm=("$top/guest-image/vm-run" -q --clock precise)
debian_qemu=/usr/bin/qemu-system-x86_64
wall() {	# NAME CMD...: run CMD, append "NAME SECONDS" to wall-seconds.txt and
	# "NAME WALL USER SYS" (the host CPU seconds of CMD and its children:
	# QEMU's, whatever else the host runs) to cpu-seconds.txt
	local name=$1 t0 TIMEFORMAT='%R %U %S' times
	shift
	t0=$(date +%s.%N)
	{ times=$( { time "$@" 1>&3 2>&4; } 2>&1 ); } 3>&1 4>&2
	echo "$name $(echo "$(date +%s.%N) - $t0" | bc)" >>"$here/wall-seconds.txt"
	echo "$name $times" >>"$here/cpu-seconds.txt"
}
lt_main() {	# SEED [DURATION WARMUP]: the determinism run's lock table (the README's, 2026-12-04)
	echo "sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 &&
		locktable --abi mainline --clients 300 --hogs 400 --duration ${2:-1} --warmup ${3:-1} --interval 0 --seed $1"
}

case ${1:-} in
speed)	# 1. one fixed loop pinned per vCPU, N = 1, 2, 4, 8; the stock round robin at 4
	for n in 1 2 4 8; do
		wall "loop-n$n" "${vm[@]}" --cpus $n --timeout 3600 --share "$here" -- \
			smp-probe --mode loop --iterations 20000000 --json /host/loop-n$n.json >"$here/loop-n$n.txt"
	done
	wall loop-n4-roundrobin "${vm[@]}" --cpus 4 --quantum 0 --timeout 3600 --share "$here" -- \
		smp-probe --mode loop --iterations 20000000 --json /host/loop-n4-roundrobin.json \
		>"$here/loop-n4-roundrobin.txt" 2>/dev/null
	;;
timers)	# 2. sleep-overshoot on each vCPU of an 8-vCPU guest, one at a time
	wall timers-n8 "${vm[@]}" --cpus 8 --timeout 3600 --share "$here" -- sh -c '
		for k in 0 1 2 3 4 5 6 7; do
			sleep-overshoot --cpu $k --count 2000 --sleep-us 50 --json /host/overshoot-n8-cpu$k.json || exit 1
		done' >"$here/overshoot-n8.txt"
	;;
pingpong)	# 3. round trips between two pinned threads, both ways, at two quanta
	for q in 1000 10000; do
		wall "pingpong-q$q" "${vm[@]}" --cpus 2 --quantum $q --timeout 3600 --share "$here" -- sh -c "
			smp-probe --mode pingpong --cpus 0,1 --count 2000 --json /host/pingpong-q$q-01.json &&
			smp-probe --mode pingpong --cpus 1,0 --count 2000 --json /host/pingpong-q$q-10.json" \
			>"$here/pingpong-q$q.txt"
	done
	;;
determinism)	# 4 and 5: 1 vCPU under Debian's QEMU and lockstep; 8 vCPUs twice
	wall det-n1-debian "${vm[@]}" --cpus 1 --quantum 0 --qemu "$debian_qemu" --timeout 3600 --share "$here" -- \
		sh -c "$(lt_main 1) --json /host/det-n1-debian.json" >"$here/det-n1-debian.txt"
	for r in a b; do
		wall det-n1-lockstep-$r "${vm[@]}" --cpus 1 --timeout 3600 --share "$here" -- \
			sh -c "$(lt_main 1) --json /host/det-n1-lockstep-$r.json" >"$here/det-n1-lockstep-$r.txt"
	done
	;;
determinism8)	# 5: the same seed twice at 8 vCPUs
	wall "det-n8-${2:-a}" "${vm[@]}" --cpus 8 --timeout 7200 --share "$here" -- \
		sh -c "$(lt_main 1) --json /host/det-n8-${2:-a}.json" >"$here/det-n8-${2:-a}.txt"
	;;
stability)	# 6: ten boots at 8 vCPUs with the multi-threaded load
	wall boot-loop-n8 "$top/guest-image/boot-loop" -n 10 --cpus 8 --timeout 3600 --seconds 0.5 \
		--keep "$here/boot-loop-n8" -- --clock precise >"$here/boot-loop-n8.txt" 2>&1
	;;
cost)	# 7: wall seconds per guest second under the lock-table load, N x Q
	shift
	for nq in "$@"; do
		n=${nq%x*} q=${nq#*x}
		wall "boot-n$n-q$q" "${vm[@]}" --cpus "$n" --quantum "$q" --timeout 7200 -- true
		wall "load-n$n-q$q" "${vm[@]}" --cpus "$n" --quantum "$q" --timeout 7200 --share "$here" -- sh -c "
			t0=\$(cut -d' ' -f1 /proc/uptime)
			$(lt_main 1 1 0.2) --json /host/cost-n$n-q$q.json >/dev/null
			t1=\$(cut -d' ' -f1 /proc/uptime)
			echo \"guest_seconds n$n q$q \$(echo \"\$t1 - \$t0\" | bc)\" >>/host/guest-seconds.txt"
	done
	;;
overhead)	# 7, the quantum's own cost: every vCPU busy with a fixed loop (200,000,000
		# additions each, no PAUSE, no I/O), host CPU seconds of the boot with it
		# and without it, at N x Q
	shift
	for nq in "$@"; do
		n=${nq%x*} q=${nq#*x}
		wall "loopboot-n$n-q$q" "${vm[@]}" --cpus "$n" --quantum "$q" --timeout 7200 -- true
		wall "loopload-n$n-q$q" "${vm[@]}" --cpus "$n" --quantum "$q" --timeout 7200 --share "$here" -- \
			smp-probe --mode loop --iterations 200000000 --json /host/overhead-n$n-q$q.json >/dev/null
	done
	;;
parallel)	# 8: 2 vCPUs, lockstep: the lock table's main point, off and task-shared at 50 us,
		# the precise rows of the default reference (results/default-20261206) run by
		# sweep-runner as run-all runs them, with 2 vCPUs instead of 1
	shift
	mkdir -p "$here/lt2"
	plan=$top/results/default-20261206/plan.tsv
	{
		grep -m1 '^id	' "$plan"
		for id in "$@"; do	# e.g. lt-c300-h400-off-50us-precise-r1
			awk -F'\t' -v id="$id" '$1 == id' "$plan" | grep . ||
				{ echo "run.sh parallel: no row $id in $plan" >&2; exit 2; }
		done
	} >"$here/lt2/plan.tsv"
	wall "lt2-$(echo "$@" | tr ' ' '+')" "${vm[@]}" --cpus 2 --timeout 14400 --share "$here/lt2" -- \
		sweep-runner --testbed precise /host/plan.tsv /host >"$here/lt2/sweep-runner.txt" 2>&1
	;;
*) echo "usage: run.sh speed|timers|pingpong|determinism|determinism8 [a|b]|stability|cost NxQ...|overhead NxQ...|parallel ROW-ID..." >&2; exit 2 ;;
esac
