#!/bin/bash
# run-all's plan (--dry-run, no build, no boot): the typed columns, the
# seeded random order within each repeat, and the rows each option makes.
. "$(dirname "$0")/lib.sh"
ra=$top/run-all
cols="id	repeat	order	bench	testbed	kernel	boot	abi	grant	ext_ns	rt_policy	clients	hogs	hog_policy	work_in_ns	lock	mutex	profile	extend_waiting	limit_s	argv"
rows() { grep -v '^#' <<<"$1" | tail -n +2; }

# The experiment files make the plans the bash planner made (commit
# da2c42b; tests/fixtures/plans/), row for row: the default's cases with its
# one intended change reverted (tests/fixtures/plans/before.toml).
fx=$top/tests/fixtures/plans
while IFS=$'\t' read -r case args; do
	[[ $case == \#* || -z $case ]] && continue
	# shellcheck disable=SC2086
	case $args in
	--quick*|--smoke*) got=$("$ra" --dry-run --name plan-fixture $args 2>&1) ;;
	*) got=$("$ra" --dry-run --name plan-fixture --experiments "$fx/before.toml" $args 2>&1) ;;
	esac
	is "the $case plan ($args) is the bash planner's, row for row" "$(grep -v '^# boots: ' <<<"$got")" "$(cat "$fx/$case.tsv")"
done <"$fx/cases"
# The intended changes: swingbench-lite's spin-ext with rseq-cr and
# task-shared on the parallel testbed, 4 repeats each; repeats 3 and 4 of
# every precise sweep point (issue 24); nothing else.
new=$("$ra" --dry-run --seed 5 --name plan-test-$$ | grep -v '^#' | tail -n +2 | cut -f1,2,4- | sort)
old=$(grep -v '^#' "$fx/default.tsv" | tail -n +2 | cut -f1,2,4- | sort)
added=$(comm -13 <(echo "$old") <(echo "$new") | cut -f1)
precise1=$(echo "$old" | cut -f1 | grep -c -- '-precise-r2$')
is "the default plan: the bash planner's runs, 8 more on the parallel testbed, repeats 3 and 4 of the $precise1 precise points" \
	"$(grep -vc -- '-precise-r[34]$' <<<"$added") $(grep -c -- '-precise-r3$' <<<"$added") $(grep -c -- '-precise-r4$' <<<"$added") $(comm -23 <(echo "$old") <(echo "$new") | wc -l)" "8 $precise1 $precise1 0"
is "... the swingbench-lite arms Oracle's claims name" \
	"$(grep -v -- '-precise-r[34]$' <<<"$added" | sed 's/-r[0-9]*$//' | sort -u | tr '\n' ' ')" \
	"sbl-spin-ext-rseq-cr sbl-spin-ext-task-shared "
is "the plan records the boots: 2 by default" "$("$ra" --dry-run --seed 5 --name plan-test-$$ | grep '^# boots: ')" "# boots: 2"
is "... --boots 3" "$("$ra" --dry-run --seed 5 --boots 3 --name plan-test-$$ | grep '^# boots: ')" "# boots: 3"
got=$("$ra" --dry-run --seed 5 --boots 0 --name plan-test-$$ 2>&1)
is "--boots 0: exit 2" "$?" 2
like "... saying why" "$got" 'boots'


p=$("$ra" --dry-run --seed 5 --name plan-test-$$)
is "run-all --dry-run exits 0" "$?" 0
is "the header names the typed columns" "$(grep -v '^#' <<<"$p" | head -1)" "$cols"
like "the seed is recorded" "$p" '# seed: 5'
like "... and the main point" "$p" $'# main_clients: 300\n# main_hogs: 400'
is "every row has the 21 columns" "$(rows "$p" | awk -F'\t' 'NF != 21' | wc -l)" 0
is "the order column counts the rows in the order they run" \
	"$(rows "$p" | awk -F'\t' '$3 != NR' | wc -l)" 0
is "repeat 1 runs whole before repeat 2 (the fresh boots come last)" \
	"$(rows "$p" | awk -F'\t' '$7 == "sweep" { if ($2 < last) bad++; last = $2 } END { print bad + 0 }')" 0
