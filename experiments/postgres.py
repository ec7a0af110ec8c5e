"""PostgreSQL in the guest (issue 25): ./run-all --experiments postgres.

The grid experiments/postgres-prediction.md registered before its first run
(with its amendment 1): pgbench -M prepared against PostgreSQL 15 with
extension-aware spinlocks (bench/postgres), modes x clients per vCPU x hogs
per vCPU x arm, and the preemption models as fresh boots. The parallel
testbed's grid is about 5 hours here by its estimate, the precise
testbed's rows far longer; a subset, e.g.
  --modes simple-update --clients-per-vcpu 16 --repeats 3
Each run copies its database (bench/postgres/make-data, on /data) into the
guest's tmpfs: the guest gets 3 GB.
"""

from slicebench.experiment import Arm, Axes, Count, Counts, Experiment, Names, Point, rotate

NDR = "never-delay-rt"
MODES = ["select", "simple-update", "tpcb"]


class Postgres(Experiment):
    name = "postgres"
    description = "PostgreSQL with extension-aware spinlocks, driven by pgbench (experiments/postgres-prediction.md)"
    axes = Axes([
        Names("testbeds", ["parallel", "precise"], "parallel (the grid, 2 vCPUs) and/or precise (-N at one "
              "point, off and mainline 50 us: the grants' outcomes in exact time)",
              choices=["parallel", "precise"], noun="testbed"),
        Names("benchmarks", ["postgres"], "the benchmark", choices=["postgres"], noun="benchmark"),
        Names("modes", MODES, "pgbench's script: select (-S), simple-update (-N, the April 2026 report's), tpcb "
              "(TPC-B-like; only where the clients are at most the scale)", choices=MODES, noun="mode"),
        Counts("clients_per_vcpu", [4, 16, 64], "pgbench clients per guest vCPU", min=1),
        Counts("hogs_per_vcpu", [0, 8], "CPU hogs per guest vCPU beside the server (amendment 1: 200 hogs on "
               "2 vCPUs let no transaction through)"),
        Count("scale", 32, "pgbench's scale (15 MB each; the issue asks for at least the client count, and "
              "TPC-B-like runs only where it is)", min=1),
        Count("repeats", 4, "runs per point on the parallel testbed"),
        Count("boots", 2, "guest boots per testbed: each point's repeats are spread over them", min=1),
        Count("duration", 10, "pgbench's measured seconds per run on the parallel testbed (after 5 s of warm-up)"),
        Count("precise_repeats", 4, "runs per point on the precise testbed"),
        Count("preempt_repeats", 3, "fresh boots per preemption model and arm (preempt=none, preempt=full)"),
        Count("preempt_clients_per_vcpu", 16, "clients per vCPU in the preemption-model boots (-N, the most hogs "
              "of --hogs-per-vcpu)", min=1),
    ])
    # "control" runs the patched server asking for nothing (its ABI none);
    # "off" asks through mainline with the kernel's grants off (the
    # project's baseline everywhere); "huge" is off with huge_pages=on (what
    # PostgreSQL's users answered the April report with).
    arms = {
        "control": Arm(abi="none", grant=1, ext_ns=50000, rt_policy=NDR),
        "off": Arm(abi="mainline", grant=0, ext_ns=50000, rt_policy=NDR),
        "mainline-50us": Arm(abi="mainline", grant=1, ext_ns=50000, rt_policy=NDR),
        "mainline-5us": Arm(abi="mainline", grant=1, ext_ns=5000, rt_policy=NDR),
        "huge": Arm(abi="mainline", grant=0, ext_ns=50000, rt_policy=NDR, params={"huge_pages": True}),
    }
    blocks = ["grid", "preempt", "precise"]

    def derive(self, v):
        v.parallel_cpus = v.vcpus       # the parallel testbed's guest vCPUs (run-all --cpus)
        v.guest_mem = "3G"
        # The preemption-model point, which the sections name as the main point.
        v.main_clients = v.preempt_clients_per_vcpu * v.parallel_cpus
        v.main_hogs = v.hogs_per_vcpu[-1] * v.parallel_cpus
        v.main_work_in = 0
        v.precise_duration = 1

    def pg(self, v, mode, clients, hogs, duration):
        return dict(scale=v.scale, mode=mode, clients=clients, hogs=hogs, warmup=5, duration=duration)

    def budget(self, v, clients):
        # The database copy, the server's start, the balance check and the
        # shutdown checkpoint take longer than pgbench: about 50 s a run at
        # scale 32 with 8 or 32 clients (results/postgres-tpcb-20261207: 60
        # runs in 51 minutes), the estimate; the limit leaves room for a slow
        # copy.
        return dict(limit_s=300 + 2 * v.duration + 3 * clients + 10 * v.scale,
                    est_s=30 + v.duration + v.scale // 4 + clients // 8)

    def grid(self, v):
        for m in v.modes:
            for c in v.clients_per_vcpu:
                for h in v.hogs_per_vcpu:
                    for a in ["control", "off", "mainline-50us", "mainline-5us", "huge"]:
                        if m != "tpcb" or c * v.parallel_cpus <= v.scale:
                            cl, hg = c * v.parallel_cpus, h * v.parallel_cpus
                            yield Point(f"pg-{m}-c{cl}-h{hg}-{a}", "postgres", "parallel",
                                        self.pg(v, m, cl, hg, v.duration), arm=a, **self.budget(v, cl))

    def preempt(self, v):
        """The preemption model (7.0 removed PREEMPT_NONE): fresh boots of
        the patched kernel with preempt=none and preempt=full; the sweep's
        boots are the configuration's preempt=voluntary. Boot r starts with
        the other model each time."""
        if "simple-update" in v.modes:
            cl, hg = v.preempt_clients_per_vcpu * v.parallel_cpus, v.hogs_per_vcpu[-1] * v.parallel_cpus
            for r in range(1, v.preempt_repeats + 1):
                for k in rotate(["preempt-none", "preempt-full"], r):
                    for a in ["off", "mainline-50us"]:
                        yield Point(f"pg-{k}-{a}-r{r}", "postgres", "parallel",
                                    self.pg(v, "simple-update", cl, hg, v.duration), arm=a, kernel=k, boot="fresh",
                                    repeat=r, **self.budget(v, cl))

    def precise(self, v):
        """The precise testbed: -N at the preemption models' point, for the
        grants' outcomes (expired against yielded) in exact time."""
        if "simple-update" in v.modes:
            cl, hg = v.preempt_clients_per_vcpu, v.hogs_per_vcpu[-1]
            for a in ["off", "mainline-50us", "mainline-5us"]:
                yield Point(f"pg-simple-update-c{cl}-h{hg}-{a}-precise", "postgres", "precise",
                            self.pg(v, "simple-update", cl, hg, v.precise_duration), arm=a,
                            limit_s=7200 + 100 * v.scale)


EXPERIMENT = Postgres
