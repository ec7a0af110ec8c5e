"""PostgreSQL 15 with extension-aware spinlocks under pgbench (pg-run)."""

from slicebench.bench import Bench, opts


class Postgres(Bench):
    name = "postgres"
    program = "pg-run"
    required = ("scale", "mode", "clients", "hogs", "warmup", "duration")
    defaults = {"huge_pages": False}

    def args(self, p, testbed):
        return opts([("--data", f"/data/s{p['scale']}"), ("--mode", p["mode"]), ("--clients", p["clients"]),
                     ("--hogs", p["hogs"]), ("--warmup", p["warmup"]), ("--huge-pages", p.get("huge_pages")),
                     ("--duration", p["duration"])])

    def estimate_s(self, p, testbed):
        return 1 if testbed == "precise" else 60

    def command(self, run, args):
        # Its work folder goes afterwards: a tmpfs holds two databases at most.
        return ["pg-run-once", f"/tmp/pg-{run.id}"] + list(args) + ["--abi", run.knobs["abi"],
                                                                     "--json", f"{run.id}.json.tmp"]

    def host_needs(self, runs):
        scales = sorted({r.params["scale"] for r in runs if r.bench == self.name})
        return [f"postgres-data-s{s}" for s in scales]


BENCHES = [Postgres]
