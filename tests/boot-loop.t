#!/bin/bash
# The harness is reliable: consecutive boots, each with a multi-threaded
# load, end with no hang and no kernel splat. (The full 20-boot proof is
# `guest-image/boot-loop -n 20`; make check runs 3.)
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
out=$("$top/guest-image/boot-loop" -n "${SLICEBENCH_BOOT_LOOP:-3}" --cpus 4 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
is "boot-loop: every boot clean" "$rc" 0
done_testing
