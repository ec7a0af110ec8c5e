"""Reading a results folder: the typed plan, each run's JSON and failure,
the environment, the metrics, the host's vCPU samples and the grant traces.

Every problem is a ReportError naming the file (and line or field): a
malformed or missing file never becomes a zero.
"""

import ast
import configparser
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from slicebench import select  # noqa: E402
from slicebench.run import RunError, read_plan  # noqa: E402

# The plan's columns, the integer ones, and the benches that run the lock
# table: defined once, in slicebench/select.py (the planner's drift check
# reads them too).
COLUMNS, INT_COLUMNS, LOCKTABLE_BENCHES = select.COLUMNS, select.INT_COLUMNS, select.LOCKTABLE_BENCHES
# What a column may hold besides "-" (not applicable).
CHOICES = {
    "testbed": {"parallel", "precise"},
    # preempt-none, preempt-full: the patched kernel booted with preempt=X
    # (fresh boots; "patched" is the configuration's PREEMPT_VOLUNTARY).
    # stock-jump-label, patched-jump-label: built with CONFIG_JUMP_LABEL=y
    # (kernel/build --jump-label), for the cost when unused with real
    # static keys (fresh boots on the precise testbed).
    "kernel": {"patched", "stock", "preempt-none", "preempt-full", "stock-jump-label",
               "patched-jump-label"},
    "boot": {"sweep", "fresh"},
    "abi": {"none", "rseq-cr", "task-shared", "mainline"},
    "rt_policy": {"never-delay-rt", "bounded"},
    "grant": {0, 1},
    "extend_waiting": {0, 1},
    "hog_policy": {"other", "nice19", "idle", "batch"},
    "lock": {"tas", "ticket", "futex", "yield", "pthread", "adaptive"},
    # swingbench-lite's --profile; pg-run's --mode (postgres); unused-cost's
    # rseq registration when not glibc's: its own V2 one (--rseq-v2), or
    # opted in (--opt-in).
    "profile": {"giant-lock", "buffer-latches", "select", "simple-update", "tpcb",
                "v2-rseq", "opted-in"},
}


class ReportError(Exception):
    pass


def check_bench(name, where):
    """A plan's bench must be one a benchmark folder declares."""
    from slicebench.bench import PATH_VAR, load_all
    if name not in load_all():
        raise ReportError(f"{where}: unknown bench '{name}' (no benchmark folder declares it: bench/NAME/bench.py, "
                          f"or a folder of ${PATH_VAR})")


def rel(path):
    """A path for messages: as the user gave it (the results folder's path plus the file)."""
    return path


# ---- the environment ---------------------------------------------------------

ENV_REQUIRED = ["run_name", "host_cpu_model", "host_cpus", "qemu_version", "accelerator",
                "vcpus", "guest_kernel_release", "guest_config_sha256"]


def load_environment(d):
    path = os.path.join(d, "environment.txt")
    if not os.path.isfile(path):
        raise ReportError(f"{rel(path)}: missing (every run records its environment)")
    env = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"^([A-Za-z0-9_.]+): (.*)$", line)
            if not m:
                raise ReportError(f"{rel(path)}:{n}: not a 'key: value' line: {line}")
            env.setdefault(m.group(1), m.group(2))
    for k in ENV_REQUIRED:
        if not env.get(k):
            raise ReportError(f"{rel(path)}: field '{k}' is missing")
    for k in ("host_cpus", "vcpus"):
        if not env[k].isdigit():
            raise ReportError(f"{rel(path)}: field '{k}' is not a count: '{env[k]}'")
    return env


# ---- the plan ------------------------------------------------------------------

def load_run_records(path):
    """A plan of run records (plan.jsonl, slicebench/run.py), as the rows
    the sections select by (slicebench/select.py), and its header."""
    try:
        header, runs = read_plan(path)
    except RunError as e:
        raise ReportError(str(e)) from None
    rows = []
    for n, run in enumerate(runs, 2):
        row = select.row_of(run)
        for col, allowed in CHOICES.items():
            if row[col] is not None and row[col] not in allowed:
                raise ReportError(f"{rel(path)}:{n}: {col}: '{row[col]}' is not one of "
                                  f"{', '.join(sorted(str(c) for c in allowed))}")
        check_bench(row["bench"], f"{rel(path)}:{n}")
        rows.append(row)
    meta = {k: v for k, v in header.items() if k != "slicebench_plan"}
    meta.setdefault("main_work_in_ns", 5000)
    meta["legacy"] = False
    return rows, meta


