"""The columns the report's sections select runs by, and their selectors
('key=value key=value': a column, arm, alternative or params.NAME;
@main_clients from the plan header).

The sections and claims of report/specs/ still name runs by these
columns; a run record (slicebench.run.Run) is seen through row_of(). Both
the planner's drift check and the report import this module."""

import re

from .run import RunError

COLUMNS = ["id", "repeat", "order", "bench", "testbed", "kernel", "boot", "abi", "grant", "ext_ns", "rt_policy",
           "clients", "hogs", "hog_policy", "work_in_ns", "lock", "mutex", "profile", "extend_waiting", "limit_s",
           "argv"]
INT_COLUMNS = {"repeat", "order", "grant", "ext_ns", "clients", "hogs", "work_in_ns", "extend_waiting", "limit_s"}
# The benches whose runs are lock-table runs (work_in_ns, hog_policy).
LOCKTABLE_BENCHES = {"locktable", "grant-trace", "latency", "cyclictest"}


class SelectorError(RunError):
    pass


def row_of(run):
    """A run record as the columns the sections select by."""
    p = run.params
    row = dict.fromkeys(COLUMNS)
    row.update(id=run.id, repeat=run.repeat, order=run.order, bench=run.bench, testbed=run.testbed,
               kernel=run.kernel, boot=run.boot, limit_s=run.limit_s, **run.knobs)
    row["argv"] = " ".join(run.command)
    row["clients"], row["hogs"] = p.get("clients"), p.get("hogs")
    if run.bench in LOCKTABLE_BENCHES:
        row["work_in_ns"] = int(p["work_in_us"] * 1000 + 0.5)
        row["hog_policy"] = p.get("hog_policy", "other")
        row["lock"] = p.get("lock", "tas")
    elif run.bench == "hyperfine":
        row["lock"] = p.get("loop")
    row["mutex"] = p.get("mutex")
    if run.bench == "swingbench-lite":
        row["profile"] = p.get("profile")
    elif run.bench == "unused-cost":
        row["profile"] = "v2-rseq" if p.get("rseq_v2") else "opted-in" if p.get("opt_in") else None
    elif run.bench == "postgres":
        row["profile"] = p["mode"]
        row["mutex"] = "huge-pages" if p.get("huge_pages") else "4k-pages"
    if run.bench == "extend-sched":
        row["extend_waiting"] = int(bool(p.get("waiting")))
    row["arm"], row["alternative"], row["params"] = run.arm, run.alternative, p
    return row


# Keys a selector may name besides the columns: the run record's own
# (slicebench/run.py), for plans of run records; an older plan has none of
# them, so they select nothing there.
RECORD_KEYS = ("arm", "alternative")
PARAMS = "params."


def _param_value(v):
    """A params.NAME selector's value, typed as JSON would type it."""
    if v in ("true", "false"):
        return v == "true"
    if re.fullmatch(r"-?[0-9]+", v):
        return int(v)
    if re.fullmatch(r"-?[0-9]*\.[0-9]+", v):
        return float(v)
    return v


def parse_selector(text, where, meta):
    """'key=value key=value' -> {key: typed value}. A key is a column
    (COLUMNS), the run record's arm or alternative (its declared name), or
    params.NAME (the benchmark's parameter NAME: true, false, numbers and
    words). @main_clients, @main_hogs and @main_work_in_ns come from the
    plan header (("@missing", name) when the header has none); '-' is
    "not set"."""
    sel = {}
    for item in (text or "").split():
        if "=" not in item:
            raise SelectorError(f"{where}: '{item}' is not KEY=VALUE")
        k, v = item.split("=", 1)
        param = k.startswith(PARAMS) and len(k) > len(PARAMS)
        if not param and k not in RECORD_KEYS and (k not in COLUMNS or k in ("id", "argv")):
            raise SelectorError(f"{where}: unknown column '{k}' (a column, arm, alternative or params.NAME)")
        if v.startswith("@"):
            sel[k] = meta[v[1:]] if v[1:] in meta else ("@missing", v[1:])
        elif v == "-":
            sel[k] = None
        elif param:
            sel[k] = _param_value(v)
        elif k in INT_COLUMNS:
            if not re.fullmatch(r"[0-9]+", v):
                raise SelectorError(f"{where}: {k}={v} is not a number")
            sel[k] = int(v)
        else:
            sel[k] = v
    return sel


def value(row, k):
    """A row's value for a selector key (None where it has none)."""
    if k.startswith(PARAMS):
        return (row.get("params") or {}).get(k[len(PARAMS):])
    return row.get(k)


def matches(row, sel):
    return all(value(row, k) == v for k, v in sel.items())
