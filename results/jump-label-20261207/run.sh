#!/bin/bash
# Real static keys on the precise testbed (experiments/jump-label-prediction.md,
# committed before these runs): a boot loop and five toggle runs of the
# patched kernel built with kernel/build --jump-label, lockstep at 4 vCPUs.
#
#   run.sh config | bootloop | toggle
#
# Run from a clean, committed tree; each part writes NAME.txt and NAME.err.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernel=$("$top/kernel/build" --jump-label --print-image)
[ -f "$kernel" ] || { echo "run.sh: build it first: kernel/build --jump-label" >&2; exit 2; }
vm=("$top/guest-image/vm-run" -q --clock precise --cpus 4 --kernel "$kernel" --timeout 3600)
toggle_cmd='grep -o "TTWU_QUEUE" /sys/kernel/debug/sched/features | head -1 &&
	all-cpus-load --seconds 5 >/tmp/load.txt 2>&1 & load=$!
	for i in $(seq 200); do
		echo NO_TTWU_QUEUE >/sys/kernel/debug/sched/features || exit 1
		echo TTWU_QUEUE >/sys/kernel/debug/sched/features || exit 1
	done
	for i in $(seq 100); do
		sysctl -q -w kernel.slice_ext_abi=none && sysctl -q -w kernel.slice_ext_abi=mainline || exit 1
	done
	wait $load; rc=$?
	grep -c "^ok" /tmp/load.txt; grep "^not ok" /tmp/load.txt; echo "load exit $rc"; exit $rc'
case ${1:-} in
config)
	grep -x 'CONFIG_JUMP_LABEL=y' "$(dirname "$kernel")/../obj-slicebench-jump-label/.config" >"$here/config.txt"
	cat "$(dirname "$kernel")/release" >>"$here/config.txt"
	;;
bootloop)
	{ time "$top/guest-image/boot-loop" -n 10 --cpus 4 --timeout 1800 -- \
		--clock precise --kernel "$kernel" >"$here/bootloop.txt" 2>"$here/bootloop.err"; } 2>"$here/bootloop.time" || true
	;;
toggle)
	for r in 1 2 3 4 5; do
		rc=0
		"${vm[@]}" -- sh -c "$toggle_cmd" >"$here/toggle-$r.txt" 2>"$here/toggle-$r.err" || rc=$?
		echo "vm-run exit $rc" >>"$here/toggle-$r.txt"
	done
	;;
*) echo "usage: run.sh config | bootloop | toggle" >&2; exit 2 ;;
esac
