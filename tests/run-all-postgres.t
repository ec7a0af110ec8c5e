#!/bin/bash
# ./run-all's PostgreSQL path end to end (issue 25): experiments/postgres.py
# at its smallest (pgbench -S, 1 client per vCPU, no hogs, scale 1, one run
# of each arm in one boot): make-data builds the database on the host, the
# guest boots with the PostgreSQL image, 3 GB and the database on /data,
# each run's JSON is checked against its arm, and the report has the
# PostgreSQL sections. The numbers of so short a sweep mean nothing; the
# pipeline is what is tested.
# needs: guest postgres
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

name=ci-postgres-$$
results=$top/results/$name
tmp=$(mktemp -d)
trap 'rm -rf "$results" "$tmp"' EXIT

out=$("$top/run-all" --experiments postgres --testbeds parallel --modes select \
	--clients-per-vcpu 1 --hogs-per-vcpu 0 --scale 1 --repeats 1 --boots 1 --duration 2 \
	--name "$name" --report "$tmp/REPORT.md" 2>&1)
rc=$?
is "run-all --experiments postgres (the smallest point) exits 0" "$rc" 0
[ $rc = 0 ] || diag "$(tail -30 <<<"$out")"
is "the plan: one run per arm" "$(tail -n +2 "$results/plan.jsonl" 2>/dev/null | jq -r .id | sort | tr '\n' ' ')" \
	"pg-select-c2-h0-control-r1 pg-select-c2-h0-huge-r1 pg-select-c2-h0-mainline-50us-r1 pg-select-c2-h0-mainline-5us-r1 pg-select-c2-h0-off-r1 "
is "the guest had the experiment's memory" "$(sed -n 's/^guest_mem: //p' "$results/environment.txt")" "3G"
raw=$results/raw
json() { echo "$raw/pg-select-c2-h0-$1-r1.json"; }
every_run_checked() {
	local f
	for f in "$raw"/pg-*.json; do
		jq_true '.results.ok == true and .results.balanced == true and .results.tps > 0 and
			.results.lib.bad_depth == 0 and .config.mode == "select" and .config.clients == 2' "$f" ||
			{ diag "$f"; return 1; }
	done
}
headers_match_arms() {
	jq_true '.header.abi == "none"' "$(json control)" &&
		jq_true '.header.abi == "mainline" and .header.kernel_grant == false' "$(json off)" &&
		jq_true '.header.kernel_grant == true and .header.extension_ns == 5000' "$(json mainline-5us)" &&
		jq_true '.header.kernel_grant == true and .header.extension_ns == 50000' "$(json mainline-50us)"
}
ok "every run passed pgbench's and the server's checks (exit status, balances, section depth)" every_run_checked
ok "each run's header is its arm: the control asks through no ABI, off has the kernel's grants off" headers_match_arms
ok "... the huge-pages arm ran the server with huge_pages=on, the others without" \
	eval 'jq_true ".config.huge_pages == true" "$(json huge)" && jq_true ".config.huge_pages == false" "$(json off)"'
ok "... grants off and the control: the kernel granted nothing" \
	eval 'jq_true ".results.kernel.granted == 0" "$(json off)" && jq_true ".results.kernel.granted == 0" "$(json control)"'
ok "... the control's backends asked for nothing" \
	jq_true '.results.lib.grants == 0 and .results.lib.yields == 0' "$(json control)"
ok "the database came from make-data on the host (scale 1)" test -s "$top/build/postgres/data/s1/PG_VERSION"
report=$(cat "$tmp/REPORT.md" 2>/dev/null)
for section in "## PostgreSQL under pgbench: every arm against off" "## What this means for the April 2026 question" \
	"## Predicted against measured: experiments/postgres-prediction.md" "## Appendix: every run"; do
	like "the report has '$section'" "$report" "$section"
done
for arm in "4k-pages off" "huge-pages off" "4k-pages no ABI" "4k-pages mainline 5 us" "4k-pages mainline 50 us"; do
	like "... a TPS row for '$arm'" "$report" "\\| $arm \\| 1 \\| [0-9]"
done
like "... the April question: this sweep has none of its runs, and the report says so" "$report" \
	"No run of this folder answers it: none of its findings' runs \\(The preemption model alone"
done_testing
