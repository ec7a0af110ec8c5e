"""The comparison section kinds (`table`, `against-baselines`): each arm
of a point against the point's baseline arm, or against several
baselines, with what the table can resolve, percentiles, plots and the
CCDF."""

import os

import analysis as an
import results as rs
from claims import comparison_verdict, level_pct
from fmt import TESTBED, arm_label, arm_sort, ci_pct, col_cell, col_head, mean_sd, num, pct, pval, res_pct, table
from results import ReportError


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
            # A column, or the run record's declared arm (or alternative):
            # an arm column "arm" groups and labels the runs by that name.
            if col not in rs.COLUMNS and col not in rs.RECORD_KEYS:
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
        planned = [r for r in rep.runs if rs.matches(r.row, where)]
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
            pk = tuple(rs.value(r.row, k) for k in self.point_cols)
            ak = tuple(rs.value(r.row, k) for k in self.arm_cols)
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
        arms.setdefault(tuple(rs.value(r.row, k) for k in arm_cols), []).append(r)
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



def table_section(rep, sid, spec):
    """A comparison table (against one baseline, or several), per testbed."""
    for tb in rep.testbeds or [None]:
        Comparison(rep, sid, spec, tb).render()
