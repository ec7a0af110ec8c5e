"""The claims table (each published claim against our runs of its baseline
and arm, with a verdict from simultaneous intervals over the claims) and
the verdict helpers the other section kinds share."""

import analysis as an
import results as rs
from fmt import ci_pct, mean_sd, pct, pval, rows_tb, table
from results import ReportError


def claims(rep, specs):
    """The claims table: each published claim on each testbed, against our
    runs of its baseline and arm."""
    if not specs:
        # An experiment that tests no published claim (unused-cost):
        # no empty table.
        return
    rows, ps = [], []
    rep._claim_tbs = []
    for cid, c in specs.items():
        for k in ("claim", "source", "change", "metric", "baseline", "arm"):
            if not c.get(k):
                raise ReportError(f"{rs.rel(rep.exp_src)}: [{cid}]: no {k}")
        try:
            claimed = float(c["change"]) / 100
        except ValueError:
            raise ReportError(f"{rs.rel(rep.exp_src)}: [claim.{cid}]: change is not a number: '{c['change']}'")
        m = rep.metric(c["metric"], rep.exp_src)
        for tb in rep.testbeds or [None]:
            claim_row(rep, c, cid, claimed, m, tb, rows, ps)
    holm = an.holm(ps)
    for r, p, h in zip(rows, ps, holm):
        if r[6] is None:
            r[6] = f"{pval(p)} ({pval(h)})"
    # The verdicts: simultaneous intervals over every claim row measured
    # here (the family), so that all of them hold at once at 95%.
    family = [r for r in rows if isinstance(r[-1], dict)]
    level = an.simultaneous_level(len(family))
    for r in family:
        r[4], r[-1] = claim_verdict(r[-1], level)
    tbcol = len(rep.testbeds) > 1
    if tbcol:
        rows = [[r[0], tb] + r[1:] for r, tb in rows_tb(rows, rep._claim_tbs)]
    sim = level_pct(level)
    rep.p("## Claims against our measurements", "",
           f"Each claim's change against ours. The verdict comes from the **simultaneous** interval of the "
           f"{len(family)} claim rows measured here (each at {sim}%, Bonferroni: all of them hold their true "
           f"change at once with 95% probability), not from the single 95% CI beside it: **consistent with the "
           "claim** (holds the claimed change, excludes 0), **smaller** or **larger than claimed** (excludes both, "
           "same direction), **no effect** (holds 0 and lies within ±half the claimed change, the equivalence "
           "margin fixed before these runs), **smaller than claimed or none** (holds 0, excludes the claim, but "
           "reaches past the margin), **opposite to the claim**, **inconclusive** (holds both; the runs needed to "
           f"tell are estimated from the observed spread), or **too few runs** (fewer than {an.MIN_RUNS} on a "
           "side). Counts per run are compared as Poisson rates (exact interval). p in brackets: Holm-adjusted "
           "over the claims." + (" Each claim is answered on each testbed." if tbcol else ""), "",
           table(["claim (source)"] + (["testbed"] if tbcol else []) +
                 ["claimed", "ours: baseline → arm", "change [95% CI]", "simultaneous CI",
                  "paired by repeat", "p (Holm)", "verdict"], rows), "")


def level_pct(level):
    """99.375 -> "99.38", 0.95 -> "95"."""
    return f"{100 * level:.2f}".rstrip("0").rstrip(".")


def comparison_verdict(cm, level, direction):
    """The simultaneous-interval cell and the verdict cell of a comparison without a claim."""
    sim = an.at_level(cm, level)
    cell = ci_pct(sim) if (sim is not None or cm["p"] is not None) else ""
    if an.too_few(cm):
        return cell, f"**{an.TOO_FEW}**"
    return cell, f"**{an.direction_verdict(sim, direction)}**"


def boots_note(cm):
    """How many guest boots each side's runs came from, and the share of
    their variance between boots (the random-effects model's)."""
    sa, sb = cm["base"], cm["arm"]
    if sa["boots"] is None or sb["boots"] is None:
        return "boots not recorded"
    out = f"{sa['boots']}, {sb['boots']} boots"
    if not cm.get("count") and (sa["between"] is not None or sb["between"] is not None):
        out += "; between boots " + ", ".join("-" if s["between"] is None else f"{100 * s['between']:.0f}%"
                                             for s in (sa, sb))
    return out


def one_boot(cm):
    """Why a comparison is not replicated across boots (None: it is)."""
    sa, sb = cm["base"], cm["arm"]
    if sa["boots"] is None or sb["boots"] is None:
        return "the boots were not recorded, so the interval cannot hold the spread between boots"
    if min(sa["boots"], sb["boots"]) < 2:
        return "one boot on a side, so the interval does not hold the spread between boots"
    return None