is "the same seed gives the same plan" "$("$ra" --dry-run --seed 5 --name plan-test-$$)" "$p"
q=$("$ra" --dry-run --seed 6 --name plan-test-$$)
is "another seed gives the same runs..." "$(rows "$q" | cut -f1,2,4- | sort)" "$(rows "$p" | cut -f1,2,4- | sort)"
ok "... in another order" test "$(rows "$q" | cut -f1)" != "$(rows "$p" | cut -f1)"
# Within a repeat the arms' order changes: off is not always first among
# the main point's arms.
firsts=$(rows "$p" | awk -F'\t' '$1 ~ /^lt-c300-h400-[a-z-]+-50us-r/ && !seen[$2]++ { print $1 }' | sed 's/-r[0-9]*$//' | sort -u | wc -l)
ok "the first of the main point's arms differs between repeats ($firsts kinds)" test "$firsts" -gt 1
is "off is grant 0 through mainline" "$(rows "$p" | awk -F'\t' '$1 == "lt-c300-h400-off-50us-r1" { print $8, $9, $10, $12, $13 }')" \
	"mainline 0 50000 300 400"
is "the default plan: no latency probe on the parallel testbed, cyclictest on the precise one" \
	"$(rows "$p" | awk -F'\t' '$4 == "latency" || $4 == "cyclictest" { print $4 "/" $5 }' | sort -u | tr '\n' ' ')" "cyclictest/precise "
is "... the probe when --benchmarks names latency" \
	"$("$ra" --dry-run --seed 1 --name plan-test-$$ --benchmarks latency --testbeds parallel | awk -F'\t' '$4 == "latency"' | wc -l)" 12
is "a length sweep row, precise testbed: mainline at 5 us" "$(rows "$p" | awk -F'\t' '$1 == "lt-c300-h400-mainline-5us-precise-r1" { print $8, $9, $10 }')" "mainline 1 5000"
is "... not on the parallel testbed, which runs the lock table at 50 us and tick only" \
	"$(rows "$p" | awk -F'\t' '$4 == "locktable" && $5 == "parallel" && $15 == 5000 && $1 !~ /-alt-/ { print $10 }' | sort -nu | tr '\n' ' ')" "50000 1000000 "
is "rseq-cr with a whole tick" "$(rows "$p" | awk -F'\t' '$1 == "lt-c300-h400-rseq-cr-tick-r1" { print $8, $10 }')" "rseq-cr 1000000"
is "swingbench-lite: the mutex column" "$(rows "$p" | awk -F'\t' '$1 ~ /^sbl-pthread-r1$/ { print $17, $8 }')" "pthread none"
is "extend-sched -w: extend_waiting 1" "$(rows "$p" | awk -F'\t' '$1 == "es-w-rseq-cr-r1" { print $19 }')" "1"
is "the grant traces: one run per length, at the main point" \
	"$(rows "$p" | awk -F'\t' '$4 == "grant-trace" && $5 == "parallel" { print $10 }' | sort -n | tr '\n' ' ')" "5000 10000 30000 50000 "
u=$("$ra" --dry-run --name plan-test-$$ --experiments "$top/experiments/unused-cost.toml" 2>&1)
is "a file of fresh boots only (experiments/unused-cost.toml) plans: 16 precise fresh boots" \
	"$?:$(rows "$u" | awk -F'\t' '$7 == "fresh" && $5 == "precise"' | wc -l)" "0:16"
is "unused-cost: JUMP_LABEL=y kernels; the four arms rotate, each first once" \
	"$(rows "$u" | awk -F'\t' '$2 == 1 || $2 == 4 { print $6 "/" $18 }' | tr '\n' ' ')" \
	"stock-jump-label/- patched-jump-label/- patched-jump-label/v2-rseq patched-jump-label/opted-in \
patched-jump-label/opted-in stock-jump-label/- patched-jump-label/- patched-jump-label/v2-rseq "
ok "unused-cost: the profile column says each run's rseq registration, from its arguments" \
	test "$(rows "$u" | awk -F'\t' '($18 == "v2-rseq") != ($21 ~ /--rseq-v2/) || ($18 == "opted-in") != ($21 ~ /--opt-in mainline/)' | wc -l)" = 0
is "unused-cost: fresh boots, stock and patched alternating, which boots first rotating" \
	"$(rows "$p" | awk -F'\t' '$7 == "fresh" { print $6 }' | head -4 | tr '\n' ' ')" "stock patched patched stock "

