"""The testbed's timer resolution: how late a 50 us sleep wakes."""

from slicebench.bench import Bench, opts


class SleepOvershoot(Bench):
    name = "sleep-overshoot"
    program = "sleep-overshoot"
    required = ("count", "sleep_us")
    always = True

    def args(self, p, testbed):
        return opts([("--count", p["count"]), ("--sleep-us", p["sleep_us"])])

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else 5

    def command(self, run, args):
        return [self.program] + list(args) + ["--json", f"{run.id}.json.tmp"]


BENCHES = [SleepOvershoot]
