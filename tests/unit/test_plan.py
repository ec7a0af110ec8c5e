"""The planner on in-memory plans: the presets' rows, the options' effect,
the seeded order, and clear errors (slicebench/experiment.py,
experiments/*.py)."""

import collections

import pytest

from slicebench import experiment as ex
from slicebench.run import RunError


def plan(name="default", seed=5, named=False, vcpus=2, **options):
    """The runs of experiment NAME with command-line options (as text)."""
    e = ex.load(name)
    given = ex.parse_given(e, {k: v for k, v in options.items()})
    return ex.plan(e, e.resolve(given, vcpus), seed, named)


def ids(runs, **where):
    return [r.id for r in runs if all(getattr(r, k) == v for k, v in where.items())]


@pytest.fixture(scope="module")
def default():
    return plan()


def test_order_counts_the_runs(default):
    assert [r.order for r in default] == list(range(1, len(default) + 1))


def test_repeat_1_runs_whole_before_repeat_2_and_fresh_boots_last(default):
    sweep = [r.repeat for r in default if r.boot == "sweep"]
    assert sweep == sorted(sweep)
    first_fresh = min(r.order for r in default if r.boot == "fresh")
    assert all(r.order < first_fresh for r in default if r.boot == "sweep")


def test_the_same_seed_gives_the_same_plan_another_seed_another_order(default):
    again = plan()
    assert [r.to_json() for r in again] == [r.to_json() for r in default]
    other = plan(seed=6)
    assert sorted(r.id for r in other) == sorted(r.id for r in default)
    assert [r.id for r in other] != [r.id for r in default]


def test_the_main_points_first_arm_differs_between_repeats(default):
    firsts = set()
    for rep in (1, 2, 3, 4):
        main = [r for r in default if r.repeat == rep and r.point.startswith("lt-c300-h400-")
                and r.point.endswith("-50us")]
        firsts.add(main[0].arm)
    assert len(firsts) > 1


def test_off_is_grant_0_through_mainline(default):
    r = next(r for r in default if r.id == "lt-c300-h400-off-50us-r1")
    assert (r.arm, r.knobs["abi"], r.knobs["grant"], r.knobs["ext_ns"]) == ("off", "mainline", 0, 50000)
    assert (r.params["clients"], r.params["hogs"], r.params["lock"]) == (300, 400, "tas")


def test_the_command_is_the_benchmarks_whole_command(default):
    r = next(r for r in default if r.id == "lt-c300-h400-alt-hogs-idle-r1")
    assert r.command == ["locktable", "--clients", "300", "--hogs", "400", "--work-in", "5", "--duration", "10",
                         "--warmup", "2", "--interval", "0", "--hog-policy", "idle", "--abi", "mainline",
                         "--json", "lt-c300-h400-alt-hogs-idle-r1.json.tmp"]
    assert (r.alternative, r.arm, r.label) == ("hogs-idle", "off", "hogs-idle")


def test_latency_probe_only_when_named_cyclictest_on_precise(default):
    assert {(r.bench, r.testbed) for r in default if r.benchmark == "latency"} == {("cyclictest", "precise")}
    named = plan(seed=1, named=True, benchmarks="latency", testbeds="parallel")
    assert len([r for r in named if r.bench == "latency"]) == 12


def test_the_lengths(default):
    r = next(r for r in default if r.id == "lt-c300-h400-mainline-5us-precise-r1")
    assert (r.knobs["abi"], r.knobs["grant"], r.knobs["ext_ns"]) == ("mainline", 1, 5000)
    parallel = {r.knobs["ext_ns"] for r in default if r.bench == "locktable" and r.testbed == "parallel"
                and r.alternative is None}
    assert parallel == {50000, 1000000}
    tick = next(r for r in default if r.id == "lt-c300-h400-rseq-cr-tick-r1")
    assert (tick.knobs["abi"], tick.knobs["ext_ns"]) == ("rseq-cr", 1000000)
    traces = sorted(r.knobs["ext_ns"] for r in default if r.bench == "grant-trace" and r.testbed == "parallel")
    assert traces == [5000, 10000, 30000, 50000]


def test_swingbench_lite_and_extend_sched_params(default):
    sbl = next(r for r in default if r.id == "sbl-pthread-r1")
    assert (sbl.params["mutex"], sbl.knobs["abi"], sbl.params["profile"]) == ("pthread", "none", "giant-lock")
    es = next(r for r in default if r.id == "es-w-rseq-cr-r1")
    assert es.params["waiting"] is True and "-w" in es.command


def test_precise_runs_get_their_repeat_as_seed(default):
    for r in default:
        if r.testbed == "precise" and r.bench == "locktable":
            assert r.params["seed"] == r.repeat
    assert all(r.params.get("seed") is None for r in default if r.testbed == "parallel" and r.bench == "locktable")


def test_unused_cost_fresh_boots_alternate(default):
    assert [r.kernel for r in default if r.boot == "fresh"][:4] == ["stock", "patched", "patched", "stock"]


def test_unused_cost_experiment():
    runs = plan("unused-cost", seed=1)
    assert len([r for r in runs if r.boot == "fresh" and r.testbed == "precise"]) == 16
    first = [r.arm for r in runs if r.repeat in (1, 4)]
    assert first == ["stock", "grants-off", "v2-idle", "opted-idle", "opted-idle", "stock", "grants-off", "v2-idle"]
    for r in runs:
        assert r.params["rseq_v2"] == (r.arm == "v2-idle")
        assert (r.params["opt_in"] == "mainline") == (r.arm == "opted-idle")
        assert r.kernel.endswith("-jump-label")


