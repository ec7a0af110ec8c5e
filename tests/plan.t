#!/bin/bash
# run-all's plan end to end (--dry-run: no build, no boot): the table it
# prints and the run records it writes, the seed and the main point in the
# plan's header, the drift check, a user's own experiment file, clear
# errors, and --reference from a clean tree only. What the presets plan,
# row by row, is tests/unit/test_plan.py's.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
ra=$top/run-all
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs() { tail -n +2 "$1"; }

out=$("$ra" --dry-run --seed 5 --name plan-test-$$ --plan-out "$tmp/p.jsonl")
is "run-all --dry-run exits 0" "$?" 0
like "... and prints the plan, a run a line, with its whole command" "$out" \
	'1       1  [a-z]+ +sweep  patched .* [0-9]+  [a-z0-9-]+-r1  [a-z-]+ '
is "... as many lines as run records" "$(($(wc -l <<<"$out") - 1))" "$(runs "$tmp/p.jsonl" | wc -l)"
is "the header records the seed, the experiment, the main point and the boots" \
	"$(head -1 "$tmp/p.jsonl" | jq -c '{seed, experiment, main_clients, main_hogs, main_work_in_ns, boots}')" \
	'{"seed":5,"experiment":"default","main_clients":300,"main_hogs":400,"main_work_in_ns":5000,"boots":2}'
ok "every record has the run's arm or alternative, knobs, params and command" bash -c \
	"tail -n +2 '$tmp/p.jsonl' | jq -e -s 'all(.[]; (.knobs | keys) == [\"abi\",\"ext_ns\",\"grant\",\"rt_policy\"] and
		(.params | type) == \"object\" and (.command | length) > 0 and .limit_s > 0)' >/dev/null"
"$ra" --dry-run --seed 5 --name plan-test-$$ --plan-out "$tmp/p2.jsonl" >/dev/null
ok "the same seed gives the same plan" cmp -s "$tmp/p.jsonl" "$tmp/p2.jsonl"
"$ra" --dry-run --seed 5 --boots 3 --name plan-test-$$ --plan-out "$tmp/p3.jsonl" >/dev/null
is "--boots 3 is recorded" "$(head -1 "$tmp/p3.jsonl" | jq .boots)" 3
# OPTION VALUE: what the error says (a regular expression).
while IFS=: read -r opt why; do
	read -r -a words <<<"$opt"
	err=$("$ra" --dry-run "${words[@]}" 2>&1)
	is "$opt: exit 2" "$?" 2
	like "... saying why" "$err" "$why"
done <<'EOF2'
--boots 0:--boots: not a positive number
--testbeds tcg:unknown testbed 'tcg' \(parallel, precise\)
--seed x:--seed: not a number
--bogus 3:unknown option '--bogus'
--clients 0:'0' is not a positive count
--alternatives mcs:unknown alternative 'mcs'
EOF2

# The drift check: a claim or section that names runs the plan does not
# make, or runs nothing reads.
out=$("$top/experiments/plan" --check 2>&1)
is "experiments/plan --check passes on the presets" "$?" 0
is "... each of them" "$(grep -c 'every arm it runs is read, every arm read is run' <<<"$out")" 7
cat >"$tmp/drift.py" <<'EOF2'
from experiments.default import Default


class Drift(Default):
    # swingbench-lite's extension-aware mutexes with --sweep-abis only
    # (off and mainline): Oracle's Swingbench claims name the others.
    def sbl_ext_abis(self, v):
        return v.sweep_abis

    def lt_main(self, v):
        yield from super().lt_main(v)
        yield self.ltp("lt-odd", v, "mainline", self.lt(v, 7, 7))


EXPERIMENT = Drift
EOF2
out=$("$top/experiments/plan" --check "$tmp/drift.py" 2>&1)
is "drift fails the check" "$?" 1
like "... naming the claim, its arm and the testbed" "$out" \
	"\\[claim\\.oracle-swingbench\\] names a arm \\(bench=swingbench-lite mutex=spin-ext abi=task-shared grant=1\\) that the plan does not run on the parallel testbed"
like "... and a run no section reads" "$out" "the plan runs lt-odd, which no section or claim reads"

# A user's own experiment file: a preset imported and changed.
cat >"$tmp/mine.py" <<'EOF2'
from experiments.quick import Quick


class Mine(Quick):
    axes = Quick.axes.replace(clients=[50])


EXPERIMENT = Mine
EOF2
"$ra" --dry-run --seed 1 --name plan-test-$$ --experiments "$tmp/mine.py" --plan-out "$tmp/mine.jsonl" >/dev/null
is "--experiments FILE: a preset, changed, plans from its own values" \
	"$(runs "$tmp/mine.jsonl" | jq -r 'select(.bench == "locktable") | .params.clients' | sort -u)" "50"
