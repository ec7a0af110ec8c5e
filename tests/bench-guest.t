#!/bin/bash
# The lock benchmarks in the guest, on the patched kernel: for each ABI made
# live, short locktable and extend-sched runs with the grant switch on and
# off. With it on, the library and the kernel both see grants; with it off,
# requests are denied and nothing is granted. Every run's own correctness
# check must pass. Then a short swingbench-lite run on extension-aware
# SQLite mutexes, which must stay consistent. One boot; results come back as
# JSON through --share.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"

abis=(rseq-cr task-shared mainline)
cat >"$tmp/share/smoke.sh" <<'EOF'
set -u
k=/proc/sys/kernel
for abi in "$@"; do
	echo "$abi" >$k/slice_ext_abi || exit 1
	for grant in 1 0; do
		echo "$grant" >$k/slice_ext_grant || exit 1
		echo "=== $abi grant=$grant"
		locktable --abi "$abi" --clients 12 --hogs 12 --tables 2 --work-in 20 --work-out 5 \
			--duration 2 --warmup 1 --interval 0 --json "/host/lt-$abi-$grant.json" ||
			echo "locktable-failed $abi $grant"
		extend-sched --abi "$abi" --duration 2 --json "/host/es-$abi-$grant.json" ||
			echo "extend-sched-failed $abi $grant"
	done
	echo 1 >$k/slice_ext_grant
	lock-cost --abi "$abi" --pairs 20000 --rounds 3 --json "/host/lc-$abi.json" ||
		echo "lock-cost-failed $abi"
	slice-fork --abi "$abi" --children 4 --duration 1 >"/host/fork-$abi.txt" 2>&1 ||
		echo "slice-fork-failed $abi"
done
extend-sched -w --abi mainline --duration 2 --json /host/es-mainline-w.json ||
	echo "extend-sched-failed mainline -w"
echo mainline >$k/slice_ext_abi
# Linux 7.0's rules: the library uses glibc's 32-byte rseq area as it is.
echo 7.0 >$k/rseq_rules || exit 1
locktable --abi mainline --clients 12 --hogs 12 --tables 2 --work-in 20 --work-out 5 \
	--duration 2 --warmup 1 --interval 0 --json /host/lt-mainline-rules70.json ||
	echo "locktable-failed mainline rules 7.0"
echo 7.1 >$k/rseq_rules || exit 1
# The other lock kinds, extension-aware (mainline), and the hog policies.
for lock in futex yield pthread adaptive; do
	locktable --abi mainline --lock "$lock" --clients 12 --hogs 12 --tables 2 --work-in 20 \
		--work-out 5 --duration 2 --warmup 1 --interval 0 --json "/host/lt-lock-$lock.json" ||
		echo "locktable-failed lock $lock"
done
for pol in nice19 idle batch; do
	locktable --abi mainline --hog-policy "$pol" --clients 4 --hogs 6 --tables 2 \
		--duration 1 --warmup 0 --interval 0 --json "/host/lt-hog-$pol.json" ||
		echo "locktable-failed hog policy $pol"
done
swingbench-lite --abi mainline --mutex spin-ext --clients 50 --hogs 8 --scale 0.05 --duration 3 \
	--warmup 1 --interval 0 --json /host/sbl.json || echo "swingbench-lite-failed"
swingbench-lite --abi mainline --mutex futex-ext --clients 50 --hogs 8 --scale 0.05 --duration 3 \
	--warmup 1 --interval 0 --json /host/sbl-futex-ext.json || echo "swingbench-lite-failed futex-ext"
swingbench-lite --abi mainline --mutex spin-ext --profile buffer-latches --clients 48 --hogs 8 --scale 0.1 \
	--duration 3 --warmup 1 --interval 0 --json /host/sbl-bl.json || echo "swingbench-lite-failed buffer-latches"
EOF

out=$("$VM_RUN" -q --cpus 2 --timeout 900 --share "$tmp/share" -- \
	sh /host/smoke.sh "${abis[@]}" 2>&1)
rc=$?
is "the guest run ended cleanly (vm-run exit $rc)" "$rc" 0
failed_runs=$(grep -E -- '-failed( |$)' <<<"$out")
is "every benchmark run exited 0" "$failed_runs" ""
[ -z "$failed_runs" ] || diag "$out"

