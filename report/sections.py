"""The report's section kinds. Each is a function (rep, id, spec): rep is
the Report (report/generate: the results folder's runs, plan, metrics and
the output), spec the section's table in the experiment file (kind, bench,
where, point, arm, baseline or baselines, metrics, ...; report/README.md).
No kind knows a benchmark's arms: they come from the spec."""

import os

import analysis as an
import results as rs
from fmt import (TESTBED, arm_label, arm_sort, ci_pct, col_cell, col_head, dur_ns, ext_label, mean_sd, num,
                 pct, pval, rows_tb, table)
from results import ReportError


def claims(rep, specs):
    """The claims table: each published claim on each testbed, against our
    runs of its baseline and arm."""
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
        if r[5] is None:
            r[5] = f"{pval(p)} ({pval(h)})"
    tbcol = len(rep.testbeds) > 1
    if tbcol:
        rows = [[r[0], tb] + r[1:] for r, tb in rows_tb(rows, rep._claim_tbs)]
    rep.p("## Claims against our measurements", "",
           "Each claim's change against ours, with the verdict from our change's 95% CI: **consistent with the "
           "claim** (holds the claimed change, excludes 0), **smaller** or **larger than claimed** (excludes both, "
           "same direction), **no effect** (holds 0, excludes the claim), **opposite to the claim**, or "
           "**inconclusive** (holds both; the runs needed to tell are estimated from the observed spread). "
           "p in brackets: Holm-adjusted over the claims." + (" Each claim is answered on each testbed." if tbcol else ""), "",
           table(["claim (source)"] + (["testbed"] if tbcol else []) +
                 ["claimed", "ours: baseline → arm", "change [95% CI]",
                  "paired by repeat", "p (Holm)", "verdict"], rows), "")


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
                     "", "", "", f"**{an.NOT_ANSWERED}**"])
        ps.append(None)
        return
    if not base or not arm:
        missing = "; ".join(f"no {w} runs (`{c[w]}`)" for w, x in (("baseline", base), ("arm", arm)) if not x)
        rows.append([head, pct(claimed), f"not measured: {missing}",
                     "", "", "", f"**{an.NOT_MEASURED}**"])
        ps.append(None)
        return
    cmp_ = rep.compare(base, arm, m)
    v = an.verdict(cmp_["ci"], claimed) if len(base) >= 2 and len(arm) >= 2 else an.INCONCLUSIVE
    why = ""
    if v == an.INCONCLUSIVE:
        n = an.repeats_needed(cmp_["base"], cmp_["arm"], claimed)
        if n is None:
            why = ": fewer than 2 runs on a side, so no interval and no estimate of the runs needed"
        elif n <= 1000:
            why = (f": the CI holds both 0 and the claim; about {n} runs per arm at this spread would "
                   "narrow it below the claimed change")
        else:
            why = ": the CI holds both 0 and the claim, and more than 1000 runs per arm would be needed at this spread"
    pr = cmp_["paired"]
    rows.append([head, pct(claimed),
                 f"{mean_sd(cmp_['base'], m.decimals)} → {mean_sd(cmp_['arm'], m.decimals)} {m.unit} "
                 f"({len(base)}, {len(arm)} runs)",
                 f"{pct(cmp_['change'])} {ci_pct(cmp_['ci'])}",
                 f"{pct(pr['change'])} {ci_pct(pr['ci']) if pr['n'] >= 2 else ''}; {pr['above']} of {pr['n']} above 1",
                 None, f"**{v}**{why}"])
    ps.append(cmp_["p"])


