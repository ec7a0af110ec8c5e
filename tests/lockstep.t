#!/bin/bash
# The lockstep precise testbed (qemu/series, vm-run --clock precise --cpus N):
# every vCPU runs at the clock's speed whatever their number, timers stay
# exact on every vCPU, and a store reaches another vCPU within about one
# quantum. Guest-time figures are icount's, deterministic, so they are
# asserted. Two 4-vCPU boots (quantum 1000 and 4000), two identical 2-vCPU
# boots (nothing from the host reaches the guest), and one 2-vCPU boot of
# the stock round robin (--quantum 0), against which the first checks fail.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jqt() { jq -e "$@" >/dev/null; }

# --- QEMU's own option checks (no guest) ---------------------------------------
qemu=$("$top/qemu/build" --print-binary)
ok "the lockstep QEMU is built and current" "$top/qemu/build" --check
err=$("$qemu" -icount shift=0,sleep=on,quantum=1000 -machine none -display none -nodefaults </dev/null 2>&1)
like "QEMU refuses a quantum with sleep=on" "$err" 'quantum needs a fixed shift and sleep=off'
err=$("$qemu" -icount shift=auto,sleep=off,quantum=1000 -machine none -display none -nodefaults </dev/null 2>&1)
like "... and with shift=auto" "$err" 'quantum needs a fixed shift|shift=auto and sleep=off'
err=$("$qemu" -icount shift=0,sleep=off,quantum=2000000000 -machine none -display none -nodefaults </dev/null 2>&1)
like "... and one over 10^9 instructions" "$err" 'quantum 2000000000 is over 1000000000'

# --- vm-run's options (no guest) -------------------------------------------------
err=$("$VM_RUN" --quantum 1000 -- true 2>&1)
is "vm-run: --quantum without --clock precise is a usage error" "$?" 2
like "... saying so" "$err" 'only --clock precise has a quantum'
err=$("$VM_RUN" --clock precise --quantum 1e3 -- true 2>&1)
is "vm-run: --quantum 1e3 is a usage error" "$?" 2
like "... naming the range" "$err" '--quantum: want 0 to 1000000 instructions'
err=$("$VM_RUN" --clock precise --qemu /nonexistent -- true 2>&1)
is "vm-run: --qemu of a missing file is a usage error" "$?" 2

# --- quantum 1000, 4 vCPUs ---------------------------------------------------------
probe() {	# the guest's script: loops at 1 and 4 threads, ping-pong both ways, sleeps on CPU 3
	echo 'echo "nproc: $(nproc)" &&'
	echo "smp-probe --mode loop --threads 1 --iterations 2000000 --json /host/loop1.json >/dev/null &&"
	echo "smp-probe --mode loop --threads 4 --iterations 2000000 --json /host/loop4.json >/dev/null &&"
	echo "smp-probe --mode pingpong --cpus 0,1 --count 500 --json /host/pp01.json >/dev/null &&"
	echo "smp-probe --mode pingpong --cpus 3,2 --count 500 --json /host/pp32.json >/dev/null &&"
	echo "sleep-overshoot --cpu 3 --count 300 --sleep-us 50 --json /host/so3.json >/dev/null"
}
mkdir -p "$tmp/q1000" "$tmp/q4000" "$tmp/rr"
script=$(probe)
out=$("$VM_RUN" -q --clock precise --cpus 4 --timeout 1200 --share "$tmp/q1000" -- sh -c "$script" 2>&1)
rc=$?
is "a 4-vCPU lockstep boot runs its probes (vm-run exit $rc)" "$rc" 0
[ $rc = 0 ] || diag "$out"
like "the guest sees 4 CPUs" "$out" 'nproc: 4'
like "the JSON header names the testbed: precise clock, lockstep quantum, QEMU build" \
	"$(jq -r '.header.kernel_cmdline' "$tmp/q1000/loop4.json" 2>/dev/null)" \
	'slicebench\.clock=precise-shift0 slicebench\.smp=lockstep-q1000 slicebench\.qemu=[^ ]*lockstep-[0-9a-f]{16}'
one=$(jq '.results.mean_ns' "$tmp/q1000/loop1.json" 2>/dev/null)
four_max=$(jq '.results.max_ns' "$tmp/q1000/loop4.json" 2>/dev/null)
four_min=$(jq '.results.min_ns' "$tmp/q1000/loop4.json" 2>/dev/null)
diag "loop, guest ns: 1 thread $one; 4 pinned threads min $four_min, max $four_max"
ok "four pinned loops each take their 1-vCPU guest time within 1% (not 4 times it)" \
	jqt --argjson one "${one:-0}" '$one > 0 and (.results.thread_ns | all(. > 0.99 * $one and . < 1.01 * $one))' \
	"$tmp/q1000/loop4.json"
