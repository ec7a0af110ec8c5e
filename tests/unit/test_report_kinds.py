"""Each of the report's section kinds and caveats on runs held in memory
(report/render.py: Report.of_records; report/results.py: Run.of): known
values in, the figures and verdicts the report must print out. No results
folder, no plan file: what a kind computes, apart from reading."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "report"))

import claims  # noqa: E402
import results as rs  # noqa: E402
import sections  # noqa: E402
from render import Report  # noqa: E402
from results import ReportError  # noqa: E402

ENV = {"vcpus": "2", "accelerator": "tcg", "host_cpus": "2"}


def run(rid, data, bench="locktable", testbed="parallel", repeat=1, boot_id=None, **cols):
    """A finished run: its plan row (the sections' columns) and its JSON."""
    row = dict.fromkeys(rs.COLUMNS)
    row.update(id=rid, repeat=repeat, order=repeat, bench=bench, testbed=testbed, kernel="patched", boot="sweep",
               abi="mainline", grant=1, ext_ns=50000, clients=300, hogs=400, lock="tas", hog_policy="other",
               work_in_ns=2000, argv="", limit_s=60)
    row.update(cols)
    return rs.Run.of(row, data, boot=boot_id)


def arm_runs(name, values, key="execs_per_s", **cols):
    """One run per value, repeats 1.., each in a boot of its own."""
    return [run(f"{name}-r{i + 1}", {"results": {key: v}}, repeat=i + 1, boot_id=f"{name}-b{i}", **cols)
            for i, v in enumerate(values)]


def report(tmp_path, runs, exp=None, **kw):
    return Report.of_records(str(tmp_path), runs, exp or {}, env=ENV, **kw)


def text(rep):
    return "\n".join(rep.out)


def table_rows(rep, first):
    """The markdown table rows whose first cell is FIRST, as lists of cells."""
    out = []
    for ln in rep.out:
        for line in ln.split("\n"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("|") and cells[0] == first:
                out.append(cells)
    return out


OFF = [100.0, 101.0, 99.0]
ON = [150.0, 151.5, 148.5]      # +50%
SAME = [100.5, 99.5, 100.0]     # within the spread


def locktable(off=OFF, on=ON):
    return arm_runs("off", off, grant=0) + arm_runs("on", on, grant=1)


TABLE = {"title": "Lock table", "bench": "locktable", "point": "clients hogs", "arm": "abi grant",
         "baseline": "grant=0", "metrics": "execs_per_s"}


def test_table_change_and_verdict(tmp_path):
    rep = report(tmp_path, locktable())
    sections.KINDS["table"](rep, "t", dict(TABLE))
    t = text(rep)
    assert "## Lock table" in t
    row = table_rows(rep, "mainline")
    assert row, t
    assert "+50.0%" in " ".join(row[0])
    assert "**better**" in " ".join(row[0])
    assert os.path.isdir(os.path.join(tmp_path, "plots"))


def test_table_no_difference(tmp_path):
    rep = report(tmp_path, locktable(on=SAME))
    sections.KINDS["table"](rep, "t", dict(TABLE))
    assert "**no difference resolved**" in text(rep)


def test_table_too_few_runs(tmp_path):
    rep = report(tmp_path, locktable(on=ON[:2]))
    sections.KINDS["table"](rep, "t", dict(TABLE))
    assert "**too few runs**" in text(rep)


def test_table_needs_its_keys(tmp_path):
    rep = report(tmp_path, locktable())
    with pytest.raises(ReportError, match="no metrics"):
        sections.KINDS["table"](rep, "t", {k: v for k, v in TABLE.items() if k != "metrics"})


def test_table_absent_bench_says_so(tmp_path):
    rep = report(tmp_path, locktable())
    sections.KINDS["table"](rep, "t", dict(TABLE, bench="swingbench-lite", absent="Not in this sweep."))
    assert "Not in this sweep." in text(rep)


def test_against_baselines(tmp_path):
    runs = locktable() + arm_runs("futex", [120.0, 121.0, 119.0], grant=0, lock="futex")
    rep = report(tmp_path, runs)
    spec = {"title": "Against what users do", "bench": "locktable", "point": "clients hogs",
            "arm": "lock abi grant", "metrics": "execs_per_s",
            "baselines": "spin: lock=tas grant=0 | futex: lock=futex grant=0"}
    sections.KINDS["against-baselines"](rep, "b", spec)
    t = text(rep)
    assert "## Against what users do" in t
    assert "+50.0%" in t and "+25.0%" in t, t


CLAIM = {"claim": "Oracle's lock table", "source": "seed 004", "change": "44", "metric": "execs_per_s",
         "baseline": "bench=locktable grant=0", "arm": "bench=locktable grant=1"}


@pytest.mark.parametrize("on, verdict", [
    ([144.0, 145.0, 143.0], "consistent with the claim"),
    (SAME, "no effect"),
    ([70.0, 71.0, 69.0], "opposite to the claim"),
    (ON[:2], "too few runs"),
])
def test_claims_verdicts(tmp_path, on, verdict):
    rep = report(tmp_path, locktable(on=on))
    claims.claims(rep, {"oracle": dict(CLAIM)})
    rows = table_rows(rep, "Oracle's lock table. Source: seed 004")
    assert len(rows) == 1, text(rep)
    assert rows[0][1] == "+44.0%"
    assert f"**{verdict}**" in rows[0][-1], rows[0]


def test_claim_not_measured(tmp_path):
    rep = report(tmp_path, arm_runs("off", OFF, grant=0))
    claims.claims(rep, {"oracle": dict(CLAIM)})
    assert "**not measured**" in text(rep)


def test_claim_not_comparable_shows_no_verdict(tmp_path):
    rep = report(tmp_path, locktable(on=[144.0, 145.0, 143.0]))
    claims.claims(rep, {"oracle": dict(CLAIM, not_comparable="a stand-in")})
    assert "**not tested by a comparable workload**: a stand-in" in text(rep)


def test_claim_bad_change(tmp_path):
    rep = report(tmp_path, locktable())
    with pytest.raises(ReportError, match="change is not a number"):
        claims.claims(rep, {"oracle": dict(CLAIM, change="lots")})


def test_predictions_held_failed_not_run(tmp_path):
    runs = [run(f"{a}-r{i + 1}", {"results": {"sql_per_s": v}}, bench="swingbench-lite", repeat=i + 1,
                boot_id=f"b{i}", grant=g, clients=c)
            for c, a, g, vals in ((16, "off16", 0, OFF), (16, "on16", 1, ON), (64, "off64", 0, OFF),
                                  (64, "on64", 1, SAME))
            for i, v in enumerate(vals)]
    rep = report(tmp_path, runs)
    spec = {"title": "Predictions", "bench": "swingbench-lite", "baseline": "grant=0", "metric": "sql_per_s",
            "cell": [{"where": "clients=16", "arm": "grant=1", "low": 30, "high": 70},
                     {"where": "clients=64", "arm": "grant=1", "low": 30, "high": 70},
                     {"where": "clients=128", "arm": "grant=1", "low": 30, "high": 70}]}
    sections.KINDS["predictions"](rep, "p", spec)
    t = text(rep)
    verdicts = [r[-1] for r in table_rows(rep, "clients=16: grant=1") + table_rows(rep, "clients=64: grant=1")
                + table_rows(rep, "clients=128: grant=1")]
    assert verdicts == ["**held**", "**failed**", "**not run**"], t
    assert "Tally: failed 1, held 1, not run 1." in t


def test_question_picks_the_verdicts_sentence(tmp_path):
    rep = report(tmp_path, locktable())
    spec = {"title": "Does it help?", "bench": "locktable", "question": "Q?", "limits": "L.",
            "finding": [{"label": "throughput", "where": "", "baseline": "grant=0", "arm": "grant=1",
                         "metric": "execs_per_s", "better": "It helps.", "worse": "It hurts.",
                         "none": "Nothing.", "unresolved": "Unknown."},
                        {"label": "level", "level": True, "where": "", "arm": "grant=1",
                         "metric": "execs_per_s", "level_text": "That much."}]}
    sections.KINDS["question"](rep, "q", spec)
    t = text(rep)
    assert "Q?" in t and "L." in t
    assert "**better**. It helps." in t
    assert "150 SQL exec/s on average over 3 runs (from 148 to 152). That much." in t, t


def test_question_without_runs_says_none_answers(tmp_path):
    rep = report(tmp_path, arm_runs("off", OFF, grant=0))
    spec = {"title": "Q", "bench": "locktable", "question": "Q?", "limits": "L.",
            "finding": [{"label": "f", "where": "lock=futex", "baseline": "grant=0", "arm": "grant=1",
                         "metric": "execs_per_s", "better": "", "worse": "", "none": "", "unresolved": ""}]}
    sections.KINDS["question"](rep, "q", spec)
    assert "No run of this folder answers it" in text(rep)


def test_unknown_kind_names_the_known_ones():
    assert {"table", "against-baselines", "predictions", "question", "hyperfine", "grant-durations",
            "mutex-classes"} <= set(sections.KINDS)
    assert {"host-wait", "oracle-machine", "unused-cost-history", "guest-speed",
            "latency-floor"} <= set(sections.CAVEATS)


def test_bench_report_declared_twice_is_an_error(tmp_path, monkeypatch):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "report.py").write_text("KINDS = {'table': print}\n")
    monkeypatch.setenv("SLICEBENCH_BENCH_PATH", str(tmp_path))
    with pytest.raises(ReportError, match="'table' is declared in report/sections.py too"):
        sections.bench_reports(sections.GENERIC_KINDS, sections.GENERIC_CAVEATS)


# ---- the benchmarks' own kinds (bench/NAME/report.py) ------------------------

def test_hyperfine(tmp_path):
    row = dict.fromkeys(rs.COLUMNS)
    row.update(id="hf", repeat=1, order=1, bench="hyperfine", testbed="parallel", kernel="patched",
               argv="--rounds 10 --pairs 1000")
    r = rs.Run.of(row, {"results": [{"command": "none", "mean": 0.0012}, {"command": "mainline",
                                                                            "mean": 0.0013}]}, d=str(tmp_path))
    os.makedirs(tmp_path / "raw")
    (tmp_path / "raw" / "hf.md").write_text("| Command | Mean |\n|---|---|\n| none | 1.2 |\n")
    rep = report(tmp_path, [r])
    sections.KINDS["hyperfine"](rep, "h", {"bench": "hyperfine"})
    t = text(rep)
    # 10 rounds x 1000 pairs + 100 warm-up pairs per run.
    assert "10100 TTAS lock/unlock pairs per run" in t
    assert "none 118.81 ns, mainline 128.71 ns" in t, t


def test_grant_durations(tmp_path):
    traces = {"parallel": {50000: [("yield", 1000), ("yield", 3000), ("expire", 50000)]}}
    rep = report(tmp_path, locktable(), traces=traces)
    sections.KINDS["grant-durations"](rep, "g", {})
    rows = table_rows(rep, "50 us")
    assert [r[1:3] for r in rows] == [["all", "3"], ["yield", "2"], ["expire", "1"]], text(rep)
    assert os.path.isfile(tmp_path / "plots" / "grant-durations.png")


def test_mutex_classes(tmp_path):
    def sbl(rid, grant, preempted):
        res = {"sessions": {"cpus": 2, "in_transaction": 10.0, "runnable_mean": 8.0},
               "writer_gate": {"utilisation": 0.5, "mean_waiting": 3.0, "mean_wait_us": 2000.0},
               "mutexes": [{"name": "pcache", "window": {"held_share": 0.2, "per_statement": 4.0,
                                                          "contended": 7, "preempted_holding": preempted,
                                                          "grants": 5 * grant,
                                                          "hold": {"p50_ns": 800, "p99_ns": 5000,
                                                                   "max_ns": 90000}}}]}
        return run(rid, {"results": res}, bench="swingbench-lite", grant=grant)
    rep = report(tmp_path, [sbl("off", 0, 9), sbl("on", 1, 2)])
    sections.KINDS["mutex-classes"](rep, "m", {"title": "Structure", "bench": "swingbench-lite",
                                                "arm": "abi grant"})
    t = text(rep)
    assert "## Structure" in t
    sessions, mutexes = table_rows(rep, "mainline")
    # Runnable per vCPU: 8 runnable over 2 CPUs.
    assert sessions[1:] == ["1", "10.0", "4.0", "50.0%", "3.0", "2.00"], t
    assert mutexes[1:] == ["pcache", "4.00", "800 ns", "5.0 us", "90.0 us", "20.0%", "7", "2.0", "5"], t
    assert table_rows(rep, "off")[1][-2:] == ["9.0", "0"], t


# ---- caveats ----------------------------------------------------------------

def test_host_wait(tmp_path):
    rep = report(tmp_path, locktable(), vw={"off-r1": (0.10, 1.5), "on-r1": (0.30, 2.5)})
    sections.CAVEATS["host-wait"](rep, "h", {})
    t = text(rep)
    assert "over 2 runs" in t and "worst 30.0% in `on-r1`" in t and "2.00 host CPUs per second" in t, t


def test_latency_floor(tmp_path):
    runs = [run(f"lat-r{i}", {"results": {"fifo": {"p99_ns": v}}}, bench="latency", grant=0)
            for i, v in enumerate([4e6, 5e6, 6e6])]
    rep = report(tmp_path, runs)
    sections.CAVEATS["latency-floor"](rep, "l", {"bench": "latency", "where": "grant=0", "metric": "fifo_p99",
                                                 "bound_us": 50})
    assert "already 5,000 us (median of 3 runs; 4,000-6,000 us)" in text(rep)
    assert "100 times a 50 us extension" in text(rep)


def test_guest_speed(tmp_path):
    rep = report(tmp_path, [run("lc", {"results": {"plain": {"median_ns": 30.0}}}, bench="lock-cost",
                                abi="none")])
    (tmp_path / "host-lock-cost.json").write_text(json.dumps({"results": {"plain": {"median_ns": 3.0}}}))
    sections.CAVEATS["guest-speed"](rep, "g", {"bench": "lock-cost", "where": "abi=none", "metric": "lc_plain"})
    assert "30.00 ns in the guest and 3.00 ns on the host, 10.0 times slower" in text(rep)


def test_oracle_machine_only_with_its_benches(tmp_path):
    rep = report(tmp_path, locktable())
    sections.CAVEATS["oracle-machine"](rep, "o", {"benches": ["swingbench-lite"]})
    assert rep.out == []
    sections.CAVEATS["oracle-machine"](rep, "o", {"benches": ["locktable"]})
    assert "this run has 2 vCPUs under tcg on 2 host CPUs" in text(rep)


def test_unused_cost_history(tmp_path):
    def uc(rid, kernel, boot, v):
        return run(rid, {"results": {"switch": {"median_ns": v}}}, bench="unused-cost", kernel=kernel,
                   boot=boot)
    runs = [uc("s1", "stock", "fresh", 1000.0), uc("s2", "stock", "fresh", 1002.0),
            uc("s3", "stock", "fresh", 998.0), uc("p1", "patched", "fresh", 1000.0),
            uc("p2", "patched", "fresh", 1001.0), uc("p3", "patched", "fresh", 999.0),
            uc("w1", "patched", "sweep", 1310.0)]
    rep = report(tmp_path, runs)
    sections.CAVEATS["unused-cost-history"](rep, "u", {"bench": "unused-cost", "baseline": "kernel=stock",
                                                       "fresh": "kernel=patched boot=fresh",
                                                       "sweep": "kernel=patched boot=sweep",
                                                       "metric": "uc_switch"})
    t = text(rep)
    assert "fresh boots, 3 stock against 3 patched: context switch +0.0%" in t, t
    assert "against the stock boots: +31.0% (1 run)" in t, t