q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --ext-us 20 --abis mainline,rseq-cr --benchmarks locktable)
is "--ext-us 20: lock-table rows at 20 us on the precise testbed, a grant trace on both" \
	"$(rows "$q" | awk -F'\t' '$10 == 20000 { print $4 "/" $5 }' | sort | uniq -c | awk '{ print $1, $2 }' | tr '\n' ' ')" \
	"1 grant-trace/parallel 1 grant-trace/precise 4 locktable/precise "
is "--abis without off: no grant-0 row but the alternatives (no kernel change)" "$(rows "$q" | awk -F"\t" '$9 == 0 && $1 !~ /-alt-/' | wc -l)" 0
is "--benchmarks locktable: only locktable, its grant traces and the timer check" "$(rows "$q" | cut -f4 | sort -u | tr '\n' ' ')" \
	"grant-trace locktable sleep-overshoot "

# The testbeds.
is "both testbeds by default" "$(rows "$p" | cut -f5 | sort -u | tr '\n' ' ')" "parallel precise "
is "the precise testbed: the main point's arms, 4 repeats each" \
	"$(rows "$p" | awk -F'\t' '$5 == "precise" && $1 ~ /^lt-c300-h400-[a-z-]+-50us-precise-r/ { n++ } END { print n }')" 16
is "... cyclictest off and under both RT policies" \
	"$(rows "$p" | awk -F'\t' '$4 == "cyclictest" && $2 == 1 { print ($9 == 0 ? "off" : $11) }' | sort | tr '\n' ' ')" "bounded never-delay-rt off "
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --testbeds parallel)
is "--testbeds parallel: no precise row" "$(rows "$q" | awk -F'\t' '$5 != "parallel"' | wc -l)" 0
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --testbeds precise --precise-repeats 3)
is "--testbeds precise: no parallel row" "$(rows "$q" | awk -F'\t' '$5 != "precise"' | wc -l)" 0
is "--precise-repeats 3: three runs of a point" "$(rows "$q" | grep -c '^lt-c300-h400-off-50us-precise-r')" 3
err=$("$ra" --dry-run --testbeds tcg 2>&1)
is "an unknown testbed fails" "$?" 2
like "... naming the choices" "$err" "unknown testbed 'tcg' \(parallel, precise\)"

# The alternatives (--alternatives, --sweep-alternatives).
is "every alternative at the main point, the precise testbed's four" \
	"$(rows "$p" | awk -F'\t' '$1 ~ /^lt-c300-h400-alt-/ && $2 == 1 { n[$5]++ } END { print n["parallel"], n["precise"] }')" "10 4"
is "an alternative's columns: the lock, the hog policy, grants off or the extension" \
	"$(rows "$p" | awk -F'\t' '$1 ~ /^lt-c300-h400-alt-(futex-ext|hogs-idle|adaptive)-r1$/ { print $1, $16, $14, $9 }' | sort | tr '\n' ';')" \
	"lt-c300-h400-alt-adaptive-r1 adaptive other 0;lt-c300-h400-alt-futex-ext-r1 futex other 1;lt-c300-h400-alt-hogs-idle-r1 tas idle 0;"
like "... and its arguments" "$(rows "$p" | grep '^lt-c300-h400-alt-hogs-idle-r1')" '--hog-policy idle$'
is "the sweep's alternatives at each point of the hog sweep" \
	"$(rows "$p" | awk -F'\t' '$1 ~ /^lt-c300-h(0|200|800)-alt-/ && $2 == 1 { print $1 }' | sed 's/-r1$//; s/.*-alt-//' | sort -u | tr '\n' ' ')" \
	"futex-ext hogs-idle "
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --alternatives futex,pthread)
is "--alternatives futex,pthread: the precise testbed's and the sweep's default keep to them" \
	"$(rows "$q" | awk -F'\t' '$1 ~ /-alt-/ && $2 == 1 { sub(/-r1$/, "", $1); print $1 }' | sort | tr '\n' ' ')" \
	"lt-c300-h400-alt-futex lt-c300-h400-alt-futex-precise lt-c300-h400-alt-pthread "
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --quick)
is "--quick: its alternatives on both testbeds" \
	"$(rows "$q" | awk -F'\t' '$1 ~ /-alt-/ && $2 == 1 { n[$5]++ } END { print n["parallel"], n["precise"] }')" "3 2"
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --alternatives none)
is "--alternatives none: no alternative" "$(rows "$q" | grep -c -- '-alt-\|sbl-futex\|sbl-adaptive')" 0
err=$("$ra" --dry-run --alternatives mcs 2>&1)
is "an unknown alternative fails" "$?" 2
like "... naming the choices" "$err" "unknown alternative 'mcs' \(hogs-nice19, "
err=$("$ra" --dry-run --alternatives futex --sweep-alternatives hogs-idle 2>&1)
is "a sweep alternative must be an alternative" "$?" 2
like "... saying so" "$err" "'hogs-idle' is not one of --alternatives"

