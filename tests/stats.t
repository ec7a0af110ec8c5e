#!/bin/bash
# report/sbstat against values published by R: qt(), pt(), t.test() on R's
# "sleep" data (Welch), and the one-sample confidence interval. Plus bad input.
. "$(dirname "$0")/lib.sh"
st=$top/build/bin/sbstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# near GOT WANT TOL: |GOT - WANT| <= TOL
near() { awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; }
key() { sed -n "s/^$1 //p" <<<"$2"; }

ok "qt(0.975, 1) = 12.706205" near "$("$st" qt 0.975 1)" 12.7062047 1e-6
ok "qt(0.975, 5) = 2.570582" near "$("$st" qt 0.975 5)" 2.5705818 1e-6
ok "qt(0.975, 30) = 2.042272" near "$("$st" qt 0.975 30)" 2.0422725 1e-6
ok "qt(0.05, 3) = -2.353363" near "$("$st" qt 0.05 3)" -2.3533634 1e-6
ok "pt(2, 10) = 0.963306" near "$("$st" pt 2 10)" 0.9633060 1e-6
# Closed forms: df 1 is Cauchy (pt(1, 1) = 3/4); df 2 is 1/2 + t / (2 sqrt(2 + t^2)).
ok "pt(1, 1) = 0.75" near "$("$st" pt 1 1)" 0.75 1e-9
ok "pt(-1.5, 2) = 0.1361966" near "$("$st" pt -1.5 2)" "$(awk 'BEGIN { printf "%.9f", 0.5 - 1.5 / (2 * sqrt(4.25)) }')" 1e-8

# R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939,
# 95% CI -3.3654832 0.2054832 (group 1 - group 2; ours is B - A).
echo "0.7 -1.6 -0.2 -1.2 -0.1 3.4 3.7 0.8 0.0 2.0" >"$tmp/a"
echo "1.9 0.8 1.1 0.1 -0.1 4.4 5.5 1.6 4.6 3.4" >"$tmp/b"
w=$("$st" welch "$tmp/a" "$tmp/b")
ok "Welch on R's sleep data: t = 1.8608" near "$(key t "$w")" 1.860813 1e-5
ok "... df = 17.776" near "$(key df "$w")" 17.77647 1e-4
ok "... p = 0.07939" near "$(key p "$w")" 0.07939414 1e-6
ok "... 95% CI of the difference (-0.2054832, 3.3654832)" \
	bash -c "$(declare -f near); near '$(key diff_ci95_low "$w")' -0.2054832 1e-6 && near '$(key diff_ci95_high "$w")' 3.3654832 1e-6"
ok "... relative difference (2.33 - 0.75) / 0.75" near "$(key rel_diff "$w")" 2.1066667 1e-6
# R: t.test(sleep$extra[1:10])$conf.int = -0.5297804 2.0297804; sd 1.789010, median 0.35
s=$("$st" summary "$tmp/a")
ok "summary: mean 0.75, sd 1.789010, median 0.35" \
	bash -c "$(declare -f near); near '$(key mean "$s")' 0.75 1e-9 && near '$(key sd "$s")' 1.789010 1e-6 && near '$(key median "$s")' 0.35 1e-9"
ok "summary: 95% CI (-0.5297804, 2.0297804)" \
	bash -c "$(declare -f near); near '$(key ci95_low "$s")' -0.5297804 1e-6 && near '$(key ci95_high "$s")' 2.0297804 1e-6"

echo "5 5 5" >"$tmp/c"
ok "Welch on two equal constant samples: p = 1" near "$(key p "$("$st" welch "$tmp/c" "$tmp/c")")" 1 0
echo "1 2 x" >"$tmp/bad"
err=$("$st" summary "$tmp/bad" 2>&1)
is "a non-number fails (exit 1)" "$?" 1
like "... naming the file and the value" "$err" "bad: value 3 \('x'\) is not a number"
echo "4" >"$tmp/one"
err=$("$st" summary "$tmp/one" 2>&1)
like "one value is not enough" "$err" 'at least 2 are needed'
"$st" qt 1.5 3 >/dev/null 2>&1
is "qt with P outside (0, 1): exit 2" "$?" 2
"$st" frobnicate >/dev/null 2>&1
is "an unknown command: exit 2" "$?" 2
done_testing
