#!/bin/bash
# guest-image/sweep-runner in the guest, on a boot file (the flat file
# run-all writes per boot; slicebench/run.py: boot_file): a run that never
# finishes is killed at its own limit (with what it started), recorded as
# failed with the reason, and the boot goes on; a command that exits 0
# without its result, or that does not exist, fails alone; grant-trace
# leaves the tracepoints' output; the boot's set-up runs once and its value
# reaches the runs (the lock table's work speed); each run records its boot;
# a malformed boot file is refused before any run. Three boots.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"
cat >"$tmp/share/boot.runs" <<'EOF2'
# slicebench boot file
setup LOCKTABLE_UNITS_PER_US locktable --calibrate
run hang-r1 5 mainline 1 50000 never-delay-rt locktable --clients 2 --hogs 0 --duration 86400 --interval 0 --abi mainline --json hang-r1.json.tmp
run lc-r1 300 mainline 1 50000 never-delay-rt lock-cost --pairs 20000 --rounds 3 --abi mainline --json lc-r1.json.tmp
run quiet-r1 60 - - - - true
run odd-r1 60 - - - - frobnicate
run gt-r1 120 mainline 1 50000 never-delay-rt grant-trace gt-r1.trace -- locktable --clients 40 --hogs 40 --duration 2 --warmup 1 --interval 0 --abi mainline --json gt-r1.json.tmp
EOF2
printf 'run bad-r1 soon - - - - true\n' >"$tmp/share/bad.runs"

out=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/share" -- sh -c \
	'sweep-runner /host/boot.runs /host; echo "sweep-runner exit $?"; echo "left: $(ps | grep -c "[l]ocktable")"
	 sweep-runner /host/nothing.runs /host; echo "missing boot file exit $?"
	 sweep-runner /host/bad.runs /host; echo "bad boot file exit $?"' 2>&1)
rc=$?
is "the guest run ended cleanly (vm-run exit $rc)" "$rc" 0
like "sweep-runner exits 1: some runs failed" "$out" 'sweep-runner exit 1'
like "the hung run was killed at its limit, and said so" "$out" 'FAILED hang-r1: timeout: killed after its limit of 5s'
is "... recorded in hang-r1.failed" "$(cat "$tmp/share/raw/hang-r1.failed" 2>&1)" "timeout: killed after its limit of 5s"
ok "... with no JSON" test ! -e "$tmp/share/raw/hang-r1.json"
like "... and nothing it started is left" "$out" 'left: 0'
ok "the boot went on: the next run finished" bash -c "jq -e '.results.tas.median_ns > 0' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "... its command run as written, with the run's ABI" bash -c "jq -e '.header.abi == \"mainline\"' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "... its knobs set first" bash -c "jq -e '.header.extension_ns == 50000' '$tmp/share/raw/lc-r1.json' >/dev/null"
ok "a command that exits 0 without its result fails alone, saying so" grep -q 'exit 0 but no result' "$tmp/share/raw/quiet-r1.failed"
ok "a command that does not exist fails alone" grep -q 'exit 127' "$tmp/share/raw/odd-r1.failed"
ok "grant-trace: the locktable JSON" bash -c "jq -e '.results.kernel.granted > 0' '$tmp/share/raw/gt-r1.json' >/dev/null"
ok "grant-trace: the end tracepoints, one per grant" bash -c \
	"[ \$(grep -c 'slice_ext_[a-z]*: pid=.*len_ns=50000 ran_ns=' '$tmp/share/raw/gt-r1.trace') -ge \$(jq .results.kernel.granted '$tmp/share/raw/gt-r1.json') ]"
