"""lock-cost's sections of the report: hyperfine's whole-run timing of the
fast path, and the guest's speed against the host's (a caveat).

Loaded by report/sections.py, which adds its KINDS and CAVEATS to the
report's: the report code names no benchmark."""

import json
import os

import results as rs
from caveats import caveat_runs
from results import ReportError


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


def guest_speed(rep, cid, spec):
    """The fast path in the guest (the spec's runs and metric) against the
    same loop on the host (host-lock-cost.json): how much slower the guest is."""
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


KINDS = {
    "hyperfine": hyperfine,
}


CAVEATS = {
    "guest-speed": guest_speed,
}
