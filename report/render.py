"""The report of a results folder (report/generate is its command line):
the Report, which holds the folder's runs, plan, environment, experiment
and metrics, renders the header, the claims, each section by its kind
(sections.py), the failed runs, the caveats, the appendix and the
environment."""

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))

from slicebench import spec as specs  # noqa: E402
from slicebench.run import RunError  # noqa: E402

import analysis as an  # noqa: E402
import claims  # noqa: E402
import plots  # noqa: E402
import results as rs  # noqa: E402
import sections  # noqa: E402
from fmt import TESTBED, num, res_pct, run_label, share, table  # noqa: E402
from results import ReportError  # noqa: E402


def git_state(path):
    """(the commit, whether path differs from it) of the project's checkout,
    or None outside a git checkout."""
    import subprocess
    top = os.path.join(here, "..")
    try:
        head = subprocess.run(["git", "-C", top, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        diff = subprocess.run(["git", "-C", top, "status", "--porcelain", "--", os.path.abspath(path)],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head, bool(diff)


def override_sections(exp, path):
    """The folder's experiment with its sections (and only they) taken from
    the report specification at path (report/specs/NAME.toml); the sentence
    the header says it with."""
    if not os.path.isfile(path):
        raise ReportError(f"--sections: no such report specification: {path}")
    try:
        new = specs.load(path)
    except RunError as e:
        raise ReportError(str(e))
    st = git_state(path)
    at = "" if st is None else (f" at commit {st[0]}" + (" with uncommitted changes" if st[1] else ""))
    rel = os.path.relpath(os.path.abspath(path), os.path.join(here, ".."))
    return dict(exp, section=new.get("section", {})), rel, (
        f"What ran: its `experiment.json` (experiment {exp.get('name', '?')}); the report's sections come from "
        f"`{rel}`{at}, not from that copy (`report/generate --sections`): the runs, the plan, the claims and the "
        f"caveats are the folder's.")


def load_experiment(d, env):
    """The experiment a results folder ran: (its dict, where it came from,
    a sentence for the header when it is not the folder's own copy)."""
    path = os.path.join(d, "experiment.json")
    if os.path.isfile(path):
        try:
            with open(path) as f:
                exp = json.load(f)
        except ValueError as e:
            raise ReportError(f"{rs.rel(path)}: not valid JSON ({e})")
        if not isinstance(exp, dict):
            raise ReportError(f"{rs.rel(path)}: not an experiment (a JSON object)")
        return exp, path, None
    # A folder from before experiment files: its preset's report
    # specification as it is now.
    preset = env.get("preset", "default")
    src = specs.path_of(preset)
    if not os.path.isfile(src):
        src = specs.path_of("default")
    try:
        exp = specs.load(src)
    except RunError as e:
        raise ReportError(str(e))
    rel = os.path.relpath(src, os.path.join(here, ".."))
    return exp, rel, (f"This folder has no `experiment.json` (it predates experiment files): its sections and "
                      f"claims come from `{rel}` as it is now.")


class Report:
    """A results folder's report: its runs, plan, environment, experiment
    and metrics, and the output as it is rendered (p())."""

    def __init__(self, d, sections=None, draw=True):
        plots.DRAW = draw
        self.d = d.rstrip("/")
        self.name = os.path.basename(self.d)
        self.env = rs.load_environment(self.d)
        self.rows, self.meta = rs.load_plan(self.d, self.env)
        self.runs = rs.load_runs(self.d, self.rows)
        self.metrics = rs.load_all_metrics()
        self.exp, self.exp_src, self.exp_note = load_experiment(self.d, self.env)
        if sections:
            self.exp, self.exp_src, self.exp_note = override_sections(self.exp, sections)
        self.vw = rs.vcpu_wait(self.d)
        self.traces = rs.load_traces(self.d, self.runs)
        self.plots = os.path.join(self.d, "plots")
        self._start()

    @classmethod
    def of_records(cls, d, runs, exp, env=None, meta=None, traces=None, vw=None, draw=True):
        """A report of runs held in memory (results.Run.of: rows and their
        JSON), for the unit tests of the section kinds: D is where plots
        (and any file a kind reads) go; exp the report specification."""
        self = cls.__new__(cls)
        plots.DRAW = draw
        self.d, self.name = d, os.path.basename(d)
        self.env = dict(env or {})
        self.runs = list(runs)
        self.rows = [r.row for r in self.runs]
        self.meta = dict(meta or {})
        self.metrics = rs.load_all_metrics()
        self.exp, self.exp_src, self.exp_note = exp, os.path.join(d, "spec.toml"), None
        self.vw, self.traces = dict(vw or {}), dict(traces or {})
        self.plots = os.path.join(d, "plots")
        self._start()
        return self

    def _start(self):
        # The testbeds of the plan, the parallel one first; with several,
        # every claim and table is given per testbed.
        self.testbeds = sorted({r["testbed"] for r in self.rows if r["testbed"]}, key=lambda t: t != "parallel")
        self.out = []
        self.resolution = {}      # bench -> sentences for the caveats
        self.section_runs = {}    # comparison id -> primary metric per run id

    def p(self, *lines):
        self.out.extend(lines)

    def metric(self, name, where):
        if name not in self.metrics:
            raise ReportError(f"{rs.rel(where)}: unknown metric '{name}' (report/metrics.ini, bench/NAME/metrics.ini)")
        return self.metrics[name]

    def plot_link(self, fname, alt):
        if not plots.DRAW:
            return "(plot not drawn: `report/generate --no-plots`)"
        return f"![{alt}](../results/{self.name}/plots/{fname})"

    def done(self, sel):
        return [r for r in self.runs if r.data is not None and rs.matches(r.row, sel)]

    # -- values of a set of runs
    def values(self, runs, m):
        return [m.value(r) for r in runs]

    def by_repeat(self, runs, m):
        return {r["repeat"]: m.value(r) for r in runs}

    def boots(self, runs):
        """The guest boot of each run (None where the folder did not record it)."""
        return [r.boot for r in runs]

    def compare(self, base, arm, m):
        a, b = self.values(base, m), self.values(arm, m)
        ba, bb = self.boots(base), self.boots(arm)
        c = an.poisson(a, b, boots_a=ba, boots_b=bb) if m.kind == "count" else an.compare(a, b, ba, bb)
        ra, rb = self.by_repeat(base, m), self.by_repeat(arm, m)
        c["paired"] = an.paired([(ra[k], rb[k]) for k in sorted(set(ra) & set(rb))])
        return c

    # -- the parts
    def header(self):
        e = self.env
        planned = len(self.rows)
        finished = sum(1 for r in self.runs if r.data is not None)
        if self.meta.get("legacy"):
            order = ("**Run order: fixed.** This folder's plan predates the typed plan: within each repeat "
                     "the points ran in the plan's order, `off` first. Its columns were recovered from the "
                     "run IDs and arguments; the fresh-boot unused-cost runs from `raw/`.")
        else:
            order = (f"Within each repeat the runs ran in a random order (seed {self.meta.get('seed', '?')}, "
                     "recorded in the plan's order), so drift over the sweep spreads over every arm.")
        beds = []
        for tb in self.testbeds or ["parallel"]:
            rows = [r for r in self.rows if (r["testbed"] or "parallel") == tb]
            reps = max((r["repeat"] for r in rows), default=0)
            # The lock table's window where it ran, else every bench's.
            lt = [r for r in rows if r["bench"] == "locktable"] or rows
            durs = sorted({d for r in lt for d in [rs._arg(r["argv"], "--duration")] if d}, key=float)
            dur = "/".join(durs) if durs else e.get("duration_s", "?")
            if rows and all(r["boot"] == "fresh" for r in rows):
                beds.append(f"on the {tb} testbed {len(rows)} fresh boots"
                            + (", 1 vCPU under single-threaded TCG with icount (shift "
                               f"{e.get('precise_icount_shift', '?')})" if tb == "precise" else ""))
            elif tb == "precise":
                beds.append(f"on the precise testbed up to {reps} repeats of {dur} s of guest time, 1 vCPU "
                            f"under single-threaded TCG with icount (shift {e.get('precise_icount_shift', '?')})")
            else:
                beds.append(f"on the parallel testbed up to {reps} repeats of {dur} s, {e['vcpus']} vCPUs under "
                            f"**{e['accelerator']}**")
        self.p(f"# slicebench report: {e['run_name']}", "",
               f"Generated by `report/generate` from `results/{self.name}/`: {finished} of {planned} planned runs "
               f"finished; preset {e.get('preset', '?')}: {'; '.join(beds)}; {e['host_cpus']} host CPUs. "
               f"Guest kernel `{e['guest_kernel_release']}`. {order} "
               + (self.exp_note or f"What ran and what is compared: its `experiment.json` (experiment "
                  f"{self.exp.get('name', '?')})."), "",
               self.provenance(), "",
               *self.since_previous(),
               *self.bound_violations(),
               "How to read it: tables give `mean ± σ` over the runs. A **change** is mean(arm) / mean(baseline) - 1 "
               "with its 95% confidence interval (Fieller's, with Welch's degrees of freedom; \"unbounded\" when the "
               "baseline's own mean is too uncertain). **Paired** is the geometric mean of arm / baseline over the runs "
               "of the same repeat, with its 95% CI, and how many of those ratios are above 1. p is Welch's two-sided "
               "t-test; **Holm** adjusts it for the number of comparisons in the same table. Direction: "
               "throughput is higher-is-better, waits and latencies lower-is-better (`metrics.ini`). A change's "
               "**verdict** comes from its **simultaneous** interval: each table (the claims table, each comparison "
               "table, each alternatives table) is one family, and its m changes get intervals at 1 - 0.05/m "
               "(Bonferroni), so that all of them hold at once with 95% probability. It is better or worse when "
               "that interval excludes 0 (on the side its direction says is better; higher or lower for a count), "
               "no difference resolved when it holds 0, and **too few runs** below 3 runs on a side. Counts per "
               "run (preempted holds, expired grants) are compared as Poisson rates, with the exact interval of "
               "the rate ratio.", "",
               self.boots_sentence(), "")
        if len(self.testbeds) > 1:
            res = []
            for tb in self.testbeds:
                so = self.done({"bench": "sleep-overshoot", "testbed": tb})
                if so:
                    m50, m99 = self.metrics["so_p50"], self.metrics["so_p99"]
                    res.append(f"on {TESTBED[tb].replace('the ', 'the ', 1)} a 50 us sleep overshoots by "
                               f"{m50.value(so[0]):.1f} us at p50 and {m99.value(so[0]):.1f} us at p99")
            self.p("**Which testbed answers what.** The parallel testbed runs the guest's vCPUs on the host's cores "
                   "at once, as SMP hardware does, but its timers fire late and the host preempts its vCPUs: it "
                   "can answer throughput claims, not questions of microseconds. The precise testbed counts guest "
                   "instructions as time (QEMU's icount), so its timers are exact and host load cannot change a "
                   "result, but it has one vCPU: it answers extension length, the cost to an RT task at microsecond "
                   "resolution and the fast path's cost in instructions, and gives low-variance throughput. "
                   + ("Measured here: " + "; ".join(res) + "." if res else ""), "")

    def boots_sentence(self):
        """How many guest boots each testbed's sweep ran in, and how the boot
        enters the analysis."""
        per = []
        for tb in self.testbeds or ["parallel"]:
            runs = [r for r in self.runs if r.data is not None and (r["testbed"] or "parallel") == tb
                    and r["boot"] != "fresh"]
            if not runs:
                continue
            ids = {r.boot for r in runs}
            if None in ids:
                per.append(f"on {TESTBED.get(tb, tb)} not recorded (this folder predates raw/ID.boot)")
            else:
                per.append(f"on {TESTBED.get(tb, tb)} {len(ids)}")
        if not per:
            return ""
        design = self.meta.get("boots")
        return ("**Boots.** A point's repeats are spread over guest boots"
                + (f" ({design} per testbed: repeat r in boot (r - 1) mod {design} + 1)" if design and design > 1
                   else " (the plan asked for one per testbed)" if design else "")
                + "; the boots that ran the sweep: " + "; ".join(per) + ". Where an arm's runs come from two or "
                "more boots, the boot is a random effect: the variance of the arm's mean has a between-boot and a "
                "within-boot part (one-way ANOVA components, the between part truncated at 0; Satterthwaite's "
                "degrees of freedom), so that a change's interval holds the spread between boots, and with equal "
                "runs per boot the boots' means are the units. The claims table gives each side's boots and "
                "the share of its variance between boots; a claim with one boot on a side is marked not "
                "replicated. Counts are compared as Poisson rates without a boot term.")

    # Benchmarks whose runs measure an RT task's worst wakeup, and the
    # metric (in us) that holds it.
    WORST_WAKEUP = {"cyclictest": "ct_max", "latency": "fifo_max"}

    def bound_violations(self):
        """Every run under the bounded RT policy whose worst RT wakeup
        exceeded the extension length, the policy's bound, each on its
        own line whatever the averages say; else one line saying how many
        runs were checked. [] when no run has such a bound."""
        checked, bad = 0, []
        for r in self.runs:
            mname = self.WORST_WAKEUP.get(r["bench"])
            if (r.data is None or mname is None or r["rt_policy"] != "bounded" or not r["grant"]
                    or r["ext_ns"] is None):
                continue
            try:
                worst = self.metrics[mname].value(r)
            except rs.ReportError:
                continue
            checked += 1
            if worst * 1000 > r["ext_ns"]:
                bad.append((r, worst))
        if not checked:
            return []
        lines = []
        for r, worst in bad:
            # The same benchmark's worst with grants off, for scale.
            off = [self.metrics[self.WORST_WAKEUP[r["bench"]]].value(x) for x in self.runs
                   if x.data is not None and x["bench"] == r["bench"] and x["testbed"] == r["testbed"]
                   and not x["grant"]]
            lines += [f"**Bound violated:** `{r.id}` ({TESTBED.get(r['testbed'] or 'parallel', r['testbed'])}, "
                      f"{r['abi']}, bounded RT policy, {r['ext_ns'] / 1000:g} us extensions): its worst RT wakeup "
                      f"took {worst:,.0f} us, above the policy's bound of {r['ext_ns'] / 1000:g} us"
                      + (f" (with grants off the worst of {len(off)} run(s) was {max(off):,.0f} us)" if off else "")
                      + ".", ""]
        if not bad:
            lines = [f"No RT wakeup exceeded the bounded policy's bound (the extension length) in the "
                     f"{checked} run(s) under it.", ""]
        return lines

    # What makes two hosts the same testbed, as far as a TCG guest's speed goes.
    HOST_KEYS = ("host_cpu_model", "host_cpus", "host_kernel", "host_clocksource", "qemu_version", "accelerator")

    def since_previous(self):
        """Against the previous reference this run names (the environment's
        previous_reference, from run-all --previous): whether the host
        changed, and how far each claim's baseline and arm means moved."""
        name = self.env.get("previous_reference")
        if not name:
            return []
        pd = os.path.join(os.path.dirname(self.d), name)
        if not os.path.isdir(pd):
            return [f"**Previous reference `results/{name}` is not here**: nothing to compare the host with.", ""]
        prev = Report(pd)
        changed = [f"{k.replace('_', ' ')}: {prev.env.get(k, 'not recorded')} → {self.env.get(k, 'not recorded')}"
                   for k in self.HOST_KEYS if prev.env.get(k, "not recorded") != self.env.get(k, "not recorded")]
        lines = []
        if changed:
            lines += [f"**The host changed since the previous reference** (`results/{name}`): "
                      + "; ".join(changed) + ". Figures measured in wall time move with it; what moved:", ""]
        else:
            lines += [f"Same host as the previous reference (`results/{name}`); what moved since:", ""]
        rows = []
        for cid, c in self.exp.get("claim", {}).items():
            try:
                m = self.metric(c["metric"], self.exp_src)
            except ReportError:
                continue
            for tb in self.testbeds or [None]:
                for what in ("baseline", "arm"):
                    sel = rs.parse_selector(c[what], self.exp_src, f"[{cid}] {what}", self.meta)
                    if tb is not None:
                        sel["testbed"] = tb
                    now = [m.value(r) for r in self.done(sel)]
                    try:
                        psel = rs.parse_selector(c[what], self.exp_src, f"[{cid}] {what}", prev.meta)
                    except ReportError:
                        continue
                    if tb is not None:
                        psel["testbed"] = tb
                    then = [m.value(r) for r in prev.done(psel)]
                    if not now or not then:
                        continue
                    a, b = sum(then) / len(then), sum(now) / len(now)
                    rows.append([f"{c['claim'].split(':')[0]} ({what}: `{c[what]}`)", TESTBED.get(tb or "parallel", tb),
                                 f"{num(a, m.decimals)} → {num(b, m.decimals)} {m.unit}",
                                 f"{100 * (b / a - 1):+.1f}%" if a else "-"])
        if rows:
            lines += [table(["figure", "testbed", "previous → now (means)", "moved"], rows), ""]
        else:
            lines += ["No claim's baseline or arm was measured in both.", ""]
        return lines

    def provenance(self):
        """Where the runs come from, and on which host: a reference is read
        as the commit it names, so a run from a tree that differed from
        its commit is flagged here, not in a footnote."""
        e = self.env
        host = (f"Host: {e.get('host_cpu_model', 'unknown CPU')}, {e.get('host_cpus', '?')} CPUs, kernel "
                f"{e.get('host_kernel', 'unknown')}, clocksource {e.get('host_clocksource', 'not recorded')}; "
                f"{e.get('qemu_version', 'QEMU version not recorded')}.")
        if e.get("precise_qemu"):
            # The precise testbed runs the project's lockstep QEMU (qemu/).
            host += (f" Precise testbed: {e.get('precise_vcpus', '?')} vCPU(s), icount shift "
                     f"{e.get('precise_icount_shift', '?')}, lockstep quantum {e.get('precise_quantum', '?')} "
                     f"instructions, {e['precise_qemu']}.")
        done = [r for r in self.runs if r.data is not None]
        dirty = [r for r in done if r.commit[1]]
        commits = sorted({r.commit[0].split("-dirty")[0] for r in done if r.commit[0]})
        unknown = [r for r in done if r.commit[0] is None]
        ref = e.get("reference") == "yes"
        if dirty:
            ids = ", ".join(f"`{r.id}`" for r in dirty[:8]) + (", ..." if len(dirty) > 8 else "")
            prov = (f"**Not from a clean tree: {len(dirty)} of {len(done)} runs were recorded from a working tree "
                    f"that differed from its commit** ({ids}): they are not a reference for that commit.")
        elif ref:
            prov = f"**Reference run** from the clean commit {', '.join(commits) or e.get('slicebench_commit', '?')}."
        else:
            prov = f"Every run with a header came from a clean tree (commit {', '.join(commits) or '?'})."
        if len(commits) > 1:
            prov += f" The runs name {len(commits)} commits: {', '.join(commits)}."
        if unknown:
            prov += f" {len(unknown)} run(s) write no provenance header (their tools' JSON has none)."
        return prov + " " + host

    def failed(self):
        bad = [r for r in self.runs if r.data is None]
        if not bad:
            return
        self.p("## Failed runs", "",
               f"{len(bad)} planned run(s) have no result; the points they belong to show fewer runs than planned "
               "beside their numbers.", "",
               table(["run", "why"], [[f"`{r.id}`", r.failed] for r in bad]), "")

    def caveats(self):
        e = self.env
        self.p("## How far to trust the numbers", "")
        if os.path.isfile(os.path.join(self.d, "forced-resumes.txt")):
            with open(os.path.join(self.d, "forced-resumes.txt")) as f:
                fr = [x.strip() for x in f if x.strip()]
            if fr:
                self.p("- **Mixed provenance.** This folder was resumed with `--force-resume` by another commit or "
                       "kernel; runs from before and after may not be comparable:")
                self.p(*[f"  - {x.replace('forced_resume: ', '')}" for x in fr])
        if self.testbeds == ["precise"]:
            # Only the precise testbed ran: the parallel one's accelerator
            # and vCPUs (in the environment) describe no run here.
            self.p("- Only the precise testbed ran: 1 vCPU, single-threaded TCG with icount, where guest time "
                   "counts guest instructions; host load changes the wall time, not the figures.")
        elif e["accelerator"] == "tcg":
            self.p("- Accelerator: **tcg**. Every guest instruction is translated: the guest runs several times "
                   "slower than native, and its timers fire late (see the README's harness measurements).")
        else:
            self.p(f"- Accelerator: **{e['accelerator']}**.")
        if self.testbeds == ["precise"]:
            pass
        elif int(e["vcpus"]) > int(e["host_cpus"]):
            self.p(f"- {e['vcpus']} vCPU threads share {e['host_cpus']} host CPU(s): the host time-shares the vCPUs.")
        else:
            self.p(f"- {e['vcpus']} vCPU threads on {e['host_cpus']} host CPU(s).")
        # The experiment's caveats (report/caveats.py and bench/NAME/report.py), in its order.
        for cid, spec in self.exp.get("caveat", {}).items():
            kind = spec.get("kind")
            if kind not in sections.CAVEATS:
                raise ReportError(f"{rs.rel(self.exp_src)}: [caveat.{cid}]: unknown kind '{kind}' "
                                  f"({', '.join(sorted(sections.CAVEATS))})")
            sections.CAVEATS[kind](self, cid, spec)
        if self.resolution:
            parts = []
            for bench, items in self.resolution.items():
                hw = sorted(h for _, hs, _ in items for h in hs)
                bw = sorted(h for _, _, bs in items for h in bs)
                bits = []
                if hw:
                    bits.append(f"changes against its baseline under about ±{res_pct(hw[len(hw) // 2])}%")
                if bw:
                    bits.append(f"differences between arms under about ±{res_pct(bw[len(bw) // 2])}%")
                if bits:
                    parts.append(f"{bench}: {' and '.join(bits)}")
            if parts:
                self.p("- **What each benchmark can resolve at its observed spread** (the median half-width of the "
                       "95% CI of a change at zero effect, over its comparisons): " + "; ".join(parts) +
                       ". A smaller difference is not evidence of no difference; it is below what these runs can see.")
        if e.get("host_loadavg_before"):
            self.p(f"- Host load average before the sweep: {e['host_loadavg_before']}; after: "
                   f"{e.get('host_loadavg_after', '-')}.")
        self.p("")

    def appendix(self):
        vw = self.vw
        prim = {}
        for cid, d in self.section_runs.items():
            for rid, (m, v) in d.items():
                prim.setdefault(rid, (m, v))
        rows = []
        for r in sorted(self.runs, key=lambda r: r["order"]):
            m = prim.get(r.id)
            val = "failed: " + r.failed if r.data is None else (f"{num(m[1], m[0].decimals)} {m[0].unit}" if m else "")
            w = share(vw[r.id][0]) if r.id in vw else "-"
            rows.append([f"`{r.id}`", r["order"], r["repeat"], run_label(r.row), val, w])
        self.p("## Appendix: every run", "",
               "In the order they ran, with the primary metric of their comparison and the share of the run's wall "
               "time the host kept a vCPU thread waiting.", "",
               table(["run", "order", "repeat", "arm", "value", "host vCPU wait"], rows), "")

    def environment(self):
        rows = [[k, "`" + v.replace("|", "\\|") + "`"] for k, v in self.env.items()]
        self.p("## Environment", "", table(["", ""], rows), "")

    def render(self):
        self.header()
        claims.claims(self, self.exp.get("claim", {}))
        for sid, spec in self.exp.get("section", {}).items():
            kind = spec.get("kind", "against-baselines" if spec.get("baselines") else "table")
            if kind not in sections.KINDS:
                raise ReportError(f"{rs.rel(self.exp_src)}: [section.{sid}]: unknown kind '{kind}' "
                                  f"({', '.join(sorted(sections.KINDS))})")
            sections.KINDS[kind](self, sid, spec)
        self.failed()
        self.caveats()
        self.appendix()
        self.environment()
        return "\n".join(self.out) + "\n"
