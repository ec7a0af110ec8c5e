"""A benchmark from outside the tree (SLICEBENCH_BENCH_PATH): the planner,
the guest's boot file and the report's metrics and kinds find it, and a
name declared twice is refused (tests/fixtures/tiny-bench)."""

import os
import sys

import pytest

from slicebench import bench as benchmod
from slicebench import experiment as ex
from slicebench import spec
from slicebench.run import RunError, boot_file

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FX = os.path.join(TOP, "tests", "fixtures", "tiny-bench")
sys.path.insert(0, os.path.join(TOP, "report"))

import results as rs  # noqa: E402


@pytest.fixture
def fixture_path(monkeypatch):
    monkeypatch.setenv(benchmod.PATH_VAR, FX)


def test_the_fixture_bench_is_found(fixture_path):
    b = benchmod.load_all()["knobs"]
    assert b.path == os.path.join(FX, "knobs")
    assert "locktable" in benchmod.load_all()


def test_without_the_path_it_is_not(monkeypatch):
    monkeypatch.delenv(benchmod.PATH_VAR, raising=False)
    assert "knobs" not in benchmod.load_all()


def test_a_missing_folder_is_an_error(monkeypatch, tmp_path):
    monkeypatch.setenv(benchmod.PATH_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(RunError, match="SLICEBENCH_BENCH_PATH: no such folder"):
        benchmod.folders()


def test_a_bench_declared_twice_is_an_error(monkeypatch, tmp_path):
    d = tmp_path / "again"
    d.mkdir()
    (d / "bench.py").write_text("from slicebench.bench import Bench\n\n\nclass L(Bench):\n    name = 'locktable'\n\n\n"
                                "BENCHES = [L]\n")
    monkeypatch.setenv(benchmod.PATH_VAR, str(tmp_path))
    with pytest.raises(RunError, match="the bench 'locktable' is declared in .*bench/locktable too"):
        benchmod.load_all()


def test_the_fixture_experiment_plans(fixture_path):
    e = ex.load(os.path.join(FX, "tiny.py"))
    runs = ex.plan(e, e.resolve({}), 5)
    assert sorted({r.arm for r in runs}) == ["mainline-20us", "mainline-50us", "off"]
    assert len(runs) == 9
    r = next(r for r in runs if r.arm == "mainline-20us")
    assert r.knobs["ext_ns"] == 20000 and r.params == {"count": 7}
    assert r.command == ["sh", "../knobs.sh", f"{r.id}.json.tmp", "7"]
    assert f"run {r.id} 62 mainline 1 20000 never-delay-rt sh ../knobs.sh {r.id}.json.tmp 7" in boot_file(runs)
    assert spec.path_of(e.spec_name) == os.path.join(FX, "tiny.toml")


def test_the_fixture_metrics_join_the_reports(fixture_path):
    m = rs.load_all_metrics()
    assert m["knobs_ext_us"].ini == os.path.join(FX, "knobs", "metrics.ini")
    assert "execs_per_s" in m and "kernel_granted" in m


def test_a_metric_declared_twice_is_an_error(monkeypatch, tmp_path):
    d = tmp_path / "dup"
    d.mkdir()
    (d / "metrics.ini").write_text("[execs_per_s]\npath = results.x\n")
    monkeypatch.setenv(benchmod.PATH_VAR, str(tmp_path))
    with pytest.raises(rs.ReportError, match="metric 'execs_per_s' is declared in .*bench/locktable/metrics.ini too"):
        rs.load_all_metrics()
