#!/bin/bash
# The Python unit tests (tests/unit/, pytest): the run record, the planner,
# the experiments on in-memory plans, and the report's section kinds and
# caveats on in-memory runs. Each pytest test is one TAP line.
# Host only, a few seconds.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1
out=$(/usr/bin/python3 -m pytest -q -rA -p no:cacheprovider tests/unit 2>&1)
rc=$?
n=0
while IFS= read -r line; do
	case $line in
	"PASSED "*) n=$((n + 1)); ok "${line#PASSED }" true ;;
	"FAILED "*) n=$((n + 1)); ok "${line#FAILED }" false ;;
	"ERROR "*) n=$((n + 1)); ok "${line#ERROR }" false ;;
	esac
done <<<"$out"
ok "pytest ran tests ($n) and exited 0 (exit $rc)" test "$n" -gt 0 -a "$rc" = 0
[ $_t_failed = 0 ] || diag "$(tail -40 <<<"$out")"
done_testing