def load_plan(d, env):
    """The plan's rows (dicts of typed columns) and its metadata: from the run
    records (plan.jsonl), or from a folder's older plan.tsv ("# key: value"
    lines, then the columns)."""
    if os.path.isfile(os.path.join(d, "plan.jsonl")):
        return load_run_records(os.path.join(d, "plan.jsonl"))
    import legacy
    return legacy.load_tsv_plan(d, env)


def _arg(args, opt):
    m = re.search(r"(?:^| )" + re.escape(opt) + r" ([^ ]+)", args)
    return m.group(1) if m else None


def _load_args(args):
    """A row's lock-table arguments: after " -- " for the benches that wrap a
    load (latency, cyclictest), else all of them."""
    return args.split(" -- ", 1)[1] if " -- " in args else args


# ---- runs ----------------------------------------------------------------------

class Run:
    def __init__(self, row, d):
        self.row = row
        self.id = row["id"]
        self.path = os.path.join(d, "raw", self.id + ".json")
        self.data = None
        self.failed = None
        # The guest boot that ran it (sweep-runner's raw/ID.boot: the
        # kernel's boot_id); None in folders from before it was recorded.
        self.boot = None
        boot = os.path.join(d, "raw", self.id + ".boot")
        if os.path.isfile(boot):
            with open(boot) as f:
                self.boot = f.readline().strip() or None
        failed = os.path.join(d, "raw", self.id + ".failed")
        if os.path.isfile(self.path):
            try:
                with open(self.path) as f:
                    self.data = json.load(f)
            except (ValueError, UnicodeDecodeError) as e:
                raise ReportError(f"{rel(self.path)}: not valid JSON ({e})")
            if not isinstance(self.data, (dict, list)):
                raise ReportError(f"{rel(self.path)}: not a benchmark's JSON object")
            self._check_header()
        elif os.path.isfile(failed):
            with open(failed) as f:
                self.failed = f.readline().strip() or "failed, no reason recorded"
        else:
            self.failed = "no result: the run did not finish (the guest died, or the sweep was stopped)"

    @classmethod
    def of(cls, row, data, d=".", boot=None, failed=None):
        """A run held in memory (the unit tests): its plan row and its
        JSON (None: FAILED says why), checked as a file's would be."""
        self = cls.__new__(cls)
        self.row, self.id = row, row["id"]
        self.path = os.path.join(d, "raw", self.id + ".json")
        self.data, self.boot, self.failed = data, boot, None
        if data is None:
            self.failed = failed or "failed, no reason recorded"
        else:
            self._check_header()
        return self

    def __getitem__(self, k):
        return self.row[k]

    @property
    def commit(self):
        """(project commit, recorded from a dirty tree?) from the run's own
        header; (None, None) for a run without one (a failed run, or a tool
        that writes no header)."""
        h = self.data.get("header") if isinstance(self.data, dict) else None
        if not isinstance(h, dict) or "project_commit" not in h:
            return None, None
        c = str(h["project_commit"])
        return c, bool(h.get("project_dirty")) or "-dirty" in c

    def _check_header(self):
        """The run's own header must agree with the plan row it is joined to."""
        h = self.data.get("header") if isinstance(self.data, dict) else None
        if not isinstance(h, dict):
            return
        # The run record it was run as (sweep-runner's SLICEBENCH_RUN_ID).
        if h.get("run_id") and h["run_id"] != self.id:
            raise ReportError(f"{rel(self.path)}: the run says it is run {h['run_id']}, not {self.id}")
        if "params" in self.row:
            # A run record: what its benchmark says its result echoes
            # (bench/NAME/bench.py: echoes_knobs, echoes).
            from slicebench.bench import load_all
            for name, got, exp in load_all()[self.row["bench"]].echo_mismatches(self.row, self.data):
                raise ReportError(f"{rel(self.path)}: the run says {name}={got}, its plan row says {exp}")
            return
        # A row of an older plan (plan.tsv), with no parameters: its columns.
        import legacy
        for name, got, exp in legacy.header_mismatches(self.row, h, self.data):
            raise ReportError(f"{rel(self.path)}: the run says {name}={got}, its plan row says {exp}")


