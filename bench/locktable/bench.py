"""The lock table (Oracle's lock-table test), and its grant trace."""

from slicebench.bench import Bench, opts


class LockTable(Bench):
    name = "locktable"
    program = "locktable"
    required = ("clients", "hogs", "work_in_us", "duration", "warmup", "interval")
    defaults = {"lock": "tas", "hog_policy": "other", "seed": None}
    echoes_knobs = True
    echoes = {"config.clients": "clients", "config.hogs": "hogs", "config.work_in_us": "work_in_us",
              "config.lock": "lock", "config.hog_policy": "hog_policy"}
    # The lock table's work speed, measured once per boot and given to every
    # lock-table run of the boot, so that every arm does the same work under
    # its locks (a run that calibrates itself times about 0.5 ms of work,
    # and under TCG the host can keep the vCPU off its CPU for all of it).
    setup = ("LOCKTABLE_UNITS_PER_US", ["locktable", "--calibrate"])

    def args(self, p, testbed):
        return opts([("--clients", p["clients"]), ("--hogs", p["hogs"]), ("--work-in", p["work_in_us"]),
                     ("--duration", p["duration"]), ("--warmup", p["warmup"]), ("--interval", p["interval"]),
                     ("--hog-policy", p.get("hog_policy")), ("--lock", p.get("lock")), ("--seed", p.get("seed"))])

    def estimate_s(self, p, testbed):
        settle = 1 if testbed == "precise" else 2
        return p["duration"] + int(p["warmup"] + 0.999) + settle


class GrantTrace(LockTable):
    """A lock-table run with the slice_ext end tracepoints on: the events
    go to ID.trace (bench/locktable/grant-trace)."""
    name = "grant-trace"
    group = "locktable"

    def command(self, run, args):
        return ["grant-trace", f"{run.id}.trace", "--"] + super().command(run, args)


BENCHES = [LockTable, GrantTrace]
