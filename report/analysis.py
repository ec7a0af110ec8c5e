"""The report's statistics, on scipy.

Every comparison is of two independent samples (an arm's runs against its
baseline's), summarised three ways:
  - Welch's t-test: the p-value of "the means differ";
  - the relative change of the means, mean(arm) / mean(base) - 1, with
    Fieller's 95% confidence interval (Welch's degrees of freedom), which
    is asymmetric and unbounded when the baseline's mean is not clearly
    away from zero;
  - paired by repeat: the ratio arm / base of the runs of the same repeat,
    their geometric mean with a t interval on the log ratios, and how many
    ratios are above 1 (a sign count).
Changes are fractions here (0.44 is +44%); the report formats them.

Verdicts come from simultaneous intervals: a table's (or the claims
table's) m comparisons each get the interval at level 1 - 0.05 / m
(Bonferroni), so that all of them hold their true change at once with
95% probability. A verdict needs at least MIN_RUNS runs on each side.
Counts (events per run: preempted holds, expired grants) are compared as
Poisson rates: the exact conditional test and Clopper-Pearson interval
of the rate ratio, not a ratio of means.
"""

import math
import warnings

import numpy as np
from scipy import stats

LEVEL = 0.95
# Runs per side below which no verdict is given ("too few runs").
MIN_RUNS = 3


def simultaneous_level(m):
    """The per-comparison level at which m intervals hold at once with
    probability LEVEL (Bonferroni)."""
    return 1 - (1 - LEVEL) / max(1, m)


def summary(xs):
    """n, mean, sd, median, and the t-based 95% CI of the mean (None below 2 runs)."""
    a = np.asarray(xs, dtype=float)
    n = len(a)
    out = {"n": n, "mean": float(a.mean()) if n else None,
           "median": float(np.median(a)) if n else None,
           "sd": None, "ci": None, "min": float(a.min()) if n else None,
           "max": float(a.max()) if n else None}
    if n >= 2:
        out["sd"] = float(a.std(ddof=1))
        se = out["sd"] / math.sqrt(n)
        if se > 0:
            out["ci"] = tuple(float(v) for v in stats.t.interval(LEVEL, n - 1, loc=out["mean"], scale=se))
        else:
            out["ci"] = (out["mean"], out["mean"])
    return out


def welch_df(va, vb, na, nb):
    """Welch-Satterthwaite degrees of freedom from the squared standard errors."""
    den = (va * va) / (na - 1) + (vb * vb) / (nb - 1)
    return (va + vb) ** 2 / den if den > 0 else float(na + nb - 2)


def welch_p(a, b):
    """Welch's two-sided p for mean(b) != mean(a); 1 when both are constant and equal."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        return None
    if a.std() == 0 and b.std() == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    # Runs that agree to the last digits (the precise testbed's wait
    # percentiles at the histogram's floor) make scipy warn of precision
    # loss in its moments; the verdicts come from the CIs, not from p.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        return float(stats.ttest_ind(b, a, equal_var=False).pvalue)


def fieller(ma, sa, na, mb, sb, nb, level=LEVEL):
    """The CI of mb / ma at level (independent samples, Welch's df): (lo, hi), or None when unbounded."""
    va, vb = sa * sa / na, sb * sb / nb
    if va == 0 and vb == 0:
        r = mb / ma
        return (r, r)
    t = stats.t.ppf(0.5 + level / 2, welch_df(va, vb, na, nb))
    qa = ma * ma - t * t * va
    if qa <= 0:
        return None
    qb = -2 * ma * mb
    qc = mb * mb - t * t * vb
    disc = qb * qb - 4 * qa * qc
    if disc < 0:
        return None
    root = math.sqrt(disc)
    return ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa))


