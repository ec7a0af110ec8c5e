"""report/analysis.py (our use of scipy) against values published by R:
t.test() on R's "sleep" data (Welch), the one-sample confidence interval,
p.adjust(method = "holm"), binom.test(); Fieller's interval against its
definition; the verdict classes, Poisson rates and the repeats-needed
estimate on constructed cases. (Formerly tests/stats.t, one Python process
per check.)"""

import math
import os
import sys

import pytest
from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "report"))

import analysis as an  # noqa: E402

# R's "sleep" data: the extra hours of sleep of each group.
A = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
B = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def test_welch_on_rs_sleep_data():
    # R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776, p-value = 0.07939.
    assert an.welch_p(an.summary(A), an.summary(B)) == pytest.approx(0.07939414, abs=1e-7)
    assert an.welch_df(an.summary(A)["sd"] ** 2 / 10, an.summary(B)["sd"] ** 2 / 10, 9, 9) == \
        pytest.approx(17.77647, abs=1e-4)


def test_summary_as_r():
    # R: t.test(sleep$extra[1:10])$conf.int = -0.5297804 2.0297804; sd 1.789010, median 0.35
    s = an.summary(A)
    assert s["mean"] == pytest.approx(0.75, abs=1e-12)
    assert s["sd"] == pytest.approx(1.789010, abs=1e-6)
    assert s["median"] == pytest.approx(0.35, abs=1e-12)
    assert s["ci"][0] == pytest.approx(-0.5297804, abs=1e-7)
    assert s["ci"][1] == pytest.approx(2.0297804, abs=1e-7)


def test_holm_as_rs_p_adjust():
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
    assert [round(x, 10) for x in an.holm([0.01, 0.04, 0.03, 0.005])] == [0.03, 0.06, 0.06, 0.02]
    assert an.holm([None, 0.02, 0.5]) == [None, 0.04, 0.5]


@pytest.mark.parametrize("end", [0, 1])
def test_fieller_meets_its_definition(end):
    # At either end R, the t statistic of mean(b) - R mean(a), with variance
    # vb + R^2 va, is the 97.5% t quantile on Welch's df.
    x, y = [100, 110, 120], [150, 160, 170]
    sa, sb = an.summary(x), an.summary(y)
    r = an.fieller(sa["mean"], sa["sd"], 3, sb["mean"], sb["sd"], 3)[end]
    va, vb = sa["sd"] ** 2 / 3, sb["sd"] ** 2 / 3
    t = stats.t.ppf(0.975, an.welch_df(va, vb, 2, 2))
    assert abs(sb["mean"] - r * sa["mean"]) / math.sqrt(vb + r * r * va) == pytest.approx(t, abs=1e-9)


def test_fieller_edges():
    # Unbounded when the baseline's mean is not clearly away from 0.
    assert an.fieller(1, 10, 3, 5, 1, 3) is None
    # A ratio of nonnegative means is not below 0 (issue 24: "-170.5%").
    assert an.fieller(100, 5, 3, 20, 30, 3)[0] == 0.0
    # No spread: the ratio itself.
    assert an.fieller(100, 0, 3, 150, 0, 3) == (1.5, 1.5)


def test_paired_by_repeat():
    # Ratios 1.5, 2, 1/2: geometric mean 1.5^(1/3) - 1, 2 of 3 above 1.
    p = an.paired([(2, 3), (1, 2), (4, 2)])
    assert p["change"] == pytest.approx(math.exp(math.log(1.5) / 3) - 1, abs=1e-9)
    assert (p["above"], p["n"]) == (2, 3)


def test_sign_test_as_binom_test():
    # R: binom.test(9, 10)$p.value = 0.02148438
    assert an.sign_test(9, 1) == pytest.approx(0.02148438, abs=1e-7)


def test_harmonic_mean():
    assert an.harmonic_mean([1, 2, 4]) == pytest.approx(12 / 7, abs=1e-12)


@pytest.mark.parametrize("ci, want", [
    ((0.30, 0.60), "consistent with the claim"), ((0.05, 0.20), "smaller than claimed"),
    ((0.60, 0.90), "larger than claimed"), ((-0.10, 0.20), "no effect"),
    ((-0.10, 0.30), "smaller than claimed or none"), ((-0.10, 0.60), "inconclusive"),
    ((-0.40, -0.10), "opposite to the claim"), (None, "inconclusive")])
def test_verdict_against_an_increase(ci, want):
    assert an.verdict(ci, 0.44) == want


@pytest.mark.parametrize("ci, want", [
    ((-0.60, -0.40), "consistent with the claim"), ((-0.30, -0.10), "smaller than claimed"),
    ((-0.90, -0.70), "larger than claimed"), ((-0.20, 0.10), "no effect"),
    ((-0.30, 0.10), "smaller than claimed or none"), ((0.10, 0.30), "opposite to the claim")])
def test_verdict_against_a_decrease(ci, want):
    assert an.verdict(ci, -0.53) == want


def test_counts_as_poisson_rates():
    # 3 events in 3 runs against 12 in 3 is, given the 15 events, binomial
    # with p = 1/2 under equal rates. The exact (Clopper-Pearson) bounds of p
    # are qbeta(0.025, 3, 13) = 0.0433120 and qbeta(0.975, 4, 12) =
    # 0.4808911, so the rate ratio p / (1 - p) lies in [0.045273, 0.926378];
    # p = 2 * pbinom(3, 15, 0.5) = 0.03515625.
    c = an.poisson([4, 4, 4], [1, 0, 2])
    assert c["ci"][0] + 1 == pytest.approx(0.045273, abs=1e-5)
    assert c["ci"][1] + 1 == pytest.approx(0.926378, abs=1e-5)
    assert c["p"] == pytest.approx(0.03515625, abs=1e-7)
    assert an.poisson([0, 0, 0], [0, 0, 0])["ci"] is None


def test_simultaneous_level():
    assert an.simultaneous_level(8) == 0.99375


def test_repeats_needed():
    # n runs per arm whose projected CI is narrower than the claim, and not one run fewer.
    sa, sb = an.summary([100, 130, 70, 110, 90]), an.summary([120, 160, 90, 130, 110])
    n = an.repeats_needed(sa, sb, 0.44)
    assert n > 2

    def width(k):
        lo, hi = an.fieller(sa["mean"], sa["sd"], k, sb["mean"], sb["sd"], k)
        return hi - lo
    assert width(n) < 0.44 <= width(n - 1)
