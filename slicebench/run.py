"""The run record: one planned run, defined once, from planner to report.

A run is what the planner makes, what run-all boots, what the guest runs
and what the report selects and labels. It carries the run's identity and
place in the sweep (id, repeat, order, boot, testbed), the kernel it boots
and the kernel's knobs it sets, the arm (and alternative) the experiment
named it by, its time budget, and the benchmark's own parameters (params:
a plain dict, the benchmark's to define; bench/NAME/bench.py).

The planner writes one run per line as JSON (plan.jsonl); run-all writes
each guest boot's runs as a flat file the guest's shell reads (boot_file):
no filtering and no adapters in the guest. Results echo the record.
"""

import dataclasses
import json

# The kernel knobs a run sets before it starts (sysctl kernel.slice_ext_*);
# None leaves a knob as the boot left it. abi "none" leaves the ABI knob
# alone too: the program then asks through no ABI at all.
KNOBS = ("abi", "grant", "ext_ns", "rt_policy")
TESTBEDS = ("parallel", "precise")
BOOTS = ("sweep", "fresh")


class RunError(ValueError):
    pass


@dataclasses.dataclass
class Run:
    id: str                 # unique in its plan; a sweep run's ends in -rREPEAT
    repeat: int             # 1.. (a fresh boot: its place in the boot sequence)
    order: int              # its place in the plan, from 1
    boot: str               # "sweep" (a testbed's shared boots) or "fresh" (a boot of its own)
    testbed: str            # "parallel" or "precise"
    kernel: str             # which kernel the run boots: "patched", "stock", ...
    bench: str              # the benchmark (bench/*/bench.py declares it)
    benchmark: str          # the --benchmarks group that selects it
    arm: str | None         # the arm's declared name (the experiment's arms)
    alternative: str | None  # what users would do instead, when the run is one
    knobs: dict             # KNOBS -> value or None
    params: dict            # the benchmark's own parameters, its defaults filled in
    command: list           # the guest's whole command (words), built by the bench
    limit_s: int            # past this the run is killed and fails
    est_s: int              # what it should take (wall seconds; the estimates)
    experiment: str = ""    # the experiment block that made it

    @property
    def point(self):
        """The id without its repeat: the point a sweep run repeats."""
        if self.boot == "sweep" and self.id.endswith(f"-r{self.repeat}"):
            return self.id[: -len(f"-r{self.repeat}")]
        return self.id

    @property
    def label(self):
        """The name the report shows: the alternative's, else the arm's."""
        return self.alternative or self.arm or "-"

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), sort_keys=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d, where="run"):
        names = {f.name for f in dataclasses.fields(cls)}
        missing = [f.name for f in dataclasses.fields(cls)
                   if f.name not in d and f.default is dataclasses.MISSING]
        if missing:
            raise RunError(f"{where}: no {', '.join(missing)}")
        extra = sorted(set(d) - names)
        if extra:
            raise RunError(f"{where}: unknown field(s) {', '.join(extra)}")
        run = cls(**d)
        run.check(where)
        return run

    def check(self, where="run"):
        for k in ("repeat", "order", "limit_s", "est_s"):
            v = getattr(self, k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise RunError(f"{where}: {k} is not a whole number: {v!r}")
        if self.testbed not in TESTBEDS:
            raise RunError(f"{where}: testbed '{self.testbed}' (not {' or '.join(TESTBEDS)})")
        if self.boot not in BOOTS:
            raise RunError(f"{where}: boot '{self.boot}' (not {' or '.join(BOOTS)})")
        if set(self.knobs) != set(KNOBS):
            raise RunError(f"{where}: knobs {sorted(self.knobs)} (want {', '.join(KNOBS)})")
        if not isinstance(self.params, dict):
            raise RunError(f"{where}: params is not a table")
        if not isinstance(self.command, list) or not self.command:
            raise RunError(f"{where}: no command")
        for k in ("id", "kernel", "bench"):
            v = getattr(self, k)
            if not isinstance(v, str) or not v or any(c in v for c in "\t\n /"):
                raise RunError(f"{where}: {k} '{v}' is empty or holds a space, tab, newline or '/'")


def write_plan(runs, path, header):
    """The plan: a header line (JSON: seed, the main point, ...), then one
    run per line."""
    with open(path, "w") as f:
        f.write(json.dumps({"slicebench_plan": 2, **header}, separators=(",", ":")) + "\n")
        for r in runs:
            f.write(r.to_json() + "\n")


def read_plan(path):
    """(header, runs) from a plan written by write_plan."""
    runs = []
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines:
        raise RunError(f"{path}: empty")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as e:
        raise RunError(f"{path}:1: not JSON: {e}") from None
    if not isinstance(header, dict) or header.get("slicebench_plan") != 2:
        raise RunError(f"{path}:1: not a slicebench plan header")
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise RunError(f"{path}:{n}: not JSON: {e}") from None
        runs.append(Run.from_dict(d, f"{path}:{n}"))
    ids = set()
    for r in runs:
        if r.id in ids:
            raise RunError(f"{path}: the run id '{r.id}' appears twice")
        ids.add(r.id)
    return header, runs


def boot_runs(runs, testbed, k, n):
    """The sweep runs boot K of N of TESTBED runs: repeat r runs in boot
    (r - 1) mod N + 1, so each point's repeats spread over the boots and the
    report can tell the spread between boots from the spread within one."""
    if not 1 <= k <= n:
        raise RunError(f"boot {k} of {n}")
    return [r for r in runs if r.boot == "sweep" and r.testbed == testbed and (r.repeat - 1) % n == k - 1]


def boot_file(runs, setup=()):
    """The flat file one guest boot runs (guest-image/sweep-runner): lines
    "setup VAR CMD..." (run once before the runs; the command's output
    becomes VAR in their environment), then per run
    "run ID LIMIT_S ABI GRANT EXT_NS RT_POLICY CMD...", a knob '-' left
    alone. Every field is one shell word; CMD is the run's whole command,
    run in the results folder's raw/."""
    lines = ["# slicebench boot file: setup VAR CMD... | run ID LIMIT ABI GRANT EXT_NS RT_POLICY CMD..."]
    for var, cmd in setup:
        lines.append(" ".join(["setup", var] + [_word(w) for w in cmd]))
    for r in runs:
        knobs = ["-" if r.knobs[k] is None else str(r.knobs[k]) for k in KNOBS]
        lines.append(" ".join(["run", r.id, str(r.limit_s)] + [_word(w) for w in knobs + r.command]))
    return "\n".join(lines) + "\n"


def _word(w):
    w = str(w)
    if not w or any(c.isspace() for c in w) or any(c in w for c in "'\"\\$`*?[]{}();&|<>#~"):
        raise RunError(f"'{w}' is not a plain shell word (the guest's runner splits on blanks)")
    return w
