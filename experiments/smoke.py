"""./run-all --smoke: a minimal sweep that checks the pipeline end to end.

make check runs it: every benchmark but unused-cost (it needs the stock
kernel built) at a small load, one grant trace per testbed. Its numbers mean
nothing. Everything not said here is experiments/default.py's.
"""

from experiments.default import Default
from slicebench.experiment import among

SKIP = {"lt_length_precise", "lt_alt_precise", "lt_hogs_precise", "lt_work_in_precise", "ct", "lc_precise",
        "sbl_precise", "sbl_alt_precise", "sbl_alt_ext_precise", "sbl_ext_precise"}


class Smoke(Default):
    name = "smoke"
    description = "a minimal sweep that checks the pipeline, for CI"
    blocks = [b for b in Default.blocks if b not in SKIP]
    axes = Default.axes.replace(
        repeats=2,
        duration=2,
        precise_repeats=1,
        clients=[20],
        hogs=[20],
        ext_us=[50],
        work_in_us=[5],
        sbl_clients=20,
        benchmarks=["locktable", "extend-sched", "swingbench-lite", "latency", "lock-cost"],
        alternatives=["hogs-idle", "futex-ext"],
        sweep_alternatives=[],
        precise_alternatives=lambda v: v.alternatives,
    )

    def derive(self, v):
        super().derive(v)
        v.precise_abis = among(["off", "mainline"], v.abis)
        v.sbl_scale = 0.05

    def lat(self, v):
        # The parallel latency probe runs here whatever --benchmarks says.
        for p in super().lat(v):
            p.only_if_named = False
            yield p

    def sbl_ext_abis(self, v):
        return v.sweep_abis


EXPERIMENT = Smoke
