#!/bin/bash
# The precise testbed: the wall cost of its shifts, its determinism and its
# independence from host load. The lock table at the main point (300
# clients, 400 hogs, mainline at 50 us, 1 s warm-up + 1 s), 1 vCPU. First
# icount shift 0, 1 and 2 with the host idle (wall cost); then, at shift 0,
# the same seed three times, seeds 2 and 3, and seed 1 twice with both host
# cores busy. Each run's JSON and output, and its wall time, go to this
# folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
run() {	# NAME SEED [SHIFT]
	local t0=$(date +%s.%N)
	"$top/guest-image/vm-run" -q --clock precise --icount-shift "${3:-0}" --timeout 1800 --share "$here" -- sh -c "
		sysctl -q -w kernel.slice_ext_abi=mainline kernel.slice_ext_grant=1 kernel.slice_ext_nsec=50000
		locktable --abi mainline --clients 300 --hogs 400 --duration 1 --warmup 1 --interval 0 --seed $2 --json /host/$1.json >/host/$1.txt"
	echo "$1 $(echo "$(date +%s.%N) - $t0" | bc)" >>"$here/wall-seconds.txt"
}
: >"$here/wall-seconds.txt"
run shift0 1 0
run shift1 1 1
run shift2 1 2
run same-seed1-a 1
run same-seed1-b 1
run same-seed1-c 1
run seed2 2
run seed3 3
# Both host cores busy for the last two.
for i in 1 2; do (while :; do :; done) & done
trap 'kill $(jobs -p) 2>/dev/null' EXIT
run loaded-seed1-a 1
run loaded-seed1-b 1