def claim_verdict(pending, level):
    """A measured claim row's simultaneous-interval cell and verdict cell."""
    cmp_, claimed, c = pending["cmp"], pending["claimed"], pending["c"]
    sim = an.at_level(cmp_, level)
    why = ""
    if an.too_few(cmp_):
        v = an.TOO_FEW
        why = f": a verdict needs {an.MIN_RUNS} runs on each side"
    else:
        v = an.verdict(sim, claimed)
    if v == an.INCONCLUSIVE:
        # With a spread between boots, more runs in the same boots do not
        # narrow the interval: more boots do. Their number, from the boots'
        # means (equal runs per boot).
        unit = "boots" if any(s["between"] for s in (cmp_["base"], cmp_["arm"])) else "runs"
        sa, sb = cmp_["base"], cmp_["arm"]
        if unit == "boots":
            sa = dict(sa, sd=(sa["se2"] * sa["boots"]) ** 0.5)
            sb = dict(sb, sd=(sb["se2"] * sb["boots"]) ** 0.5)
        n = None if cmp_.get("count") else an.repeats_needed(sa, sb, claimed, level=level)
        if cmp_.get("count"):
            why = ": the interval holds both 0 and the claim"
        elif n is None:
            why = ": fewer than 2 runs on a side, so no interval and no estimate of the runs needed"
        elif n <= 1000:
            why = (f": the simultaneous CI holds both 0 and the claim; about {n} {unit} per arm at this spread "
                   "would narrow it below the claimed change")
        else:
            why = (": the simultaneous CI holds both 0 and the claim, and more than 1000 runs per arm would be "
                   "needed at this spread")
    # A stand-in that cannot exercise the mechanism (the claim's
    # not_comparable says why): its numbers are shown, never its verdict.
    if c.get("not_comparable"):
        v, why = an.NOT_COMPARABLE, f": {c['not_comparable']}"
    # A headline comparison needs two boots a side (issue 24).
    if one_boot(cmp_) and v != an.NOT_COMPARABLE:
        why += f"; not replicated: {one_boot(cmp_)}"
    # What the measuring point could not test, said beside the verdict.
    if c.get("note"):
        why += f". {c['note']}"
    return ci_pct(sim) if (sim is not None or cmp_["p"] is not None) else "", f"**{v}**{why}"


def claim_row(rep, c, cid, claimed, m, tb, rows, ps):
    """One claim on one testbed (None: the plan names none)."""
    bsel = rs.parse_selector(c["baseline"], rep.exp_src, f"[{cid}] baseline", rep.meta)
    asel = rs.parse_selector(c["arm"], rep.exp_src, f"[{cid}] arm", rep.meta)
    if tb is not None:
        bsel["testbed"] = asel["testbed"] = tb
    rep._claim_tbs.append(tb)
    base, arm = rep.done(bsel), rep.done(asel)
    head = f"{c['claim']}. Source: {c['source']}"
    # An experiment may say where it does not answer a claim (its testbeds
    # key), and why: the row says so instead of "not measured".
    if tb is not None and c.get("testbeds") is not None and tb not in c["testbeds"]:
        rows.append([head, pct(claimed), f"not run here: {c.get('why_not', 'this experiment does not answer it')}",
                     "", "", "", "", f"**{an.NOT_ANSWERED}**"])
        ps.append(None)
        return
    if not base or not arm:
        missing = "; ".join(f"no {w} runs (`{c[w]}`)" for w, x in (("baseline", base), ("arm", arm)) if not x)
        rows.append([head, pct(claimed), f"not measured: {missing}",
                     "", "", "", "", f"**{an.NOT_MEASURED}**"])
        ps.append(None)
        return
    cmp_ = rep.compare(base, arm, m)
    pr = cmp_["paired"]
    # The verdict waits for the family's size (claims()).
    rows.append([head, pct(claimed),
                 f"{mean_sd(cmp_['base'], m.decimals)} → {mean_sd(cmp_['arm'], m.decimals)} {m.unit} "
                 f"({len(base)}, {len(arm)} runs; {boots_note(cmp_)})",
                 f"{pct(cmp_['change'])} {ci_pct(cmp_['ci'])}", None,
                 f"{pct(pr['change'])} {ci_pct(pr['ci']) if pr['n'] >= 2 else ''}; {pr['above']} of {pr['n']} above 1",
                 None, {"cmp": cmp_, "claimed": claimed, "c": c}])
    ps.append(cmp_["p"])

