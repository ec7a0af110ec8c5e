"""The columns the report's sections select runs by, and their selectors
('col=value col=value', @main_clients from the plan header).

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


def parse_selector(text, where, meta):
    """'col=value col=value' -> {col: typed value}; @main_clients,
    @main_hogs and @main_work_in_ns from the plan header (("@missing", name)
    when the header has none)."""
    sel = {}
    for item in (text or "").split():
        if "=" not in item:
            raise SelectorError(f"{where}: '{item}' is not COLUMN=VALUE")
        k, v = item.split("=", 1)
        if k not in COLUMNS or k in ("id", "argv"):
            raise SelectorError(f"{where}: unknown column '{k}'")
        if v.startswith("@"):
            sel[k] = meta[v[1:]] if v[1:] in meta else ("@missing", v[1:])
        elif v == "-":
            sel[k] = None
        elif k in INT_COLUMNS:
            if not re.fullmatch(r"[0-9]+", v):
                raise SelectorError(f"{where}: {k}={v} is not a number")
            sel[k] = int(v)
        else:
            sel[k] = v
    return sel


def matches(row, sel):
    return all(row[k] == v for k, v in sel.items())
