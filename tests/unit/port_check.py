#!/usr/bin/python3
"""The Python experiments against the TOML planner they replace, row for
row: python3 tests/unit/port_check.py [CASE...] (CASE: 'preset ARGS')."""
import os
import shlex
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP)
from slicebench import experiment as ex  # noqa: E402

COLS = ["id", "repeat", "order", "bench", "testbed", "kernel", "boot", "abi", "grant", "ext_ns", "rt_policy",
        "clients", "hogs", "hog_policy", "work_in_ns", "lock", "mutex", "profile", "extend_waiting", "limit_s",
        "argv"]
LT = {"locktable", "grant-trace", "latency", "cyclictest"}


def cell(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def legacy(r):
    p = r.params
    row = dict(id=r.id, repeat=r.repeat, order=r.order, bench=r.bench, testbed=r.testbed, kernel=r.kernel,
               boot=r.boot, limit_s=r.limit_s, argv=" ".join(r.args), **r.knobs)
    row["clients"] = p.get("clients")
    row["hogs"] = p.get("hogs")
    if r.bench in LT:
        row["work_in_ns"] = int(p["work_in_us"] * 1000 + 0.5)
        row["hog_policy"] = p.get("hog_policy", "other")
    row["lock"] = p.get("lock") if r.bench != "hyperfine" else p.get("loop")
    row["mutex"] = p.get("mutex")
    if r.bench == "swingbench-lite":
        row["profile"] = p["profile"]
    if r.bench == "unused-cost":
        row["profile"] = "v2-rseq" if p.get("rseq_v2") else "opted-in" if p.get("opt_in") else None
    if r.bench == "postgres":
        row["profile"] = p["mode"]
        row["mutex"] = "huge-pages" if p["huge_pages"] else "4k-pages"
        row["clients"], row["hogs"] = p["clients"], p["hogs"]
    if r.bench == "extend-sched":
        row["extend_waiting"] = int(p["waiting"])
    return {k: cell(row.get(k)) for k in COLS}


def old_plan(toml, args):
    out = subprocess.run([os.path.join(TOP, "experiments", "plan"), "--experiments", toml] + args,
                         capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr.strip()
    lines = [ln for ln in out.stdout.splitlines() if not ln.startswith("#")]
    return [dict(zip(COLS, ln.split("\t"))) for ln in lines[1:]], None


def new_plan(name, args, named):
    e = ex.load(name)
    raw, seed, vcpus = {}, None, 2
    i = 0
    while i < len(args):
        k, val = args[i], args[i + 1]
        if k == "--seed":
            seed = int(val)
        elif k == "--vcpus":
            vcpus = int(val)
        else:
            raw[k[2:].replace("-", "_")] = val
        i += 2
    try:
        v = e.resolve(ex.parse_given(e, raw), vcpus)
        return ex.plan(e, v, seed, named), None
    except ex.PlanError as err:
        return None, str(err)


def compare(name, toml, args):
    named = "--benchmarks" in args
    old, oerr = old_plan(toml, args)
    new, nerr = new_plan(name, args, named)
    if old is None or new is None:
        same = (oerr or "").replace("run-all: ", "") == (nerr or "")
        return same, [f"errors: old {oerr!r} new {nerr!r}"] if not same else []
    problems = []
    if len(old) != len(new):
        problems.append(f"{len(old)} rows before, {len(new)} now")
    for o, n in zip(old, map(legacy, new)):
        for c in COLS:
            if o[c] == "-" and c not in ("abi", "grant", "ext_ns", "rt_policy", "kernel", "boot"):
                continue
            if o[c] != n[c]:
                problems.append(f"{o['id']}: {c}: {o[c]!r} before, {n[c]!r} now")
    return not problems, problems


CASES = [
    ("default", "--seed 5"), ("default", "--seed 6"), ("quick", "--seed 7"), ("smoke", "--seed 8"),
    ("default", "--seed 1 --benchmarks latency --testbeds parallel"),
    ("default", "--seed 1 --ext-us 20 --abis mainline,rseq-cr --benchmarks locktable"),
    ("default", "--seed 1 --testbeds parallel"), ("default", "--seed 1 --testbeds precise --precise-repeats 3"),
    ("default", "--seed 1 --alternatives futex,pthread"), ("default", "--seed 1 --alternatives none"),
    ("quick", "--seed 2 --clients 100,50 --hogs 0,10,40 --repeats 2 --duration 3"),
    ("default", "--seed 3 --clients 50,20 --hogs 8,0,4 --sweep-abis off,task-shared --ext-us 10,tick,40 "
                "--work-in-us 3,9,15 --sbl-clients 40"),
    ("default", "--seed 4 --abis off,rseq-cr --sweep-alternatives futex-ext --precise-alternatives yield"),
    ("smoke", "--seed 9 --benchmarks locktable,extend-sched,swingbench-lite,latency,lock-cost,unused-cost"),
    ("quick", "--seed 10 --alternatives hogs-nice19,yield-ext,adaptive --precise-alternatives adaptive"),
    ("default", "--seed 11 --abis off,rseq-cr,task-shared --precise-repeats 1"),
    ("default", "--seed 1 --clients 0"), ("default", "--seed 1 --abis foo"),
    ("default", "--seed 1 --sweep-alternatives futex --alternatives hogs-idle"),
    ("unused-cost", "--seed 1"), ("unused-cost", "--seed 2 --boots 3"),
    ("oltp-map", "--seed 1"), ("oltp-map", "--seed 2 --vcpus 4 --sessions 4,8 --profiles giant-lock"),
    ("oltp-map-k1", "--seed 3"),
    ("postgres", "--seed 1"), ("postgres", "--seed 2 --modes simple-update --clients-per-vcpu 16 --repeats 3"),
    ("postgres", "--seed 3 --vcpus 4 --scale 8"),
]


def main(argv):
    cases = CASES if len(argv) < 2 else [(a.split()[0], " ".join(a.split()[1:])) for a in argv[1:]]
    bad = 0
    for name, args in cases:
        toml = os.path.join(TOP, "experiments", name + ".toml")
        if not os.path.exists(os.path.join(TOP, "experiments", name.replace("-", "_") + ".py")):
            print(f"SKIP {name} {args}: not ported")
            continue
        ok, problems = compare(name, toml, shlex.split(args))
        print(f"{'ok  ' if ok else 'FAIL'} {name} {args}")
        for p in problems[:15]:
            print("     " + p)
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