def load_runs(d, rows):
    return [Run(r, d) for r in rows]


# ---- metrics -------------------------------------------------------------------

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


class Metric:
    def __init__(self, name, sec, path):
        self.name, self.ini = name, path
        self.expr_text = sec.get("path")
        if not self.expr_text:
            raise ReportError(f"{rel(path)}: [{name}]: no path")
        try:
            self.expr = ast.parse(self.expr_text, mode="eval").body
        except SyntaxError:
            raise ReportError(f"{rel(path)}: [{name}]: path '{self.expr_text}' is not an expression")
        self._validate(self.expr, path)
        self.unit = sec.get("unit", "")
        self.label = sec.get("label", name)
        self.direction = sec.get("direction", "none")
        if self.direction not in ("higher", "lower", "none"):
            raise ReportError(f"{rel(path)}: [{name}]: direction must be higher, lower or none")
        # count: events per run (same exposure per run), compared as
        # Poisson rates; measure: anything else.
        self.kind = sec.get("kind", "measure")
        if self.kind not in ("measure", "count"):
            raise ReportError(f"{rel(path)}: [{name}]: kind must be measure or count")
        try:
            self.scale = float(sec.get("scale", "1"))
            self.decimals = int(sec.get("decimals", "1"))
        except ValueError:
            raise ReportError(f"{rel(path)}: [{name}]: scale or decimals is not a number")

    def _validate(self, e, path):
        if isinstance(e, ast.BinOp) and type(e.op) in _OPS:
            self._validate(e.left, path)
            self._validate(e.right, path)
        elif isinstance(e, ast.Constant) and isinstance(e.value, (int, float)):
            pass
        elif isinstance(e, (ast.Attribute, ast.Name)):
            pass
        elif isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and \
                isinstance(e.slice.value, (str, int)):
            self._validate(e.value, path)
        else:
            raise ReportError(f"{rel(path)}: [{self.name}]: only + - * / of JSON paths and numbers: '{self.expr_text}'")

    @staticmethod
    def _dotted(e):
        """A path of attributes and subscripts: thread["0"].max -> ["thread", "0", "max"]."""
        parts = []
        while isinstance(e, (ast.Attribute, ast.Subscript)):
            if isinstance(e, ast.Attribute):
                parts.append(e.attr)
            else:
                parts.append(str(e.slice.value))
            e = e.value
        parts.append(e.id)
        return list(reversed(parts))

    def _eval(self, e, run):
        if isinstance(e, ast.BinOp):
            a, b = self._eval(e.left, run), self._eval(e.right, run)
            if isinstance(e.op, ast.Div) and b == 0:
                raise ReportError(f"{rel(run.path)}: {self.name}: division by zero in '{self.expr_text}'")
            return _OPS[type(e.op)](a, b)
        if isinstance(e, ast.Constant):
            return float(e.value)
        parts = self._dotted(e)
        v = run.data
        for p in parts:
            if not isinstance(v, dict) or p not in v:
                raise ReportError(f"{rel(run.path)}: field .{'.'.join(parts)} is missing")
            v = v[p]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ReportError(f"{rel(run.path)}: field .{'.'.join(parts)} is not a number ('{v}')")
        return float(v)

    def value(self, run):
        """The run's value, in the metric's display unit."""
        return self._eval(self.expr, run) * self.scale


def load_ini(path):
    cp = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    try:
        with open(path) as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        raise ReportError(f"{rel(path)}: {e}")
    return cp


def load_metrics(path):
    cp = load_ini(path)
    return {name: Metric(name, cp[name], path) for name in cp.sections()}


def load_all_metrics():
    """report/metrics.ini (what every benchmark's JSON has) and each
    benchmark folder's metrics.ini; a name declared twice is an error
    naming both files."""
    from slicebench.bench import folders
    paths = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics.ini")]
    paths += [os.path.join(d, "metrics.ini") for d in folders() if os.path.isfile(os.path.join(d, "metrics.ini"))]
    out = {}
    for path in paths:
        for name, m in load_metrics(path).items():
            if name in out:
                raise ReportError(f"{rel(path)}: metric '{name}' is declared in {rel(out[name].ini)} too")
            out[name] = m
    return out