err=$("$ra" --dry-run --seed x 2>&1)
is "a bad --seed fails" "$?" 2
like "... saying why" "$err" "--seed: not a number"
# The drift check (make check runs it through this suite): a claim or
# section that names runs the plan does not make, or runs nothing reads.
out=$("$top/experiments/plan" --check 2>&1)
is "experiments/plan --check passes on the presets" "$?" 0
is "... each of them (every experiments/*.toml)" "$(grep -c 'every arm it runs is read, every arm read is run' <<<"$out")" "$(ls "$top"/experiments/*.toml | wc -l)"
out=$("$top/experiments/plan" --check "$fx/before.toml" 2>&1)
is "the Swingbench drift (spin-ext with --sweep-abis only) fails the check" "$?" 1
like "... naming the claim, its arm and the testbed" "$out" \
	"\\[claim\\.oracle-swingbench\\] names a arm \\(bench=swingbench-lite mutex=spin-ext abi=task-shared grant=1\\) that the plan does not run on the parallel testbed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/unread.toml" <<'EOF2'
extends = "default.toml"
[experiment.lt-odd]
benchmark = "locktable"
testbed = "parallel"
id = "lt-odd"
arm = "mainline"
ext_ns = 50000
rt_policy = "never-delay-rt"
clients = "7"
hogs = "7"
lock = "tas"
args = "{lt}"
EOF2
out=$("$top/experiments/plan" --check "$tmp/unread.toml" 2>&1)
is "a run no section reads fails the check" "$?" 1
like "... naming it" "$out" "the plan runs lt-odd, which no section or claim reads"

# A user's own experiment file, beside the presets or anywhere.
cp "$top/experiments/quick.toml" "$tmp/mine.toml"
sed -i 's/^default = \[300\]$/default = [50]/' "$tmp/mine.toml"
q=$("$ra" --dry-run --seed 1 --name plan-test-$$ --experiments "$tmp/mine.toml")
is "--experiments FILE: a copy of a preset, changed, plans from its own values" \
	"$(rows "$q" | awk -F'\t' '$4 == "locktable" { print $12 }' | sort -u)" "50"
printf 'name = "x"\nbogus = 1\n' >"$tmp/bad.toml"
err=$("$ra" --dry-run --experiments "$tmp/bad.toml" 2>&1)
is "an experiment file with an unknown key fails" "$?" 2
like "... naming the file and the key" "$err" "bad.toml: unknown key\\(s\\) bogus"
err=$("$ra" --dry-run --experiments "$tmp/none.toml" 2>&1)
is "a missing experiment file fails" "$?" 2
err=$("$ra" --dry-run --bogus 3 2>&1)
is "an option no axis has fails" "$?" 2
like "... saying so" "$err" "unknown option '--bogus'"

# The PostgreSQL experiment (issue 25): the grid's rows, the fresh boots of
# the preemption models, TPC-B-like only where the clients fit the scale,
# and what run-all needs of it (the guest's memory, the databases).
pgx=$top/experiments/postgres.toml
pgp=$("$ra" --dry-run --seed 3 --name plan-test-$$ --experiments "$pgx" --testbeds parallel 2>&1)
is "postgres: the default grid on the parallel testbed, runs" \
	"$(rows "$pgp" | awk -F'\t' '$7 == "sweep"' | wc -l) $(rows "$pgp" | awk -F'\t' '$7 == "fresh"' | wc -l)" "$(( (3 * 3 * 2 - 2) * 5 * 4 )) 12"
