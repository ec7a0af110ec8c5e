#!/bin/bash
# ./run-all --smoke end to end: the plan, two parallel boots sharing the
# repeats (--boots 2), one precise boot,
# raw JSON per run, the report with every section, and resuming (a second
# run with the same name runs nothing). The numbers of a smoke sweep mean
# nothing; the pipeline is what is tested.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=ci-smoke-$$
results=$top/results/$name
tmp=$(mktemp -d)
trap 'rm -rf "$results" "$tmp"' EXIT
# The report goes elsewhere: the working tree's report/REPORT.md is the user's.
before=$(stat -c %Y "$top/report/REPORT.md" 2>/dev/null || echo none)

out=$("$top/run-all" --smoke --name "$name" --report "$tmp/REPORT.md" 2>&1)
rc=$?
is "run-all --smoke exits 0" "$rc" 0
[ $rc = 0 ] || diag "$(tail -30 <<<"$out")"
planned=$(tail -n +2 "$results/plan.jsonl" 2>/dev/null | wc -l)
got=$(ls "$results"/raw/*.json 2>/dev/null | wc -l)
ok "the plan has points" test "$planned" -gt 10
is "every planned run left its JSON" "$got" "$planned"
like "progress lines name the point, its number and the time" "$out" '\[point [0-9]+/[0-9]+, [0-9]+s(, ETA [0-9]+s)?\] lt-c20-h20-off-50us-r1'
# Each .kstats: "=== before", the six counters, "=== after", the six again.
ok "every run recorded the kernel's counters before and after" bash -c \
	"for f in '$results'/raw/*.kstats; do
		[ \"\$(grep -c -E '^(granted|denied|expired|yielded|revoked|aborted) [0-9]+$' \"\$f\")\" -ge 12 ] &&
		grep -q '=== before' \"\$f\" && grep -q '=== after' \"\$f\" || { echo \"# \$f\"; exit 1; }
	done"
ok "the grants of the mainline point show in its counters" bash -c \
	"awk '/^=== after/ { a = 1 } /^granted / { if (a) g += \$2; else g -= \$2 } END { exit !(g > 0) }' \
		'$results/raw/lt-c20-h20-mainline-50us-r1.kstats'"
is "the working tree's report/REPORT.md was not touched" \
	"$(stat -c %Y "$top/report/REPORT.md" 2>/dev/null || echo none)" "$before"
ok "the environment has the guest kernel and the accelerator" \
	grep -q -E '^guest_kernel_release: .*-slicebench$' "$results/environment.txt"
report=$(cat "$tmp/REPORT.md" 2>/dev/null)
for section in "## Claims against our measurements" "## The lock table at the main point" "## extend-sched" \
	"## swingbench-lite" "## The cost to others" "## The fast path" "## How long grants last" \
	"## How far to trust the numbers" "## Appendix: every run" "## Environment"; do
	like "the report has '$section'" "$report" "$section"
done
like "the claims table has a verdict for the lock table" "$(grep "^| Oracle's lock table" <<<"$report")" \
	'\*\*(consistent with the claim|smaller than claimed|larger than claimed|no effect|inconclusive|opposite to the claim|not measured|not answered here|too few runs)\*\*'
ok "the folder keeps the experiment it ran" bash -c "jq -e '.name == \"smoke\" and (.section | has(\"lt-main\")) and .values.clients == [20]' '$results/experiment.json' >/dev/null"
like "... and the report says it read it" "$report" 'What ran and what is compared: its `experiment.json` \(experiment smoke\)'
like "the alternatives table: the smoke's futex lock with the extension, against off and the extension" "$report" \
	'\| spin-then-futex lock \+ mainline \| [0-9]+ \| [^|]* \| [^|]*\*\*(better|worse|no difference resolved|inconclusive|too few runs)\*\* \| [^|]*\*\*'
ok "the hogs-idle alternative's hogs found themselves under SCHED_IDLE" bash -c \
	"jq -e '.config.hog_policy == \"idle\" and .results.hogs_under_policy == 20' '$results'/raw/lt-c20-h20-alt-hogs-idle-r1.json"
ok "the report's plots exist" test -s "$results/plots/lt-main.png"
ok "the precise testbed ran in its own guests: its runs' headers name the precise clock" \
	bash -c "jq -e '.header.kernel_cmdline | test(\"slicebench.clock=precise\")' '$results/raw/lt-c20-h20-mainline-50us-precise-r1.json' >/dev/null"
like "the report answers on both testbeds" "$report" 'every arm against off, on the precise testbed \(1 vCPU, icount\)'
like "... and says which testbed answers what" "$report" 'Which testbed answers what.*Measured here: on the parallel testbed'
ok "the parallel testbed's runs are not on the precise clock" bash -c \
	"! jq -e '.header.kernel_cmdline | test(\"slicebench.clock\")' '$results/raw/lt-c20-h20-mainline-50us-r1.json' >/dev/null"
ok "the grant traces were recorded" bash -c "grep -q 'slice_ext_yield\|slice_ext_expire' '$results'/raw/gt-*.trace"
# --boots 2 (the default): repeat 1 in the parallel testbed's first boot,
# repeat 2 in its second; every run records its boot.
is "every run recorded its boot" "$(ls "$results"/raw/*.boot 2>/dev/null | wc -l)" "$planned"
is "the parallel testbed ran in two boots, one per repeat" \
	"$(cat "$results"/raw/lt-c20-h20-off-50us-r1.boot "$results"/raw/lt-c20-h20-mainline-50us-r1.boot | sort -u | wc -l) $(cat "$results"/raw/lt-c20-h20-off-50us-r[12].boot | sort -u | wc -l)" "1 2"
ok "... logged as vm-1 and vm-2" test -d "$results/vm-1" -a -d "$results/vm-2"
like "the report counts the boots per testbed" "$report" 'the boots that ran the sweep: on the parallel testbed \(multi-threaded TCG\) 2; on the precise testbed \(1 vCPU, icount\) 1\.'

out=$("$top/run-all" --smoke --name "$name" --report "$tmp/REPORT.md" 2>&1)
is "running it again exits 0" "$?" 0
unlike "... and resumes with nothing left to run (no boot)" "$out" 'sweep-runner|\[point '

# (hf-*.json is hyperfine's own export, with no header of ours.)
ok "every run's JSON header names the commit, the kernel's configuration, the preset and its run record" bash -c \
	"for f in '$results'/raw/*.json; do
		[[ \$f == */hf-* ]] && continue
		jq -e --arg c \"\$(sed -n 's/^project_commit: //p' '$results/provenance.txt')\" \\
			--arg k \"\$(sed -n 's/^kernel_config_sha256: //p' '$results/provenance.txt')\" \\
			--arg id \"\$(basename \"\$f\" .json)\" \\
			'.header | .project_commit == \$c and .kernel_config_sha256 == \$k and .preset == \"smoke\" and .run_id == \$id and
				(.project_dirty | type) == \"boolean\" and (\$c | length) >= 12' \"\$f\" >/dev/null || exit 1
	done"

# A folder that another commit started is not resumed, unless forced.
sed -i 's/^project_commit: .*/project_commit: 0123456789ab/' "$results/provenance.txt"
rm "$results"/raw/lt-c20-h20-off-50us-r2.json
out=$("$top/run-all" --smoke --name "$name" --report "$tmp/REPORT.md" 2>&1)
is "resuming a folder another commit started is refused" "$?" 2
like "... saying which commit started it" "$out" 'started by another commit or kernel:.*then: project_commit: 0123456789ab'
out=$("$top/run-all" --smoke --name "$name" --force-resume --report "$tmp/REPORT.md" 2>&1)
is "--force-resume resumes it" "$?" 0
like "... and the report says so" "$(cat "$tmp/REPORT.md")" 'Mixed provenance.*0123456789ab'

out=$("$top/run-all" --smoke --name "$name" --repeats 3 --report "$tmp/REPORT.md" 2>&1)
is "the same name with another plan is refused" "$?" 2
like "... saying why" "$out" 'exists with another plan'
done_testing
