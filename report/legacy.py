"""Readers of the results folders written before run records (plan.jsonl,
issue 39): their plan.tsv, typed columns or the older untyped lines, and
the checks of a run's JSON against such a row. The committed reports still
read such folders (reference.md's previous reference among them); nothing
else in the report needs this module.

The columns of these plans name benchmarks (the lock table's arguments,
swingbench-lite's profile): they are what those folders hold."""

import os
import re

from results import (CHOICES, COLUMNS, INT_COLUMNS, LOCKTABLE_BENCHES, ReportError, _arg, _load_args,
                     check_bench, rel)

# Columns added since the typed plan (2026-12-04): an older plan's header
# lacks them, and they are recovered from the arguments.
LATER_COLUMNS = ["hog_policy", "work_in_ns", "profile"]


def _typed(path, n, col, raw):
    if raw == "-":
        return None
    if col in INT_COLUMNS:
        if not re.fullmatch(r"[0-9]+", raw):
            raise ReportError(f"{rel(path)}:{n}: column {col} is not a number: '{raw}'")
        v = int(raw)
    else:
        v = raw
    if col in CHOICES and v not in CHOICES[col]:
        raise ReportError(f"{rel(path)}:{n}: column {col}: '{raw}' is not one of "
                          f"{', '.join(sorted(str(c) for c in CHOICES[col]))}")
    if col == "bench":
        check_bench(v, f"{rel(path)}:{n}")
    return v


def load_tsv_plan(d, env):
    """The rows and metadata of a folder's plan.tsv ("# key: value" lines,
    then the columns), or of the older untyped plan before it."""
    path = os.path.join(d, "plan.tsv")
    if not os.path.isfile(path):
        raise ReportError(f"{rel(path)}: missing (run-all writes the plan first)")
    with open(path) as f:
        lines = f.read().split("\n")
    meta, body, header_at = {}, [], None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            m = re.match(r"^# ([a-z_]+): (.*)$", line)
            if m:
                meta[m.group(1)] = m.group(2)
            continue
        if header_at is None and not body:
            header_at = n if line.split("\t")[0] == "id" else 0
            if header_at:
                columns = line.split("\t")
                # Older plans lack some of the later columns.
                if [c for c in COLUMNS if c in columns] != columns or \
                        not set(COLUMNS) - set(columns) <= set(LATER_COLUMNS):
                    raise ReportError(f"{rel(path)}:{n}: the header is not the plan's columns "
                                      f"({' '.join(COLUMNS)})")
                continue
        body.append((n, line))
    if not header_at:
        return legacy_plan(d, path, body, env)
    rows, seen = [], set()
    for n, line in body:
        f = line.split("\t")
        if len(f) != len(columns):
            raise ReportError(f"{rel(path)}:{n}: {len(f)} columns, the plan has {len(columns)}")
        row = {c: _typed(path, n, c, v) for c, v in zip(columns, f)}
        if "work_in_ns" not in row:
            row["work_in_ns"] = work_in_from_args(row["bench"], row["argv"] or "")
        if "hog_policy" not in row:
            row["hog_policy"] = hog_policy_from_args(row["bench"], row["argv"] or "")
        if "profile" not in row:
            row["profile"] = profile_from_args(row["bench"], row["argv"] or "")
        for c in ("id", "repeat", "order", "bench"):
            if row[c] is None:
                raise ReportError(f"{rel(path)}:{n}: column {c} is empty")
        if row["id"] in seen:
            raise ReportError(f"{rel(path)}:{n}: run id '{row['id']}' appears twice")
        seen.add(row["id"])
        row["argv"] = row["argv"] or ""
        rows.append(row)
    # Plans before the work_in_ns column ran every main point at 5 us.
    meta.setdefault("main_work_in_ns", "5000")
    for k in ("main_clients", "main_hogs", "main_work_in_ns", "boots"):
        if k in meta:
            if not meta[k].isdigit():
                raise ReportError(f"{rel(path)}: '# {k}:' is not a count: '{meta[k]}'")
            meta[k] = int(meta[k])
    meta["legacy"] = False
    return rows, meta


def work_in_from_args(bench, args):
    """The lock table's work under the lock in ns, from its arguments (its
    default is 5 us), for a plan written before the work_in_ns column."""
    if bench not in LOCKTABLE_BENCHES:
        return None
    v = _arg(_load_args(args), "--work-in") or "5"
    try:
        return int(round(float(v) * 1000))
    except ValueError:
        raise ReportError(f"--work-in '{v}' in '{args}' is not a number") from None


def hog_policy_from_args(bench, args):
    """The lock table's hog policy, from its arguments (default other), for a
    plan written before the hog_policy column."""
    if bench not in LOCKTABLE_BENCHES:
        return None
    return _arg(_load_args(args), "--hog-policy") or "other"


def profile_from_args(bench, args):
    """swingbench-lite's profile, from its arguments (default giant-lock),
    for a plan written before the profile column (2026-12-04)."""
    if bench != "swingbench-lite":
        return None
    return _arg(args, "--profile") or "giant-lock"


