#!/bin/bash
# guest-image/sweep-runner in the guest, on a typed plan: a run that never
# finishes is killed at its own limit (with what it started), recorded as
# failed with the reason, and the sweep goes on; a row without a limit, or
# with a bench no adapter knows, fails alone; fresh-boot rows are left to
# their own boots; the grant-trace adapter leaves the tracepoints' output;
# --boot K/N runs its share of the repeats and each run records its boot;
# the lock table's work speed is measured once per boot and given to its
# lock-table runs.
# Three boots.
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
# The boot's work speed: measured once, given to every lock-table run.
units=$(printf '%s\n' "$out" | sed -n "s/.*the lock table's work speed in this boot: \([0-9.]*\) units\/us.*/\1/p" | head -1)
like "the boot's lock-table work speed is measured once, before the runs" "$units" '^[0-9]+\.[0-9]$'
ok "... and given to the lock-table runs (grant-trace's locktable)" bash -c \
	"jq -e '.config.units_per_us_given and .config.units_per_us == $units' '$tmp/share/raw/gt-r1.json' >/dev/null"
ok "... and said in each run's output" grep -q "units/us, given)" "$tmp/share/raw/gt-r1.txt"
like "the summary counts the failures" "$out" '5 point\(s\) run now, 3 of them failed'
like "a missing plan: exit 2" "$out" 'missing plan exit 2'
[ $_t_failed = 0 ] || diag "$out"

# Two boots (--boot K/N, as run-all spreads each point's repeats): boot 1
# of 2 runs repeats 1 and 3, boot 2 repeat 2, and each run records the
# boot that ran it (raw/ID.boot, the kernel's boot_id).
mkdir -p "$tmp/q"
{
	echo "# slicebench plan"
	row id repeat order bench testbed kernel boot abi grant ext_ns rt_policy clients hogs hog_policy work_in_ns lock mutex profile extend_waiting limit_s argv
	for r in 1 2 3; do
		for p in a b; do
			row "lc$p-r$r" "$r" "$r$p" lock-cost parallel patched sweep none 1 - - - - - - - - - - 300 "--pairs 20000 --rounds 3"
		done
	done
} >"$tmp/q/plan.tsv"
out=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/q" -- sh -c \
	'sweep-runner --boot 1/2 /host/plan.tsv /host >/host/b1.log 2>&1; echo "boot 1 exit $?"
	 for bad in 0/2 3/2 x 1/0 1/ 2; do sweep-runner --boot $bad /host/plan.tsv /host >/dev/null 2>&1; echo "--boot $bad exit $?"; done' 2>&1)
like "boot 1 of 2 exits 0" "$out" 'boot 1 exit 0'
for bad in 0/2 3/2 x 1/0 1/ 2; do
	like "--boot $bad: exit 2" "$out" "--boot $bad exit 2"
done
out2=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/q" -- sh -c \
	'sweep-runner --boot 2/2 /host/plan.tsv /host >/host/b2.log 2>&1; echo "boot 2 exit $?"' 2>&1)
like "boot 2 of 2 exits 0" "$out2" 'boot 2 exit 0'
is "boot 1 ran repeats 1 and 3" "$(grep -o '\] lc[ab]-r[0-9]$' "$tmp/q/b1.log" | sort | tr -d '] ' | tr '\n' ' ')" "lca-r1 lca-r3 lcb-r1 lcb-r3 "
is "boot 2 ran repeat 2" "$(grep -o '\] lc[ab]-r[0-9]$' "$tmp/q/b2.log" | sort | tr -d '] ' | tr '\n' ' ')" "lca-r2 lcb-r2 "
is "... every row has its result" "$(ls "$tmp/q/raw/"*.json 2>/dev/null | wc -l)" 6
is "each run records its boot: two boot_ids in all" "$(cat "$tmp/q/raw/"*.boot | sort -u | wc -l)" 2
is "... one for repeats 1 and 3" "$(cat "$tmp/q/raw/"*-r1.boot "$tmp/q/raw/"*-r3.boot | sort -u | wc -l)" 1
ok "... another for repeat 2" bash -c "! grep -qxf '$tmp/q/raw/lca-r1.boot' '$tmp/q/raw/lca-r2.boot'"
like "... a boot_id" "$(cat "$tmp/q/raw/lca-r1.boot")" '^[0-9a-f-]{36}$'
[ $_t_failed = 0 ] || diag "$out" "$out2"
done_testing
