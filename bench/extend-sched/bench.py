"""Rostedt's extend-sched micro-benchmark."""

from slicebench.bench import Bench, opts


class ExtendSched(Bench):
    name = "extend-sched"
    program = "extend-sched"
    required = ("duration",)
    defaults = {"waiting": False}
    echoes_knobs = True

    def args(self, p, testbed):
        return opts([("--duration", p["duration"]), ("-w", p.get("waiting"))])

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else p["duration"] + 2


BENCHES = [ExtendSched]
