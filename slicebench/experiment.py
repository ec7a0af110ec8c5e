"""Experiments as Python: what run-all runs, declared as data plus plain code.

An experiment is a subclass of Experiment in experiments/NAME.py:

- axes: the command-line options (--clients, --hogs, ...), each with its
  default, its type and a help line (run-all --help lists them);
- arms: what an arm's name stands for (kernel knobs, the kernel booted,
  parameters); alternatives: what users would do instead (an arm and the
  benchmark's parameters that make it);
- derive(v): the values the blocks share (the main point, ...);
- blocks: the names of its methods that make points, in the plan's order;
  each yields Points in plain Python, from the resolved values v.

A preset imports a base and overrides (kselftest's FIXTURE_VARIANT tables
and ReFrame's parameter() are the shape): its own axis defaults
(Axes.replace), its own blocks list, a method or two.

plan() turns an experiment and the command line's values into runs
(slicebench.run.Run): each point once per repeat, each repeat's runs in a
seeded random order, the fresh boots after the sweep.
"""

import dataclasses
import re
import textwrap
import types

from . import bench as benchmod
from .run import KNOBS, Run, RunError

# What a precise run costs in wall seconds per virtual second (README: the
# precise testbed).
PRECISE_WALL_PER_S = 30


class PlanError(RunError):
    pass


# ---- the axes ---------------------------------------------------------------------

@dataclasses.dataclass
class Axis:
    """One command-line option: --NAME (with '-' for '_').

    kind: "count" (a positive number), "counts" (a list of numbers),
    "lengths" (numbers or tick), "names" (from choices). default: a value,
    or a function of the values (called once the command line's are in).
    none: "none" on the command line is the empty list."""
    name: str
    default: object
    help: str
    kind: str = "counts"
    choices: tuple = ()
    noun: str = "value"
    none: bool = False
    min: int = 0
    max: int | None = None
    subset_of: str | None = None

    @property
    def option(self):
        return "--" + self.name.replace("_", "-")

    def parse(self, raw):
        """A command-line value, checked."""
        opt = self.option
        if self.kind == "count":
            if not re.fullmatch(r"[1-9][0-9]*", raw):
                raise PlanError(f"{opt}: not a positive number: '{raw}'")
            return int(raw)
        if not re.fullmatch(r"[A-Za-z0-9-]+(,[A-Za-z0-9-]+)*", raw):
            raise PlanError(f"{opt}: not a comma-separated list: '{raw}'")
        items = raw.split(",")
        if self.kind == "names":
            if self.none and items == ["none"]:
                return []
            return items
        out = []
        for x in items:
            if self.kind == "lengths" and x == "tick":
                out.append(x)
                continue
            if not re.fullmatch(r"[0-9]+", x) or int(x) < self.min or (self.max is not None and int(x) > self.max):
                if self.kind == "lengths":
                    raise PlanError(f"{opt}: '{x}' is not 1-1000 or tick")
                if self.max is not None:
                    raise PlanError(f"{opt}: '{x}' is not {self.min}-{self.max}")
                raise PlanError(f"{opt}: '{x}' is not a {'positive ' if self.min else ''}count")
            out.append(int(x))
        return out

    def check(self, v, values):
        if self.choices:
            for x in v:
                if x not in self.choices:
                    alts = ", ".join(self.choices) + (", or none" if self.none else "")
                    # The alternatives' sub-lists name the option of the list.
                    o = "--alternatives" if self.noun == "alternative" else self.option
                    raise PlanError(f"{o}: unknown {self.noun} '{x}' ({alts})")
        if self.subset_of:
            sup = getattr(values, self.subset_of)
            for x in v:
                if x not in sup:
                    raise PlanError(f"{self.option}: '{x}' is not one of --{self.subset_of.replace('_', '-')}")


def Count(name, default, help, **kw):
    return Axis(name, default, help, kind="count", **kw)


def Counts(name, default, help, **kw):
    return Axis(name, default, help, kind="counts", **kw)


