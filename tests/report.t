#!/bin/bash
# report/generate on fixture results folders: the environment table, the
# trust section, and clear errors for malformed input.
. "$(dirname "$0")/lib.sh"
gen=$top/report/generate
# A copy: the generator writes plots into the results folder.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/tests/fixtures/results" "$tmp/"
fx=$tmp/results

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
# A sweep: tables from raw JSON, against numbers computed by hand. Off runs
# 100, 110, 120 SQL exec/s (mean 110, sd 10), mainline 150, 160, 170 (160,
# 10): change (160 - 110) / 110 = +45.5%; Welch t = 50 / sqrt(100/3 + 100/3)
# = 6.12 on 4 df, two-sided p = 0.0036. Preemptions while holding per 1000
# executions: 10, 20, 30 (20 ± 10) and 1, 2, 3 (2 ± 1).
out=$("$gen" "$fx/sweep" 2>&1)
is "a sweep folder renders" "$?" 0
like "the off row: mean ± sd, baseline" "$out" '\| off-50us \| 110\.0 ± 10\.0 \| baseline \|'
like "the mainline row: mean ± sd, change and p" "$out" '\| mainline-50us \| 160\.0 ± 10\.0 \| \+45\.5% \| 0\.004 \|'
like "preemptions while holding per 1000 executions" "$out" '20\.00 ± 10\.00 \|.*\n?.*2\.00 ± 1\.00'
like "wait mean in us" "$out" '\| 2000\.0 ± 1000\.0 \|'
like "claims absent from the run say so" "$out" 'Rostedt extend-sched: iterations \*\*\+13\.7%\*\* \(rseq-cr, 50 us\) \| not measured'
like "the sweep table: off" "$out" '\| 300 \| 400 \| off \| 110\.0 ± 10\.0 \| baseline \| \|'
like "the sweep table: mainline, change and p" "$out" '\| 300 \| 400 \| mainline \| 160\.0 ± 10\.0 \| \+45\.5% \| 0\.004 \|'
# Host preemption: two vCPU threads sampled every 10 s; each waits 1 s per
# 10 s during the three off runs (10%) and 0.5 s during the mainline runs
# (5%), and runs 8 s per 10 s (2 x 0.8 = 1.6 host CPUs).
like "host preemption: mean, median and worst run" "$out" \
	'on average 7\.5% of the wall time runnable but waiting for a host CPU \(median run 7\.5%, worst 10\.0%'
like "host preemption: host CPUs used" "$out" 'used 1\.60 host CPUs per second'
like "host preemption per point: off" "$out" '\| lt-c300-h400-off-50us \| 10\.0% \|'
like "host preemption per point: mainline" "$out" '\| lt-c300-h400-mainline-50us \| 5\.0% \|'
# Grant durations from the tracepoints: three expired 5 us grants that ran
# 100, 200 and 300 us: p50 200 us, p90 and max 300 us.
like "how long grants last" "$out" '\| 5\.0 us \| expire \| 3 \| 200\.0 us \| 300\.0 us \| 300\.0 us \|'

err=$("$gen" "$fx/sweep-missing-field" 2>&1 >/dev/null)
is "a result without its field fails" "$?" 1
like "the error names the file and the field" "$err" 'sweep-missing-field/raw/lt-c300-h400-off-50us-r2\.json: field \.results\.execs_per_s is missing'
err=$("$gen" "$fx/sweep-bad-json" 2>&1 >/dev/null)
is "a result that is not JSON fails" "$?" 1
like "the error names the file" "$err" 'sweep-bad-json/raw/lt-c300-h400-mainline-50us-r3\.json: not valid JSON'
# Failed runs are listed with their reason, and a point with fewer runs than
# planned says so beside its numbers: mainline r3 timed out, off r3 never
# finished (no result, no reason).
cp -r "$fx/sweep" "$fx/sweep-failed"
rm "$fx/sweep-failed/raw/lt-c300-h400-mainline-50us-r3.json" "$fx/sweep-failed/raw/lt-c300-h400-off-50us-r3.json"
echo "timeout: killed after its limit of 84s" >"$fx/sweep-failed/raw/lt-c300-h400-mainline-50us-r3.failed"
out=$("$gen" "$fx/sweep-failed" 2>&1)
is "a folder with failed runs renders" "$?" 0
like "the failed runs are listed, with the reason" "$out" \
	'## Failed runs.*\| `lt-c300-h400-mainline-50us-r3` \| timeout: killed after its limit of 84s \|'
like "... and a run that never finished says so" "$out" '\| `lt-c300-h400-off-50us-r3` \| no result: the run did not finish'
like "the point shows it has 2 of its 3 runs" "$out" '\| mainline-50us \| 155\.0 ± 7\.1 \(\*\*2 of 3 runs\*\*\)'
unlike "a complete folder has no failed-runs section" "$("$gen" "$fx/sweep" 2>&1)" '## Failed runs'
done_testing
