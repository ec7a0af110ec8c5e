#!/bin/bash
# The benchmarks and their common code on the host, where no time slice
# extension exists and the library falls back to the ABI "none": short runs
# whose built-in correctness checks must pass, their JSON, and clear errors
# (exit 2 for bad options, 1 for an absent ABI or an unwritable --json)
# that lose nothing.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

bin=$top/build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# jq_true FILTER FILE (lib.sh's, but jq's own errors shown: a malformed
# file names itself in the log).
jq_true() { jq -e "$1" "$2" >/dev/null; }

# lib/bench's unit tests (TAP), renumbered into this suite.
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok "bench_test: ${line#ok * - }" true ;;
	"not ok "*) ok "bench_test: ${line#not ok * - }" false ;;
	esac
done < <("$bin/bench_test" "$tmp/bench_test.json")
ok "bench_test's JSON parses, with the shared header and a histogram" \
	jq_true '.header.tool == "bench_test" and .header.version != null and
		.results.all.count == 100000 and .results.quoted == "a \"b\"\\\n" and
		.results.nan == null and .results.list == [1, 2]' "$tmp/bench_test.json"
ok "... the histogram's buckets: counts summing to the count, ascending, each [lower, upper)" \
	jq_true '.results.all.buckets as $b | ([$b[][2]] | add) == 100000 and
		([$b[] | select(.[0] >= .[1])] | length) == 0 and
		([range(1; $b | length) | select($b[.][0] < $b[. - 1][1])] | length) == 0 and
		$b[0][0] == 1 and $b[-1][1] > 100000' "$tmp/bench_test.json"

# locktable: a short run with the ABI none.
out=$(timeout 120 "$bin/locktable" --clients 8 --hogs 2 --tables 4 --duration 1 --warmup 0 \
	--interval 1 --json "$tmp/lt.json" 2>&1)
rc=$?
is "locktable (ABI none) exits 0" "$rc" 0
like "locktable checks its tables" "$out" 'correctness: ok \(4 tables, [0-9]+ acquisitions'
like "locktable prints an interval line" "$out" '\[ +1s \] exec/s: [0-9]+'
ok "locktable's JSON: header, executions, wait percentiles, no grants, correct" \
	jq_true '.header.tool == "locktable" and .header.abi == "none" and
		.config.clients == 8 and .results.executions > 0 and
		.results.wait.count == .results.executions and
		.results.wait.p50_ns <= .results.wait.p99_ns and
		.results.library.granted == 0 and .results.kernel == null and
		.results.correct == true' "$tmp/lt.json"
# The work's speed: measured (--calibrate), given (--units-per-us, or the
# environment's LOCKTABLE_UNITS_PER_US, which sweep-runner sets once per
# boot), and refused when it is not a number in range.
like "locktable --calibrate prints the work's speed" "$("$bin/locktable" --calibrate 2>&1)" '^[0-9]+\.[0-9]$'
out=$(LOCKTABLE_UNITS_PER_US=250 timeout 120 "$bin/locktable" -c 2 -H 0 -t 2 -d 1 -W 0 -I 0 --abi none \
	--json "$tmp/lt-units.json" 2>&1)
like "LOCKTABLE_UNITS_PER_US gives the speed, and the output says so" "$out" '\(250 units/us, given\)'
ok "... and the JSON" jq_true '.config.units_per_us == 250 and .config.units_per_us_given' "$tmp/lt-units.json"
out=$(LOCKTABLE_UNITS_PER_US=250 timeout 120 "$bin/locktable" --units-per-us 400 -c 2 -H 0 -t 2 -d 1 -W 0 -I 0 --abi none 2>&1)
like "--units-per-us wins over the environment" "$out" '\(400 units/us, given\)'
out=$(timeout 120 "$bin/locktable" -c 2 -H 0 -t 2 -d 1 -W 0 -I 0 --abi none 2>&1)
like "without either, each run calibrates itself" "$out" 'units/us, calibrated\)'
for bad in 0 abc 1e9 ""; do
	out=$(LOCKTABLE_UNITS_PER_US=$bad "$bin/locktable" -d 1 2>&1)
	rc=$?
	if [ -z "$bad" ]; then
		is "LOCKTABLE_UNITS_PER_US empty: refused (exit 2)" "$rc" 2
	else
		is "LOCKTABLE_UNITS_PER_US=$bad: refused (exit 2)" "$rc" 2
	fi
done
like "... with a message naming it" "$out" 'LOCKTABLE_UNITS_PER_US'
out=$("$bin/locktable" --units-per-us 0 -d 1 2>&1)
is "--units-per-us 0: exit 2" "$?" 2
out=$(timeout 120 "$bin/locktable" -c 4 -H 0 -t 2 -d 1 -W 0 -I 0 --lock ticket --skew 1.2 \
	--extend-waiting 2>&1)
