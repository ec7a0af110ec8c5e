"""The report's plots, with matplotlib: every run a dot, means with 95% CI bars,
legends outside the data. DRAW False (report/generate --no-plots) draws
nothing and imports no matplotlib."""

import os

import numpy as np

DRAW = True
COLORS = []
plt = None


def _start():
    """matplotlib, imported at the first plot (Agg: no display)."""
    global plt
    if plt is None:
        os.environ.setdefault("MPLBACKEND", "Agg")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
        plt = matplotlib.pyplot
        COLORS[:] = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def _plot(fn):
    """A plot: drawn only when DRAW, with matplotlib started first."""
    def draw(*args, **kwargs):
        if DRAW:
            _start()
            fn(*args, **kwargs)
    draw.__doc__ = fn.__doc__
    return draw


def _jitter(n, width=0.18, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-width, width, n) if n > 1 else np.zeros(n)


def _save(fig, path):
    # Whichever section draws first makes the folder.
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)


@_plot
def strip(path, title, ylabel, arms):
    """arms: [(label, values, mean, ci or None)], one column each."""
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(arms) + 2), 4))
    for i, (label, vals, mean, ci) in enumerate(arms):
        c = COLORS[i % len(COLORS)]
        ax.scatter(i + _jitter(len(vals), seed=i), vals, s=18, color=c, alpha=0.7, zorder=3)
        if mean is not None:
            ax.hlines(mean, i - 0.3, i + 0.3, color="black", lw=1.5, zorder=4)
        if ci is not None:
            ax.errorbar(i + 0.32, mean, yerr=[[mean - ci[0]], [ci[1] - mean]], color="black",
                        capsize=4, lw=1, zorder=4)
    ax.set_xticks(range(len(arms)))
    ax.set_xticklabels([a[0] for a in arms], rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.set_ylim(bottom=0)
    _save(fig, path)


@_plot
def sweep(path, title, xlabel, ylabel, series, band=None, xlog=False):
    """series: {label: [(x, values, mean, ci)]}: dots per run, mean and CI bars, a line
    through the means; band: (label, mean, ci) drawn across."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    xs = sorted({p[0] for pts in series.values() for p in pts}, key=lambda x: (x is None, x or 0))
    pos = {x: i for i, x in enumerate(xs)}
    k = len(series)
    for j, (label, pts) in enumerate(series.items()):
        c = COLORS[j % len(COLORS)]
        off = (j - (k - 1) / 2) * (0.6 / max(k, 1))
        pts = sorted(pts, key=lambda p: p[0])
        for x, vals, mean, ci in pts:
            ax.scatter(pos[x] + off + _jitter(len(vals), 0.04, seed=j), vals, s=12, color=c, alpha=0.55, zorder=3)
            if ci is not None:
                ax.errorbar(pos[x] + off, mean, yerr=[[mean - ci[0]], [ci[1] - mean]], color=c, capsize=3,
                            lw=1.2, zorder=4)
        ax.plot([pos[p[0]] + off for p in pts], [p[2] for p in pts], "-o", color=c, ms=4, lw=1.2,
                label=label, zorder=4)
    if band is not None:
        label, mean, ci = band
        ax.axhline(mean, color="grey", ls="--", lw=1, label=label)
        if ci is not None:
            ax.axhspan(ci[0], ci[1], color="grey", alpha=0.15)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(["-" if x is None else f"{x:g}" for x in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    _save(fig, path)


@_plot
def ccdf(path, title, xlabel, arms):
    """arms: {label: [[(x, P(X > x)), ...] per run]}, log-log, one thin line per run."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for j, (label, runs) in enumerate(arms.items()):
        c = COLORS[j % len(COLORS)]
        for i, pts in enumerate(runs):
            pts = [(x, y) for x, y in pts if x > 0 and y > 0]
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, alpha=0.6, lw=1,
                    label=label if i == 0 else None, marker="o" if len(pts) < 10 else None, ms=2.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of acquisitions waiting longer")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    _save(fig, path)


@_plot
def histograms(path, title, xlabel, groups):
    """groups: {label: values}, log-spaced bins, one step outline each."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    allv = [v for vals in groups.values() for v in vals if v > 0]
    if allv:
        bins = np.logspace(np.log10(min(allv)), np.log10(max(allv) * 1.01), 40)
        for j, (label, vals) in enumerate(groups.items()):
            ax.hist([v for v in vals if v > 0], bins=bins, histtype="step", lw=1.5,
                    color=COLORS[j % len(COLORS)], label=f"{label} ({len(vals)})")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("grants")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    _save(fig, path)