for abi in "${abis[@]}"; do
	lt1=$tmp/share/lt-$abi-1.json lt0=$tmp/share/lt-$abi-0.json
	es1=$tmp/share/es-$abi-1.json es0=$tmp/share/es-$abi-0.json
	for f in "$lt1" "$lt0" "$es1" "$es0"; do
		ok "$abi: $(basename "$f") is correct (its own check)" jq_true '.results.correct == true' "$f"
	done
	ok "$abi: the header names the ABI, live in the kernel" \
		jq_true ".header.abi == \"$abi\" and .header.kernel_abi == \"$abi\"" "$lt1"
	ok "$abi, grants on: locktable's library saw grants, and the kernel granted" \
		jq_true '.results.library.granted > 0 and .results.kernel.granted > 0' "$lt1"
	ok "$abi, grants on: the library yielded for its grants, and the kernel saw the yields" \
		jq_true '.results.library.yields > 0 and .results.library.yields == .results.library.granted and
			.results.kernel.yielded > 0' "$lt1"
	ok "$abi, grants on: extend-sched was extended" \
		jq_true '.results.extended > 0 and .results.kernel.granted > 0' "$es1"
	ok "$abi, grants off: no grant in locktable, by the library or the kernel" \
		jq_true '.header.kernel_grant == false and .results.library.granted == 0 and
			.results.kernel.granted == 0' "$lt0"
	ok "$abi, grants off: requests were seen and denied" \
		jq_true '.results.kernel.denied > 0' "$lt0"
	ok "$abi, grants off: extend-sched was never extended" \
		jq_true '.results.extended == 0 and .results.kernel.granted == 0' "$es0"
	like "$abi: forked children of a set-up process take extension-aware locks, none killed" \
		"$(cat "$tmp/share/fork-$abi.txt" 2>&1)" "slice-fork: $abi, 4 children, all ok"
	ok "$abi: lock-cost ran with the ABI" \
		jq_true ".header.abi == \"$abi\" and .results.tas.median_ns > 0" "$tmp/share/lc-$abi.json"
	for f in "$lt1" "$es1"; do
		diag "$abi $(basename "$f"): $(jq -c '{lib: .results.library, kernel: .results.kernel}' "$f" 2>/dev/null)"
	done
done
ok "mainline under 7.1's rules (the default), the header says so" \
	jq_true '.header.mainline_rules == "7.1"' "$tmp/share/lt-mainline-1.json"
ok "mainline under 7.0's rules: correct, granted and yielded, the header says so" \
	jq_true '.header.mainline_rules == "7.0" and .results.correct == true and
		.results.library.granted > 0 and .results.kernel.yielded > 0' \
	"$tmp/share/lt-mainline-rules70.json"
ok "extend-sched -w (mainline): correct, and extended" \
	jq_true '.config.extend_waiting == true and .results.correct == true and
		.results.extended > 0' "$tmp/share/es-mainline-w.json"
for lock in futex yield pthread adaptive; do
	ok "--lock $lock (mainline): mutual exclusion held under contention, and grants were made" \
		jq_true ".config.lock == \"$lock\" and .results.correct == true and .results.contended > 0 and
			.results.kernel.granted > 0" "$tmp/share/lt-lock-$lock.json"
done
for pol in nice19 idle batch; do
	ok "--hog-policy $pol: the 6 hogs found themselves under it, inside the guest" \
		jq_true ".config.hog_policy == \"$pol\" and .results.hogs_under_policy == 6" \
		"$tmp/share/lt-hog-$pol.json"
done
ok "swingbench-lite, 50 clients, spin-ext (mainline): consistent, statements ran" \
	jq_true '.results.consistent == true and .results.sql > 0 and .config.mutex == "spin-ext"' \
	"$tmp/share/sbl.json"
ok "swingbench-lite's SQLite mutexes were extended, and yielded" \
	jq_true '.results.library.granted > 0 and .results.kernel.granted > 0 and
		.results.library.yields > 0 and .results.kernel.yielded > 0' "$tmp/share/sbl.json"
ok "swingbench-lite's grants are attributed to the classes of mutex whose release ended them" \
	jq_true '(.results.mutexes | map(.window.grants) | add) > 0 and
		(.results.mutexes | map(.window.grants) | add) <= .results.library.granted + 50' "$tmp/share/sbl.json"
ok "swingbench-lite buffer-latches (mainline): consistent, and its bucket latches were contended and granted" \
	jq_true '.results.consistent == true and .config.profile == "buffer-latches" and .config.shards == 6 and
		([.results.mutexes[] | select(.name | test("bucket latches")) | .window.contended] | add) > 0 and
		([.results.mutexes[] | select(.name | test("bucket latches")) | .window.grants] | add) > 0' \
	"$tmp/share/sbl-bl.json"
ok "swingbench-lite, futex-ext (mainline): consistent, and its SQLite mutexes were extended" \
	jq_true '.results.consistent == true and .config.mutex == "futex-ext" and
		.results.library.granted > 0 and .results.kernel.granted > 0' "$tmp/share/sbl-futex-ext.json"
diag "swingbench-lite: $(jq -c '{sql_per_s: .results.sql_per_s, lib: .results.library, kernel: .results.kernel}' "$tmp/share/sbl.json" 2>/dev/null)"
done_testing
