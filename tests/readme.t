#!/bin/bash
# tools/check-readme-numbers: README's "What the reference run shows"
# against the reports it cites. The README as committed passes; a number
# changed by hand fails, named with its line; a number marked derived
# passes; a report the text cites but that does not exist is an error.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
chk=$top/tools/check-readme-numbers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$chk" "$top/README.md" 2>&1)
is "README's numbers are all in the reports it cites (exit 0)" "$?" 0
[ $_t_failed = 0 ] || diag "$out"
like "... and it says how many it checked" "$out" 'check-readme-numbers: ([0-9]+) of \1 numbers found'

# A copy beside the reports (they are found relative to the README).
mkdir -p "$tmp/report"
cp "$top"/report/*.md "$tmp/report/"
cp -r "$top/results" "$tmp/" 2>/dev/null
cp -r "$top/experiments" "$tmp/"
# The claims table's lock-table change (task-shared, parallel testbed),
# +26.6%, edited by hand to +28.6%.
line=$(grep -n '^| Oracle.s lock table, task-shared .* | +26.6% \[-6.4%, +70.2%\]' "$top/README.md" | head -1 | cut -d: -f1)
ok "the README states the lock table's task-shared change" test -n "$line"
sed "${line}s/| +26.6% \[/| +28.6% [/" "$top/README.md" >"$tmp/README.md"
out=$("$chk" "$tmp/README.md" 2>&1)
is "a number changed by hand fails (exit 1)" "$?" 1
like "... naming its line and the number" "$out" "README.md:$line: \\+28\\.6% is in none of report/reference\\.md"
# The same number, marked as derived, passes.
sed "${line}s/| +26.6% \[/| +28.6% <!-- derived: +28.6% (a test) --> [/" "$top/README.md" >"$tmp/README.md"
"$chk" "$tmp/README.md" >/dev/null 2>&1
is "... and passes when marked derived" "$?" 0
# A sign is part of the number (the interval's upper end, -70.2%, is in
# no report).
sed "${line}s/, +70.2%\]/, -70.2%]/" "$top/README.md" >"$tmp/README.md"
"$chk" "$tmp/README.md" >/dev/null 2>&1
is "a flipped sign fails" "$?" 1
# A cited report that does not exist.
sed "${line}s/| +26.6% \[/| +26.6% (report\\/nowhere.md) [/" "$top/README.md" >"$tmp/README.md"
out=$("$chk" "$tmp/README.md" 2>&1)
is "a cited report that does not exist: exit 2" "$?" 2
like "... naming it" "$out" 'cites report/nowhere.md, which does not exist'
"$chk" "$tmp/nothing.md" >/dev/null 2>&1
is "a missing README: exit 2" "$?" 2
done_testing
