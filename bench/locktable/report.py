"""locktable's section of the report: how long grants ran, from the
slice_ext end tracepoints that bench/locktable/grant-trace records.

Loaded by report/sections.py, which adds its KINDS and CAVEATS to the
report's: the report code names no benchmark."""

import os

import analysis as an
from fmt import TESTBED, dur_ns, ext_label, table


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


KINDS = {
    "grant-durations": grant_durations,
}