def Lengths(name, default, help, **kw):
    return Axis(name, default, help, kind="lengths", **kw)


def Names(name, default, help, choices, noun, **kw):
    return Axis(name, default, help, kind="names", choices=tuple(choices), noun=noun, **kw)


class Axes(list):
    """The axes in option order; replace() gives a copy with other defaults."""

    def replace(self, **defaults):
        known = {a.name for a in self}
        bad = sorted(set(defaults) - known)
        if bad:
            raise PlanError(f"replace: no axis {', '.join(bad)}")
        return Axes(dataclasses.replace(a, default=defaults[a.name]) if a.name in defaults else a for a in self)

    def __getitem__(self, key):
        if isinstance(key, str):
            for a in self:
                if a.name == key:
                    return a
            raise KeyError(key)
        return super().__getitem__(key)


def among(xs, ys):
    """The xs that are in ys, in xs's order."""
    return [x for x in xs if x in ys]


def numeric(xs):
    """The lengths without tick."""
    return [x for x in xs if x != "tick"]


def ends(xs):
    """The smallest and the largest (one value when they are equal)."""
    return sorted({min(xs), max(xs)}) if xs else []


def ns(us):
    """A length in ns; tick is 1 ms."""
    return 1000000 if us == "tick" else us * 1000


def rotate(xs, r):
    """xs started at its ((r - 1) mod len)-th item: boot r of a sequence of
    fresh boots starts with another arm each time."""
    k = (r - 1) % len(xs)
    return xs[k:] + xs[:k]


# ---- arms and points --------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Arm:
    """What an arm's name stands for: kernel knobs (None: leave alone), the
    kernel it boots, parameters it adds."""
    abi: str | None = None
    grant: int | None = None
    ext_ns: int | None = None
    rt_policy: str | None = None
    kernel: str | None = None
    params: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Alternative:
    """What users would do instead: the arm it runs with and the
    benchmark's parameters that make it."""
    arm: str
    params: dict


@dataclasses.dataclass
class Point:
    """One point of an experiment; the planner repeats it."""
    id: str
    bench: str
    testbed: str
    params: dict
    benchmark: str | None = None      # the --benchmarks group (default: the bench's)
    arm: str | None = None
    alternative: str | None = None
    knobs: dict = dataclasses.field(default_factory=dict)   # over the arm's
    kernel: str | None = None
    boot: str = "sweep"
    repeats: int | None = None        # default: the testbed's repeats
    repeat: int = 1                   # a fresh boot's place in its sequence
    workload_seed: bool = False       # precise: repeat r gets seed r
    only_if_named: bool = False       # only when --benchmarks names it
    limit_s: int | None = None
    est_s: int | None = None


class Experiment:
    name = "experiment"
    description = ""
    axes = Axes()
    arms = {}
    alternatives = {}
    blocks = []
    report_spec = None      # report/specs/NAME.toml: a name there, or a path (default: the experiment's name)

    def derive(self, v):
        """Set the values the blocks share on v."""

    @property
    def spec_name(self):
        return self.report_spec or self.name

    def header(self, v):
        """The plan header's main point (report: the sections' @main_...)."""
        h = {}
        for k in ("main_clients", "main_hogs"):
            if hasattr(v, k):
                h[k] = getattr(v, k)
        if hasattr(v, "main_work_in"):
            h["main_work_in_ns"] = v.main_work_in * 1000
        if "boots" in [a.name for a in self.axes]:
            h["boots"] = v.boots
        return h

    # -- resolution --
    def resolve(self, given, vcpus=2):
        """The values: the command line's (given: axis name -> parsed
        value) over the defaults, then derive()'s."""
        names = [a.name for a in self.axes]
        for k in given:
            if k not in names:
                raise PlanError(f"--{k.replace('_', '-')}: not an axis of {self.name}")
        v = types.SimpleNamespace(vcpus=vcpus)
        pending = []
        for a in self.axes:
            if a.name in given:
                setattr(v, a.name, given[a.name])
            elif callable(a.default):
                pending.append(a)
            else:
                setattr(v, a.name, a.default)
        for a in pending:
            setattr(v, a.name, a.default(v))
        for a in self.axes:
            val = getattr(v, a.name)
            a.check(val if isinstance(val, list) else [], v)
        self.derive(v)
        return v

    def points(self, v):
        for name in self.blocks:
            fn = getattr(self, name, None)
            if fn is None:
                raise PlanError(f"{self.name}: no block '{name}'")
            for p in fn(v) or ():
                p.block = name
                yield p

    def options_help(self, given=None):
        v = self.resolve(given or {})
        lines = [f"Options of {self.name} ({self.description or self.name}):"]
        for a in self.axes:
            val = getattr(v, a.name)
            dv = (",".join(str(x) for x in val) or "none") if isinstance(val, list) else str(val)
            head = f"  {a.option} {'N' if a.kind == 'count' else 'LIST'}"
            body = f"{a.help} (default: {dv})"
            if len(head) < 22:
                lines += textwrap.wrap(body, 78, initial_indent=head.ljust(22), subsequent_indent=" " * 22,
                                       break_on_hyphens=False)
            else:
                lines += [head] + textwrap.wrap(body, 78, initial_indent=" " * 22, subsequent_indent=" " * 22,
                                                break_on_hyphens=False)
        return "\n".join(lines)


