"""The report's section kinds. Each is a function (rep, id, spec): rep is
the Report (report/generate: the results folder's runs, plan, metrics and
the output), spec the section's table in the experiment file (kind, bench,
where, point, arm, baseline or baselines, metrics, ...; report/README.md).
No kind knows a benchmark's arms: they come from the spec. A benchmark's
own kinds and caveats sit in its folder (bench/NAME/report.py: KINDS,
CAVEATS), added here by bench_reports()."""

import analysis as an
import results as rs
from claims import level_pct
from caveats import CAVEATS as GENERIC_CAVEATS
from comparison import table_section
from fmt import TESTBED, ci_pct, num, pct, table
from results import ReportError
from slicebench.bench import folder_modules


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


GENERIC_KINDS = {
    "table": table_section,
    "against-baselines": table_section,
    "predictions": predictions,
    "question": question,
}


def bench_reports(kinds, caveats):
    """KINDS and CAVEATS with those of every bench/NAME/report.py; a name
    declared twice is an error naming both places."""
    kinds, caveats = dict(kinds), dict(caveats)
    where = {**{k: "report/sections.py" for k in kinds}, **{k: "report/caveats.py" for k in caveats}}
    for _, path, mod in folder_modules("report.py"):
        for reg, attr in ((kinds, "KINDS"), (caveats, "CAVEATS")):
            for k, f in getattr(mod, attr, {}).items():
                if k in reg:
                    raise ReportError(f"{rs.rel(path)}: {attr} '{k}' is declared in {where[k]} too")
                reg[k], where[k] = f, rs.rel(path)
    return kinds, caveats


KINDS, CAVEATS = bench_reports(GENERIC_KINDS, GENERIC_CAVEATS)
