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

The guest boot is a level of the analysis (issue 24): when an arm's runs
come from two or more boots, the variance of its mean is that of a one-way
random-effects model, runs within boots: s_between^2 * sum(n_b^2) / N^2 +
s_within^2 / N, the components from the ANOVA mean squares (the between
component truncated at 0), with Satterthwaite's degrees of freedom. With
equal runs per boot and a positive between component that is MS_between /
N on B - 1 degrees of freedom: the boots' means are the units. With the
between component at 0 it is the runs' s^2 / N on N - 1, as for runs of
one boot; with one run per boot every run is its own unit. Welch's p and
Fieller's interval then take these variances and degrees of freedom.

Verdicts come from simultaneous intervals: a table's (or the claims
table's) m comparisons each get the interval at level 1 - 0.05 / m
(Bonferroni), so that all of them hold their true change at once with
95% probability. A verdict needs at least MIN_RUNS runs on each side.
Counts (events per run: preempted holds, expired grants) are compared as
Poisson rates: the exact conditional test and Clopper-Pearson interval
of the rate ratio, not a ratio of means.
"""

import math

import numpy as np
from scipy import stats

LEVEL = 0.95
# Runs per side below which no verdict is given ("too few runs").
MIN_RUNS = 3


def simultaneous_level(m):
    """The per-comparison level at which m intervals hold at once with
    probability LEVEL (Bonferroni)."""
    return 1 - (1 - LEVEL) / max(1, m)


def boot_components(xs, boots):
    """The one-way random-effects view of runs xs from guest boots (labels,
    one per run): {"boots", "se2" (the variance of the mean), "df",
    "between" (the between-boot share of the variance, None when it cannot
    be told)}. See the module's comment."""
    a = np.asarray(xs, dtype=float)
    n = len(a)
    groups = {}
    for x, b in zip(a, boots):
        groups.setdefault(b, []).append(x)
    k = len(groups)
    sd2 = float(a.var(ddof=1))
    out = {"boots": k, "se2": sd2 / n, "df": float(n - 1), "between": None}
    if k < 2 or n == k:
        # One boot (the runs are its units), or one run per boot (each run
        # is its own unit: the boots' spread is in its variance whole).
        return out
    ns = np.array([len(g) for g in groups.values()], dtype=float)
    means = np.array([np.mean(g) for g in groups.values()])
    dfw, dfb = n - k, k - 1
    msw = sum(float(((np.asarray(g) - np.mean(g)) ** 2).sum()) for g in groups.values()) / dfw
    msb = float((ns * (means - a.mean()) ** 2).sum()) / dfb
    n0 = (n - (ns * ns).sum() / n) / dfb
    sb2 = (msb - msw) / n0
    if sb2 <= 0:
        # No spread between boots beyond what the runs within them show:
        # the runs are the units.
        out["between"] = 0.0
        return out
    c = float((ns * ns).sum()) / (n * n)
    # The variance as a combination of the mean squares, for Satterthwaite.
    ab, aw = c / n0, 1 / n - c / n0
    se2 = ab * msb + aw * msw
    den = (ab * msb) ** 2 / dfb + (aw * msw) ** 2 / dfw
    out.update(se2=se2, df=se2 * se2 / den if den > 0 else float(dfb), between=sb2 / (sb2 + msw))
    return out


def summary(xs, boots=None):
    """n, mean, sd, median, and the t-based 95% CI of the mean (None below 2
    runs); se2 and df, the mean's variance and its degrees of freedom (with
    boots, one label per run, from the random-effects model), and boots and
    between (how many boots; the between-boot share of the variance)."""
    a = np.asarray(xs, dtype=float)
    n = len(a)
    out = {"n": n, "mean": float(a.mean()) if n else None,
           "median": float(np.median(a)) if n else None,
           "sd": None, "ci": None, "min": float(a.min()) if n else None,
           "max": float(a.max()) if n else None, "se2": None, "df": None,
           "boots": None, "between": None}
    if boots is not None and n and all(b is not None for b in boots):
        out["boots"] = len(set(boots))
    if n >= 2:
        out["sd"] = float(a.std(ddof=1))
        out["se2"], out["df"] = out["sd"] ** 2 / n, float(n - 1)
        if out["boots"]:
            out.update(boot_components(a, boots))
        se = math.sqrt(out["se2"])
        if se > 0:
            out["ci"] = tuple(float(v) for v in stats.t.interval(LEVEL, out["df"], loc=out["mean"], scale=se))
        else:
            out["ci"] = (out["mean"], out["mean"])
    return out


def welch_df(va, vb, dfa, dfb):
    """Welch-Satterthwaite degrees of freedom from the squared standard
    errors and their degrees of freedom (n - 1 for plain runs)."""
    den = (va * va) / dfa + (vb * vb) / dfb
    return (va + vb) ** 2 / den if den > 0 else float(dfa + dfb)


