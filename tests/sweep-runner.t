#!/bin/bash
# guest-image/sweep-runner in the guest, on a typed plan: a run that never
# finishes is killed at its own limit (with what it started), recorded as
# failed with the reason, and the sweep goes on; a row without a limit, or
# with a bench no adapter knows, fails alone; fresh-boot rows are left to
# their own boots; the grant-trace adapter leaves the tracepoints' output.
# One boot.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"
t=$(printf '\t')
row() { local IFS=$t; echo "$*"; }
{
	echo "# slicebench plan"
	echo "# seed: 1"
	row id repeat order bench testbed kernel boot abi grant ext_ns rt_policy clients hogs hog_policy work_in_ns lock mutex profile extend_waiting limit_s argv
	row hang-r1 1 1 locktable parallel patched sweep mainline 1 50000 never-delay-rt 2 0 other 5000 tas - - - 5 "--clients 2 --hogs 0 --duration 86400 --interval 0"
	row lc-r1 1 2 lock-cost parallel patched sweep mainline 1 50000 never-delay-rt - - - - - - - - 300 "--pairs 20000 --rounds 3"
	row nolimit-r1 1 3 lock-cost parallel patched sweep none 1 - - - - - - - - - - - "--pairs 20000 --rounds 3"
	row odd-r1 1 4 frobnicate parallel patched sweep none 1 - - - - - - - - - - 60 ""
	row fresh-r1 1 5 unused-cost parallel stock fresh none 0 - - - - - - - - - - 60 "--rounds 3"
	row gt-r1 1 6 grant-trace parallel patched sweep mainline 1 50000 never-delay-rt 40 40 other 5000 tas - - - 120 "--clients 40 --hogs 40 --duration 2 --warmup 1 --interval 0"
} >"$tmp/share/plan.tsv"

out=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/share" -- sh -c \
	'sweep-runner /host/plan.tsv /host; echo "sweep-runner exit $?"; echo "left: $(ps | grep -c "[l]ocktable")"
	 sweep-runner /host/nothing.tsv /host; echo "missing plan exit $?"' 2>&1)
rc=$?
is "the guest run ended cleanly (vm-run exit $rc)" "$rc" 0
like "sweep-runner exits 1: some runs failed" "$out" 'sweep-runner exit 1'
like "the hung run was killed at its limit, and said so" "$out" 'FAILED hang-r1: timeout: killed after its limit of 5s'
is "... recorded in hang-r1.failed" "$(cat "$tmp/share/raw/hang-r1.failed" 2>&1)" "timeout: killed after its limit of 5s"
ok "... with no JSON" test ! -e "$tmp/share/raw/hang-r1.json"
like "... and nothing it started is left" "$out" 'left: 0'
ok "the sweep went on: the next run finished" bash -c "jq -e '.results.tas.median_ns > 0' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "... through the lock-cost adapter, with the row's ABI" bash -c "jq -e '.header.abi == \"mainline\"' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "a row without a limit fails alone" grep -q 'no time limit' "$tmp/share/raw/nolimit-r1.failed"
ok "a bench without an adapter fails alone, named" grep -q "no adapter for the bench 'frobnicate'" "$tmp/share/raw/odd-r1.failed"
ok "a fresh-boot row is not run in the sweep's boot" test ! -e "$tmp/share/raw/fresh-r1.txt"
ok "grant-trace: the locktable JSON" bash -c "jq -e '.results.kernel.granted > 0' '$tmp/share/raw/gt-r1.json' >/dev/null"
ok "grant-trace: the end tracepoints, one per grant" bash -c \
	"[ \$(grep -c 'slice_ext_[a-z]*: pid=.*len_ns=50000 ran_ns=' '$tmp/share/raw/gt-r1.trace') -ge \$(jq .results.kernel.granted '$tmp/share/raw/gt-r1.json') ]"
like "the summary counts the failures" "$out" '5 point\(s\) run now, 3 of them failed'
like "a missing plan: exit 2" "$out" 'missing plan exit 2'
[ $_t_failed = 0 ] || diag "$out"

# Two runners sharing one queue (--claim, as run-all's precise guests do):
# every row runs once, in whichever runner claims it first.
mkdir -p "$tmp/q"
{
	echo "# slicebench plan"
	row id repeat order bench testbed kernel boot abi grant ext_ns rt_policy clients hogs hog_policy work_in_ns lock mutex profile extend_waiting limit_s argv
	for i in 1 2 3 4 5 6; do
		row "lc$i-r1" 1 "$i" lock-cost parallel patched sweep none 1 - - - - - - - - - - 300 "--pairs 20000 --rounds 3"
	done
} >"$tmp/q/plan.tsv"
out=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/q" -- sh -c \
	'sweep-runner --claim /host/claims /host/plan.tsv /host >/host/a.log 2>&1 & a=$!
	 sweep-runner --claim /host/claims /host/plan.tsv /host >/host/b.log 2>&1; b=$?
	 wait $a; echo "exits $? $b"' 2>&1)
like "two runners on one queue both exit 0" "$out" 'exits 0 0'
is "... every row has its result" "$(ls "$tmp/q/raw/"*.json 2>/dev/null | wc -l)" 6
is "... and ran once: six runs between the two" "$(cat "$tmp/q/a.log" "$tmp/q/b.log" | grep -c '^\[point .*\] lc[0-9]-r1$')" 6
done_testing
