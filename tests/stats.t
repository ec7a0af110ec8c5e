#!/bin/bash
# report/analysis.py (our use of scipy) against values published by R:
# t.test() on R's "sleep" data (Welch), the one-sample confidence interval,
# p.adjust(method = "holm"); Fieller's interval against its definition; the
# verdict classes and the repeats-needed estimate on constructed cases.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# py EXPR: print EXPR, with analysis imported as an.
py() { /usr/bin/python3 -c "import sys; sys.path.insert(0, '$top/report'); import analysis as an
a = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
b = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
print($1)" 2>&1; }
# near GOT WANT TOL: |GOT - WANT| <= TOL
near() { awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; }

# R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939.
ok "Welch on R's sleep data: p = 0.07939" near "$(py 'an.welch_p(an.summary(a), an.summary(b))')" 0.07939414 1e-7
ok "... Welch's df = 17.776" near "$(py 'an.welch_df(an.summary(a)["sd"]**2 / 10, an.summary(b)["sd"]**2 / 10, 9, 9)')" 17.77647 1e-4
# R: t.test(sleep$extra[1:10])$conf.int = -0.5297804 2.0297804; sd 1.789010, median 0.35
ok "summary: mean 0.75, sd 1.789010, median 0.35" bash -c "$(declare -f near)
	near '$(py 'an.summary(a)["mean"]')' 0.75 1e-12 && near '$(py 'an.summary(a)["sd"]')' 1.789010 1e-6 &&
	near '$(py 'an.summary(a)["median"]')' 0.35 1e-12"
ok "summary: t-based 95% CI (-0.5297804, 2.0297804)" bash -c "$(declare -f near)
	near '$(py 'an.summary(a)["ci"][0]')' -0.5297804 1e-7 && near '$(py 'an.summary(a)["ci"][1]')' 2.0297804 1e-7"
# R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
is "Holm's adjustment as R's p.adjust" "$(py '[round(x, 10) for x in an.holm([0.01, 0.04, 0.03, 0.005])]')" "[0.03, 0.06, 0.06, 0.02]"
is "... skipping the missing p-values" "$(py 'an.holm([None, 0.02, 0.5])')" "[None, 0.04, 0.5]"
# Fieller's interval for mean(b)/mean(a): at either end R, the t statistic of
# mean(b) - R mean(a), with variance vb + R^2 va, is the 97.5% t quantile on
# Welch's df (the interval's definition).
ok "Fieller's interval meets its definition at both ends" bash -c "$(declare -f near)
	for k in 0 1; do
		near \"\$(/usr/bin/python3 -c \"
import sys, math; sys.path.insert(0, '$top/report'); import analysis as an; from scipy import stats
x, y = [100, 110, 120], [150, 160, 170]
sa, sb = an.summary(x), an.summary(y)
r = an.fieller(sa['mean'], sa['sd'], 3, sb['mean'], sb['sd'], 3)[\$k]
va, vb = sa['sd']**2 / 3, sb['sd']**2 / 3
t = stats.t.ppf(0.975, an.welch_df(va, vb, 2, 2))
print(abs(sb['mean'] - r * sa['mean']) / math.sqrt(vb + r * r * va) - t)\")\" 0 1e-9 || exit 1
	done"
is "Fieller: unbounded when the baseline's mean is not clearly away from 0" "$(py 'an.fieller(1, 10, 3, 5, 1, 3)')" "None"
# An arm whose mean is not clearly away from 0: the lower root is below 0,
# and a ratio of nonnegative means is not (issue 24: "-170.5%").
is "Fieller: a ratio of nonnegative means is not below 0" "$(py 'an.fieller(100, 5, 3, 20, 30, 3)[0]')" "0.0"
is "Fieller: no spread, the ratio itself" "$(py 'an.fieller(100, 0, 3, 150, 0, 3)')" "(1.5, 1.5)"
# Paired by repeat: ratios 1.5, 2, 1/2: geometric mean 1.5^(1/3) - 1, 2 of 3 above 1.
ok "paired: the geometric mean of the ratios" near "$(py 'an.paired([(2, 3), (1, 2), (4, 2)])["change"]')" \
	"$(awk 'BEGIN { printf "%.12f", exp(log(1.5) / 3) - 1 }')" 1e-9
is "paired: the sign count" "$(py '(an.paired([(2, 3), (1, 2), (4, 2)])["above"], an.paired([(2, 3), (1, 2), (4, 2)])["n"])')" "(2, 3)"
# R: binom.test(9, 10)$p.value = 0.02148438
ok "sign test: binom.test(9, 10) p = 0.02148" near "$(py 'an.sign_test(9, 1)')" 0.02148438 1e-7
ok "harmonic mean of 1, 2, 4 = 12/7" near "$(py 'an.harmonic_mean([1, 2, 4])')" "$(awk 'BEGIN { printf "%.14f", 12 / 7 }')" 1e-12

# The verdict classes of a change's CI against a claim of +44%.
for c in "(0.30, 0.60)|consistent with the claim" "(0.05, 0.20)|smaller than claimed" "(0.60, 0.90)|larger than claimed" \
	"(-0.10, 0.20)|no effect" "(-0.10, 0.30)|smaller than claimed or none" "(-0.10, 0.60)|inconclusive" \
	"(-0.40, -0.10)|opposite to the claim" "None|inconclusive"; do
	is "verdict of ${c%%|*} against +44%" "$(py "an.verdict(${c%%|*}, 0.44)")" "${c#*|}"
done
# ...and against a claimed decrease of 53%.
for c in "(-0.60, -0.40)|consistent with the claim" "(-0.30, -0.10)|smaller than claimed" "(-0.90, -0.70)|larger than claimed" \
	"(-0.20, 0.10)|no effect" "(-0.30, 0.10)|smaller than claimed or none" "(0.10, 0.30)|opposite to the claim"; do
	is "verdict of ${c%%|*} against -53%" "$(py "an.verdict(${c%%|*}, -0.53)")" "${c#*|}"
done
# Counts as Poisson rates: 3 events in 3 runs against 12 in 3 is, given
# the 15 events, binomial with p = 1/2 under equal rates. The exact
# (Clopper-Pearson) bounds of p are qbeta(0.025, 3, 13) = 0.0433120 and
# qbeta(0.975, 4, 12) = 0.4808911, so the rate ratio p / (1 - p) lies in
# [0.045273, 0.926378]; p = 2 * pbinom(3, 15, 0.5) = 0.03515625.
ok "poisson: 12 events in 3 runs against 3 in 3, the rate ratio's lower bound (0.045273)" \
	near "$(py 'an.poisson([4, 4, 4], [1, 0, 2])["ci"][0] + 1')" 0.045273 1e-5
ok "... its upper bound (0.926378)" near "$(py 'an.poisson([4, 4, 4], [1, 0, 2])["ci"][1] + 1')" 0.926378 1e-5
ok "... and p (0.03515625)" near "$(py 'an.poisson([4, 4, 4], [1, 0, 2])["p"]')" 0.03515625 1e-7
is "... no event on either side: no interval" "$(py 'an.poisson([0, 0, 0], [0, 0, 0])["ci"]')" "None"
is "simultaneous intervals: 8 comparisons, each at 99.375% (Bonferroni)" "$(py 'an.simultaneous_level(8)')" "0.99375"
# Repeats needed: n runs per arm whose projected CI is narrower than the claim.
n=$(py 'an.repeats_needed(an.summary([100, 130, 70, 110, 90]), an.summary([120, 160, 90, 130, 110]), 0.44)')
ok "repeats needed to resolve a +44% claim at a ±20% spread: a count above 2 ($n)" test "$n" -gt 2
ok "... at which the projected CI is narrower than the claim, and not one run earlier" bash -c "/usr/bin/python3 -c \"
import sys; sys.path.insert(0, '$top/report'); import analysis as an
sa, sb = an.summary([100, 130, 70, 110, 90]), an.summary([120, 160, 90, 130, 110])
w = lambda n: (lambda c: c[1] - c[0])(an.fieller(sa['mean'], sa['sd'], n, sb['mean'], sb['sd'], n))
sys.exit(not (w($n) < 0.44 <= w($n - 1)))\""
done_testing
