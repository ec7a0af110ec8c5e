"""What the series costs tasks that never ask."""

from slicebench.bench import Bench, opts


class UnusedCost(Bench):
    name = "unused-cost"
    program = "unused-cost"
    required = ("rounds",)
    # registration: the threads' rseq registration: glibc's (None), their
    # own RSEQ V2 one ("v2-rseq"), or opted in to an ABI ("opted-in").
    defaults = {"syscalls": None, "yields": None, "switches": None, "preempt_ms": None, "opt_in": None,
                "rseq_v2": False}

    def args(self, p, testbed):
        return opts([("--rounds", p["rounds"]), ("--syscalls", p.get("syscalls")), ("--yields", p.get("yields")),
                     ("--switches", p.get("switches")), ("--preempt-ms", p.get("preempt_ms")),
                     ("--opt-in", p.get("opt_in")), ("--rseq-v2", p.get("rseq_v2"))])

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else 20

    def command(self, run, args):
        return [self.program] + list(args) + ["--json", f"{run.id}.json.tmp"]


BENCHES = [UnusedCost]
