"""The report's selectors on run records (slicebench/select.py): a
section or claim names runs by a column, by the arm (or alternative) the
experiment declared, or by a benchmark parameter (params.NAME); a table
whose arm column is "arm" groups and labels its rows by the declared
names."""

import os
import sys

import pytest

from slicebench import experiment as ex
from slicebench import select

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "report"))

import sections  # noqa: E402
from test_report_kinds import arm_runs, report, table_rows, text  # noqa: E402


def sel(text_):
    return select.parse_selector(text_, "spec", {"main_clients": 300})


def test_keys_and_their_types():
    assert sel("arm=mainline-50us alternative=futex params.clients=300 params.work_in_us=2.5 "
               "params.rseq_v2=true params.mode=tpcb params.loop=-") == {
        "arm": "mainline-50us", "alternative": "futex", "params.clients": 300, "params.work_in_us": 2.5,
        "params.rseq_v2": True, "params.mode": "tpcb", "params.loop": None}
    assert sel("clients=@main_clients grant=0") == {"clients": 300, "grant": 0}


@pytest.mark.parametrize("bad, why", [("armm=x", "unknown column 'armm'"), ("params.=1", "unknown column"),
                                      ("id=x", "unknown column 'id'"), ("arm", "is not KEY=VALUE"),
                                      ("grant=on", "grant=on is not a number")])
def test_bad_selectors_say_why(bad, why):
    with pytest.raises(select.SelectorError, match=why):
        sel(bad)


@pytest.fixture(scope="module")
def rows():
    e = ex.load("default")
    return [select.row_of(r) for r in ex.plan(e, e.resolve({}), 5)]


def test_by_arm_and_params_on_the_default_plan(rows):
    hit = [r for r in rows if select.matches(r, sel("bench=locktable arm=mainline ext_ns=50000 params.clients=300"))]
    assert hit and all(r["abi"] == "mainline" and r["ext_ns"] == 50000 and r["clients"] == 300 for r in hit)
    alt = [r for r in rows if select.matches(r, sel("alternative=futex"))]
    assert alt and all(r["lock"] == "futex" for r in alt)


def test_an_older_plans_rows_have_no_arm():
    legacy = dict.fromkeys(select.COLUMNS, None)
    assert not select.matches(legacy, sel("arm=off"))
    assert select.matches(legacy, sel("arm=-"))


def test_a_table_by_declared_arm(tmp_path):
    runs = arm_runs("off", [100.0, 101.0, 99.0], grant=0, arm="off") + \
        arm_runs("on", [150.0, 151.5, 148.5], arm="mainline-50us")
    rep = report(tmp_path, runs)
    sections.KINDS["table"](rep, "t", {"title": "By name", "bench": "locktable", "point": "clients",
                                       "arm": "arm", "baseline": "arm=off", "metrics": "execs_per_s"})
    assert table_rows(rep, "off")[0][3] == "baseline", text(rep)
    row = table_rows(rep, "mainline-50us")
    assert row and "+50.0%" in row[0][3], text(rep)


# ---- what a result echoes of its run record (bench/NAME/bench.py: echoes) ----

def record_row(rows, **where):
    return next(dict(r) for r in rows if all(r[k] == v for k, v in where.items()))


def test_a_result_that_disagrees_with_its_record_is_refused(rows):
    import results as rs
    row = record_row(rows, bench="locktable", abi="mainline", grant=1, ext_ns=50000, lock="tas")
    p = row["params"]
    good = {"header": {"run_id": row["id"], "abi": "mainline", "extension_ns": 50000, "kernel_grant": 1},
            "config": {"clients": p["clients"], "hogs": p["hogs"], "work_in_us": p["work_in_us"], "lock": "tas",
                       "hog_policy": "other"}}
    rs.Run.of(row, good)
    for path, bad, what in (("config.clients", 7, "config.clients=7"), ("config.lock", "futex", "config.lock=futex"),
                            ("header.extension_ns", 20000, "extension_ns=20000"),
                            ("header.abi", "rseq-cr", "abi=rseq-cr")):
        data = {k: dict(v) for k, v in good.items()}
        sect, key = path.split(".")
        data[sect][key] = bad
        with pytest.raises(rs.ReportError, match=f"the run says {what}, its plan row says"):
            rs.Run.of(row, data)


def test_a_bench_that_echoes_nothing_is_not_checked(rows):
    import results as rs
    row = record_row(rows, bench="lock-cost")
    rs.Run.of(row, {"header": {"run_id": row["id"], "abi": "something else"}, "config": {"clients": 1}})
