"""./run-all --quick: the default sweep made short.

The main point and the hog sweep's ends on the parallel testbed, three
alternatives, and on the precise testbed only the main point's off and
mainline, two alternatives and the fast path. Everything not said here is
experiments/default.py's.
"""

from experiments.default import Default
from slicebench.experiment import among

SKIP = {"sbl_alt", "sbl_alt_ext", "lt_length_precise", "lt_hogs_precise", "gt_precise", "lt_work_in_precise",
        "sbl_precise", "sbl_alt_precise", "sbl_alt_ext_precise", "sbl_ext_precise"}


class Quick(Default):
    name = "quick"
    description = "the short sweep: about 20 minutes here"
    blocks = [b for b in Default.blocks if b not in SKIP]
    axes = Default.axes.replace(
        repeats=3,
        # Two runs a point on the precise testbed, one in each boot: below the
        # three runs a verdict needs (its tables say "too few runs"), to keep
        # the sweep short; the default runs four.
        precise_repeats=2,
        clients=[300],
        hogs=[400, 0],
        ext_us=[50],
        work_in_us=[5],
        alternatives=["hogs-idle", "futex", "futex-ext"],
        sweep_alternatives=[],
        precise_alternatives=lambda v: among(["hogs-idle", "futex-ext"], v.alternatives),
        benchmarks=["locktable", "extend-sched", "swingbench-lite", "lock-cost", "unused-cost"],
    )

    def derive(self, v):
        super().derive(v)
        v.precise_abis = among(["off", "mainline"], v.abis)
        v.fresh_boots = 2

    def sbl_ext_abis(self, v):
        # swingbench-lite's extension-aware mutexes with off and mainline
        # only (the budget): the quick sweep does not answer Oracle's
        # Swingbench claims (./run-all does).
        return v.sweep_abis


EXPERIMENT = Quick
