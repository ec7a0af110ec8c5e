"""The caveats: bullets of "How far to trust the numbers". Each is a
function (rep, id, spec) of a [caveat.ID] of the report specification;
the runs it reads come from its spec (bench, where, ...), never from
names here."""


import analysis as an
import results as rs
from fmt import share, ci_pct, pct, res_pct


def caveat_runs(rep, cid, spec, key="where"):
    sel = rs.parse_selector(f"bench={spec['bench']} {spec.get(key, '')}", rep.exp_src, f"[caveat.{cid}] {key}",
                            rep.meta)
    return rep.done(sel)


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
    "host-wait": host_wait,
    "unused-cost-history": unused_cost_history,
    "oracle-machine": oracle_machine,
}
