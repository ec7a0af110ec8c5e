#!/bin/bash
# The precise testbed's timer overshoot at icount shift 0, 1 and 2:
# sleep-overshoot, 2000 sleeps of 50 us, 1 vCPU. JSON per shift here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for s in 0 1 2; do
	"$top/guest-image/vm-run" -q --clock precise --icount-shift $s --timeout 600 --share "$here" -- \
		sleep-overshoot --count 2000 --sleep-us 50 --json /host/overshoot-shift$s.json
done
