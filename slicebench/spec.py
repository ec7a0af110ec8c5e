"""The report's specification of an experiment (report/specs/NAME.toml):
its sections, claims and caveats, in order (report/README.md describes the
keys). A spec may extend another (extends = "FILE", looked up beside it,
then in report/specs/):
tables of tables merge entry by entry, keeping the base's order."""

import os
import tomllib

from .run import RunError

SPECS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report", "specs")
KEYS = {"extends", "section", "claim", "caveat"}


def path_of(name):
    """report/specs/NAME.toml, or NAME itself when it is a path (an
    experiment kept outside the tree names its own specification)."""
    if name.endswith(".toml") or os.sep in name:
        return name
    return os.path.join(SPECS, f"{name}.toml")


def load(path, seen=()):
    if path in seen:
        raise RunError(f"{path}: extends itself (through {' -> '.join(seen)})")
    try:
        with open(path, "rb") as f:
            d = tomllib.load(f)
    except OSError as e:
        raise RunError(f"{path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise RunError(f"{path}: not valid TOML: {e}") from None
    bad = set(d) - KEYS
    if bad:
        raise RunError(f"{path}: unknown key(s) {', '.join(sorted(bad))} (known: {', '.join(sorted(KEYS))})")
    files = [path]
    if "extends" in d:
        # The file it extends: beside it, else among report/specs/.
        base_path = os.path.join(os.path.dirname(os.path.abspath(path)), d["extends"])
        if not os.path.isfile(base_path):
            base_path = os.path.join(SPECS, d["extends"])
        base = load(base_path, seen + (path,))
        files = base.pop("files") + files
        for k in ("section", "claim", "caveat"):
            merged = {n: dict(e) for n, e in base.get(k, {}).items()}
            for n, e in d.get(k, {}).items():
                merged.setdefault(n, {}).update(e)
            base[k] = merged
        d = base
    d.pop("extends", None)
    d["files"] = files
    return d