# The boot's work speed: measured once, given to every lock-table run.
units=$(printf '%s\n' "$out" | sed -n "s/^sweep-runner: LOCKTABLE_UNITS_PER_US=\([0-9.]*\) (locktable --calibrate)$/\1/p")
like "the boot's set-up: the lock table's work speed, measured once, before the runs" "$units" '^[0-9]+\.[0-9]$'
ok "... and given to the lock-table runs (grant-trace's locktable)" bash -c \
	"jq -e '.config.units_per_us_given and .config.units_per_us == $units' '$tmp/share/raw/gt-r1.json' >/dev/null"
ok "... and said in each run's output" grep -q "units/us, given)" "$tmp/share/raw/gt-r1.txt"
like "the summary counts the failures" "$out" '5 point\(s\) run now, 3 of them failed'
like "a missing boot file: exit 2" "$out" 'missing boot file exit 2'
like "a malformed boot file: exit 2, before any run" "$out" 'bad boot file exit 2'
ok "... naming the line" grep -q "not a boot file line" <<<"$out"
ok "... and running nothing" test ! -e "$tmp/share/raw/bad-r1.boot"
[ $_t_failed = 0 ] || diag "$out"

# Two boots, as run-all spreads each point's repeats over them
# (tools/plan-query boot-file --share K/N: repeats 1 and 3 in boot 1, 2 in
# boot 2): each run records the boot that ran it (raw/ID.boot, the
# kernel's boot_id), and a second pass over a boot file runs nothing twice.
mkdir -p "$tmp/q"
for r in 1 2 3; do
	for p in a b; do
		echo "run lc$p-r$r 300 none - - - lock-cost --pairs 20000 --rounds 3 --abi none --json lc$p-r$r.json.tmp"
	done
done >"$tmp/q/all.runs"
grep -e '-r[13] ' "$tmp/q/all.runs" >"$tmp/q/b1.runs"
grep -e '-r2 ' "$tmp/q/all.runs" >"$tmp/q/b2.runs"
out=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/q" -- sh -c \
	'sweep-runner /host/b1.runs /host >/host/b1.log 2>&1; echo "boot 1 exit $?"
	 sweep-runner /host/b1.runs /host >/host/b1-again.log 2>&1; echo "boot 1 again exit $?"' 2>&1)
like "boot 1 of 2 exits 0" "$out" 'boot 1 exit 0'
like "... run again, it has nothing left to run" "$(cat "$tmp/q/b1-again.log")" '0 point\(s\) run now, 0 of them failed, 4 done before'
out2=$("$VM_RUN" -q --cpus 2 --timeout 600 --share "$tmp/q" -- sh -c \
	'sweep-runner /host/b2.runs /host >/host/b2.log 2>&1; echo "boot 2 exit $?"' 2>&1)
like "boot 2 of 2 exits 0" "$out2" 'boot 2 exit 0'
is "boot 1 ran repeats 1 and 3" "$(grep -o '\] lc[ab]-r[0-9]$' "$tmp/q/b1.log" | sort | tr -d '] ' | tr '\n' ' ')" "lca-r1 lca-r3 lcb-r1 lcb-r3 "
is "boot 2 ran repeat 2" "$(grep -o '\] lc[ab]-r[0-9]$' "$tmp/q/b2.log" | sort | tr -d '] ' | tr '\n' ' ')" "lca-r2 lcb-r2 "
is "... every run has its result" "$(ls "$tmp/q/raw/"*.json 2>/dev/null | wc -l)" 6
is "each run records its boot: two boot_ids in all" "$(cat "$tmp/q/raw/"*.boot | sort -u | wc -l)" 2
is "... one for repeats 1 and 3" "$(cat "$tmp/q/raw/"*-r1.boot "$tmp/q/raw/"*-r3.boot | sort -u | wc -l)" 1
ok "... another for repeat 2" bash -c "! grep -qxf '$tmp/q/raw/lca-r1.boot' '$tmp/q/raw/lca-r2.boot'"
like "... a boot_id" "$(cat "$tmp/q/raw/lca-r1.boot")" '^[0-9a-f-]{36}$'
[ $_t_failed = 0 ] || diag "$out" "$out2"
done_testing
