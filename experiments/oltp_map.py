"""swingbench-lite's OLTP map (issue 22): ./run-all --experiments oltp-map.

The grid bench/swingbench-lite/PREREGISTRATION.md registered before its
first run: sessions per vCPU x profile (giant-lock, today's, as the
negative control; buffer-latches, Oracle's structure) x arm (spin-ext
grants off, mainline at 50 and at 5 us, spin-then-futex), 3 repeats on the
precise testbed; task-shared and rseq-cr at the pre-registered point; the
point on the parallel testbed.

The window: 1 s of guest time. The pre-registered rule (3 s if the baseline
at the point spreads over 5%) was applied before the grid: three runs of
buffer-latches, 16 clients, spin-ext grants off, seeds 1-3, gave 23,925,
24,038 and 23,913 SQL exec/s (coefficient of variation 0.29%).
"""

from slicebench.experiment import Arm, Axes, Count, Counts, Experiment, Names, Point

NDR = "never-delay-rt"
PROFILES = ["giant-lock", "buffer-latches"]


class OltpMap(Experiment):
    name = "oltp-map"
    description = "swingbench-lite's pre-registered OLTP map (PREREGISTRATION.md)"
    axes = Axes([
        Names("testbeds", ["precise", "parallel"], "precise (the map) and/or parallel (the pre-registered point, "
              "2 vCPUs)", choices=["parallel", "precise"], noun="testbed"),
        Names("benchmarks", ["swingbench-lite"], "the map's benchmark", choices=["swingbench-lite"],
              noun="benchmark"),
        Counts("sessions", [4, 16, 64, 128], "runnable sessions per vCPU asked for: the clients on the precise "
               "testbed's one vCPU", min=1),
        Names("profiles", PROFILES, "swingbench-lite's --profile", choices=PROFILES, noun="profile"),
        Count("precise_repeats", 3, "runs per cell on the precise testbed (each its own workload seed)"),
        Count("repeats", 4, "runs per arm of the point on the parallel testbed"),
        Count("duration", 10, "measured seconds per run on the parallel testbed"),
        Count("point_sessions", 16, "the pre-registered point's sessions per vCPU"),
    ])
    arms = {
        "off": Arm(abi="mainline", grant=0, ext_ns=50000),
        "mainline-50us": Arm(abi="mainline", grant=1, ext_ns=50000),
        "mainline-5us": Arm(abi="mainline", grant=1, ext_ns=5000),
        "task-shared-50us": Arm(abi="task-shared", grant=1, ext_ns=50000),
        "rseq-cr-50us": Arm(abi="rseq-cr", grant=1, ext_ns=50000),
    }
    blocks = ["map", "point_abis", "point_parallel"]

    def derive(self, v):
        v.main_clients = v.point_sessions
        v.main_hogs = 0
        v.main_work_in = 5
        v.precise_duration = 1
        v.parallel_cpus = v.vcpus       # the parallel testbed's guest vCPUs (run-all --cpus)

    def psb(self, v, clients, profile, mutex):
        return dict(clients=clients, scale=0.2, duration=v.precise_duration, warmup=1, interval=0, profile=profile,
                    mutex=mutex, spin_us=20)

    def sb(self, v, clients, profile, mutex):
        return dict(clients=clients, scale=1, duration=v.duration, warmup=3, interval=0, profile=profile,
                    mutex=mutex, spin_us=20)

    def cell(self, v, id_, arm, params):
        return Point(id_, "swingbench-lite", "precise", params, arm=arm, knobs=dict(rt_policy=NDR),
                     workload_seed=True, limit_s=600 + 4 * params["clients"])

    def map(self, v):
        """Every cell: spin-ext grants off (the baseline), mainline at 50 and
        5 us, and spin-then-futex (grants off: the futex lock is not
        extension-aware)."""
        for s in v.sessions:
            for p in v.profiles:
                for a in ["off", "mainline-50us", "mainline-5us", "futex"]:
                    mutex = "futex" if a == "futex" else "spin-ext"
                    yield self.cell(v, f"sbl-{p}-c{s}-{a}-precise", "off" if a == "futex" else a,
                                    self.psb(v, s, p, mutex))

    def point_abis(self, v):
        """Oracle's claims name the shared page and the rseq-based API: at
        the point."""
        if "buffer-latches" in v.profiles:
            s = v.point_sessions
            for a in ["task-shared-50us", "rseq-cr-50us"]:
                yield self.cell(v, f"sbl-buffer-latches-c{s}-{a}-precise", a,
                                self.psb(v, s, "buffer-latches", "spin-ext"))

    def point_parallel(self, v):
        """The point on the parallel testbed: point_sessions per vCPU."""
        if "buffer-latches" in v.profiles:
            c = v.point_sessions * v.parallel_cpus
            for a in ["off", "mainline-50us", "futex"]:
                yield Point(f"sbl-buffer-latches-c{c}-{a}", "swingbench-lite", "parallel",
                            self.sb(v, c, "buffer-latches", "futex" if a == "futex" else "spin-ext"),
                            arm="off" if a == "futex" else a, knobs=dict(rt_policy=NDR))


EXPERIMENT = OltpMap
