"""tools/plan-query COMMAND PLAN ... (or python3 -m slicebench): what run-all asks of a plan
(results/NAME/plan.jsonl), so that run-all reads no plan format itself.

  runs PLAN [--boot sweep|fresh] [--testbed T] [--share K/N] [--field F]
      a field (default id) of each selected run, one per line; --share K/N:
      the sweep runs boot K of N runs (repeat r in boot (r - 1) mod N + 1)
  boot-file PLAN (--testbed T --share K/N | --id ID)
      the flat file a guest boot runs (guest-image/sweep-runner)
  host-steps PLAN RESULTS
      what the host does before the boots, for the plan's benchmarks: lines
      "CREATES<TAB>MESSAGE<TAB>COMMAND" (CREATES: a file in RESULTS that
      makes the step done, or '-'; COMMAND: words)
  vm-args PLAN
      what every guest of the plan needs from vm-run, one argument a line
"""

import os
import sys

from . import bench as benchmod
from .run import RunError, boot_file, boot_runs, read_plan


def options(args, known):
    out = {}
    i = 0
    while i < len(args):
        if args[i] not in known or i + 1 >= len(args):
            raise RunError(f"unknown option or missing value: '{args[i]}'")
        out[args[i][2:]] = args[i + 1]
        i += 2
    return out


def share(text):
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise RunError(f"--share wants K/N, not '{text}'") from None
    return k, n


def selected(runs, o):
    if "share" in o:
        k, n = share(o["share"])
        runs = boot_runs(runs, o.get("testbed") or "parallel", k, n)
    if "boot" in o:
        runs = [r for r in runs if r.boot == o["boot"]]
    if "testbed" in o:
        runs = [r for r in runs if r.testbed == o["testbed"]]
    return runs


def setup_of(runs):
    benches = benchmod.load_all()
    out = []
    for r in runs:
        s = benches[r.bench].setup
        if s and s not in out:
            out.append(s)
    return out


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    cmd, plan = argv[1], argv[2]
    _, runs = read_plan(plan)
    if cmd == "runs":
        o = options(argv[3:], {"--boot", "--testbed", "--share", "--field"})
        field = o.get("field", "id")
        for r in selected(runs, o):
            v = getattr(r, field) if hasattr(r, field) else r.params.get(field)
            print("-" if v is None else v)
    elif cmd == "boot-file":
        o = options(argv[3:], {"--testbed", "--share", "--id"})
        if "id" in o:
            sel = [r for r in runs if r.id == o["id"]]
            if not sel:
                raise RunError(f"{plan}: no run '{o['id']}'")
        elif "testbed" in o and "share" in o:
            sel = selected([r for r in runs if r.boot == "sweep"], o)
        else:
            raise RunError("boot-file wants --testbed T --share K/N, or --id ID")
        sys.stdout.write(boot_file(sel, setup_of(sel)))
    elif cmd == "host-steps":
        if len(argv) != 4:
            raise RunError("host-steps PLAN RESULTS")
        results = argv[3]
        benches = benchmod.load_all()
        lines = []
        for name in sorted({r.bench for r in runs}):
            for creates, message, words in benches[name].host_steps([r for r in runs if r.bench == name],
                                                                    results):
                line = "\t".join([creates or "-", message, " ".join(words)])
                if line not in lines:
                    lines.append(line)
        for line in lines:
            print(line)
    elif cmd == "vm-args":
        benches = benchmod.load_all()
        seen = []
        for name in sorted({r.bench for r in runs}):
            args = benches[name].vm_args([r for r in runs if r.bench == name])
            if args and " ".join(args) not in " ".join(seen):
                seen += args
        for a in seen:
            print(a)
    else:
        raise RunError(f"unknown command '{cmd}'")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        sys.exit(main(sys.argv))
    except RunError as e:
        print(f"slicebench: {e}", file=sys.stderr)
        sys.exit(2)
