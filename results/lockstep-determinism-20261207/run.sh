#!/bin/bash
# Amendment 1 of experiments/lockstep-prediction.md (issue 37): with the
# host's inputs closed (qemu/ patches 0003 and 0004, the RTC on the virtual
# clock), is the lockstep testbed deterministic? Predictions A, B, 4 and 5
# are in that file, committed before these runs.
#
#   run.sh bootid N        A: two boots at N vCPUs, no share; two with it
#   run.sh cause           B: the stock round robin at 1 vCPU, as it is and
#                             with -global virtio-pci.ioeventfd=off, twice each
#   run.sh det1            4: the determinism run at 1 vCPU: lockstep twice,
#                             the stock round robin (ioeventfd off) once
#   run.sh det8 a|b        5: the determinism run at 8 vCPUs, no share
#   run.sh det8share a|b   5: the same, with the share mounted and written to
#
# Each run writes NAME.txt (the guest's stdout: boot_id lines or the lock
# table's JSON) and NAME.err, and appends its wall and CPU seconds;
# `analyze` reads them into analysis.txt. Run from a clean, committed tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
vm=("$top/guest-image/vm-run" -q --clock precise)
wall() {	# NAME CMD...: run CMD with stdout to NAME.txt, stderr to NAME.err;
	# append "NAME WALL USER SYS" (host seconds of CMD and its children)
	local name=$1 TIMEFORMAT='%R %U %S' times
	shift
	{ times=$( { time "$@" >"$here/$name.txt" 2>"$here/$name.err"; } 2>&1 ); } || true
	echo "$name $times" >>"$here/seconds.txt"
}
# The guest's command for the boot_id runs: the id (the kernel's random pool
# holds every interrupt's timing), then a uuid drawn from the pool after a
# short lock table (20 clients, 20 hogs, seed 1); with a share, its JSON is
# written there.
bootid_cmd() {	# [JSON-PATH]
	echo "cat /proc/sys/kernel/random/boot_id &&
		sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 &&
		locktable --abi mainline --clients 20 --hogs 20 --duration 1 --warmup 0.2 --interval 0 --seed 1 \
			--json ${1:-/tmp/lt.json} | grep 'SQL exec/s' &&
		cat /proc/sys/kernel/random/uuid"
}
# The determinism run (the README's, 2026-12-04): 300 clients, 400 hogs,
# mainline 50 us, 1 s warm-up + 1 s, seed 1; its text to stderr, its JSON to
# stdout (or to JSON-PATH).
det_cmd() {	# [JSON-PATH]
	local json=${1:-/tmp/lt.json}
	echo "sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000 &&
		locktable --abi mainline --clients 300 --hogs 400 --duration 1 --warmup 1 --interval 0 --seed 1 \
			--json $json >&2 && cat $json"
}
ioeventfd_off=(--qemu-arg -global --qemu-arg virtio-pci.ioeventfd=off)

case ${1:-} in
bootid)	# A
	n=${2:?run.sh bootid N}
	for r in a b; do
		wall "bootid-n$n-$r" "${vm[@]}" --cpus "$n" --timeout 7200 -- sh -c "$(bootid_cmd)"
		mkdir -p "$here/share-n$n-$r"
		wall "bootid-n$n-share-$r" "${vm[@]}" --cpus "$n" --timeout 7200 --share "$here/share-n$n-$r" -- \
			sh -c "$(bootid_cmd /host/lt.json)"
	done
	;;
cause)	# B
	for r in a b; do
		wall "cause-q0-$r" "${vm[@]}" --cpus 1 --quantum 0 --timeout 3600 -- sh -c "$(bootid_cmd)"
		wall "cause-q0-ioeventfd-off-$r" "${vm[@]}" --cpus 1 --quantum 0 "${ioeventfd_off[@]}" \
			--timeout 3600 -- sh -c "$(bootid_cmd)"
	done
	;;
det1)	# 4
	for r in a b; do
		wall "det-n1-lockstep-$r" "${vm[@]}" --cpus 1 --timeout 7200 -- sh -c "$(det_cmd)"
	done
	wall det-n1-q0-ioeventfd-off "${vm[@]}" --cpus 1 --quantum 0 "${ioeventfd_off[@]}" --timeout 7200 -- \
		sh -c "$(det_cmd)"
	;;
det8)	# 5
	r=${2:?run.sh det8 a|b}
	wall "det-n8-$r" "${vm[@]}" --cpus 8 --timeout 14400 -- sh -c "$(det_cmd)"
	;;
det8share)	# 5, as run-all runs: the share mounted, the JSON written to it
	r=${2:?run.sh det8share a|b}
	mkdir -p "$here/share-det-n8-$r"
	wall "det-n8-share-$r" "${vm[@]}" --cpus 8 --timeout 14400 --share "$here/share-det-n8-$r" -- \
		sh -c "$(det_cmd /host/lt.json)"
	;;
*) echo "usage: run.sh bootid N | cause | det1 | det8 a|b | det8share a|b" >&2; exit 2 ;;
esac
