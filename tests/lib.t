#!/bin/bash
# lib/slice on the host: mutual exclusion, nesting, the none back end, and
# clear errors for an ABI the kernel does not offer (the host kernel has no
# time slice extension). TAP from the test program itself.
# needs: host
top=$(cd "$(dirname "$0")/.." && pwd)
exec timeout 300 "$top/build/bin/slice_test"
