#!/bin/bash
# A benchmark is one folder: tests/fixtures/tiny-bench/knobs (its bench.py,
# script, metrics and a section kind of its own), found through
# SLICEBENCH_BENCH_PATH, runs through the planner, a guest (./run-all with
# the fixture's experiment file) and the report, and no file of the tree
# changes. The guest's knobs it reports must be those its run records set.
# One parallel boot.
# needs: guest
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

fx=$top/tests/fixtures/tiny-bench
name=ci-tiny-$$
results=$top/results/$name
tmp=$(mktemp -d)
trap 'rm -rf "$results" "$tmp"' EXIT
export SLICEBENCH_BENCH_PATH=$fx

tree() { git -C "$top" status --porcelain --untracked-files=all -- . ':!results' ':!build'; }
before=$(tree)

out=$("$top/run-all" --experiments "$fx/tiny.py" --name "$name" --report "$tmp/REPORT.md" 2>&1)
rc=$?
is "run-all with the fixture's experiment exits 0" "$rc" 0
[ $rc = 0 ] || diag "$(tail -30 <<<"$out")"
is "the plan has the fixture's 9 runs" "$(tail -n +2 "$results/plan.jsonl" 2>/dev/null | jq -r .bench | sort | uniq -c | xargs)" "9 knobs"
is "every run left its JSON" "$(ls "$results"/raw/kn-*.json 2>/dev/null | wc -l)" 9
ok "the bench's host step put its script in the results folder" test -s "$results/knobs.sh"
ok "each run saw the knobs its record set, and its parameter" bash -c \
	"tail -n +2 '$results/plan.jsonl' | while read -r rec; do
		id=\$(jq -r .id <<<\"\$rec\")
		jq -e --argjson r \"\$rec\" '.header.run_id == \$r.id and .results.abi == \$r.knobs.abi and
			.results.grant == \$r.knobs.grant and .results.ext_ns == \$r.knobs.ext_ns and
			.results.count == \$r.params.count' '$results/raw/'\$id.json >/dev/null || { echo \"# \$id\"; exit 1; }
	done"
report=$(cat "$tmp/REPORT.md" 2>/dev/null)
like "the report has the fixture spec's table" "$report" "## The extension each arm's guest had"
like "... each arm against its baseline on the bench's own metric" "$report" \
	'\| mainline 20 us \| 3 \| 20 ± 0 \| -60\.0% '
like "... and the bench's own section kind" "$report" "## Each run's knobs, asked and seen"
like "... with a row per run" "$(grep -c '^| kn-' <<<"$report")" '^(9|1[0-9])$'
is "no file of the tree changed" "$(tree)" "$before"

# Without the fixture's folder, its benchmark is unknown: a clear error.
out=$(SLICEBENCH_BENCH_PATH='' "$top/report/generate" "$results" 2>&1)
is "the report without SLICEBENCH_BENCH_PATH fails" "$?" 1
like "... naming the bench it cannot find and where it looked" "$out" \
	"plan.jsonl:2: unknown bench 'knobs' \\(no benchmark folder declares it: bench/NAME/bench.py, or a folder of \\\$SLICEBENCH_BENCH_PATH\\)"
done_testing
