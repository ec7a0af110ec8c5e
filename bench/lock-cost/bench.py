"""The fast path's cost: lock-cost's loop, and the same loop timed from
outside by hyperfine."""

import os

from slicebench.bench import Bench, opts


class LockCost(Bench):
    name = "lock-cost"
    program = "lock-cost"
    required = ("rounds",)
    defaults = {"pairs": None, "loop": None}

    def args(self, p, testbed):
        return opts([("--loop", p.get("loop")), ("--rounds", p["rounds"]), ("--pairs", p.get("pairs"))])

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else 20

    def host_steps(self, runs, results):
        # The same loop natively, so the report can say how much slower the
        # guest is.
        return [("host-lock-cost.json", "lock-cost on the host, for the guest's speed against native",
                 ["build/bin/lock-cost", "--abi", "none", "--rounds", "11", "--json",
                  os.path.join(results, "host-lock-cost.json")])]


class Hyperfine(LockCost):
    """Whole lock-cost runs timed by hyperfine, once per ABI
    (bench/lock-cost/hyperfine-abis)."""
    name = "hyperfine"
    group = "lock-cost"

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else 30

    def command(self, run, args):
        return ["hyperfine-abis", f"{run.id}.json.tmp", f"{run.id}.md"] + list(args)


BENCHES = [LockCost, Hyperfine]