def welch_p(sa, sb):
    """Welch's two-sided p for mean(b) != mean(a), from two summaries (their
    means' variances and degrees of freedom); 1 when both are constant and
    equal."""
    if sa["n"] < 2 or sb["n"] < 2:
        return None
    va, vb = sa["se2"], sb["se2"]
    if va == 0 and vb == 0:
        return 1.0 if sa["mean"] == sb["mean"] else 0.0
    t = (sb["mean"] - sa["mean"]) / math.sqrt(va + vb)
    return float(2 * stats.t.sf(abs(t), welch_df(va, vb, sa["df"], sb["df"])))


def fieller_s(sa, sb, level=LEVEL):
    """The CI of mean(b) / mean(a) at level from two summaries (independent
    samples, Welch-Satterthwaite df): (lo, hi), or None when unbounded."""
    return fieller_v(sa["mean"], sa["se2"], sa["df"], sb["mean"], sb["se2"], sb["df"], level)


def fieller(ma, sa, na, mb, sb, nb, level=LEVEL):
    """The CI of mb / ma at level from means, sds and runs (independent
    runs, Welch's df): (lo, hi), or None when unbounded."""
    return fieller_v(ma, sa * sa / na, na - 1, mb, sb * sb / nb, nb - 1, level)


def fieller_v(ma, va, dfa, mb, vb, dfb, level=LEVEL):
    """Fieller's CI of mb / ma from the means' variances va, vb and their
    degrees of freedom. Every metric here is nonnegative (rates, times,
    counts), so the ratio is too: a bounded interval is intersected with
    [0, inf) (its lower root falls below 0 when the arm's own mean is not
    clearly away from 0), which no verdict depends on (0 and every claim
    lie above a ratio of 0)."""
    if va == 0 and vb == 0:
        r = mb / ma
        return (r, r)
    t = stats.t.ppf(0.5 + level / 2, welch_df(va, vb, dfa, dfb))
    qa = ma * ma - t * t * va
    if qa <= 0:
        return None
    qb = -2 * ma * mb
    qc = mb * mb - t * t * vb
    disc = qb * qb - 4 * qa * qc
    if disc < 0:
        return None
    root = math.sqrt(disc)
    return (max(0.0, (-qb - root) / (2 * qa)), (-qb + root) / (2 * qa))


def compare(a, b, boots_a=None, boots_b=None):
    """Arm b against baseline a (lists of run values; with the boot of each
    run, the boot as a random effect): the change of the means with its CI
    and p."""
    sa, sb = summary(a, boots_a), summary(b, boots_b)
    out = {"base": sa, "arm": sb, "change": None, "ci": None, "p": None, "halfwidth": None}
    if sa["n"] == 0 or sb["n"] == 0 or sa["mean"] == 0:
        return out
    out["change"] = sb["mean"] / sa["mean"] - 1
    if sa["n"] >= 2 and sb["n"] >= 2:
        ci = fieller_s(sa, sb)
        out["ci"] = None if ci is None else (ci[0] - 1, ci[1] - 1)
        out["unbounded"] = ci is None
        out["p"] = welch_p(sa, sb)
        out["halfwidth"] = resolvable(sa, sb)
    return out


def poisson(a, b, level=LEVEL, boots_a=None, boots_b=None):
    """Counts per run, arm b against baseline a, as Poisson rates with the
    same exposure per run: the rate ratio - 1, its exact (Clopper-Pearson,
    conditional on the total) interval at level, and the exact two-sided
    p. The interval is None when neither side saw an event. The boots
    (labels per run) are counted for the report, not modelled: the
    Poisson model has no term for a boot."""
    ka, kb = int(round(sum(a))), int(round(sum(b)))
    na, nb = len(a), len(b)
    out = {"base": summary(a, boots_a), "arm": summary(b, boots_b), "change": None, "ci": None, "p": None,
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
    ci = fieller_s(sa, sb, level)
    return None if ci is None else (ci[0] - 1, ci[1] - 1)


def too_few(cm):
    """Fewer than MIN_RUNS runs on a side: no verdict."""
    return cm["base"]["n"] < MIN_RUNS or cm["arm"]["n"] < MIN_RUNS


def resolvable(sa, sb, n=None):
    """The smallest relative change the comparison could tell from none at this spread:
    the half-width of the change's CI when the means are equal (with n runs each if given)."""
    if sa["mean"] == 0:
        return None
    if n is None:
        va, vb, dfa, dfb = sa["se2"], sb["se2"], sa["df"], sb["df"]
    else:
        va, vb, dfa, dfb = sa["sd"] ** 2 / n, sb["sd"] ** 2 / n, n - 1, n - 1
    t = stats.t.ppf(0.5 + LEVEL / 2, welch_df(va, vb, dfa, dfb))
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