def parse_given(exp, raw):
    """{axis name: command-line text} into checked values."""
    out = {}
    for k, text in raw.items():
        try:
            axis = exp.axes[k]
        except KeyError:
            raise PlanError(f"unknown option '--{k.replace('_', '-')}' (./run-all --help lists them)") from None
        out[k] = axis.parse(text)
    return out


def shuffled(items, seed):
    """items in a random order that depends only on seed: Fisher-Yates on a
    31-bit linear congruential generator (the order the bash planner made,
    so that a seed names the same plan everywhere)."""
    a = list(items)
    x = seed
    for i in range(len(a) - 1, 0, -1):
        x = (x * 1103515245 + 12345) % 2147483648
        j = (x >> 8) % (i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def _budget(b, params, point):
    """(estimate, limit) in wall seconds."""
    secs = b.estimate_s(params, point.testbed)
    if point.testbed == "precise":
        # Virtual seconds: about 30 s of wall time each, plus the set-up. Its
        # wall time grows with the host's load (its results do not), so its
        # limit is generous: four times the estimate plus 2 minutes.
        secs = secs * PRECISE_WALL_PER_S + 10
        limit = 4 * secs + 120
    else:
        limit = 2 * secs + 60
    if point.limit_s is not None:
        # The experiment knows better (a load the estimate does not know).
        limit = point.limit_s
        secs = max(secs, (limit - 120) // 4 if point.testbed == "precise" else (limit - 60) // 2)
    if point.est_s is not None:
        secs = point.est_s
    return secs, limit


def plan(exp, v, seed, named=False, benches=None):
    """The runs of experiment EXP with values V (exp.resolve()), in the
    order they run. named: --benchmarks was given (only_if_named points)."""
    benches = benches if benches is not None else benchmod.load_all()
    made = []
    for p in exp.points(v):
        where = f"{exp.name}: {p.block}: {p.id}"
        if p.bench not in benches:
            raise PlanError(f"{where}: no bench '{p.bench}' (bench/*/bench.py declare: {', '.join(sorted(benches))})")
        b = benches[p.bench]
        group = p.benchmark or b.group
        if p.testbed not in v.testbeds or (group not in v.benchmarks and not (b.always and p.benchmark is None)):
            continue
        if p.only_if_named and not named:
            continue
        knobs = dict.fromkeys(KNOBS)
        kernel = "patched"
        params = {}
        if p.alternative is not None:
            if p.alternative not in exp.alternatives:
                raise PlanError(f"{where}: unknown alternative '{p.alternative}'")
            alt = exp.alternatives[p.alternative]
            arm_name = alt.arm
        else:
            arm_name = p.arm
        if arm_name is not None:
            if arm_name not in exp.arms:
                raise PlanError(f"{where}: unknown arm '{arm_name}'")
            arm = exp.arms[arm_name]
            for k in KNOBS:
                knobs[k] = getattr(arm, k)
            kernel = arm.kernel or kernel
            params.update(arm.params)
        if p.alternative is not None:
            params.update(exp.alternatives[p.alternative].params)
        params.update(p.params)
        for k, val in p.knobs.items():
            if k not in KNOBS:
                raise PlanError(f"{where}: no knob '{k}' ({', '.join(KNOBS)})")
            knobs[k] = val
        kernel = p.kernel or kernel
        full = b.params(params, where)
        secs, limit = _budget(b, full, p)
        n = 0 if p.boot == "fresh" else (p.repeats if p.repeats is not None else
                                           v.repeats if p.testbed == "parallel" else v.precise_repeats)
        made.append(dict(p=p, b=b, group=group, arm=arm_name, knobs=knobs, kernel=kernel, given=params,
                         n=n, secs=secs, limit=limit))
    if not made:
        raise PlanError("the plan is empty: no benchmark of --benchmarks runs on the testbeds of --testbeds")

    def run(m, repeat, order, rid):
        p, b = m["p"], m["b"]
        given = dict(m["given"])
        if p.testbed == "precise" and p.workload_seed:
            given["seed"] = repeat
        r = Run(id=rid, repeat=repeat, order=order, boot=p.boot, testbed=p.testbed, kernel=m["kernel"],
                bench=b.name, benchmark=m["group"], arm=m["arm"], alternative=p.alternative,
                knobs=m["knobs"], params=b.params(given, rid), command=[], limit_s=m["limit"],
                est_s=m["secs"], experiment=p.block)
        r.command = b.command(r, b.args(given, p.testbed))
        r.check(rid)
        return r

    runs = []
    order = 0
    reps = max(v.repeats, v.precise_repeats)
    sweep = [m for m in made if m["p"].boot != "fresh"]
    for rep in range(1, reps + 1):
        for m in shuffled([m for m in sweep if rep <= m["n"]], seed + rep):
            order += 1
            runs.append(run(m, rep, order, f"{m['p'].id}-r{rep}"))
    for m in made:
        if m["p"].boot == "fresh":
            order += 1
            runs.append(run(m, m["p"].repeat, order, m["p"].id))
    ids = set()
    for r in runs:
        if r.id in ids:
            raise PlanError(f"{exp.name}: the run id '{r.id}' is made twice")
        ids.add(r.id)
    return runs


def load(name_or_path, top=None):
    """The Experiment subclass of experiments/NAME.py ('-' for '_'), or of
    a file (a user's own, which may import experiments.default)."""
    import importlib.util
    import os
    import sys
    top = top or benchmod.TOP
    if top not in sys.path:
        sys.path.insert(0, top)
    if os.sep in name_or_path or name_or_path.endswith(".py"):
        path = name_or_path
    else:
        path = os.path.join(top, "experiments", name_or_path.replace("-", "_") + ".py")
    if not os.path.isfile(path):
        raise PlanError(f"no such experiment: {name_or_path} ({path})")
    modname = "experiments." + os.path.basename(path)[:-3] if os.path.dirname(os.path.abspath(path)) == \
        os.path.join(top, "experiments") else "slicebench_user_" + os.path.basename(path)[:-3]
    if modname in sys.modules:
        mod = sys.modules[modname]
    else:
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:
            del sys.modules[modname]
            import traceback
            where = traceback.extract_tb(e.__traceback__)[-1]
            line = getattr(e, "lineno", None) or where.lineno
            raise PlanError(f"{getattr(e, 'filename', None) or where.filename}:{line}: "
                            f"{type(e).__name__}: {e}") from None
    cls = getattr(mod, "EXPERIMENT", None)
    if not (isinstance(cls, type) and issubclass(cls, Experiment)):
        raise PlanError(f"{path}: no EXPERIMENT (an Experiment subclass)")
    return cls()
