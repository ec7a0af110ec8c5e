"""A benchmark, as its folder declares it (bench/NAME/bench.py).

Each bench/NAME/bench.py defines one or more subclasses of Bench, listed
in BENCHES. A Bench knows everything about its runs that is not the
experiment's choice: its parameters and their defaults, how its guest
command is built from them, what a run should take, what the host must
prepare, and (report/) how its results read. The planner, run-all, the
guest's runner and the report name no benchmark.
"""

import glob
import importlib.util
import os

from .run import RunError

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def num(v):
    """A number as a command line writes it: 2, not 2.0; 0.5 as it is."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


class Bench:
    name = None             # the run record's bench
    group = None            # the --benchmarks name (default: name)
    always = False          # runs whatever --benchmarks says (the testbed's own checks)
    program = None          # the guest program it runs
    # The parameters a point must give, and those it may, with their values
    # when not given. A parameter not in either is refused.
    required = ()
    defaults = {}
    # (VAR, command): run once in a boot before its first run of this bench;
    # its output is VAR in the runs' environment (None: nothing).
    setup = None
    # What its result echoes of its run record, which the report checks (a
    # result joined to the wrong record is refused): echoes_knobs, the
    # shared header's abi, extension_ns and kernel_grant (lib/bench.c) as
    # the run's knobs set them; echoes, {JSON path: parameter}.
    echoes_knobs = False
    echoes = {}

    def __init__(self):
        self.group = self.group or self.name

    def params(self, given, where):
        """The run's parameters: what the point gave, checked, with the
        defaults of what it did not."""
        missing = [k for k in self.required if k not in given]
        if missing:
            raise RunError(f"{where}: {self.name} needs {', '.join(missing)}")
        unknown = sorted(set(given) - set(self.required) - set(self.defaults))
        if unknown:
            raise RunError(f"{where}: {self.name} has no parameter {', '.join(unknown)}")
        return {**self.defaults, **given}

    def args(self, given, testbed):
        """The benchmark's own arguments (a list of words), from the
        parameters the point gave."""
        raise NotImplementedError

    def command(self, run, args):
        """The guest's whole command for RUN, run in the results folder's
        raw/, writing RUN.id.json.tmp (the runner renames it when the run
        succeeds). Default: the program, its arguments, the run's ABI."""
        return [self.program] + list(args) + ["--abi", run.knobs["abi"] or "auto", "--json", f"{run.id}.json.tmp"]

    def estimate_s(self, params, testbed):
        """What a run should take, in seconds (on the precise testbed:
        virtual seconds)."""
        return 60

    def echo_mismatches(self, row, data):
        """(what, the result's value, the record's) for each echo that
        disagrees; ROW is the report's row of a run record (kernel, abi,
        grant, ext_ns, params)."""
        out = []
        h = data.get("header") if isinstance(data, dict) else None
        if self.echoes_knobs and isinstance(h, dict) and not row["kernel"].startswith("stock"):
            abi = row["abi"]
            if abi not in (None, "none"):
                if row["ext_ns"] is not None and "extension_ns" in h:
                    out.append(("extension_ns", h["extension_ns"], row["ext_ns"]))
                if "kernel_grant" in h and row["grant"] is not None:
                    out.append(("kernel_grant", bool(h["kernel_grant"]), bool(row["grant"])))
            if "abi" in h and abi is not None:
                out.append(("abi", h["abi"], abi))
        params = row.get("params") or {}
        for path, key in self.echoes.items():
            got = _at(data, path)
            if got is not _MISSING and params.get(key) is not None:
                out.append((path, got, params[key]))
        return [(what, got, want) for what, got, want in out if not _same(got, want)]

    def host_steps(self, runs, results):
        """What the host does before the boots that run RUNS:
        [(CREATES, MESSAGE, WORDS)], CREATES a file in the results folder
        that says the step is done (None: a step that is cached anyway)."""
        return []

    def vm_args(self, runs):
        """What a guest that runs RUNS needs from vm-run (an initrd of its
        own, a data folder)."""
        return []


_MISSING = object()


def _at(data, path):
    """The value at a dotted JSON path, or _MISSING."""
    for k in path.split("."):
        if not isinstance(data, dict) or k not in data:
            return _MISSING
        data = data[k]
    return data


def _same(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= 1e-9 * max(1, abs(b))
    return a == b


def opts(pairs):
    """[(option, value)] into words, skipping values that are None; a value
    True is a flag alone."""
    out = []
    for opt, v in pairs:
        if v is None or v is False:
            continue
        out += [opt] if v is True else [opt, num(v)]
    return out


PATH_VAR = "SLICEBENCH_BENCH_PATH"
OWN_FILES = ("bench.py", "report.py", "metrics.ini")


def folders(top=TOP):
    """The benchmark folders: the tree's bench/*/, then those of each folder
    in $SLICEBENCH_BENCH_PATH (colon-separated; a benchmark kept outside the
    tree, such as tests/fixtures/bench/), that hold a bench.py, a report.py
    or a metrics.ini."""
    roots = [os.path.join(top, "bench")]
    for extra in filter(None, os.environ.get(PATH_VAR, "").split(":")):
        if not os.path.isdir(extra):
            raise RunError(f"{PATH_VAR}: no such folder: {extra}")
        roots.append(os.path.abspath(extra))
    return [d for root in roots for d in sorted(glob.glob(os.path.join(root, "*")))
            if any(os.path.isfile(os.path.join(d, f)) for f in OWN_FILES)]


def folder_modules(filename, top=TOP):
    """(folder, path, module) for each benchmark folder that has FILENAME
    (bench.py, report.py), each loaded as a module of its own."""
    for d in folders(top):
        path = os.path.join(d, filename)
        if not os.path.isfile(path):
            continue
        name = f"slicebench_{filename[:-3]}_{os.path.basename(d).replace('-', '_')}"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield d, path, mod


_registry = {}


def load_all(top=TOP):
    """Every Bench of every benchmark folder's bench.py, by name."""
    key = (top, os.environ.get(PATH_VAR, ""))
    if key in _registry:
        return _registry[key]
    found = {}
    for d, path, mod in folder_modules("bench.py", top):
        for cls in getattr(mod, "BENCHES", []):
            b = cls()
            b.folder = os.path.basename(d)
            b.path = d
            if b.name in found:
                raise RunError(f"{path}: the bench '{b.name}' is declared in {found[b.name].path} too")
            found[b.name] = b
    _registry[key] = found
    return found
