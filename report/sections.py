"""The report's section kinds. Each is a function (rep, id, spec): rep is
the Report (report/generate: the results folder's runs, plan, metrics and
the output), spec the section's table in the experiment file (kind, bench,
where, point, arm, baseline or baselines, metrics, ...; report/README.md).
No kind knows a benchmark's arms: they come from the spec."""

import os

import analysis as an
import results as rs
from fmt import (TESTBED, share, arm_label, arm_sort, ci_pct, col_cell, col_head, dur_ns, ext_label, mean_sd, num,
                 pct, pval, res_pct, rows_tb, table)
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


class Comparison:
    """One comparison section on one testbed: its runs grouped into points
    (the `point` columns) and arms (the `arm` columns), each arm against the
    point's baseline arm, then what the table can resolve, percentiles, plots
    and the CCDF. With several testbeds the heading names the testbed and
    the plots' names end in -TESTBED."""

    def __init__(self, rep, cid, c, tb):
        self.rep, self.c, self.tb = rep, c, tb
        self.multi = len(rep.testbeds) > 1
        self.title = f"{c['title']}, on {TESTBED.get(tb, tb)}" if self.multi else c["title"]
        self.cid = f"{cid}-{tb}" if tb is not None and tb != "parallel" else cid
        self.src = rep.exp_src
        self.prim_rows, self.sec_rows, self.cmps, self.halfw, self.between = [], [], [], [], []
        self.series, self.strip_arms = {}, []

    def render(self):
        planned = self.select()
        if planned is None:
            return
        c = self.c
        if c.get("note"):
            self.rep.p(c["note"], "")
        if c.get("baselines"):
            against_baselines(self.rep, self.cid, c, planned, self.tb)
            return
        if self.tb == "precise" and c.get("note_precise"):
            shift = self.rep.env.get("precise_icount_shift", "?")
            per = f"{2 ** int(shift)}" if shift.isdigit() else "2^shift"
            self.rep.p(c["note_precise"].replace("{shift}", shift).replace("{ns_per_insn}", per), "")
        self.group(planned)
        for pk in sorted(self.points, key=lambda k: tuple((x is None, x) for x in k)):
            self.point(pk, self.points[pk])
        self.tables()
        self.resolution()
        if c.get("percentiles"):
            percentiles(self.rep, self.cid, c, self.points, self.point_cols, self.arm_cols, self.vary)
        self.plot()
        if c.get("ccdf"):
            ccdf(self.rep, self.cid, c, self.points, self.arm_cols)

    def select(self):
        """The section's runs on this testbed, or None (after saying why,
        under the heading) when there is nothing to compare."""
        rep, c, cid, tb = self.rep, self.c, self.cid, self.tb
        for k in ("title", "bench", "point", "arm", "metrics"):
            if not c.get(k):
                raise ReportError(f"{rs.rel(self.src)}: [{cid}]: no {k}")
        if c.get("testbed") and tb is not None and tb != c["testbed"]:
            return None
        where = rs.parse_selector(f"bench={c['bench']} {c.get('where', '')}", self.src, f"[{cid}] where", rep.meta)
        if tb is not None:
            where["testbed"] = tb
        if not [r for r in rep.runs if r["bench"] == c["bench"] and (tb is None or r["testbed"] == tb)]:
            if c.get("absent"):
                rep.p(f"## {self.title}", "", c["absent"], "")
            return None
        self.point_cols, self.arm_cols = c["point"].split(), c["arm"].split()
        for col in self.point_cols + self.arm_cols + ([c["x"]] if c.get("x") else []):
            if col not in rs.COLUMNS:
                raise ReportError(f"{rs.rel(self.src)}: [{cid}]: unknown column '{col}'")
        self.metrics = [rep.metric(n, self.src) for n in c["metrics"].split()]
        self.prim = self.metrics[0]
        self.bsel = rs.parse_selector(c["baseline"], self.src, f"[{cid}] baseline", rep.meta) \
            if c.get("baseline") else None
        rep.p(f"## {self.title}", "")
        if any(isinstance(v, tuple) for v in where.values()):
            miss = [v[1] for v in where.values() if isinstance(v, tuple)]
            rep.p(f"Not shown: the plan names no {', '.join(miss)}.", "")
            return None
        planned = [r for r in rep.runs if all(r.row[k] == v for k, v in where.items())]
        if not planned:
            rep.p("No run of the plan falls here (`" + c.get("where", "") + "`).", "")
            return None
        if c.get("show_if") and not any(differs(rep, r, c["show_if"], cid) for r in planned):
            rep.p(c.get("not_run", "Not run here."), "")
            return None
        xs = {r.row[c["x"]] for r in planned} if c.get("x") else set()
        if c.get("x") and len(xs) < 2:
            rep.p(f"Not swept here: every run of this table has {col_head(c['x'])} = "
                  f"{col_cell(c['x'], next(iter(xs)))}.", "")
            return None
        return planned

    def group(self, planned):
        """points -> arms -> runs, and the point columns that vary."""
        self.points = {}
        for r in planned:
            pk = tuple(r.row[k] for k in self.point_cols)
            ak = tuple(r.row[k] for k in self.arm_cols)
            self.points.setdefault(pk, {}).setdefault(ak, []).append(r)
        self.vary = [k for i, k in enumerate(self.point_cols) if len({pk[i] for pk in self.points}) > 1]
        x = self.c.get("x")
        if x and x in self.point_cols and x not in self.vary:
            self.vary.append(x)

    def point(self, pk, arms):
        """One point's rows: its baseline arm first, every other arm against it."""
        rep, prim = self.rep, self.prim
        order = sorted(arms, key=lambda ak: arm_sort(arms[ak][0].row))
        base_ak = None
        if self.bsel is not None:
            bs = [ak for ak in order if rs.matches(arms[ak][0].row, self.bsel)]
            base_ak = bs[0] if bs else None
        if base_ak is not None:
            order.remove(base_ak)
            order.insert(0, base_ak)
        pcells = [col_cell(k, pk[self.point_cols.index(k)]) for k in self.vary]
        if self.bsel is not None and base_ak is None:
            pdesc = [f"{k}={pk[self.point_cols.index(k)]}" for k in self.vary]
            rep.p(f"- {' '.join(pdesc) or 'This point'}: **no baseline arm** (`{self.c['baseline']}`) was run, "
                  "so no change can be computed; the arms are shown alone.")
        base_runs = [r for r in arms[base_ak] if r.data is not None] if base_ak is not None else []
        nonbase_stats = []
        for ak in order:
            runs = arms[ak]
            done = [r for r in runs if r.data is not None]
            label = arm_label(runs[0].row, set(self.arm_cols))
            short = f" (**{len(done)} of {len(runs)} runs**)" if len(done) < len(runs) else ""
            vals = rep.values(done, prim)
            s = an.summary(vals, rep.boots(done))
            for r in done:
                rep.section_runs.setdefault(self.cid, {})[r.id] = (prim, prim.value(r))
            cells = pcells + [label, f"{len(done)}{short}", mean_sd(s, prim.decimals)]
            if ak == base_ak:
                cells += ["baseline", "", "", "", "", "", ""]
            elif base_runs and done:
                cells += self.change_cells(base_runs, done)
            else:
                cells += ["-", "-", "-", "-", "", "", ""]
            if ak != base_ak and s["n"] >= 2:
                nonbase_stats.append(s)
            self.prim_rows.append(cells)
            self.sec_rows.append(pcells + [label] + [mean_sd(an.summary(rep.values(done, m)), m.decimals)
                                                     for m in self.metrics[1:]])
            if self.c.get("x"):
                self.series.setdefault(arm_label(runs[0].row, set(self.arm_cols) - {self.c["x"]}), []).append(
                    (runs[0].row[self.c["x"]], vals, s["mean"], s["ci"]))
            else:
                self.strip_arms.append((label, vals, s["mean"], s["ci"]))
        for i in range(len(nonbase_stats)):
            for j in range(i + 1, len(nonbase_stats)):
                h = an.resolvable(nonbase_stats[i], nonbase_stats[j])
                if h is not None:
                    self.between.append(h)

    def change_cells(self, base_runs, done):
        """An arm against its point's baseline: change, paired, sign count,
        p, (Holm p, filled in over the table), verdict."""
        cm = self.rep.compare(base_runs, done, self.prim)
        self.cmps.append(cm)
        if cm["halfwidth"] is not None:
            self.halfw.append(cm["halfwidth"])
        pr = cm["paired"]
        # The simultaneous CI and the verdict wait for the table's family
        # (tables()).
        return [f"{pct(cm['change'])} {ci_pct(cm['ci']) if cm['ci'] is not None or cm['p'] is not None else ''}",
                f"{pct(pr['change'])} {ci_pct(pr['ci']) if pr['n'] >= 2 else ''}",
                f"{pr['above']}/{pr['n']}" if pr["n"] else "-",
                pval(cm["p"]), None, None, {"cm": cm}]

    def tables(self):
        prim, vary = self.prim, self.vary
        if self.bsel is not None:
            # Holm over this table's comparisons of the primary metric.
            hp = iter(an.holm([cm["p"] for cm in self.cmps]))
            for cells in self.prim_rows:
                if cells[-3] is None:
                    cells[-3] = pval(next(hp))
            # Verdicts from simultaneous intervals over this table's
            # comparisons (the family).
            level = an.simultaneous_level(len(self.cmps))
            for cells in self.prim_rows:
                if isinstance(cells[-1], dict):
                    cells[-2], cells[-1] = comparison_verdict(cells[-1]["cm"], level, prim.direction)
            head = [col_head(k) for k in vary] + ["arm", "runs", prim.label, "change [95% CI]",
                                                  "paired [95% CI]", "above 1", "p", "Holm p", "simultaneous CI",
                                                  "verdict"]
            lead = f"**{prim.label}** ({prim.direction} is better):" if prim.direction != "none" else f"**{prim.label}**:"
            self.rep.p("", lead, "", table(head, self.prim_rows), "",
                       f"The verdicts come from simultaneous intervals over the table's {len(self.cmps)} "
                       f"comparison(s) (each at {level_pct(level)}%, Bonferroni), and need {an.MIN_RUNS} runs "
                       "on each side." + (" Counts per run are compared as Poisson rates (exact interval)."
                                          if prim.kind == "count" else ""), "")
        else:
            head = [col_head(k) for k in vary] + ["arm", "runs", prim.label]
            self.rep.p("", table(head, [r[:len(vary) + 3] for r in self.prim_rows]), "")
        if len(self.metrics) > 1:
            self.rep.p(table([col_head(k) for k in vary] + ["arm"] + [m.label for m in self.metrics[1:]],
                             self.sec_rows), "")

    def resolution(self):
        """What this table can resolve, and the sign count."""
        prim, cmps, sent = self.prim, self.cmps, []
        if self.halfw:
            hs = sorted(self.halfw)
            sent.append(f"At the observed spread, a change of {prim.label} against the baseline smaller than about "
                        f"±{res_pct(hs[len(hs) // 2])}% cannot be told from none here (the half-width of the 95% CI "
                        f"at zero effect; {res_pct(hs[0])}-{res_pct(hs[-1])}% over the {len(hs)} comparisons).")
        if self.between:
            bs_ = sorted(self.between)
            sent.append(f"Between two non-baseline arms of a point, differences under about "
                        f"±{res_pct(bs_[len(bs_) // 2])}% cannot be resolved.")
        if cmps and any(cm["paired"]["n"] >= 2 for cm in cmps):
            above = sum(cm["paired"]["above"] for cm in cmps)
            below = sum(cm["paired"]["below"] for cm in cmps)
            tot = sum(cm["paired"]["n"] for cm in cmps)
            sig = sum(1 for cm in cmps if cm["p"] is not None and cm["p"] < 0.05)
            holm_sig = sum(1 for h in an.holm([cm["p"] for cm in cmps]) if h is not None and h < 0.05)
            # No pooled sign test: the arms of a repeat share its baseline
            # run, so their ratios are not independent (issue 24).
            nmax = max(cm["paired"]["n"] for cm in cmps)
            sent.append(f"Same-repeat ratios arm / baseline: {above} of {tot} above 1, {below} below (a count, not "
                        "a test: the arms of a repeat share its baseline run; one comparison's sign test over "
                        f"{nmax} ratios cannot reach below p = {pval(an.sign_test(nmax, 0))}); {sig} of {len(cmps)} "
                        f"comparisons have p < 0.05, {holm_sig} after Holm's adjustment.")
        if sent:
            self.rep.p(" ".join(sent), "")
            key = self.c["bench"] + (f" ({self.tb})" if self.multi else "")
            self.rep.resolution.setdefault(key, []).append((self.title, self.halfw, self.between))

    def plot(self):
        """A sweep plot (x), else a strip plot of a single point's arms."""
        import plots
        rep, c, prim = self.rep, self.c, self.prim
        os.makedirs(rep.plots, exist_ok=True)
        fname = f"{self.cid}.png"
        if c.get("x") and self.series:
            xl, series = c["x"].replace("_", " "), self.series
            if c["x"] in ("ext_ns", "work_in_ns"):
                series = {k: [(x / 1000, *rest) for x, *rest in v] for k, v in series.items()}
                xl = "extension length (us)" if c["x"] == "ext_ns" else "work under the lock (us)"
            plots.sweep(os.path.join(rep.plots, fname), f"{self.title}: every run, means with 95% CI",
                        xl, prim.label, series, self.band())
            rep.p(rep.plot_link(fname, self.title), "")
        elif self.strip_arms and len(self.points) == 1 and any(len(a[1]) > 1 for a in self.strip_arms):
            plots.strip(os.path.join(rep.plots, fname), f"{self.title}: every run, mean and 95% CI",
                        prim.label, self.strip_arms)
            rep.p(rep.plot_link(fname, self.title), "")

    def band(self):
        """The section's band runs (mean and CI) across a sweep's plot."""
        if not self.c.get("band"):
            return None
        sel = rs.parse_selector(self.c["band"], self.src, f"[{self.cid}] band", self.rep.meta)
        if self.tb is not None:
            sel["testbed"] = self.tb
        br = self.rep.done(sel)
        if not br:
            return None
        s = an.summary(self.rep.values(br, self.prim))
        return (arm_label(br[0].row, {"grant", "abi"}) + " (mean, 95% CI)", s["mean"], s["ci"])


