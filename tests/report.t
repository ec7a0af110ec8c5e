#!/bin/bash
# report/generate on fixture results folders: the environment table, the
# trust section, and clear errors for malformed input.
. "$(dirname "$0")/lib.sh"
gen=$top/report/generate
fx=$top/tests/fixtures/results

out=$("$gen" "$fx/minimal" 2>&1)
is "a complete results folder renders" "$?" 0
ok "the environment table has the guest kernel" grep -q '| guest_kernel_release | `6.12.118-slicebench` |' <<<"$out"
ok "the trust section names TCG and the oversubscription" grep -q '4 vCPU threads share 2 host CPU' <<<"$out"

err=$("$gen" "$fx/bad-line" 2>&1 >/dev/null)
is "a malformed line fails" "$?" 1
ok "the error names the file and line" grep -q 'bad-line/environment.txt:2:' <<<"$err"

err=$("$gen" "$fx/missing-field" 2>&1 >/dev/null)
is "a missing field fails" "$?" 1
ok "the error names the field" grep -q "field 'accelerator' is missing" <<<"$err"

"$gen" "$fx/does-not-exist" >/dev/null 2>&1
is "a missing folder fails" "$?" 1
done_testing
