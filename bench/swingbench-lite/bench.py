"""swingbench-lite: Swingbench's Order Entry on SQLite (or PostgreSQL),
with extension-aware latches."""

from slicebench.bench import Bench, opts


class SwingbenchLite(Bench):
    name = "swingbench-lite"
    program = "swingbench-lite"
    required = ("clients", "scale", "duration", "warmup", "interval", "mutex")
    defaults = {"profile": "giant-lock", "spin_us": 20, "shards": None, "seed": None}
    echoes_knobs = True

    def args(self, p, testbed):
        return opts([("--clients", p["clients"]), ("--scale", p["scale"]), ("--duration", p["duration"]),
                     ("--warmup", p["warmup"]), ("--interval", p["interval"]), ("--profile", p.get("profile")),
                     ("--mutex", p["mutex"]), ("--spin-us", p.get("spin_us")), ("--shards", p.get("shards")),
                     ("--seed", p.get("seed"))])

    def estimate_s(self, p, testbed):
        if testbed == "precise":
            # Mostly idle waiting on its clients: about 10 s of host time.
            return 0
        # Load, then connecting the clients one after the other (about 25 s
        # for 1000 clients at scale 1 under TCG).
        return p["duration"] + int(p["warmup"] + 0.999) + 5 + p["clients"] // 40


BENCHES = [SwingbenchLite]
