"""PostgreSQL 15 with extension-aware spinlocks under pgbench (pg-run)."""

from slicebench.bench import Bench, opts


class Postgres(Bench):
    name = "postgres"
    program = "pg-run"
    required = ("scale", "mode", "clients", "hogs", "warmup", "duration")
    defaults = {"huge_pages": False}
    echoes_knobs = True
    echoes = {"config.clients": "clients", "config.hogs": "hogs", "config.mode": "mode",
              "config.huge_pages": "huge_pages"}

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

    def host_steps(self, runs, results):
        # The server, its image and the databases the runs read, made on the
        # host with the same binaries (cached).
        steps = [(None, "building PostgreSQL and its guest image (cached; about 7 minutes the first time)",
                  ["make", "--no-print-directory", "postgres-image"])]
        for s in sorted({r.params["scale"] for r in runs}):
            steps.append((None, f"the pgbench database at scale {s} (cached)", ["bench/postgres/make-data", str(s)]))
        return steps

    def vm_args(self, runs):
        # The image with the server, and the databases' folder (read-only,
        # /data).
        return ["--initrd", "build/initramfs-postgres.cpio.gz", "--data", "build/postgres/data"]


BENCHES = [Postgres]