def compare(a, b):
    """Arm b against baseline a (lists of run values): the change of the means with its CI and p."""
    sa, sb = summary(a), summary(b)
    out = {"base": sa, "arm": sb, "change": None, "ci": None, "p": None, "halfwidth": None}
    if sa["n"] == 0 or sb["n"] == 0 or sa["mean"] == 0:
        return out
    out["change"] = sb["mean"] / sa["mean"] - 1
    if sa["n"] >= 2 and sb["n"] >= 2:
        ci = fieller(sa["mean"], sa["sd"], sa["n"], sb["mean"], sb["sd"], sb["n"])
        out["ci"] = None if ci is None else (ci[0] - 1, ci[1] - 1)
        out["unbounded"] = ci is None
        out["p"] = welch_p(a, b)
        out["halfwidth"] = resolvable(sa, sb)
    return out


def poisson(a, b, level=LEVEL):
    """Counts per run, arm b against baseline a, as Poisson rates with the
    same exposure per run: the rate ratio - 1, its exact (Clopper-Pearson,
    conditional on the total) interval at level, and the exact two-sided
    p. The interval is None when neither side saw an event."""
    ka, kb = int(round(sum(a))), int(round(sum(b)))
    na, nb = len(a), len(b)
    out = {"base": summary(a), "arm": summary(b), "change": None, "ci": None, "p": None,
           "halfwidth": None, "count": True, "events": (ka, kb)}
    if na == 0 or nb == 0:
        return out
    n = ka + kb
    scale = na / nb
    if ka:
        out["change"] = (kb / nb) / (ka / na) - 1
    elif kb:
        out["change"] = math.inf
    if n == 0:
        return out
    out["p"] = float(stats.binomtest(kb, n, nb / (na + nb)).pvalue)
    ci = stats.binomtest(kb, n).proportion_ci(confidence_level=level, method="exact")

    def ratio(q):
        return math.inf if q >= 1 else q / (1 - q) * scale
    out["ci"] = (ratio(ci.low) - 1, ratio(ci.high) - 1)
    return out


def at_level(cm, level):
    """The interval of a comparison (from compare() or poisson()) at
    another level: None when unbounded or not computable."""
    if cm.get("count"):
        if cm["base"]["n"] == 0 or cm["arm"]["n"] == 0:
            return None
        a = [cm["events"][0] / cm["base"]["n"]] * cm["base"]["n"]
        b = [cm["events"][1] / cm["arm"]["n"]] * cm["arm"]["n"]
        return poisson(a, b, level)["ci"]
    sa, sb = cm["base"], cm["arm"]
    if sa["n"] < 2 or sb["n"] < 2 or not sa["mean"]:
        return None
    ci = fieller(sa["mean"], sa["sd"], sa["n"], sb["mean"], sb["sd"], sb["n"], level)
    return None if ci is None else (ci[0] - 1, ci[1] - 1)


def too_few(cm):
    """Fewer than MIN_RUNS runs on a side: no verdict."""
    return cm["base"]["n"] < MIN_RUNS or cm["arm"]["n"] < MIN_RUNS


def resolvable(sa, sb, n=None):
    """The smallest relative change the comparison could tell from none at this spread:
    the half-width of the change's CI when the means are equal (with n runs each if given)."""
    na = nb = n
    if n is None:
        na, nb = sa["n"], sb["n"]
    va, vb = sa["sd"] ** 2 / na, sb["sd"] ** 2 / nb
    if sa["mean"] == 0:
        return None
    t = stats.t.ppf(0.5 + LEVEL / 2, welch_df(va, vb, na, nb))
    return t * math.sqrt(va + vb) / abs(sa["mean"])


def paired(pairs):
    """pairs: [(base, arm)] of the same repeat. Geometric mean of arm/base, its CI, and the sign count."""
    ratios = [b / a for a, b in pairs if a > 0 and b > 0]
    out = {"n": len(ratios), "above": sum(1 for r in ratios if r > 1),
           "below": sum(1 for r in ratios if r < 1), "change": None, "ci": None}
    if not ratios:
        return out
    logs = np.log(ratios)
    out["change"] = float(math.exp(logs.mean()) - 1)
    if len(ratios) >= 2:
        sd = logs.std(ddof=1)
        if sd > 0:
            lo, hi = stats.t.interval(LEVEL, len(logs) - 1, loc=logs.mean(), scale=sd / math.sqrt(len(logs)))
            out["ci"] = (math.exp(lo) - 1, math.exp(hi) - 1)
        else:
            out["ci"] = (out["change"], out["change"])
    return out


