#!/bin/bash
# guest-image/sweep-runner in the guest: a run that never finishes is
# killed at its own limit (with what it started), recorded as failed with
# the reason, and the sweep goes on; a plan line without a limit fails that
# run alone. One boot.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"
t=$(printf '\t')
{
	echo "hang-r1${t}hang${t}hang-forever${t}none${t}1${t}50000${t}never-delay-rt${t}5${t}--seconds 100000"
	echo "lc-r1${t}lc${t}lock-cost${t}none${t}1${t}50000${t}never-delay-rt${t}300${t}--pairs 20000 --rounds 3"
	echo "nolimit-r1${t}nolimit${t}lock-cost${t}none${t}1${t}50000${t}never-delay-rt${t}${t}--pairs 20000 --rounds 3"
} >"$tmp/share/plan.tsv"

out=$("$VM_RUN" -q --cpus 1 --timeout 600 --share "$tmp/share" -- sh -c \
	'sweep-runner /host/plan.tsv /host; echo "sweep-runner exit $?"; echo "left: $(ps | grep -c "[s]leep 10000")"' 2>&1)
rc=$?
is "the guest run ended cleanly (vm-run exit $rc)" "$rc" 0
like "sweep-runner exits 1: some runs failed" "$out" 'sweep-runner exit 1'
like "the hung run was killed at its limit, and said so" "$out" 'FAILED hang-r1: timeout: killed after its limit of 5s'
is "... recorded in hang-r1.failed" "$(cat "$tmp/share/raw/hang-r1.failed" 2>&1)" "timeout: killed after its limit of 5s"
ok "... with no JSON" test ! -e "$tmp/share/raw/hang-r1.json"
like "... and nothing it started is left" "$out" 'left: 0'
ok "the sweep went on: the next run finished" bash -c "jq -e '.results.tas.median_ns > 0' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "a run without a limit in the plan fails alone" grep -q 'no time limit' "$tmp/share/raw/nolimit-r1.failed"
like "the summary counts both failures" "$out" '3 point\(s\) run now, 2 of them failed'
[ $_t_failed = 0 ] || diag "$out"
done_testing