def legacy_plan(d, path, body, env):
    """A plan written before the typed columns (ID GROUP BENCH ABI GRANT EXT_NS
    RT_POLICY [LIMIT_S] ARGS): the columns are recovered from the arguments,
    the way the old report did. The fresh-boot unused-cost runs were not in
    those plans; their files are taken from raw/."""
    rows = []
    main = None
    for n, line in body:
        f = line.split("\t")
        if len(f) < 8:
            raise ReportError(f"{rel(path)}:{n}: {len(f)} columns: neither a typed plan "
                              f"(with its header line) nor an old one (8 or 9 columns)")
        rid, group, bench, abi, grant, ext, rt = f[:7]
        limit, args = (f[7], f[8]) if len(f) >= 9 and f[7].isdigit() else (None, f[7])
        m = re.fullmatch(r".*-r([0-9]+)", rid)
        if not m:
            raise ReportError(f"{rel(path)}:{n}: run id '{rid}' does not end in -rN")
        load = _load_args(args)
        row = {c: None for c in COLUMNS}
        row.update(id=rid, repeat=int(m.group(1)), order=len(rows) + 1, bench=bench,
                   testbed="parallel", kernel="patched",
                   boot="sweep", abi=abi, grant=int(grant), ext_ns=int(ext), rt_policy=rt,
                   limit_s=int(limit) if limit else None, argv=args)
        if bench in ("locktable", "latency"):
            row["clients"] = int(_arg(load, "--clients") or 0) or None
            row["hogs"] = int(_arg(load, "--hogs") or 0) if _arg(load, "--hogs") else None
            row["lock"] = _arg(load, "--lock") or "tas"
        if bench == "swingbench-lite":
            row["clients"] = int(_arg(args, "--clients"))
            row["mutex"] = _arg(args, "--mutex")
        if bench == "extend-sched":
            row["extend_waiting"] = 1 if re.search(r"(^| )-w( |$)", args) else 0
        row["work_in_ns"] = work_in_from_args(bench, args)
        row["hog_policy"] = hog_policy_from_args(bench, args)
        row["profile"] = profile_from_args(bench, args)
        if abi == "none":
            row["ext_ns"] = None
        if bench == "locktable" and main is None:
            main = (row["clients"], row["hogs"])
        rows.append(row)
    raw = os.path.join(d, "raw")
    extra = sorted(x[:-5] for x in os.listdir(raw) if re.fullmatch(r"uc-(stock|patched-boot)-r[0-9]+\.json", x)) \
        if os.path.isdir(raw) else []
    extra.sort(key=lambda x: (int(x.rsplit("-r", 1)[1]), "stock" not in x))
    for rid in extra:
        row = {c: None for c in COLUMNS}
        stock = rid.startswith("uc-stock")
        row.update(id=rid, repeat=int(rid.rsplit("-r", 1)[1]), order=len(rows) + 1,
                   bench="unused-cost", testbed="parallel",
                   kernel="stock" if stock else "patched", boot="fresh",
                   abi="none" if stock else "mainline", grant=0, rt_policy=None,
                   argv="--rounds 15")
        rows.append(row)
    meta = {"legacy": True, "main_work_in_ns": 5000}
    if main:
        meta["main_clients"], meta["main_hogs"] = main
    return rows, meta


def header_mismatches(row, h, data):
    """(what, the run's value, the row's) for each field of the run's JSON
    (its header H, its config) that disagrees with an older plan's row."""
    want = []
    if row["kernel"] != "stock" and row["bench"] in ("locktable", "extend-sched", "swingbench-lite",
                                                               "postgres"):
        if row["ext_ns"] is not None and "extension_ns" in h and row["abi"] != "none":
            want.append(("extension_ns", h["extension_ns"], row["ext_ns"]))
        if "kernel_grant" in h and row["abi"] != "none":
            want.append(("kernel_grant", bool(h["kernel_grant"]), bool(row["grant"])))
        if "abi" in h and row["abi"] is not None:
            want.append(("abi", h["abi"], row["abi"]))
    c = data.get("config", {})
    for k in ("clients", "hogs"):
        if row["bench"] in ("locktable", "postgres") and k in c and row[k] is not None:
            want.append((f"config.{k}", c[k], row[k]))
    if row["bench"] == "postgres" and row["profile"] is not None and "mode" in c:
        want.append(("config.mode", c["mode"], row["profile"]))
    if row["bench"] == "postgres" and row["mutex"] is not None and "huge_pages" in c:
        want.append(("config.huge_pages", c["huge_pages"], row["mutex"] == "huge-pages"))
    if row["bench"] == "locktable" and "work_in_us" in c and row["work_in_ns"] is not None:
        want.append(("config.work_in_us (in ns)", round(c["work_in_us"] * 1000), row["work_in_ns"]))
    for k in ("lock", "hog_policy"):
        if row["bench"] == "locktable" and k in c and row[k] is not None:
            want.append((f"config.{k}", c[k], row[k]))
    return [(name, got, exp) for name, got, exp in want if got != exp]