for pp in pp01 pp32; do
	p50=$(jq '.results.round_trip.p50_ns' "$tmp/q1000/$pp.json" 2>/dev/null)
	diag "ping-pong $pp at quantum 1000: p50 ${p50:-?} ns"
	ok "ping-pong ${pp#pp}: a round trip is about one quantum (p50 $p50 ns in 700-1300)" \
		test "${p50:-0}" -ge 700 -a "${p50:-0}" -le 1300
done
so=$(jq '.results.overshoot.p50_ns' "$tmp/q1000/so3.json" 2>/dev/null)
ok "a 50 us sleep on CPU 3 of 4 overshoots by the wakeup path only (p50 $so ns, 2-5 us)" \
	test "${so:-0}" -ge 2000 -a "${so:-0}" -le 5000
ok "... and never by a quantum more (p99 under 10 us)" \
	jqt '.results.overshoot.p99_ns < 10000' "$tmp/q1000/so3.json"

# --- quantum 4000: the round trip follows the quantum --------------------------------
out=$("$VM_RUN" -q --clock precise --cpus 4 --quantum 4000 --timeout 1200 --share "$tmp/q4000" -- \
	smp-probe --mode pingpong --cpus 0,1 --count 500 --json /host/pp01.json 2>&1)
is "a 4-vCPU boot at quantum 4000 (vm-run exit $?)" "$?" 0
p50=$(jq '.results.round_trip.p50_ns' "$tmp/q4000/pp01.json" 2>/dev/null)
diag "ping-pong 01 at quantum 4000: p50 ${p50:-?} ns"
ok "at quantum 4000 a round trip is about 4000 ns (p50 $p50 in 3700-4300)" \
	test "${p50:-0}" -ge 3700 -a "${p50:-0}" -le 4300

# --- determinism: nothing from the host reaches the guest --------------------------------
# Two 2-vCPU boots of one command, the shared folder mounted and written to:
# the kernel's boot_id (its random pool holds every interrupt's timing), a
# short lock table's result, and a uuid drawn from the pool after it, agree
# exactly (amendment 1 of experiments/lockstep-prediction.md: no virtio
# ioeventfd, 9p replies before the kick returns, the RTC on the virtual clock).
det() {	# NAME: one boot; prints boot_id, the lock table's line, a uuid
	mkdir -p "$tmp/det-$1"
	"$VM_RUN" -q --clock precise --cpus 2 --timeout 1200 --share "$tmp/det-$1" -- sh -c \
		'cat /proc/sys/kernel/random/boot_id &&
		 sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 &&
		 locktable --abi mainline --clients 20 --hogs 20 --duration 1 --warmup 0.2 --interval 0 --seed 1 \
			--json /host/lt.json | grep "SQL exec/s" &&
		 cat /proc/sys/kernel/random/uuid' 2>&1
}
det_a=$(det a)
rc=$?
is "a 2-vCPU boot writing to the shared folder (vm-run exit $rc)" "$rc" 0
det_b=$(det b)
rc=$?
is "... and the same boot again (vm-run exit $rc)" "$rc" 0
diag "first:  $(echo $det_a)"
diag "second: $(echo $det_b)"
is "... prints three lines: boot_id, the lock table's result, a uuid" "$(echo "$det_a" | grep -c .)" 3
is "two boots of one command are the same run: boot_id, result and uuid agree" "$det_b" "$det_a"
like "... and both wrote their JSON through the share" \
	"$(jq -r '.results.execs_per_s' "$tmp/det-a/lt.json" "$tmp/det-b/lt.json" 2>/dev/null | tr '\n' ' ')" '^[0-9.]+ [0-9.]+ $'

# --- quantum 0: QEMU's stock round robin, for contrast -----------------------------------
out=$("$VM_RUN" --clock precise --cpus 2 --quantum 0 --timeout 1200 --share "$tmp/rr" -- sh -c \
	"smp-probe --mode loop --threads 1 --iterations 2000000 --json /host/loop1.json >/dev/null &&
	 smp-probe --mode loop --threads 2 --iterations 2000000 --json /host/loop2.json >/dev/null" 2>&1)
is "a 2-vCPU boot of the stock round robin (vm-run exit $?)" "$?" 0
like "... and vm-run says why that is not a faithful SMP machine" "$out" 'stock round robin runs one vCPU at a time'
like "... its header says round robin" \
	"$(jq -r '.header.kernel_cmdline' "$tmp/rr/loop2.json" 2>/dev/null)" 'slicebench\.smp=roundrobin'
one=$(jq '.results.mean_ns' "$tmp/rr/loop1.json" 2>/dev/null)
diag "stock round robin, loop guest ns: 1 thread $one; 2 threads max $(jq '.results.max_ns' "$tmp/rr/loop2.json" 2>/dev/null)"
ok "there, two pinned loops take longer than one alone (by over 30%): the clock sums the vCPUs" \
	jqt --argjson one "${one:-0}" '$one > 0 and .results.max_ns > 1.3 * $one' "$tmp/rr/loop2.json"
done_testing