is "... TPC-B-like only at 8 and 32 clients (the scale is 32)" \
	"$(rows "$pgp" | awk -F'\t' '$18 == "tpcb" { print $12 }' | sort -un | tr '\n' ' ')" "8 32 "
is "... the preemption boots: preempt-none and preempt-full, 6 each, each model first in turn" \
	"$(rows "$pgp" | awk -F'\t' '$7 == "fresh" { print $6 }' | uniq -c | awk '{ printf "%s %s,", $1, $2 }')" \
	"2 preempt-none,4 preempt-full,4 preempt-none,2 preempt-full,"
like "... the huge-pages arm asks pg-run for huge pages, the others do not" \
	"$(rows "$pgp" | awk -F'\t' '$17 == "huge-pages" && $21 !~ /--huge-pages/ { print "bad " $1 } $17 == "4k-pages" && $21 ~ /--huge-pages/ { print "bad " $1 }') ok" '^ ok$'
experiments/plan --experiments "$pgx" --testbeds parallel --seed 3 --plan "$tmp/pg.tsv" --estimates "$tmp/pg.est" >/dev/null 2>&1
is "... run-all is told the guest's memory and the databases" \
	"$(grep -E '^(guest_mem|pg_scales)=' "$tmp/pg.est" | tr '\n' ' ')" "guest_mem=3G pg_scales=32 "
# The estimate is the experiment's own est_s per run, not its generous
# limit: TPC-B-like at 8 and 32 clients, 3 repeats, 10 points each, est
# 30 + 10 + 32 // 4 + clients // 8 = 49 and 52 s.
experiments/plan --experiments "$pgx" --testbeds parallel --modes tpcb --clients-per-vcpu 4,16 --repeats 3 \
	--plan /dev/null --estimates "$tmp/pg-tpcb.est" >/dev/null 2>&1
is "... its estimate comes from est_s" "$(grep '^plan_est_s=' "$tmp/pg-tpcb.est")" "plan_est_s=$(( 30 * 49 + 30 * 52 ))"
# Clients and hogs are per vCPU: run-all's --cpus reaches the plan.
pg8=$("$ra" --dry-run --seed 3 --name plan-test-$$ --experiments "$pgx" --testbeds parallel --cpus 8 \
	--modes select --clients-per-vcpu 4 --hogs-per-vcpu 0,8 2>&1)
is "... --cpus 8: 4 clients per vCPU are 32, 8 hogs per vCPU 64" \
	"$(rows "$pg8" | awk -F'\t' '{ print $12 "/" $13 }' | sort -u | tr '\n' ' ')" "32/0 32/64 "
out=$(experiments/plan --experiments "$pgx" --vcpus 0 2>&1)
is "... experiments/plan --vcpus 0: exit 2" "$?" 2
like "... saying so" "$out" "--vcpus: not a number from 1 to 9999: '0'"
out=$("$ra" --dry-run --name plan-test-$$ --experiments "$pgx" --modes bogus 2>&1)
is "... --modes bogus: exit 2" "$?" 2
like "... saying so" "$out" "bogus"

# --reference: only from a clean, committed tree. A throwaway repository
# holding what a dry run needs, as this working tree has it.
ref=$tmp/ref
mkdir -p "$ref"
(cd "$top" && git ls-files -z run-all tools experiments report | xargs -0 tar -cf - '--exclude=*.md') | tar -xf - -C "$ref"
git -C "$ref" init -q && git -C "$ref" add -A && git -C "$ref" -c user.name=t -c user.email=t@t commit -qm ref
echo "# an edit" >>"$ref/experiments/default.toml"
out=$("$ref/run-all" --reference --dry-run --name ref-test 2>&1)
is "run-all --reference from a tree that differs from its commit: exit 2" "$?" 2
like "... saying why and which files" "$out" 'a reference run comes from a clean, committed tree:.*experiments/default\.toml'
git -C "$ref" checkout -q experiments/default.toml
"$ref/run-all" --reference --dry-run --name ref-test >/dev/null 2>&1
is "... from the clean tree it plans" "$?" 0
out=$("$ra" --dry-run --name plan-test-$$ --previous no-such-run-$$ 2>&1)
is "run-all --previous naming no results folder: exit 2" "$?" 2
like "... saying so" "$out" "^run-all: --previous: no results/no-such-run-$$/environment.txt"
done_testing
