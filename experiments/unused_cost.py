"""What the series costs tasks that never ask (issues 23 and 38), in guest
instructions: ./run-all --experiments unused-cost.

unused-cost in fresh boots on the precise testbed (icount shift 0: one
guest instruction is one ns of guest time), with real static keys (both
kernels built with CONFIG_JUMP_LABEL=y, kernel/build --jump-label, as
distribution kernels are; experiments/jump-label-prediction.md showed them
stable there). Four arms, alternating boot after boot so that none always
boots first: the stock 6.12 kernel; the patched kernel with grants off and
the threads on glibc's 32-byte rseq registration (Debian 12's glibc 2.36);
the patched kernel with grants on and the threads on their own RSEQ V2
registration of the kernel's feature size (what glibc 2.41 and later
register for every thread), not opted in; and the threads opted in to the
mainline ABI but never asking. Predictions:
experiments/unused-cost-v2-prediction.md.
"""

from slicebench.experiment import Arm, Axes, Count, Experiment, Names, Point, rotate

NDR = "never-delay-rt"


class UnusedCost(Experiment):
    name = "unused-cost"
    description = "the cost when unused, in guest instructions (precise testbed, fresh boots)"
    axes = Axes([
        Names("testbeds", ["precise"], "the precise testbed: figures are guest instructions",
              choices=["precise"], noun="testbed"),
        Names("benchmarks", ["unused-cost"], "the benchmark", choices=["unused-cost"], noun="benchmark"),
        Count("boots", 4, "fresh boots of each arm (4: each arm boots first once)"),
        Count("repeats", 1, "unused: every run here is a fresh boot (--boots)"),
        Count("precise_repeats", 1, "unused: every run here is a fresh boot (--boots)"),
    ])
    arms = {
        "stock": Arm(kernel="stock-jump-label", abi="none", grant=0),
        "grants-off": Arm(kernel="patched-jump-label", abi="mainline", grant=0, ext_ns=5000, rt_policy=NDR),
        "v2-idle": Arm(kernel="patched-jump-label", abi="mainline", grant=1, ext_ns=5000, rt_policy=NDR,
                       params={"rseq_v2": True}),
        "opted-idle": Arm(kernel="patched-jump-label", abi="mainline", grant=1, ext_ns=5000, rt_policy=NDR,
                          params={"opt_in": "mainline"}),
    }
    blocks = ["uc"]

    def derive(self, v):
        v.main_clients = v.main_hogs = v.main_work_in = 0

    def uc(self, v):
        """Fresh boots, one run each, the arms alternating boot after boot:
        boot r starts with the ((r - 1) mod 4)-th arm."""
        for r in range(1, v.boots + 1):
            for k in rotate(["stock", "grants-off", "v2-idle", "opted-idle"], r):
                # Guest instructions are exact: short rounds (the default
                # ones would take about an hour of host time for the boots).
                yield Point(f"uc-{k}-r{r}-precise", "unused-cost", "precise",
                            dict(rounds=5, syscalls=20000, yields=10000, switches=2000, preempt_ms=50),
                            arm=k, boot="fresh", repeat=r, limit_s=3600)


EXPERIMENT = UnusedCost