printf 'from experiments.default import Default\nEXPERIMENT = Default(\n' >"$tmp/broken.py"
err=$("$ra" --dry-run --experiments "$tmp/broken.py" 2>&1)
is "an experiment file that is not Python fails: exit 2" "$?" 2
like "... naming the file and the line" "$err" "broken.py:2: SyntaxError"
err=$("$ra" --dry-run --experiments "$tmp/none.py" 2>&1)
is "a missing experiment fails: exit 2" "$?" 2
like "... saying so" "$err" "no such experiment"
err=$("$ra" --dry-run --experiments experiments/quick.toml 2>&1)
is "a TOML experiment file (before issue 39): exit 2" "$?" 2
like "... saying where the experiment is now" "$err" "experiments are Python now \\(experiments/quick.py"

# What run-all is told of a plan (experiments/plan --estimates).
"$top/experiments/plan" --experiments postgres --testbeds parallel --seed 3 --plan /dev/null \
	--estimates "$tmp/pg.est" >/dev/null
is "postgres: run-all is told the guest's memory" "$(grep '^guest_mem=' "$tmp/pg.est")" "guest_mem=3G"
"$top/experiments/plan" --experiments postgres --testbeds parallel --seed 3 --plan "$tmp/pg.jsonl" >/dev/null
like "... and the host's steps: the server's image and the databases" \
	"$("$top/tools/plan-query" host-steps "$tmp/pg.jsonl" "$tmp/res" | cut -f3 | tr '\n' ';')" \
	"make --no-print-directory postgres-image;bench/postgres/make-data 32;"
is "... and what its guests need" "$("$top/tools/plan-query" vm-args "$tmp/pg.jsonl" | tr '\n' ' ')" \
	"--initrd build/initramfs-postgres.cpio.gz --data build/postgres/data "
is "... a plan without PostgreSQL: nothing for vm-run (not an empty argument)" \
	"$("$top/tools/plan-query" vm-args "$tmp/p.jsonl" | wc -c)" 0
"$top/tools/plan-query" boot-file "$tmp/p.jsonl" --testbed parallel --share 1/2 >"$tmp/b1.runs"
"$top/tools/plan-query" boot-file "$tmp/p.jsonl" --testbed parallel --share 2/2 >"$tmp/b2.runs"
is "the parallel testbed's boot files hold its sweep runs, once each" \
	"$(cat "$tmp/b1.runs" "$tmp/b2.runs" | awk '$1 == "run" { print $2 }' | sort | uniq -d | wc -l) $(cat "$tmp/b1.runs" "$tmp/b2.runs" | grep -c '^run ')" \
	"0 $(runs "$tmp/p.jsonl" | jq -r 'select(.testbed == "parallel" and .boot == "sweep") | .id' | wc -l)"
is "... each with the lock table's set-up once" "$(grep -c '^setup LOCKTABLE_UNITS_PER_US locktable --calibrate$' "$tmp/b1.runs")" 1
err=$("$top/tools/plan-query" boot-file "$tmp/p.jsonl" --testbed parallel --share 3/2 2>&1)
is "a share past the boots: exit 2" "$?" 2

# --reference: only from a clean, committed tree. A throwaway repository
# holding what a dry run needs, as this working tree has it.
ref=$tmp/ref
mkdir -p "$ref"
(cd "$top" && git ls-files -z run-all tools experiments report slicebench 'bench/*/bench.py' |
	xargs -0 tar -cf - '--exclude=*.md') | tar -xf - -C "$ref"
git -C "$ref" init -q && git -C "$ref" add -A && git -C "$ref" -c user.name=t -c user.email=t@t commit -qm ref
echo "# an edit" >>"$ref/experiments/default.py"
out=$("$ref/run-all" --reference --dry-run --name ref-test 2>&1)
is "run-all --reference from a tree that differs from its commit: exit 2" "$?" 2
like "... saying why and which files" "$out" 'a reference run comes from a clean, committed tree:.*experiments/default\.py'
git -C "$ref" checkout -q experiments/default.py
"$ref/run-all" --reference --dry-run --name ref-test >/dev/null 2>&1
is "... from the clean tree it plans" "$?" 0
out=$("$ra" --dry-run --name plan-test-$$ --previous no-such-run-$$ 2>&1)
is "run-all --previous naming no results folder: exit 2" "$?" 2
like "... saying so" "$out" "^run-all: --previous: no results/no-such-run-$$/environment.txt"
done_testing