def sign_test(above, below):
    """Two-sided binomial p of that many ratios above 1 among the non-ties."""
    n = above + below
    if n == 0:
        return None
    return float(stats.binomtest(above, n, 0.5).pvalue)


def holm(ps):
    """Holm's step-down adjustment of a family of p-values (None entries are skipped)."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m = len(idx)
    out = [None] * len(ps)
    running = 0.0
    for k, (p, i) in enumerate(idx):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


# The verdict classes, from the change's CI against 0 and the claimed change.
CONSISTENT = "consistent with the claim"
SMALLER = "smaller than claimed"
LARGER = "larger than claimed"
NO_EFFECT = "no effect"
# Holds 0, excludes the claim, but reaches past the equivalence margin.
SMALLER_OR_NONE = "smaller than claimed or none"
TOO_FEW = "too few runs"
# The equivalence margin: "no effect" only when the interval lies within
# this share of the claimed change, on both sides of 0 (fixed before the
# runs it judges: issue 24).
EQUIVALENCE = 0.5
INCONCLUSIVE = "inconclusive"
OPPOSITE = "opposite to the claim"
NOT_MEASURED = "not measured"
# An experiment that says it does not answer a claim on a testbed (its claim's
# testbeds key).
NOT_ANSWERED = "not answered here"
# A claim measured on a stand-in that cannot exercise the mechanism.
NOT_COMPARABLE = "not tested by a comparable workload"


def verdict(ci, claim):
    """Classify a change's CI (lo, hi), or None if unbounded, against a claimed change (fractions).
    No effect needs the CI inside +/- EQUIVALENCE x |claim|; a CI that holds 0 and excludes the
    claim but reaches further is "smaller than claimed or none"."""
    if ci is None:
        return INCONCLUSIVE
    lo, hi = ci
    has0 = lo <= 0 <= hi
    hasc = lo <= claim <= hi
    if hasc and not has0:
        return CONSISTENT
    if has0 and hasc:
        return INCONCLUSIVE
    if has0:
        margin = EQUIVALENCE * abs(claim)
        return NO_EFFECT if -margin <= lo and hi <= margin else SMALLER_OR_NONE
    if (lo > 0) != (claim > 0):
        return OPPOSITE
    return SMALLER if abs(hi if claim > 0 else lo) < abs(claim) else LARGER


def repeats_needed(sa, sb, claim, limit=1000, level=LEVEL):
    """Runs per arm after which, at the observed means and spreads, the change's CI (at level)
    would be narrower than the claim, so that it could not contain both 0 and the claim."""
    if sa["sd"] is None or sb["sd"] is None or sa["mean"] == 0:
        return None
    for n in range(2, limit + 1):
        ci = fieller(sa["mean"], sa["sd"], n, sb["mean"], sb["sd"], n, level)
        if ci is not None and ci[1] - ci[0] < abs(claim):
            return n
    return limit + 1


def harmonic_mean(xs):
    xs = [x for x in xs if x > 0]
    return float(stats.hmean(xs)) if xs else None


BETTER = "better"
WORSE = "worse"
NO_DIFFERENCE = "no difference resolved"


def direction_verdict(ci, direction):
    """A change without a claim: better or worse (its CI excludes 0, on the
    side the metric's direction says is better), or no difference resolved
    (the CI holds 0, or there is none). direction: higher, lower or none."""
    if ci is None:
        return INCONCLUSIVE
    lo, hi = ci
    if lo <= 0 <= hi:
        return NO_DIFFERENCE
    up = lo > 0
    if direction == "none":
        return "higher" if up else "lower"
    return BETTER if up == (direction == "higher") else WORSE