def parse_selector(text, path, where, meta):
    """'col=value col=value' -> {col: typed value} (slicebench/select.py),
    its errors naming the file."""
    try:
        return select.parse_selector(text, f"{rel(path)}: {where}", meta)
    except select.SelectorError as e:
        raise ReportError(str(e)) from None


matches = select.matches
RECORD_KEYS = select.RECORD_KEYS
value = select.value


# ---- the host's vCPU threads -------------------------------------------------------

def vcpu_wait(d):
    """{run id: (wait share, host CPUs used)}: per run, the share of wall time the host
    kept a vCPU thread runnable but waiting (summed over the threads sampled in the run,
    divided by their number), from vm-run --vcpu-stats samples and the runs' end times. A run's interval
    starts where the previous run ended."""
    ends_p = os.path.join(d, "run-end-times.tsv")
    samp_p = os.path.join(d, "host-vcpu-schedstat.tsv")
    if not (os.path.isfile(ends_p) and os.path.isfile(samp_p)):
        return {}
    ends = []
    with open(ends_p) as f:
        for n, line in enumerate(f, 1):
            p = line.split()
            if not p:
                continue
            try:
                ends.append((float(p[1]), p[0]))
            except (IndexError, ValueError):
                raise ReportError(f"{rel(ends_p)}:{n}: not 'ID END_TIME'")
    last, deltas, tids = {}, [], set()
    with open(samp_p) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            try:
                t, tid, run_ns, wait_ns = float(p[0]), p[1], float(p[3]), float(p[4])
            except (IndexError, ValueError):
                raise ReportError(f"{rel(samp_p)}:{n}: not 'TIME TID NAME RUN_NS WAIT_NS'")
            tids.add(tid)
            if tid in last and t > last[tid][0]:
                lt, lr, lw = last[tid]
                deltas.append((t, tid, wait_ns - lw, run_ns - lr, t - lt))
            last[tid] = (t, run_ns, wait_ns)
    if not tids:
        return {}
    ends.sort()
    out = {}
    lo = -1.0
    for hi, rid in ends:
        w = r = span = 0.0
        live = set()
        for t, tid, dw, dr, dt in deltas:
            if lo < t <= hi:
                w += dw
                r += dr
                span += dt
                live.add(tid)
        if span > 0:
            # CPUs used: run time over wall time, the wall time being the
            # threads' summed sampling spans over the threads sampled in
            # this run (those of its boot: a sweep with several boots has
            # more threads than any run).
            out[rid] = (w / 1e9 / span, r / 1e9 / (span / len(live)))
        lo = hi
    return out


# ---- grant traces -------------------------------------------------------------------

TRACE_RE = re.compile(r"slice_ext_(\w+): pid=\d+ abi=(\S+) len_ns=(\d+) ran_ns=(\d+)")


def load_traces(d, runs):
    """{testbed: {requested ns: [(end kind, ran ns)]}} from the slice_ext end tracepoints:
    the plan's grant-trace runs (raw/ID.trace), or an older folder's ext-trace/trace-NSEC.txt
    (the parallel testbed's)."""
    files = []
    for r in runs:
        if r["bench"] == "grant-trace" and r.data is not None:
            files.append((r["testbed"], os.path.join(d, "raw", r.id + ".trace")))
    old = os.path.join(d, "ext-trace")
    if os.path.isdir(old):
        for x in sorted(os.listdir(old)):
            if x.startswith("trace-") and x.endswith(".txt"):
                if not re.fullmatch(r"trace-[0-9]+\.txt", x):
                    raise ReportError(f"{rel(os.path.join(old, x))}: the name should be trace-NSEC.txt")
                files.append(("parallel", os.path.join(old, x)))
    out = {}
    for tb, p in files:
        if not os.path.isfile(p):
            raise ReportError(f"{rel(p)}: missing (the grant-trace run's tracepoint output)")
        with open(p) as f:
            for line in f:
                m = TRACE_RE.search(line)
                if m:
                    out.setdefault(tb, {}).setdefault(int(m.group(3)), []).append((m.group(1), int(m.group(4))))
    return out
