"""swingbench-lite's section of the report: its structure per arm (the
sessions, the writer gate, and the SQLite mutex classes).

Loaded by report/sections.py, which adds its KINDS and CAVEATS to the
report's: the report code names no benchmark."""

import statistics

import results as rs
from fmt import TESTBED, arm_label, arm_sort, dur_ns, num, share, table


def mutex_classes(rep, sid, spec):
    """swingbench-lite's structure per arm, medians over the runs: the
    sessions (in a transaction by Little's law, runnable) and the writer
    gate, then per class of SQLite mutex the acquisitions per statement,
    hold times, share of time held, preempted holds and grants (the
    JSON's results.sessions, .writer_gate and .mutexes[].window)."""
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
            arms.setdefault(tuple(rs.value(r.row, k) for k in arm_cols), []).append(r)
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


KINDS = {
    "mutex-classes": mutex_classes,
}