def differs(rep, r, text, cid):
    """Does run r satisfy any of 'COL!=VALUE ...'?"""
    for item in text.split():
        k, sep, v = item.partition("!=")
        if not sep or k not in rs.COLUMNS:
            raise ReportError(f"{rs.rel(rep.exp_src)}: [{cid}] show_if: '{item}' is not COLUMN!=VALUE")
        if r.row[k] is not None and str(r.row[k]) != v:
            return True
    return False


def against_baselines(rep, cid, c, planned, tb):
    """Every arm against each of several baselines ("baselines = NAME: COL=V ... |
    NAME: ..."), a table per metric, each change with its 95% CI and a
    verdict class, then a strip plot of the primary metric."""
    ini = rep.exp_src
    bases = []
    for part in c["baselines"].split("|"):
        name, _, sel = part.partition(":")
        if not sel.strip():
            raise ReportError(f"{rs.rel(ini)}: [{cid}] baselines: '{part.strip()}' is not NAME: COL=VALUE ...")
        bases.append((name.strip(), rs.parse_selector(sel, ini, f"[{cid}] baselines", rep.meta)))
    arm_cols = c["arm"].split()
    arms = {}
    for r in planned:
        arms.setdefault(tuple(r.row[k] for k in arm_cols), []).append(r)
    order = sorted(arms, key=lambda ak: arm_sort(arms[ak][0].row))
    base_runs = {}
    for name, sel in bases:
        b = [ak for ak in order if rs.matches(arms[ak][0].row, sel)]
        base_runs[name] = [r for r in arms[b[0]] if r.data is not None] if b else []
        if not b:
            rep.p(f"- **no {name} arm** (`{' '.join(f'{k}={v}' for k, v in sel.items())}`) was run: "
                   f"no change against {name} can be computed.")
    metrics = [rep.metric(n, ini) for n in c["metrics"].split()]
    labels = set(arm_cols)
    strip = []
    for m in metrics:
        head = ["arm", "runs", m.label] + [f"against {n} [95% CI]; at once [CI]" for n, _ in bases]
        rows, family = [], []
        for ak in order:
            runs = arms[ak]
            done = [r for r in runs if r.data is not None]
            s = an.summary(rep.values(done, m))
            label = arm_label(runs[0].row, labels)
            short = f" (**{len(done)} of {len(runs)} runs**)" if len(done) < len(runs) else ""
            cells = [label, f"{len(done)}{short}", mean_sd(s, m.decimals)]
            for n, sel in bases:
                br = base_runs[n]
                if rs.matches(runs[0].row, sel):
                    cells.append(f"({n})")
                elif not br or not done:
                    cells.append("-")
                else:
                    # The verdict waits for the table's family.
                    cm = rep.compare(br, done, m)
                    family.append((cells, len(cells), cm))
                    cells.append(None)
            rows.append(cells)
            if m is metrics[0]:
                strip.append((label, rep.values(done, m), s["mean"], s["ci"]))
        level = an.simultaneous_level(len(family))
        for cells, i, cm in family:
            sim, v = comparison_verdict(cm, level, m.direction)
            cells[i] = f"{pct(cm['change'])} {ci_pct(cm['ci'])}; {sim or '-'} {v}"
        d = f" ({m.direction} is better)" if m.direction != "none" else ""
        rep.p(f"**{m.label}**{d}:", "", table(head, rows), "",
              f"The {len(family)} changes of this table are one family: the verdict comes from the simultaneous "
              f"interval (\"at once\", each at {level_pct(level)}%, Bonferroni)"
              + (", for counts per run from the exact Poisson rate ratio" if m.kind == "count" else "") + ".", "")
    rep.p("A change is better or worse when its simultaneous interval excludes 0 (Fieller's, Welch's df; "
          f"counts: exact Poisson); otherwise no difference is resolved at this spread. {an.MIN_RUNS} runs on each "
          "side are needed for a verdict (\"too few runs\").", "")
    import plots
    os.makedirs(rep.plots, exist_ok=True)
    if any(len(a[1]) > 1 for a in strip):
        fname = f"{cid}.png"
        plots.strip(os.path.join(rep.plots, fname), f"{c['title']}: every run, mean and 95% CI",
                    metrics[0].label, strip)
        rep.p(rep.plot_link(fname, c["title"]), "")