def comparison(rep, cid, c, tb=None):
    """One comparison section of the experiment on one testbed; with several
    testbeds, its heading names the testbed and its plots' names end in
    -TESTBED."""
    ini = rep.exp_src
    multi = len(rep.testbeds) > 1
    title = f"{c['title']}, on {TESTBED.get(tb, tb)}" if multi else c["title"]
    if tb is not None and tb != "parallel":
        cid = f"{cid}-{tb}"
    for k in ("title", "bench", "point", "arm", "metrics"):
        if not c.get(k):
            raise ReportError(f"{rs.rel(ini)}: [{cid}]: no {k}")
    if c.get("testbed") and tb is not None and tb != c["testbed"]:
        return
    where = rs.parse_selector(f"bench={c['bench']} {c.get('where', '')}", ini, f"[{cid}] where", rep.meta)
    if tb is not None:
        where["testbed"] = tb
    planned = [r for r in rep.runs if all(r.row[k] == v for k, v in where.items())]
    if not [r for r in rep.runs if r["bench"] == c["bench"] and (tb is None or r["testbed"] == tb)]:
        if c.get("absent"):
            rep.p(f"## {title}", "", c["absent"], "")
        return
    point_cols = c["point"].split()
    arm_cols = c["arm"].split()
    for col in point_cols + arm_cols + ([c["x"]] if c.get("x") else []):
        if col not in rs.COLUMNS:
            raise ReportError(f"{rs.rel(ini)}: [{cid}]: unknown column '{col}'")
    metrics = [rep.metric(n, ini) for n in c["metrics"].split()]
    prim = metrics[0]
    bsel = rs.parse_selector(c.get("baseline", ""), ini, f"[{cid}] baseline", rep.meta) if c.get("baseline") else None
    rep.p(f"## {title}", "")
    if any(isinstance(v, tuple) for v in where.values()):
        miss = [v[1] for v in where.values() if isinstance(v, tuple)]
        rep.p(f"Not shown: the plan names no {', '.join(miss)}.", "")
        return
    if not planned:
        rep.p("No run of the plan falls here (`" + c.get("where", "") + "`).", "")
        return
    if c.get("show_if") and not any(differs(rep, r, c["show_if"], cid) for r in planned):
        rep.p(c.get("not_run", "Not run here."), "")
        return
    xs = {r.row[c["x"]] for r in planned} if c.get("x") else set()
    if c.get("x") and len(xs) < 2:
        rep.p(f"Not swept here: every run of this table has {col_head(c['x'])} = "
               f"{col_cell(c['x'], next(iter(xs)))}.", "")
        return
    if c.get("note"):
        rep.p(c["note"], "")
    if c.get("baselines"):
        against_baselines(rep, cid, c, planned, tb)
        return
    if tb == "precise" and c.get("note_precise"):
        shift = rep.env.get("precise_icount_shift", "?")
        per = f"{2 ** int(shift)}" if shift.isdigit() else "2^shift"
        rep.p(c["note_precise"].replace("{shift}", shift).replace("{ns_per_insn}", per), "")
    # points -> arms -> runs
    points = {}
    for r in planned:
        pk = tuple(r.row[k] for k in point_cols)
        ak = tuple(r.row[k] for k in arm_cols)
        points.setdefault(pk, {}).setdefault(ak, []).append(r)
    vary = [k for i, k in enumerate(point_cols) if len({pk[i] for pk in points}) > 1]
    if c.get("x") and c["x"] in point_cols and c["x"] not in vary:
        vary.append(c["x"])
    prim_rows, sec_rows, cmps, halfw, between = [], [], [], [], []
    series, strip_arms = {}, []
    labels_cols = set(arm_cols)
    for pk in sorted(points, key=lambda k: tuple((x is None, x) for x in k)):
        arms = points[pk]
        order = sorted(arms, key=lambda ak: arm_sort(arms[ak][0].row))
        base_ak = None
        if bsel is not None:
            bs = [ak for ak in order if rs.matches(arms[ak][0].row, bsel)]
            base_ak = bs[0] if bs else None
        if base_ak is not None:
            order.remove(base_ak)
            order.insert(0, base_ak)
        pdesc = [f"{k}={pk[point_cols.index(k)]}" for k in vary]
        pcells = [col_cell(k, pk[point_cols.index(k)]) for k in vary]
        if bsel is not None and base_ak is None:
            rep.p(f"- {' '.join(pdesc) or 'This point'}: **no baseline arm** (`{c['baseline']}`) was run, "
                   "so no change can be computed; the arms are shown alone.")
        base_runs = [r for r in arms[base_ak] if r.data is not None] if base_ak is not None else []
        nonbase_stats = []
        for ak in order:
            runs = arms[ak]
            done = [r for r in runs if r.data is not None]
            label = arm_label(runs[0].row, labels_cols)
            short = f" (**{len(done)} of {len(runs)} runs**)" if len(done) < len(runs) else ""
            vals = rep.values(done, prim)
            s = an.summary(vals)
            for r in done:
                rep.section_runs.setdefault(cid, {})[r.id] = (prim, prim.value(r))
            cells = pcells + [label, f"{len(done)}{short}", mean_sd(s, prim.decimals)]
            if ak == base_ak:
                cells += ["baseline", "", "", "", "", ""]
            elif base_runs and done:
                cm = rep.compare(base_runs, done, prim)
                cmps.append(cm)
                pr = cm["paired"]
                cells += [f"{pct(cm['change'])} {ci_pct(cm['ci']) if cm['ci'] is not None or cm['p'] is not None else ''}",
                          f"{pct(pr['change'])} {ci_pct(pr['ci']) if pr['n'] >= 2 else ''}",
                          f"{pr['above']}/{pr['n']}" if pr["n"] else "-",
                          pval(cm["p"]), None,
                          f"**{an.direction_verdict(cm['ci'], prim.direction)}**"]
                if cm["halfwidth"] is not None:
                    halfw.append(cm["halfwidth"])
            else:
                cells += ["-", "-", "-", "-", "", ""]
            if ak != base_ak and s["n"] >= 2:
                nonbase_stats.append(s)
            prim_rows.append(cells)
            # secondary metrics
            sec = pcells + [label]
            for m in metrics[1:]:
                sv = an.summary(rep.values(done, m))
                sec.append(mean_sd(sv, m.decimals))
            sec_rows.append(sec)
            if c.get("x"):
                xv = runs[0].row[c["x"]]
                series.setdefault(arm_label(runs[0].row, labels_cols - {c["x"]}), []).append(
                    (xv, vals, s["mean"], s["ci"]))
            else:
                strip_arms.append((label, vals, s["mean"], s["ci"]))
        for i in range(len(nonbase_stats)):
            for j in range(i + 1, len(nonbase_stats)):
                h = an.resolvable(nonbase_stats[i], nonbase_stats[j])
                if h is not None:
                    between.append(h)
    if bsel is not None:
        # Holm over this table's comparisons of the primary metric.
        hp = an.holm([cm["p"] for cm in cmps])
        k = 0
        for cells in prim_rows:
            if cells[-2] is None:
                cells[-2] = pval(hp[k])
                k += 1
        head = [col_head(k) for k in vary] + ["arm", "runs", prim.label, "change [95% CI]",
                                                      "paired [95% CI]", "above 1", "p", "Holm p", "verdict"]
        rep.p("", f"**{prim.label}** ({prim.direction} is better):" if prim.direction != "none" else f"**{prim.label}**:", "",
               table(head, prim_rows), "")
    else:
        head = [col_head(k) for k in vary] + ["arm", "runs", prim.label]
        rep.p("", table(head, [r[:len(vary) + 3] for r in prim_rows]), "")
    if len(metrics) > 1:
        rep.p(table([col_head(k) for k in vary] + ["arm"] + [m.label for m in metrics[1:]], sec_rows), "")
    # What this table can resolve, and the sign count.
    sent = []
    if halfw:
        hs = sorted(halfw)
        med = hs[len(hs) // 2]
        sent.append(f"At the observed spread, a change of {prim.label} against the baseline smaller than about "
                    f"±{100 * med:.0f}% cannot be told from none here (the half-width of the 95% CI at zero "
                    f"effect; {100 * hs[0]:.0f}-{100 * hs[-1]:.0f}% over the {len(hs)} comparisons).")
    if between:
        bs_ = sorted(between)
        sent.append(f"Between two non-baseline arms of a point, differences under about ±{100 * bs_[len(bs_) // 2]:.0f}% "
                    f"cannot be resolved.")
    if cmps:
        above = sum(cm["paired"]["above"] for cm in cmps)
        below = sum(cm["paired"]["below"] for cm in cmps)
        tot = sum(cm["paired"]["n"] for cm in cmps)
        sig = sum(1 for cm in cmps if cm["p"] is not None and cm["p"] < 0.05)
        holm_sig = sum(1 for h in an.holm([cm["p"] for cm in cmps]) if h is not None and h < 0.05)
        st = an.sign_test(above, below)
        if any(cm["paired"]["n"] >= 2 for cm in cmps):
            sent.append(f"Same-repeat ratios arm / baseline: {above} of {tot} above 1 (sign test p {pval(st)}); "
                        f"{sig} of {len(cmps)} comparisons have p < 0.05, {holm_sig} after Holm's adjustment.")
    if sent:
        rep.p(" ".join(sent), "")
        rep.resolution.setdefault(c["bench"] + (f" ({tb})" if multi else ""), []).append((title, halfw, between))
    # percentiles, CCDF, plots
    if c.get("percentiles"):
        percentiles(rep, cid, c, points, point_cols, arm_cols, vary)
    os.makedirs(rep.plots, exist_ok=True)
    import plots
    if c.get("x") and series:
        band = None
        if c.get("band"):
            bsel2 = rs.parse_selector(c["band"], ini, f"[{cid}] band", rep.meta)
            if tb is not None:
                bsel2["testbed"] = tb
            br = rep.done(bsel2)
            if br:
                s = an.summary(rep.values(br, prim))
                band = (arm_label(br[0].row, {"grant", "abi"}) + " (mean, 95% CI)", s["mean"], s["ci"])
        xl = c["x"].replace("_", " ")
        if c["x"] in ("ext_ns", "work_in_ns"):
            series = {k: [(x / 1000, *rest) for x, *rest in v] for k, v in series.items()}
            xl = "extension length (us)" if c["x"] == "ext_ns" else "work under the lock (us)"
        fname = f"{cid}.png"
        plots.sweep(os.path.join(rep.plots, fname), f"{title}: every run, means with 95% CI",
                    xl, prim.label, series, band)
        rep.p(rep.plot_link(fname, title), "")
    elif strip_arms and len(points) == 1 and any(len(a[1]) > 1 for a in strip_arms):
        fname = f"{cid}.png"
        plots.strip(os.path.join(rep.plots, fname), f"{title}: every run, mean and 95% CI",
                    prim.label, strip_arms)
        rep.p(rep.plot_link(fname, title), "")
    if c.get("ccdf"):
        ccdf(rep, cid, c, points, arm_cols)


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
        head = ["arm", "runs", m.label] + [f"against {n} [95% CI]" for n, _ in bases]
        rows = []
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
                    cm = rep.compare(br, done, m)
                    v = an.direction_verdict(cm["ci"], m.direction)
                    cells.append(f"{pct(cm['change'])} {ci_pct(cm['ci'])} **{v}**")
            rows.append(cells)
            if m is metrics[0]:
                strip.append((label, rep.values(done, m), s["mean"], s["ci"]))
        d = f" ({m.direction} is better)" if m.direction != "none" else ""
        rep.p(f"**{m.label}**{d}:", "", table(head, rows), "")
    rep.p("A change is better or worse when its 95% CI (Fieller's, Welch's df) excludes 0; "
           "otherwise no difference is resolved at this spread.", "")
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


def table_section(rep, sid, spec):
    """A comparison table (against one baseline, or several), per testbed."""
    for tb in rep.testbeds or [None]:
        comparison(rep, sid, spec, tb)


KINDS = {
    "table": table_section,
    "against-baselines": table_section,
    "hyperfine": hyperfine,
    "grant-durations": grant_durations,
}
