"""latency-probe's caveat: the latency metric's floor under this testbed.

Loaded by report/sections.py, which adds its KINDS and CAVEATS to the
report's: the report code names no benchmark."""

from caveats import caveat_runs


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


CAVEATS = {
    "latency-floor": latency_floor,
}