like "locktable with ticket locks, a skewed choice and -w is correct" "$out" 'correctness: ok'
# Every lock kind keeps mutual exclusion under contention: 8 clients on one
# table with 1 us of work under the lock and none outside, beside 2 hogs,
# and the row sums and acquisition counts must match. (A spin-then-futex
# lock that took the lock by a plain store after its spin failed this in 2
# of 3 one-second runs, so the runs are 2 s.)
for lock in tas ticket futex yield pthread adaptive; do
	out=$(timeout 120 "$bin/locktable" -c 8 -H 2 -t 1 -i 1 -o 0 -d 2 -W 0 -I 0 --lock "$lock" --spin-us 50 \
		--json "$tmp/lt-$lock.json" 2>&1)
	is "locktable --lock $lock exits 0" "$?" 0
	ok "... its tables are correct, contended, and its JSON names the lock" \
		jq_true ".results.correct == true and .results.contended > 0 and .config.lock == \"$lock\"" \
		"$tmp/lt-$lock.json"
done
# Each hog policy: the hogs put themselves under it and check it from
# inside (sched_getscheduler(), getpriority()).
for pol in other nice19 idle batch; do
	timeout 120 "$bin/locktable" -c 2 -H 3 -t 2 -d 1 -W 0 -I 0 --hog-policy "$pol" \
		--json "$tmp/lt-hog-$pol.json" >/dev/null 2>&1
	ok "locktable --hog-policy $pol: all 3 hogs found themselves under it" \
		jq_true ".config.hog_policy == \"$pol\" and .results.hogs_under_policy == 3" "$tmp/lt-hog-$pol.json"
done

# extend-sched: Rostedt's fields, seed 001's format.
out=$(timeout 120 "$bin/extend-sched" --duration 1 --noise 2 --json "$tmp/es.json" 2>&1)
rc=$?
is "extend-sched (ABI none) exits 0" "$rc" 0
for field in "Ran for [0-9]+ times" "Total wait time: [0-9.]+  \(avg: [0-9.]+\)" \
	"Total contention: [0-9]+" "Total extended: 0" "      max wait: [0-9]+" \
	"           max: [0-9]+ \(avg: [0-9]+\)" "correctness: ok"; do
	like "extend-sched prints '$field'" "$out" "$field"
done
ok "extend-sched's JSON: iterations, wait and hold, correct" \
	jq_true '.header.tool == "extend-sched" and .results.iterations > 0 and
		.results.hold.count == .results.iterations and .results.correct == true' "$tmp/es.json"
out=$(timeout 60 "$bin/extend-sched" --disable -w -d 1 --noise 0 2>&1)
like "extend-sched --disable -w says -w has no effect" "$out" '-w has no effect with --disable'

# lock-cost: the uncontended cost, and no grants.
out=$(timeout 120 "$bin/lock-cost" --pairs 20000 --rounds 3 --json "$tmp/lc.json" 2>&1)
is "lock-cost exits 0" "$?" 0
ok "lock-cost's JSON has the four loops and no grants" \
	jq_true '([.results.plain, .results.section, .results.tas, .results.ticket] |
		all(.median_ns > 0)) and .results.grants == 0' "$tmp/lc.json"
timeout 120 "$bin/lock-cost" --pairs 20000 --rounds 3 --loop tas --json "$tmp/lc1.json" >/dev/null 2>&1
ok "lock-cost --loop tas measures that loop alone" \
	jq_true '.results | keys == ["grants", "tas"]' "$tmp/lc1.json"

# Bad input: a clear message and the right status, before any work.
expect_fail() {	# DESC STATUS REGEX CMD...
	local desc=$1 want=$2 re=$3 out rc
	shift 3
	out=$(timeout 30 "$@" 2>&1)
	rc=$?
	is "$desc: exit $want" "$rc" "$want"
	like "$desc: says why" "$out" "$re"
}
expect_fail "locktable --clients 0" 2 'clients: 0 is out of range' "$bin/locktable" --clients 0
expect_fail "locktable --work-in 5us" 2 "work-in: '5us' is not a number" "$bin/locktable" --work-in 5us
expect_fail "locktable --abi nosuch" 2 "unknown ABI 'nosuch'" "$bin/locktable" --abi nosuch
expect_fail "locktable --lock mcs" 2 "unknown kind 'mcs'" "$bin/locktable" --lock mcs
expect_fail "locktable --hog-policy fifo" 2 "unknown policy 'fifo'" "$bin/locktable" --hog-policy fifo
expect_fail "locktable --spin-us -1" 2 "spin-us" "$bin/locktable" --spin-us -1
expect_fail "locktable --lock pthread -w" 2 "not with --lock pthread" "$bin/locktable" --lock pthread -w
expect_fail "locktable stray argument" 2 "unexpected argument 'extra'" "$bin/locktable" extra
expect_fail "locktable --bogus" 2 'usage: locktable' "$bin/locktable" --bogus
expect_fail "locktable --abi mainline on a kernel without it" 1 'no time slice extension' \
	"$bin/locktable" --abi mainline -d 1 -W 0
