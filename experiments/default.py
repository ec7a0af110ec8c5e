"""./run-all's default sweep: the full sweep on both testbeds.

What runs: the axes (run-all's options), the arms, what users would do
instead, and the blocks below, each a generator of points in plain
Python. What the report reads of it is report/specs/default.toml.
"""

from slicebench.experiment import (Alternative, Arm, Axes, Count, Counts, Experiment, Lengths, Names, Point,
                                   among, ends, ns, numeric, rotate)

ABIS = ["off", "rseq-cr", "task-shared", "mainline"]
ALTERNATIVES = ["hogs-nice19", "hogs-idle", "hogs-batch", "pthread", "adaptive", "futex", "yield", "futex-ext",
                "yield-ext", "adaptive-ext"]
BENCHMARKS = ["locktable", "extend-sched", "swingbench-lite", "latency", "lock-cost", "unused-cost"]
NDR = "never-delay-rt"


class Default(Experiment):
    name = "default"
    description = "the full sweep: about 2.5 hours here"

    axes = Axes([
        Names("testbeds", ["parallel", "precise"], "parallel (the guest's vCPUs on the host's cores, real clock) "
              "and/or precise (1 vCPU, single-threaded TCG with icount: exact virtual time, about 50 times slower)",
              choices=["parallel", "precise"], noun="testbed"),
        Names("benchmarks", BENCHMARKS, "which benchmarks; latency is cyclictest on the precise testbed, and the "
              "project's probe on the parallel one only when this option names it (its p99 floor there is about "
              "4 ms)", choices=BENCHMARKS, noun="benchmark"),
        Count("repeats", 4, "runs per point on the parallel testbed"),
        Count("duration", 10, "measured seconds per run on the parallel testbed"),
        Count("precise_repeats", 4, "runs per point on the precise testbed"),
        Count("boots", 2, "guest boots per testbed: each point's repeats are spread over them (repeat r in boot "
              "(r - 1) mod N + 1), so that the report can tell the spread between boots from the spread within "
              "one; the precise testbed's boots run --precise-guests at a time", min=1),
        Counts("clients", [300, 100, 600], "locktable clients; the first is the main point", min=1),
        Counts("hogs", [400, 0, 200, 800], "locktable CPU hogs; the first is the main point; the precise testbed "
               "sweeps the others' smallest and largest"),
        Names("abis", ABIS, "the arms of the comparisons: off (grant switch 0), rseq-cr, task-shared, mainline",
              choices=ABIS, noun="arm"),
        Names("sweep_abis", lambda v: among(["off", "mainline"], v.abis) or v.abis,
              "the arms of the client and hog sweeps (quick and smoke: and of swingbench-lite's extension-aware "
              "mutexes)", choices=ABIS, noun="arm"),
        Lengths("ext_us", [5, 10, 30, 50, "tick"], "extension lengths in us; tick is rseq-cr with a full tick. A "
                "grant trace (a lock-table run with the tracepoints) at each on both testbeds; the lock table's "
                "repeated runs at 50 us and tick, and on the precise testbed at the smallest too (the parallel "
                "testbed's grants last about 200 us whatever is asked)", min=1, max=1000),
        Counts("work_in_us", [5, 20], "locktable work under the lock in us; the first is the main point, the "
               "others are swept on the precise testbed, mainline at 5 and 50 us", min=1, max=1000),
        Names("alternatives", ALTERNATIVES, "what users would do instead of the extension, or with it, run at the "
              "main point beside off and mainline: hogs at nice 19, SCHED_IDLE or SCHED_BATCH; table locks that "
              "sleep or yield (pthread, adaptive, futex: spin then FUTEX_WAIT, yield: spin then sched_yield); and "
              "with the extension (futex-ext, yield-ext, adaptive-ext); none for none",
              choices=ALTERNATIVES, noun="alternative", none=True),
        Names("sweep_alternatives", lambda v: among(["hogs-idle", "futex-ext"], v.alternatives),
              "of those, the ones also run at every point of the hog sweep (parallel testbed)",
              choices=ALTERNATIVES, noun="alternative", none=True, subset_of="alternatives"),
        Names("precise_alternatives", lambda v: among(["hogs-idle", "futex", "yield", "futex-ext"], v.alternatives),
              "of those, the ones run on the precise testbed",
              choices=ALTERNATIVES, noun="alternative", none=True, subset_of="alternatives"),
        Count("sbl_clients", 300, "swingbench-lite clients"),
    ])

    # The kernel's knobs an arm's name stands for; off asks through mainline
    # with the grant switch at 0.
    arms = {
        "off": Arm(abi="mainline", grant=0),
        "rseq-cr": Arm(abi="rseq-cr", grant=1),
        "task-shared": Arm(abi="task-shared", grant=1),
        "mainline": Arm(abi="mainline", grant=1),
        "none": Arm(abi="none", grant=1),
        "stock": Arm(kernel="stock", abi="none", grant=0),
        "grants-off": Arm(abi="mainline", grant=0, ext_ns=50000, rt_policy=NDR),
    }

    # What users would do instead: the arm it runs with, and the lock
    # table's parameters that make it.
    alternatives = {
        "hogs-nice19": Alternative("off", {"hog_policy": "nice19"}),
        "hogs-idle": Alternative("off", {"hog_policy": "idle"}),
        "hogs-batch": Alternative("off", {"hog_policy": "batch"}),
        "pthread": Alternative("off", {"lock": "pthread"}),
        "adaptive": Alternative("off", {"lock": "adaptive"}),
        "futex": Alternative("off", {"lock": "futex"}),
        "yield": Alternative("off", {"lock": "yield"}),
        "futex-ext": Alternative("mainline", {"lock": "futex"}),
        "yield-ext": Alternative("mainline", {"lock": "yield"}),
        "adaptive-ext": Alternative("mainline", {"lock": "adaptive"}),
    }

    blocks = ["so", "lt_main", "lt_tick", "lt_clients", "lt_hogs", "lt_alt", "gt", "es_d", "es", "es_w", "sbl",
              "sbl_ext", "sbl_alt", "sbl_alt_ext", "lat", "lc", "hf", "uc", "so_precise", "lt_main_precise",
              "lt_length_precise", "lt_alt_precise", "lt_hogs_precise", "gt_precise", "lt_work_in_precise", "ct",
              "lc_precise", "sbl_precise", "sbl_alt_precise", "sbl_alt_ext_precise", "sbl_ext_precise", "uc_fresh"]

    def derive(self, v):
        v.main_clients = v.clients[0]
        v.main_hogs = v.hogs[0]
        v.main_work_in = v.work_in_us[0]
        v.precise_duration = 1          # measured virtual seconds per precise run
        v.precise_abis = v.abis         # the precise testbed's main-point arms
        v.sbl_scale = 1                 # swingbench-lite's data scale (parallel)
        v.fresh_boots = v.repeats       # unused-cost's fresh boots of each kernel

    # -- the benchmarks' parameters at a point -------------------------------------
    def lt(self, v, clients, hogs, work_in=None):
        """The lock table on the parallel testbed."""
        return dict(clients=clients, hogs=hogs, work_in_us=work_in or v.main_work_in, duration=v.duration,
                    warmup=2, interval=0)

    def plt(self, v, clients, hogs, work_in=None):
        """The lock table on the precise testbed (virtual seconds)."""
        return dict(clients=clients, hogs=hogs, work_in_us=work_in or v.main_work_in, duration=v.precise_duration,
                    warmup=0.5, interval=0)

    def sb(self, v, mutex):
        return dict(clients=v.sbl_clients, scale=v.sbl_scale, duration=v.duration, warmup=3, interval=0,
                    mutex=mutex)

    def psb(self, v, mutex):
        # Fewer clients than on the parallel testbed (1 vCPU, and every
        # client's connection and set-up costs virtual time).
        return dict(clients=min(v.sbl_clients, 100), scale=0.2, duration=v.precise_duration, warmup=1, interval=0,
                    mutex=mutex)

    def ltp(self, id_, v, arm, params, testbed="parallel", ext_ns=50000, **kw):
        """A lock-table point at 50 us (by default), rt never delayed."""
        return Point(id_, "locktable", testbed, params, arm=arm, knobs=dict(ext_ns=ext_ns, rt_policy=NDR), **kw)

    # -- the parallel testbed -------------------------------------------------------
    def so(self, v):
        """The testbed's timer resolution, beside the precise testbed's."""
        yield Point("so", "sleep-overshoot", "parallel", dict(count=2000, sleep_us=50), repeats=1)

    def lt_main(self, v):
        c, h = v.main_clients, v.main_hogs
        for a in v.abis:
            yield self.ltp(f"lt-c{c}-h{h}-{a}-50us", v, a, self.lt(v, c, h))

    def lt_tick(self, v):
        # The other lengths are only traced here (gt, below): this testbed's
        # timers fire 100-200 us late, so every grant lasts about 200 us
        # whatever was asked, and a lock-table run per length would measure
        # the host, not the length. The precise testbed runs them.
        c, h = v.main_clients, v.main_hogs
        if "tick" in v.ext_us:
            yield self.ltp(f"lt-c{c}-h{h}-rseq-cr-tick", v, "rseq-cr", self.lt(v, c, h), ext_ns=ns("tick"))

    def lt_clients(self, v):
        """The client sweep: a line per arm."""
        h = v.main_hogs
        for c in v.clients[1:]:
            for a in v.sweep_abis:
                yield self.ltp(f"lt-c{c}-h{h}-{a}-50us", v, a, self.lt(v, c, h))

    def lt_hogs(self, v):
        c = v.main_clients
        for h in v.hogs[1:]:
            for a in v.sweep_abis:
                yield self.ltp(f"lt-c{c}-h{h}-{a}-50us", v, a, self.lt(v, c, h))

    def lt_alt(self, v):
        """What users would do instead: each alternative at the main point,
        and those of sweep_alternatives at every point of the hog sweep."""
        c = v.main_clients
        for h in v.hogs:
            for x in v.alternatives:
                if h == v.main_hogs or x in v.sweep_alternatives:
                    yield Point(f"lt-c{c}-h{h}-alt-{x}", "locktable", "parallel", self.lt(v, c, h), alternative=x,
                                knobs=dict(ext_ns=50000, rt_policy=NDR))

    def gt(self, v):
        """How long grants really last: the slice_ext tracepoints during the
        main point, mainline, at each length asked for."""
        c, h = v.main_clients, v.main_hogs
        for e in numeric(v.ext_us):
            yield Point(f"gt-c{c}-h{h}-mainline-{e}us", "grant-trace", "parallel", self.lt(v, c, h),
                        arm="mainline", knobs=dict(ext_ns=e * 1000, rt_policy=NDR), repeats=1)

    def es_d(self, v):
        """Rostedt's micro-benchmark; -d is the ABI none."""
        yield Point("es-d", "extend-sched", "parallel", dict(duration=min(v.duration, 5)), arm="none",
                    knobs=dict(rt_policy=NDR))

    def es(self, v):
        for a in v.abis:
            if a != "off":
                yield Point(f"es-{a}", "extend-sched", "parallel", dict(duration=min(v.duration, 5)), arm=a,
                            knobs=dict(ext_ns=50000, rt_policy=NDR))

    def es_w(self, v):
        yield Point("es-w-rseq-cr", "extend-sched", "parallel", dict(duration=min(v.duration, 5), waiting=True),
                    arm="rseq-cr", knobs=dict(ext_ns=50000, rt_policy=NDR))

    def sbl(self, v):
        for m in ["pthread", "spin"]:
            yield Point(f"sbl-{m}", "swingbench-lite", "parallel", self.sb(v, m), arm="none",
                        knobs=dict(rt_policy=NDR))

    def sbl_ext_abis(self, v):
        """swingbench-lite's extension-aware mutexes run with every ABI:
        Oracle's Swingbench claims name task-shared and rseq-cr."""
        return v.abis

    def sbl_ext(self, v):
        for a in self.sbl_ext_abis(v):
            yield Point(f"sbl-spin-ext-{a}", "swingbench-lite", "parallel", self.sb(v, "spin-ext"), arm=a,
                        knobs=dict(ext_ns=50000, rt_policy=NDR))

    def sbl_alt(self, v):
        """SQLite's mutexes as users would make them instead (glibc's
        adaptive mutex, spin then futex)."""
        if v.alternatives:
            for m in ["adaptive", "futex"]:
                yield Point(f"sbl-{m}", "swingbench-lite", "parallel", self.sb(v, m), arm="none",
                            knobs=dict(rt_policy=NDR))

    def sbl_alt_ext(self, v):
        """Spin-then-futex with the extension."""
        if v.alternatives and "mainline" in v.abis:
            yield Point("sbl-futex-ext-mainline", "swingbench-lite", "parallel", self.sb(v, "futex-ext"),
                        arm="mainline", knobs=dict(ext_ns=50000, rt_policy=NDR))

    def lat(self, v):
        """The latency probe on the parallel testbed, only when --benchmarks
        names it: there its SCHED_FIFO thread's p99 is about 4 ms with grants
        off (85 times a 50 us extension), so the budget goes to cyclictest on
        the precise testbed instead."""
        c, h = v.main_clients, v.main_hogs
        for a in ["off", "never-delay-rt", "bounded"]:
            yield Point(f"lat-{'off' if a == 'off' else 'mainline-' + a}", "latency", "parallel",
                        dict(duration=v.duration, delay=3, clients=c, hogs=h, work_in_us=v.main_work_in,
                             load_duration=v.duration + 6, warmup=2, interval=0),
                        only_if_named=True,
                        knobs=dict(abi="mainline", grant=0 if a == "off" else 1, ext_ns=50000,
                                   rt_policy=NDR if a == "off" else a))

    def lc(self, v):
        for a in ["none", "rseq-cr", "task-shared", "mainline"]:
            yield Point(f"lc-{a}", "lock-cost", "parallel", dict(rounds=11), arm=a, repeats=1,
                        knobs=dict(ext_ns=None if a == "none" else 50000, rt_policy=NDR))

    def hf(self, v):
        """The same loop timed from outside, whole runs, by hyperfine."""
        yield Point("hf-lock-cost", "hyperfine", "parallel", dict(loop="tas", rounds=3, pairs=2000000),
                    arm="mainline", repeats=1, knobs=dict(ext_ns=50000, rt_policy=NDR))

    def uc(self, v):
        yield Point("uc-patched-grants-off", "unused-cost", "parallel", dict(rounds=15), arm="grants-off")

    # -- the precise testbed --------------------------------------------------------
    # 1 vCPU, icount: exact virtual time. The questions only exact timers can
    # answer, in short runs. Durations are virtual seconds; each repeat gets
    # its own workload seed, since a run with the same seed repeats itself.
    def so_precise(self, v):
        yield Point("so-precise", "sleep-overshoot", "precise", dict(count=2000, sleep_us=50), repeats=1)

    def lt_main_precise(self, v):
        c, h = v.main_clients, v.main_hogs
        for a in v.precise_abis:
            yield self.ltp(f"lt-c{c}-h{h}-{a}-50us-precise", v, a, self.plt(v, c, h), testbed="precise",
                           workload_seed=True)

    def lt_length_precise(self, v):
        """Besides 50 us: tick, and the smallest length (does upstream's
        default, 5 us, suffice?); every length gets a grant trace."""
        c, h = v.main_clients, v.main_hogs
        for e in v.ext_us:
            if e != 50 and (e == "tick" or e == min(numeric(v.ext_us))):
                what = "rseq-cr-tick" if e == "tick" else f"mainline-{e}us"
                yield self.ltp(f"lt-c{c}-h{h}-{what}-precise", v, "rseq-cr" if e == "tick" else "mainline",
                               self.plt(v, c, h), testbed="precise", ext_ns=ns(e), workload_seed=True)

    def lt_alt_precise(self, v):
        c, h = v.main_clients, v.main_hogs
        for x in v.precise_alternatives:
            yield Point(f"lt-c{c}-h{h}-alt-{x}-precise", "locktable", "precise", self.plt(v, c, h), alternative=x,
                        knobs=dict(ext_ns=50000, rt_policy=NDR), workload_seed=True)

    def lt_hogs_precise(self, v):
        """The hog sweep, off against mainline, at its ends (the parallel
        testbed runs every point between)."""
        c = v.main_clients
        for h in ends(v.hogs[1:]):
            for a in among(["off", "mainline"], v.abis):
                yield self.ltp(f"lt-c{c}-h{h}-{a}-50us-precise", v, a, self.plt(v, c, h), testbed="precise",
                               workload_seed=True)

    def gt_precise(self, v):
        c, h = v.main_clients, v.main_hogs
        for e in numeric(v.ext_us):
            yield Point(f"gt-c{c}-h{h}-mainline-{e}us-precise", "grant-trace", "precise", self.plt(v, c, h),
                        arm="mainline", knobs=dict(ext_ns=e * 1000, rt_policy=NDR), repeats=1, workload_seed=True)

    def lt_work_in_precise(self, v):
        """Does a 5 us extension (upstream's default) cover a hold of the main
        point's length, and from which hold length on does it not? Mainline
        at 5 and at 50 us for each work under the lock."""
        c, h = v.main_clients, v.main_hogs
        for w in v.work_in_us[1:]:
            for e in [5, 50]:
                yield self.ltp(f"lt-c{c}-h{h}-w{w}us-mainline-{e}us-precise", v, "mainline",
                               self.plt(v, c, h, work_in=w), testbed="precise", ext_ns=e * 1000, workload_seed=True)

    def ct(self, v):
        """An RT task's wakeup latency at microsecond resolution: cyclictest
        (one SCHED_FIFO thread, 200 us period) for precise_duration inside the
        main point's load, from 0.5 s into the load's measured window to 1.5 s
        before it ends (experiments/latency-window-prediction.md)."""
        c, h = v.main_clients, v.main_hogs
        for a in ["off", "never-delay-rt", "bounded"]:
            yield Point(f"ct-{'off' if a == 'off' else 'mainline-' + a}-precise", "cyclictest", "precise",
                        dict(priority=90, threads=1, interval_us=200, duration=v.precise_duration, histogram_us=2000,
                             clients=c, hogs=h, work_in_us=v.main_work_in, load_duration=v.precise_duration + 2,
                             warmup=0),
                        workload_seed=True,
                        knobs=dict(abi="mainline", grant=0 if a == "off" else 1, ext_ns=50000,
                                   rt_policy=NDR if a == "off" else a))

    def lc_precise(self, v):
        """The fast path in guest instructions (1 ns = 2^shift instructions)."""
        for a in ["none", "rseq-cr", "task-shared", "mainline"]:
            yield Point(f"lc-{a}-precise", "lock-cost", "precise", dict(rounds=5, pairs=200000), arm=a, repeats=1,
                        knobs=dict(ext_ns=None if a == "none" else 50000, rt_policy=NDR))

    def sbl_precise(self, v):
        for m in ["pthread", "spin"]:
            yield Point(f"sbl-{m}-precise", "swingbench-lite", "precise", self.psb(v, m), arm="none",
                        knobs=dict(rt_policy=NDR), workload_seed=True)

    def sbl_alt_precise(self, v):
        if v.alternatives:
            for m in ["adaptive", "futex"]:
                yield Point(f"sbl-{m}-precise", "swingbench-lite", "precise", self.psb(v, m), arm="none",
                            knobs=dict(rt_policy=NDR), workload_seed=True)

    def sbl_alt_ext_precise(self, v):
        if v.alternatives and "mainline" in v.abis:
            yield Point("sbl-futex-ext-mainline-precise", "swingbench-lite", "precise", self.psb(v, "futex-ext"),
                        arm="mainline", knobs=dict(ext_ns=50000, rt_policy=NDR), workload_seed=True)

    def sbl_ext_precise(self, v):
        for a in v.abis:
            yield Point(f"sbl-spin-ext-{a}-precise", "swingbench-lite", "precise", self.psb(v, "spin-ext"), arm=a,
                        knobs=dict(ext_ns=50000, rt_policy=NDR), workload_seed=True)

    def uc_fresh(self, v):
        """unused-cost in fresh boots, after the sweep: the stock kernel and
        the patched one with grants off, alternating, so that neither side
        inherits a guest that has just run the sweep and boot-to-boot spread
        shows. Which kernel boots first rotates with the repeat. (The sweep's
        own uc-patched-grants-off run stays beside them.)"""
        for r in range(1, v.fresh_boots + 1):
            for k in rotate(["stock", "patched-boot"], r):
                yield Point(f"uc-{k}-r{r}", "unused-cost", "parallel", dict(rounds=15), boot="fresh", repeat=r,
                            arm="stock" if k == "stock" else "grants-off")


EXPERIMENT = Default