def percentiles(rep, cid, c, points, point_cols, arm_cols, vary):
    ms = [rep.metric(n, rep.exp_src) for n in c["percentiles"].split()]
    rows = []
    for pk in points:
        arms = points[pk]
        for ak in sorted(arms, key=lambda ak: arm_sort(arms[ak][0].row)):
            done = [r for r in arms[ak] if r.data is not None]
            if not done:
                continue
            row = [arm_label(done[0].row, set(arm_cols))]
            for m in ms:
                s = an.summary(rep.values(done, m))
                row.append(num(s["median"], m.decimals))
            rows.append(row)
    rep.p("Lock wait and hold percentiles: the **median over the runs** of each run's percentile "
           "(a mean would be one run's outlier).", "",
           table(["arm"] + [m.label for m in ms], rows), "")


def ccdf(rep, cid, c, points, arm_cols):
    """Per arm, each run's lock wait CCDF: from its histogram if the run wrote one
    (results.NAME.buckets: [lower_ns, upper_ns, count]), else from its percentiles.
    ccdf_arms ("COL=VALUE ... | COL=VALUE ...") keeps the runs that match any
    of its selectors (default: every run); ccdf_title is the plot's title."""
    import plots
    key = c["ccdf"]
    keep = [rs.parse_selector(x, rep.exp_src, f"[section.{cid}] ccdf_arms", rep.meta)
            for x in c.get("ccdf_arms", "").split("|") if x.strip()]
    arms = {}
    from_pct = False
    for pk in points:
        for ak, runs in points[pk].items():
            for r in runs:
                if r.data is None or keep and not any(rs.matches(r.row, k) for k in keep):
                    continue
                h = r.data.get("results", {}).get(key)
                if not isinstance(h, dict):
                    raise ReportError(f"{rs.rel(r.path)}: field .results.{key} is missing")
                pts = []
                if isinstance(h.get("buckets"), list):
                    try:
                        tot = sum(b[2] for b in h["buckets"])
                        left = tot
                        for lo, hi, n in h["buckets"]:
                            left -= n
                            pts.append((hi / 1e3, left / tot if tot else 0))
                    except (TypeError, ValueError, IndexError):
                        raise ReportError(f"{rs.rel(r.path)}: .results.{key}.buckets is not a list of "
                                          "[lower_ns, upper_ns, count]")
                else:
                    from_pct = True
                    for k, y in (("p50_ns", 0.5), ("p90_ns", 0.1), ("p99_ns", 0.01), ("p99_9_ns", 0.001)):
                        if k not in h:
                            raise ReportError(f"{rs.rel(r.path)}: field .results.{key}.{k} is missing")
                        pts.append((h[k] / 1e3, y))
                    if h.get("count"):
                        pts.append((h["max_ns"] / 1e3, 1 / h["count"]))
                label = arm_label(r.row, set(arm_cols) - {"ext_ns"})
                arms.setdefault(label, []).append(pts)
    if not arms:
        return
    fname = f"{cid}-{key}-ccdf.png"
    plots.ccdf(os.path.join(rep.plots, fname), c.get("ccdf_title", f"Lock {key} CCDF per run"),
               f"lock {key} (us)", arms)
    how = ("each run's p50, p90, p99, p99.9 and maximum, joined by straight lines on the log-log axes "
           "(these runs wrote no histogram, so the curve between those points is not known)" if from_pct
           else "each run's histogram buckets")
    rep.p(f"The lock {key} CCDF: the share of acquisitions that waited longer than x, one line per run, from {how}.", "",
           rep.plot_link(fname, f"lock {key} CCDF"), "")