expect_fail "extend-sched --disable --abi rseq-cr" 2 'contradicts --abi rseq-cr' \
	"$bin/extend-sched" --disable --abi rseq-cr
expect_fail "extend-sched --cpus 1000" 2 "CPUs are online" "$bin/extend-sched" --cpus 1000
expect_fail "extend-sched --duration -1" 2 'out of range' "$bin/extend-sched" --duration -1
expect_fail "lock-cost --abi task-shared on a kernel without it" 1 'no time slice extension' \
	"$bin/lock-cost" --abi task-shared
expect_fail "lock-cost --pairs x" 2 "'x' is not a whole number" "$bin/lock-cost" --pairs x
expect_fail "lock-cost --loop spin" 2 "unknown loop 'spin'" "$bin/lock-cost" --loop spin
# An unwritable --json fails at start-up, not after the run.
start=$SECONDS
expect_fail "locktable --json into a missing folder" 1 'cannot write' \
	"$bin/locktable" --duration 60 --json "$tmp/missing/x.json"
ok "... and fails before running (not after its 60 s)" test $((SECONDS - start)) -lt 30
for b in locktable extend-sched lock-cost; do
	ok "$b --help lists the defaults" bash -c "'$bin/$b' --help | grep -q 'default'"
done
# unused-cost: on lib/bench like the others.
out=$(timeout 120 "$bin/unused-cost" -r 3 --syscalls 1000 --switches 100 --yields 1000 --preempt-ms 10 --json "$tmp/uc.json" 2>&1)
is "unused-cost exits 0" "$?" 0
ok "unused-cost's JSON: the shared header and the four loops" \
	jq_true '.header.tool == "unused-cost" and .header.abi == "none" and (.header.argv | length) == 13 and
		.config.rounds == 3 and .config.opt_in == "none" and .config.rseq_v2 == 0 and .results.syscall.median_ns > 0 and
		.results.sched_yield.median_ns > 0 and .results.switch.median_ns > 0 and (.results | has("preempt"))' "$tmp/uc.json"
ok "... and how long it waited for the clocksource it timed with" \
	jq_true '.setup.clocksource_waited_s >= 0 and .config.settle_s == 30' "$tmp/uc.json"
expect_fail "unused-cost --opt-in with an unknown ABI" 2 "^unused-cost: --opt-in: unknown ABI 'bogus'" \
	"$bin/unused-cost" --opt-in bogus
expect_fail "unused-cost --rseq-v2 with --opt-in, before the run" 2 "^unused-cost: --rseq-v2 and --opt-in" \
	"$bin/unused-cost" --rseq-v2 --opt-in mainline
expect_fail "unused-cost --json into a missing folder, before the run" 1 'cannot write /nonexistent' \
	"$bin/unused-cost" --syscalls 100000000 --json /nonexistent/uc.json
expect_fail "unused-cost --settle-s -1" 2 '^unused-cost: --settle-s: -1 is out of range' "$bin/unused-cost" --settle-s -1
expect_fail "unused-cost --rounds 2" 2 '^unused-cost: --rounds: 2 is out of range' "$bin/unused-cost" --rounds 2

# sleep-overshoot: the same, and a histogram of every sleep's overrun.
out=$(timeout 60 "$bin/sleep-overshoot" --count 50 --sleep-us 20 --json "$tmp/so.json" 2>&1)
is "sleep-overshoot exits 0" "$?" 0
like "sleep-overshoot says what it measured" "$out" '50 sleeps of 20 us: overshoot p50 [0-9.]+ us'
ok "sleep-overshoot's JSON: the shared header and one overrun per sleep" \
	jq_true '.header.tool == "sleep-overshoot" and .config.count == 50 and .config.sleep_us == 20 and
		.results.overshoot.count == 50 and ([.results.overshoot.buckets[][2]] | add) == 50' "$tmp/so.json"
expect_fail "sleep-overshoot --count 0" 2 '^sleep-overshoot: --count: 0 is out of range' "$bin/sleep-overshoot" --count 0
expect_fail "sleep-overshoot -n (no short options of its own)" 2 'invalid option' "$bin/sleep-overshoot" -n 5
done_testing
