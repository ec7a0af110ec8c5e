"""An RT task's wakeup latency inside the lock table's load: the project's
probe (parallel testbed) and cyclictest (precise testbed)."""

from slicebench.bench import Bench, opts

LOAD = ("clients", "hogs", "work_in_us", "load_duration", "warmup")


def load_args(p):
    return opts([("--clients", p["clients"]), ("--hogs", p["hogs"]), ("--work-in", p["work_in_us"]),
                 ("--duration", p["load_duration"]), ("--warmup", p["warmup"]),
                 ("--interval", p.get("interval")), ("--seed", p.get("seed"))])


class LatencyProbe(Bench):
    """latency-probe around a locktable load, its --delay counted from the
    load's measured window (bench/latency-probe/latency-run)."""
    name = "latency"
    group = "latency"
    program = "latency-probe"
    required = ("duration", "delay") + LOAD
    defaults = {"interval": 0, "seed": None, "lock": "tas"}
    setup = ("LOCKTABLE_UNITS_PER_US", ["locktable", "--calibrate"])

    def args(self, p, testbed):
        return opts([("--duration", p["duration"]), ("--delay", p["delay"])]) + ["--"] + load_args(p)

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else p["load_duration"] * 2 + 15

    def command(self, run, args):
        return ["latency-run", "probe", run.knobs["abi"], f"{run.id}.json.tmp", f"/tmp/{run.id}.ready",
                f"{run.id}.load.txt"] + list(args)


class Cyclictest(LatencyProbe):
    """cyclictest (rt-tests) started 0.5 s into a locktable load's measured
    window, which outlasts it (bench/latency-probe/latency-run)."""
    name = "cyclictest"
    program = "cyclictest"
    required = ("priority", "threads", "interval_us", "duration", "histogram_us") + LOAD
    defaults = {"interval": None, "seed": None, "lock": "tas"}

    def args(self, p, testbed):
        return (["-m", "-p", str(p["priority"]), "-t", str(p["threads"]), "-i", str(p["interval_us"]), "-q",
                 "-D", str(p["duration"]), "-h", str(p["histogram_us"]), "--"] + load_args(p))

    def estimate_s(self, p, testbed):
        return p["load_duration"] + 2 if testbed == "precise" else 60

    def command(self, run, args):
        return ["latency-run", "cyclictest", run.knobs["abi"], f"{run.id}.json.tmp", f"/tmp/{run.id}.ready",
                f"{run.id}.load.txt"] + list(args)


BENCHES = [LatencyProbe, Cyclictest]