def test_ext_us_20():
    runs = plan(seed=1, ext_us="20", abis="mainline,rseq-cr", benchmarks="locktable")
    at20 = collections.Counter((r.bench, r.testbed) for r in runs if r.knobs["ext_ns"] == 20000)
    assert at20 == {("grant-trace", "parallel"): 1, ("grant-trace", "precise"): 1, ("locktable", "precise"): 4}
    assert not [r for r in runs if r.knobs["grant"] == 0 and r.alternative is None]
    assert {r.bench for r in runs} == {"grant-trace", "locktable", "sleep-overshoot"}


def test_testbeds(default):
    assert {r.testbed for r in default} == {"parallel", "precise"}
    main = [r for r in default if r.point in {f"lt-c300-h400-{a}-50us-precise" for a in ex.load("default").arms}]
    assert len(main) == 16
    assert {r.testbed for r in plan(seed=1, testbeds="parallel")} == {"parallel"}
    p3 = plan(seed=1, testbeds="precise", precise_repeats="3")
    assert {r.testbed for r in p3} == {"precise"}
    assert len(ids(p3, point="lt-c300-h400-off-50us-precise")) == 3


def test_alternatives(default):
    main = collections.Counter(r.testbed for r in default if r.point.startswith("lt-c300-h400-alt-") and r.repeat == 1)
    assert (main["parallel"], main["precise"]) == (10, 4)
    swept = {r.alternative for r in default if r.alternative and r.params["hogs"] != 400}
    assert swept == {"futex-ext", "hogs-idle"}
    two = plan(seed=1, alternatives="futex,pthread")
    assert sorted({r.point for r in two if r.alternative}) == [
        "lt-c300-h400-alt-futex", "lt-c300-h400-alt-futex-precise", "lt-c300-h400-alt-pthread"]
    assert not [r for r in plan(seed=1, alternatives="none") if r.alternative or "futex" in r.id or "adaptive" in r.id]


@pytest.mark.parametrize("options, message", [
    ({"testbeds": "tcg"}, "--testbeds: unknown testbed 'tcg' (parallel, precise)"),
    ({"alternatives": "mcs"}, "--alternatives: unknown alternative 'mcs' (hogs-nice19, "),
    ({"alternatives": "futex", "sweep_alternatives": "hogs-idle"}, "'hogs-idle' is not one of --alternatives"),
    ({"clients": "0"}, "--clients: '0' is not a positive count"),
    ({"ext_us": "2000"}, "--ext-us: '2000' is not 1-1000 or tick"),
    ({"repeats": "x"}, "--repeats: not a positive number: 'x'"),
    ({"bogus": "3"}, "unknown option '--bogus'"),
])
def test_bad_options_fail_saying_why(options, message):
    with pytest.raises(ex.PlanError) as e:
        plan(**options)
    assert message in str(e.value)


def test_a_run_id_made_twice_fails():
    class Twice(ex.load("smoke").__class__):
        def so(self, v):
            yield from super().so(v)
            yield from super().so(v)
    e = Twice()
    with pytest.raises(ex.PlanError, match="the run id 'so-r1' is made twice"):
        ex.plan(e, e.resolve({}), 1)


def test_an_unknown_bench_or_parameter_fails():
    class Odd(ex.load("smoke").__class__):
        blocks = ["odd"]

        def odd(self, v):
            yield ex.Point("odd", self.bench_name, "parallel", self.params)
    e = Odd()
    e.bench_name, e.params = "frobnicate", {}
    with pytest.raises(ex.PlanError, match="no bench 'frobnicate'"):
        ex.plan(e, e.resolve({}), 1)
    e.bench_name, e.params = "locktable", {"clients": 1}
    with pytest.raises(RunError, match="locktable needs hogs, work_in_us, duration, warmup, interval"):
        ex.plan(e, e.resolve({}), 1)
    e.params = dict(clients=1, hogs=1, work_in_us=5, duration=1, warmup=0, interval=0, colour="blue")
    with pytest.raises(RunError, match="locktable has no parameter colour"):
        ex.plan(e, e.resolve({}), 1)


def test_postgres_grid():
    runs = plan("postgres", seed=3, testbeds="parallel")
    sweep = [r for r in runs if r.boot == "sweep"]
    assert len(sweep) == (3 * 3 * 2 - 2) * 5 * 4
    assert len([r for r in runs if r.boot == "fresh"]) == 12
    assert sorted({r.params["clients"] for r in runs if r.params["mode"] == "tpcb"}) == [8, 32]
    kernels = [r.kernel for r in runs if r.boot == "fresh"]
    assert [(k, len(list(g))) for k, g in __import__("itertools").groupby(kernels)] == [
        ("preempt-none", 2), ("preempt-full", 4), ("preempt-none", 4), ("preempt-full", 2)]
    for r in runs:
        assert ("--huge-pages" in r.command) == (r.arm == "huge") == r.params["huge_pages"]
    eight = plan("postgres", seed=3, testbeds="parallel", vcpus=8, modes="select", clients_per_vcpu="4",
                 hogs_per_vcpu="0,8")
    assert {(r.params["clients"], r.params["hogs"]) for r in eight} == {(32, 0), (32, 64)}


def test_postgres_estimate_is_est_s_not_the_limit():
    runs = plan("postgres", seed=3, testbeds="parallel", modes="tpcb", clients_per_vcpu="4,16", repeats="3")
    assert sum(r.est_s for r in runs if r.boot == "sweep") == 30 * 49 + 30 * 52
    assert all(r.limit_s > r.est_s for r in runs)