def hyperfine(rep, sid, spec):
    """hyperfine's whole-run timing of the fast-path loop, as exported."""
    hf = [r for r in rep.runs if r["bench"] == spec["bench"] and r.data is not None]
    if not hf:
        return
    r = hf[0]
    md = r.path[:-5] + ".md"
    if not os.path.isfile(md):
        raise ReportError(f"{rs.rel(md)}: missing (hyperfine's markdown export)")
    a = r["argv"]
    ro, pa = rs._arg(a, "--rounds"), rs._arg(a, "--pairs")
    if not (ro and pa and ro.isdigit() and pa.isdigit()):
        raise ReportError(f"{rs.rel(os.path.join(rep.d, 'plan.tsv'))}: {r.id}: no --rounds and --pairs in '{a}'")
    pairs = int(ro) * int(pa) + int(pa) // 10
    res = r.data.get("results") if isinstance(r.data, dict) else None
    if not isinstance(res, list) or not all(isinstance(x, dict) and "command" in x and "mean" in x for x in res):
        raise ReportError(f"{rs.rel(r.path)}: not hyperfine's JSON export (results[].command, .mean)")
    with open(md) as f:
        mdt = f.read().strip()
    rep.p(f"### {spec.get('title', 'The same loop timed by hyperfine: whole runs')}", "",
           f"In the guest, `hyperfine -N --warmup 2 --runs 10` runs `lock-cost --abi ABI {a}` once per back end, "
           f"each after switching `kernel.slice_ext_abi` to it: {pairs} TTAS lock/unlock pairs per run, process "
           "start and rseq set-up included. Hyperfine's markdown export:", "", mdt, "",
           "Per pair, from the means (whole run divided by the pairs): "
           + ", ".join(f"{x['command']} {x['mean'] * 1e9 / pairs:.2f} ns" for x in res) + ".", "")


