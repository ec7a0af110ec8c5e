"""Formatting for the report: numbers, changes, durations, arm labels and
markdown tables (report/generate and report/sections.py)."""

import math

ABI_ORDER = {"none": 0, "rseq-cr": 1, "task-shared": 2, "mainline": 3}
TESTBED = {"parallel": "the parallel testbed (multi-threaded TCG)",
           "precise": "the precise testbed (1 vCPU, icount)"}
MUTEX_ORDER = {"spin-ext": 0, "spin": 1, "pthread": 2, "adaptive": 3, "futex": 4, "futex-ext": 5}
LOCK_ORDER = {"tas": 0, "ticket": 1, "pthread": 2, "adaptive": 3, "futex": 4, "yield": 5}
HOG_ORDER = {"other": 0, "nice19": 1, "batch": 2, "idle": 3}


def num(x, d=1):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    # A value that would round to 0 keeps two significant digits (a
    # sub-microsecond wait is not "0 us").
    if x and abs(x) < 0.5 * 10 ** -d:
        return f"{x:.2g}"
    return f"{x:,.{d}f}"


def pct(x, d=1):
    """A change as a percentage; from +1000% on as a factor (×12, ×6.0e+06),
    where a percentage's digits would only hide its size."""
    if x is None:
        return "-"
    if x == math.inf:
        return "+∞"
    if x >= 10:
        r = 1 + x
        return f"×{r:,.0f}" if r < 1e5 else f"×{r:.1e}"
    return f"{100 * x:+.{d}f}%"


def res_pct(x):
    """A resolution (a CI's half-width) in percent, without the %: whole
    numbers from 1% on, one significant digit below (0.004, not 0)."""
    v = 100 * x
    if v >= 1 or v == 0:
        return f"{v:.0f}"
    return f"{v:.1g}"


def ci_pct(ci, d=1):
    if ci is None:
        return "unbounded"
    return f"[{pct(ci[0], d)}, {pct(ci[1], d)}]"


def pval(p):
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def share(x):
    return f"{100 * x:.1f}%"


def dur_ns(x):
    if x is None:
        return "-"
    if x < 1e3:
        return f"{x:.0f} ns"
    if x < 1e6:
        return f"{x / 1e3:.1f} us"
    if x < 1e9:
        return f"{x / 1e6:.1f} ms"
    return f"{x / 1e9:.2f} s"


def mean_sd(s, d):
    if s["n"] == 0:
        return "-"
    if s["n"] == 1:
        return f"{num(s['mean'], d)} (1 run)"
    return f"{num(s['mean'], d)} ± {num(s['sd'], d)}"


def ext_label(ns):
    if ns is None:
        return ""
    if ns >= 1000000:
        return "1 ms (tick)" if ns == 1000000 else f"{ns / 1e6:g} ms"
    return f"{ns / 1000:g} us"


def arm_label(row, cols):
    """A name for an arm from the columns that tell it apart; with the arm
    (or alternative) among them, the name the experiment declared."""
    if "arm" in cols or "alternative" in cols:
        return row.get("alternative") or row.get("arm") or "-"
    parts = []
    if "kernel" in cols and row["kernel"] == "stock":
        parts.append("stock 6.12")
    elif "kernel" in cols and row["kernel"] == "stock-jump-label":
        parts.append("stock 6.12, JUMP_LABEL=y")
    elif "kernel" in cols and row["kernel"] in ("preempt-none", "preempt-full"):
        parts.append("patched, " + row["kernel"].replace("-", "="))
    elif "kernel" in cols and row["kernel"] == "patched-jump-label":
        parts.append("patched, JUMP_LABEL=y")
    elif "kernel" in cols:
        parts.append("patched")
    if "profile" in cols and row.get("profile"):
        parts.append(row["profile"])
    if "mutex" in cols and row["mutex"]:
        parts.append(row["mutex"])
    if "hog_policy" in cols and row["hog_policy"] not in (None, "other"):
        parts.append({"nice19": "hogs at nice 19", "idle": "hogs SCHED_IDLE",
                      "batch": "hogs SCHED_BATCH"}[row["hog_policy"]])
    if "lock" in cols and row["lock"] not in (None, "tas"):
        parts.append({"ticket": "ticket lock", "futex": "spin-then-futex lock",
                      "yield": "spin-then-yield lock", "pthread": "pthread mutex",
                      "adaptive": "adaptive mutex"}[row["lock"]])
    off = row["grant"] == 0
    # An alternative (another lock, deprioritised hogs) is named alone when
    # grants are off, and "+ ABI" with the extension.
    alt = len(parts) > ("kernel" in cols) + ("mutex" in cols and bool(row["mutex"])) + \
        ("profile" in cols and bool(row.get("profile")))
    if "abi" in cols or "grant" in cols:
        if row["kernel"] in ("stock", "stock-jump-label"):
            pass
        elif off and alt:
            pass
        elif alt and row["abi"] not in (None, "none"):
            parts.append("+ " + row["abi"])
        elif off:
            parts.append("grants off" if "boot" in cols else "off")
        elif row["abi"] == "none":
            parts.append("no ABI")
        elif row["abi"]:
            parts.append(row["abi"])
    if "ext_ns" in cols and not off and row["abi"] not in (None, "none") and row["ext_ns"] is not None:
        parts.append(ext_label(row["ext_ns"]))
    if "rt_policy" in cols and not off and row["rt_policy"]:
        parts.append(row["rt_policy"])
    if "extend_waiting" in cols and row["extend_waiting"]:
        parts.append("-w")
    if "boot" in cols and row["boot"]:
        parts.append("fresh boots" if row["boot"] == "fresh" else "in the sweep's boot")
    return " ".join(parts) or "-"


def arm_sort(row):
    return (MUTEX_ORDER.get(row["mutex"], 9), not row["kernel"].startswith("stock"),
            row["lock"] not in (None, "tas"), row["hog_policy"] not in (None, "other"),
            LOCK_ORDER.get(row["lock"], 9), HOG_ORDER.get(row["hog_policy"], 9), row["grant"] != 0,
            ABI_ORDER.get(row["abi"], 9), row["ext_ns"] or 0, row["rt_policy"] or "",
            row["extend_waiting"] or 0, row["boot"] or "")


def run_label(row):
    """Every run's arm and point, for the appendix."""
    b = row["bench"]
    parts = [b]
    if row["clients"] is not None:
        parts.append(f"c{row['clients']}")
    if row["hogs"] is not None:
        parts.append(f"h{row['hogs']}")
    cols = {"kernel", "mutex", "abi", "grant", "ext_ns", "rt_policy", "extend_waiting", "lock",
            "hog_policy"}
    if b == "unused-cost":
        cols.add("boot")
    parts.append(arm_label(row, cols))
    return " ".join(parts)


def col_head(k):
    """A plan column as a table heading."""
    return "work in (us)" if k == "work_in_ns" else k.replace("_", " ")


def col_cell(k, v):
    """A plan column's value in a table cell."""
    return f"{v / 1000:g}" if k == "work_in_ns" and v is not None else str(v)


def rows_tb(rows, tbs):
    return [(r, TESTBED.get(tb, tb or "-").split(" (")[0].replace("the ", "")) for r, tb in zip(rows, tbs)]


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)