def grant_durations(rep, sid, spec):
    """How long grants ran, from the slice_ext end tracepoints of the
    section's bench (its traces), per testbed."""
    for tb in sorted(rep.traces, key=lambda t: t != "parallel"):
        grants_on(rep, tb, rep.traces[tb], spec)


def grants_on(rep, tb, traces, spec):
    import plots
    multi = len(rep.testbeds) > 1
    rows = []
    hists = {}
    for ln in sorted(traces):
        ev = traces[ln]
        allr = [x for _, x in ev]
        rows.append([ext_label(ln), "all", len(allr), dur_ns(an.harmonic_mean(allr)),
                     dur_ns(sorted(allr)[len(allr) // 2]), dur_ns(max(allr))])
        for kind in ("yield", "expire", "revoke", "abort"):
            v = sorted(x for k, x in ev if k == kind)
            if v:
                rows.append([ext_label(ln), kind, len(v), dur_ns(an.harmonic_mean(v)),
                             dur_ns(v[len(v) // 2]), dur_ns(v[-1])])
        hists[f"{ext_label(ln)} requested"] = [x / 1e3 for x in allr]
    fname = "grant-durations.png" if tb == "parallel" else f"grant-durations-{tb}.png"
    plots.histograms(os.path.join(rep.plots, fname), "How long grants ran (slice_ext end tracepoints)",
                     "ran inside the grant (us)", hists)
    rep.p(f"## {spec.get('title', 'How long grants last')}" + (f", on {TESTBED.get(tb, tb)}" if multi else ""), "",
           "The `slice_ext` end tracepoints (`ran_ns`: how long the task ran inside its grant, up to its "
           "context switch) during the lock table at the main point, mainline. Upstream's statistic is the "
           "harmonic mean of the grant durations (Zijlstra measured about 350 ns on real hardware).", "",
           table(["requested", "ended by", "grants", "harmonic mean", "median", "max"], rows), "",
           rep.plot_link(fname, "grant durations"), "")


def mutex_classes(rep, sid, spec):
    """swingbench-lite's structure per arm, medians over the runs: the
    sessions (in a transaction by Little's law, runnable) and the writer
    gate, then per class of SQLite mutex the acquisitions per statement,
    hold times, share of time held, preempted holds and grants (the
    JSON's results.sessions, .writer_gate and .mutexes[].window)."""
    import statistics
    arm_cols = spec["arm"].split()
    min_share = float(spec.get("min_held_share", 0.01))
    for tb in rep.testbeds or [None]:
        sel = rs.parse_selector(f"bench={spec['bench']} {spec.get('where', '')}", rep.exp_src,
                                f"[section.{sid}] where", rep.meta)
        if tb is not None:
            sel["testbed"] = tb
        runs = [r for r in rep.done(sel) if isinstance(r.data.get("results", {}).get("writer_gate"), dict)]
        if not rep.done(sel):
            continue
        title = f"{spec['title']}, on {TESTBED.get(tb, tb)}" if len(rep.testbeds) > 1 else spec["title"]
        rep.p(f"## {title}", "")
        if not runs:
            rep.p("These runs predate the structure measurements (swingbench-lite's per-class hold times, "
                  "writer gate and sessions).", "")
            continue
        if spec.get("note"):
            rep.p(spec["note"], "")
        arms = {}
        for r in runs:
            arms.setdefault(tuple(r.row[k] for k in arm_cols), []).append(r)
        order = sorted(arms, key=lambda ak: arm_sort(arms[ak][0].row))

        def med(rs_, f):
            v = [f(r.data["results"]) for r in rs_]
            return statistics.median(v) if v else None
        rows = []
        for ak in order:
            a = arms[ak]
            cpus = med(a, lambda x: x["sessions"]["cpus"]) or 1
            rows.append([arm_label(a[0].row, set(arm_cols)), len(a),
                         num(med(a, lambda x: x["sessions"]["in_transaction"]), 1),
                         num(med(a, lambda x: x["sessions"]["runnable_mean"]) / cpus, 1),
                         share(med(a, lambda x: x["writer_gate"]["utilisation"])),
                         num(med(a, lambda x: x["writer_gate"]["mean_waiting"]), 1),
                         num(med(a, lambda x: x["writer_gate"]["mean_wait_us"]) / 1e3, 2)])
        rep.p("Sessions and the writer gate (medians over the runs): how many clients are in a transaction "
              "(Little's law: transactions per second times their mean latency), how many tasks are runnable per "
              "vCPU (sampled from `/proc/loadavg`, every 10 ms), and the gate every write transaction queues on: "
              "the share of the time it is held and how many clients wait for it on average.", "",
              table(["arm", "runs", "in a transaction", "runnable per vCPU", "gate held", "waiting at the gate",
                     "mean gate wait (ms)"], rows), "")
        rows = []
        for ak in order:
            a = arms[ak]
            names = []
            for r in a:
                for m in r.data["results"]["mutexes"]:
                    if m["name"] not in names:
                        names.append(m["name"])
            for n in names:
                def w(x, key, n=n):
                    return next((m["window"][key] for m in x["mutexes"] if m["name"] == n), 0)

                def h(x, key, n=n):
                    return next((m["window"]["hold"][key] for m in x["mutexes"] if m["name"] == n), 0)
                held = med(a, lambda x: w(x, "held_share"))
                if held < min_share and med(a, lambda x: w(x, "per_statement")) < 0.05:
                    continue
                rows.append([arm_label(a[0].row, set(arm_cols)), n,
                             num(med(a, lambda x: w(x, "per_statement")), 2),
                             dur_ns(med(a, lambda x: h(x, "p50_ns"))), dur_ns(med(a, lambda x: h(x, "p99_ns"))),
                             dur_ns(med(a, lambda x: h(x, "max_ns"))), share(held),
                             num(med(a, lambda x: w(x, "contended")), 0),
                             num(med(a, lambda x: w(x, "preempted_holding")), 1),
                             num(med(a, lambda x: w(x, "grants")), 0)])
        rep.p(f"Per class of SQLite mutex in the measured window (medians over the runs; classes held at least "
              f"{100 * min_share:g}% of the time or taken at least 0.05 times per statement): a hold past "
              "`--preempted-us` (500 us) counts as preempted while holding; a grant counts for the class whose "
              "release ended the extended section. The share held sums over every mutex of a class.", "",
              table(["arm", "class", "per statement", "hold p50", "hold p99", "hold max", "held",
                     "contended", "preempted holds", "grants"], rows), "")


def predictions(rep, sid, spec):
    """Predicted against measured: each pre-registered cell (spec's `cell`
    list: where, arm, low, high, point; `level` cells predict the arm's mean
    of `metric`, the others its change against the spec's baseline). A
    prediction holds when the estimate lies in the interval and its 95% CI
    meets it, fails when the CI lies outside it, and is not held otherwise."""
    src = rep.exp_src
    for tb in rep.testbeds or [None]:
        rows, tally = [], {}
        for n, cell in enumerate(spec.get("cell", [])):
            for k in ("where", "arm", "low", "high"):
                if k not in cell:
                    raise ReportError(f"{rs.rel(src)}: [section.{sid}] cell {n + 1}: no {k}")
            # A cell is predicted for one testbed (the spec's, or its own).
            if tb is not None and cell.get("testbed", spec.get("testbed", tb)) != tb:
                continue
            what = f"[section.{sid}] cell {n + 1}"
            base = rs.parse_selector(f"bench={spec['bench']} {cell['where']} {spec.get('baseline', '')}", src,
                                     what, rep.meta)
            arm = rs.parse_selector(f"bench={spec['bench']} {cell['where']} {cell['arm']}", src, what, rep.meta)
            if tb is not None:
                base["testbed"] = arm["testbed"] = tb
            m = rep.metric(cell.get("metric", spec.get("metric", "sql_per_s")), src)
            lo, hi = float(cell["low"]), float(cell["high"])
            pt = cell.get("point")
            level = bool(cell.get("level"))
            ar = rep.done(arm)
            br = [] if level else rep.done(base)
            label = cell.get("label", f"{cell['where']}: {cell['arm']}")
            if level:
                pred = f"[{lo:g}, {hi:g}]" + (f", {pt:g}" if pt is not None else "") + \
                    ("" if cell.get("per") else f" {m.unit}")
            else:
                pred = f"[{lo:+g}%, {hi:+g}%]" + (f", {pt:+g}%" if pt is not None else "")
            if not ar or (not level and not br):
                if not rep.done({"bench": spec["bench"], **({"testbed": tb} if tb else {})}):
                    continue
                rows.append([label, pred, "-", "-", "**not run**"])
                tally["not run"] = tally.get("not run", 0) + 1
                continue
            if level and cell.get("per"):
                # A ratio of sums over the runs (expired of granted): no CI.
                den = sum(rep.values(ar, rep.metric(cell["per"], src)))
                if not den:
                    rows.append([label, pred, f"no {cell['per']} in {len(ar)} runs", f"{len(ar)}", "**not testable**"])
                    tally["not testable"] = tally.get("not testable", 0) + 1
                    continue
                est, ci, runs = sum(rep.values(ar, m)) / den, None, f"{len(ar)}"
                meas = f"{est:.3f} (of {den:,.0f})"
                scale_lo, scale_hi = lo, hi
            elif level:
                st = an.summary(rep.values(ar, m))
                est, ci, runs = st["mean"], st["ci"], f"{len(ar)}"
                meas = f"{num(est, m.decimals)} {m.unit}" + (f" [{num(ci[0], m.decimals)}, {num(ci[1], m.decimals)}]"
                                                           if ci else "")
                scale_lo, scale_hi = lo, hi
            else:
                cm = rep.compare(br, ar, m)
                est, ci, runs = cm["change"], cm["ci"], f"{len(br)}, {len(ar)}"
                meas = f"{pct(est)} {ci_pct(ci)}"
                scale_lo, scale_hi = lo / 100, hi / 100
            if len(ar) < 3 or (not level and len(br) < 3):
                v = "too few runs"
            elif est is not None and scale_lo <= est <= scale_hi and (ci is None or (ci[0] <= scale_hi and ci[1] >= scale_lo)):
                v = "held"
            elif ci is not None and (ci[1] < scale_lo or ci[0] > scale_hi):
                v = "failed"
            else:
                v = "not held"
            tally[v] = tally.get(v, 0) + 1
            # The registered marking of a cell whose structure fell short
            # (flag_metric above flag_above over the arm's runs: e.g. gate-bound).
            flag = ""
            if spec.get("flag_metric"):
                fm = rep.metric(spec["flag_metric"], src)
                fv = max(rep.values(ar + br, fm))
                if fv > float(spec.get("flag_above", 0)):
                    flag = f" ({spec.get('flag_label', 'flagged')}: {fm.label} {num(fv, fm.decimals)})"
            rows.append([label, pred, meas, runs, f"**{v}**{flag}"])
        if not rows:
            continue
        title = f"{spec['title']}, on {TESTBED.get(tb, tb)}" if len(rep.testbeds) > 1 else spec["title"]
        rep.p(f"## {title}", "")
        if spec.get("note"):
            rep.p(spec["note"], "")
        rep.p(table(["prediction", "predicted", "measured [95% CI]", "runs", "verdict"], rows), "",
              "Tally: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())) + ". A prediction **held** when "
              "the estimate lies in its interval and the 95% CI meets it; it **failed** when the CI lies outside "
              "the interval; **not held** otherwise (the CI reaches it, the estimate does not); fewer than 3 runs "
              "on a side: **too few runs**.", "")


def question(rep, sid, spec):
    """An open question and what the runs say to it: the spec's `question`
    (text), then each `finding` (where, baseline and arm, or `level`; a
    metric) measured, each change with its simultaneous interval over the
    section's changes and its verdict, followed by the finding's text for
    that verdict (`better`, `worse`, `none` for no difference resolved,
    `unresolved` for an unbounded interval or too few runs; for a metric
    without a direction, `better` is higher and `worse` lower), or for a
    level its mean and range and `level_text`; then `limits` (what the
    testbed cannot show). The texts are the experiment's and hold no
    measured figure: every measured number is computed here."""
    src = rep.exp_src
    for k in ("title", "bench", "question", "limits"):
        if not spec.get(k):
            raise ReportError(f"{rs.rel(src)}: [section.{sid}]: no {k}")
    finds = spec.get("finding", [])
    if not finds:
        raise ReportError(f"{rs.rel(src)}: [section.{sid}]: no finding")
    tb = spec.get("testbed")
    scope = {"bench": spec["bench"], **({"testbed": tb} if tb else {})}
    if not rep.done(scope):
        return
    measured = []
    for n, f in enumerate(finds):
        what = f"[section.{sid}] finding {n + 1}"
        level = bool(f.get("level"))
        for k in ("label", "where", "arm", "metric") + (() if level else ("baseline", "better", "worse", "none",
                                                                           "unresolved")):
            if k not in f:
                raise ReportError(f"{rs.rel(src)}: {what}: no {k}")
        m = rep.metric(f["metric"], src)
        arm = rs.parse_selector(f"bench={spec['bench']} {f['where']} {f['arm']}", src, what, rep.meta)
        base = None if level else rs.parse_selector(f"bench={spec['bench']} {f['where']} {f['baseline']}", src,
                                                    what, rep.meta)
        for sel in (arm, base):
            if sel is not None and tb:
                sel["testbed"] = tb
        ar, br = rep.done(arm), ([] if level else rep.done(base))
        measured.append((f, m, ar, br, level))
    m_changes = sum(1 for f, m, ar, br, level in measured if not level and ar and br)
    slevel = 1 - (1 - an.LEVEL) / max(1, m_changes)
    if not any(ar for f, m, ar, br, level in measured):
        rep.p(f"## {spec['title']}", "", "No run of this folder answers it: none of its findings' runs ("
              + "; ".join(f["label"] for f in finds) + ") is here.", "")
        return
    rep.p(f"## {spec['title']}", "", spec["question"], "")
    lines = []
    for f, m, ar, br, level in measured:
        if not ar or (not level and not br):
            lines.append(f"- **{f['label']}**: not run here.")
            continue
        if level:
            xs = rep.values(ar, m)
            st = an.summary(xs)
            val = (f"{num(st['mean'], m.decimals)} {m.label} on average over {len(ar)} runs (from "
                   f"{num(min(xs), m.decimals)} to {num(max(xs), m.decimals)})")
            lines.append(f"- **{f['label']}**: {val}." + (f" {f['level_text']}" if f.get("level_text") else ""))
            continue
        cm = rep.compare(br, ar, m)
        sim = an.at_level(cm, slevel)
        if an.too_few(cm) or sim is None:
            v, text = (an.TOO_FEW if an.too_few(cm) else an.INCONCLUSIVE), f["unresolved"]
        else:
            v = an.direction_verdict(sim, m.direction)
            text = f["none"] if v == an.NO_DIFFERENCE else f["better"] if v in (an.BETTER, "higher") else f["worse"]
        lines.append(f"- **{f['label']}**: {m.label} {pct(cm['change'])}, simultaneous interval {ci_pct(sim)} "
                     f"({len(br)} and {len(ar)} runs): **{v}**. {text}")
    how = (f"Each change's interval is simultaneous over the {m_changes} change(s) above (each at "
           f"{level_pct(slevel)}%, Bonferroni). " if m_changes else "")
    rep.p(*lines, "",
          how + "The experiment file holds a sentence for each possible verdict; the measured verdict picks the "
          "one shown, and every figure is computed from the runs.", "",
          spec["limits"], "")


def table_section(rep, sid, spec):
    """A comparison table (against one baseline, or several), per testbed."""
    for tb in rep.testbeds or [None]:
        Comparison(rep, sid, spec, tb).render()


KINDS = {
    "table": table_section,
    "against-baselines": table_section,
    "hyperfine": hyperfine,
    "grant-durations": grant_durations,
    "mutex-classes": mutex_classes,
    "predictions": predictions,
    "question": question,
}


# ---- caveats: bullets of "How far to trust the numbers" ---------------------------
# Each is a function (rep, id, spec) of a [caveat.ID] of the experiment; the
# runs it reads come from its spec (bench, where, ...), never from names here.

def caveat_runs(rep, cid, spec, key="where"):
    sel = rs.parse_selector(f"bench={spec['bench']} {spec.get(key, '')}", rep.exp_src, f"[caveat.{cid}] {key}",
                            rep.meta)
    return rep.done(sel)


def guest_speed(rep, cid, spec):
    """The fast path in the guest (the spec's runs and metric) against the
    same loop on the host (host-lock-cost.json): how much slower the guest is."""
    import json
    lc = caveat_runs(rep, cid, spec)
    hp = os.path.join(rep.d, "host-lock-cost.json")
    if not lc or not os.path.isfile(hp):
        return
    try:
        with open(hp) as f:
            h = json.load(f)
    except ValueError:
        raise ReportError(f"{rs.rel(hp)}: not valid JSON")
    hv = h.get("results", {}).get("plain", {}).get("median_ns") if isinstance(h, dict) else None
    if not isinstance(hv, (int, float)):
        raise ReportError(f"{rs.rel(hp)}: field .results.plain.median_ns is missing")
    g = rep.metric(spec["metric"], rep.exp_src).value(lc[0])
    rep.p(f"- Guest speed against native: an uncontended lock/unlock pair takes {g:.2f} ns in the guest and "
          f"{hv:.2f} ns on the host, {g / hv:.1f} times slower. Critical sections calibrated in microseconds "
          "(locktable) are real time in both; code-path costs are not.")


def host_wait(rep, cid, spec):
    """How long the host kept the vCPU threads waiting, per benchmark."""
    vw = rep.vw
    if not vw:
        return
    by_bench = {}
    for r in rep.runs:
        if r.id in vw:
            by_bench.setdefault(r["bench"], []).append(vw[r.id][0])
    allw = sorted(v for v, _ in vw.values())
    cpu = sum(c for _, c in vw.values()) / len(vw)
    worst = max(vw, key=lambda k: vw[k][0])
    rep.p(f"- **Host preemption of the vCPU threads** (`/proc/PID/task/TID/schedstat` of QEMU's \"CPU n\" "
          f"threads, sampled every second by `vm-run --vcpu-stats`): over {len(allw)} runs a vCPU thread spent a "
          f"median {share(allw[len(allw) // 2])} of the wall time runnable but waiting for a host CPU (worst "
          f"{share(vw[worst][0])} in `{worst}`), while the vCPU threads used {cpu:.2f} host CPUs per "
          "second. The host's preemptions hit lock holders whatever the guest kernel decides; what matters for "
          "a comparison is that they hit every arm alike (per run in the appendix). Per benchmark:")
    rep.p("", "  | benchmark | runs | host wait share: median | min | max |", "  |---|---|---|---|---|")
    for b, v in sorted(by_bench.items()):
        v.sort()
        rep.p(f"  | {b} | {len(v)} | {share(v[len(v) // 2])} | {share(v[0])} | {share(v[-1])} |")
    rep.p("")


def latency_floor(rep, cid, spec):
    """The latency metric's floor in the spec's runs (its `where`: grants
    off), against the extension length (`bound_us`)."""
    off = caveat_runs(rep, cid, spec)
    if not off:
        return
    m = rep.metric(spec["metric"], rep.exp_src)
    v = sorted(m.value(r) for r in off)
    med = v[len(v) // 2]
    bound = float(spec.get("bound_us", 50))
    rep.p(f"- **The latency probe's resolution.** With grants off, the SCHED_FIFO thread's wakeup p99 is "
          f"already {med:,.0f} us (median of {len(v)} runs; {v[0]:,.0f}-{v[-1]:,.0f} us) under this accelerator: "
          f"{med / bound:,.0f} times a {bound:g} us extension. An extension's cost to an RT task cannot show through "
          "that floor here; the precise-time testbed is the place to measure it.")


def unused_cost_history(rep, cid, spec):
    """The cost when unused: the spec's baseline runs against its fresh-boot
    and in-sweep runs, and how the method changed."""
    st = caveat_runs(rep, cid, spec, "baseline")
    pf = caveat_runs(rep, cid, spec, "fresh")
    ps = caveat_runs(rep, cid, spec, "sweep")
    if not st:
        return
    m = rep.metric(spec["metric"], rep.exp_src)
    parts = []
    if pf and len(st) >= 2 and len(pf) >= 2:
        cm = an.compare(rep.values(st, m), rep.values(pf, m))
        parts.append(f"fresh boots, {len(st)} stock against {len(pf)} patched: context switch {pct(cm['change'])} "
                     f"{ci_pct(cm['ci'])}, so costs under about ±{res_pct(cm['halfwidth'])}% cannot be seen")
    if ps:
        cm = an.compare(rep.values(st, m), rep.values(ps, m))
        parts.append(f"the run in the sweep's own boot, after the sweep, against the stock boots: "
                     f"{pct(cm['change'])} (1 run)")
    rep.p("- **The cost when unused: resolution and history.** The first method compared one stock boot with "
          "a run at the end of the sweep's long boot, and showed a 31% context-switch cost (commit db17c69's "
          "message); fresh boots, alternating, replaced it. In this folder: " + "; ".join(parts) + ".")


def oracle_machine(rep, cid, spec):
    """Oracle's machine against ours, when the folder has runs of the spec's
    benches."""
    e = rep.env
    if not any(r["bench"] in spec["benches"] for r in rep.runs):
        return
    rep.p(f"- **Oracle's machine and ours.** Oracle measured on a 2-socket AMD Genoa server (seed 004: "
          f"hundreds of CPUs) with Oracle Database; this run has {e['vcpus']} vCPUs under "
          f"{e['accelerator']} on {e['host_cpus']} host CPUs, and swingbench-lite runs Order Entry on "
          "SQLite, whose mutexes stand in for Oracle's latches. The same client and hog counts on "
          f"{e['vcpus']} vCPUs are a far heavier overload per CPU: a preempted holder blocks its table for much "
          "longer, so each avoided preemption is worth more here, and the size of a change is not Oracle's.")


CAVEATS = {
    "guest-speed": guest_speed,
    "host-wait": host_wait,
    "latency-floor": latency_floor,
    "unused-cost-history": unused_cost_history,
    "oracle-machine": oracle_machine,
}

