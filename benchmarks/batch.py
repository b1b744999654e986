"""Grading a class with `grade batch`: submissions per second, memory per worker, and the Jupyter-kernel way.

Generates N notebooks (correct answers and named bugs from tests/corpus/mutations.py), times the real
`grade batch DIR -e SET -o OUT -j J` for each exercise set while sampling the memory of its process
tree, then executes a few of the same notebooks in a Jupyter kernel with nbclient, as nbgrader and
otter do. Targets: >= 20 submissions/s, >= 30x faster per submission than the kernel way, <= 1 GiB per
worker; with a floor run, -e ch03 at most 2x the floor's CPU per submission and -e mask at most 1.3x; with
the required work measured, -e mask and -e ch03 at most 1.3x its CPU per submission. It only reports: it
always exits 0.

    python benchmarks/batch.py [-n 200] [-j CPUS] [--sets 3.1 3.1,3.2,mask ch03] [--kernel-sample 5]
                               [--seed 0] [--json PATH]

`--sets floor ...` also grades the class with a check that asks nothing, and says what the other sets'
checks cost above it and what the 20 submissions/s target leaves them. `--sets required ...` also runs, in
one warm process with no sandbox, each submission's cells and the calls of its code that each other set's
checks make (benchmarks/required_work.py), and says what grading costs beyond that: the grader's own cost.
Each set's report ends with where a submission's time goes: its cells, each check, the rest.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import reporting
from as_installed import compile_grader

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "chapter3.py"
BOOK_STYLE = ROOT / "tests" / "corpus" / "book_style.ipynb"
MUTATIONS = ROOT / "tests" / "corpus" / "mutations.py"
TARGET_RATE = 20.0  # submissions per second
TARGET_SPEEDUP = 30.0  # kernel seconds per submission / batch seconds per submission
TARGET_WORKER_BYTES = 1 << 30
# CPU per submission, over the floor's (`--sets floor`): what a set's checks may cost above running the cells
TARGET_FLOOR_RATIO = {"ch03": 2.0, "mask": 1.3}
# CPU per submission, over the student's required work of the same set (`--sets required`): the grader's own cost
TARGET_OWN_COST = {"ch03": 1.3, "mask": 1.3}
SAMPLE_EVERY_S = 0.05
# Pss costs ~5 ms a read for a process that mapped torch (RSS: 0.02 ms): read it on every 20th sample
# only, so that the sampler does not take the CPU it measures.
PSS_EVERY = 20
INSTALL_HINT = 'pip install ".[bench]"  (nbclient and ipykernel)'
# The kernel warns on stderr that it talks over local TCP; that is noise in a report.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]
# `--sets floor`: the same `grade batch`, with one exercise whose only check asks the sandbox nothing. Each
# submission is still forked, its cells run, its sandbox torn down, its page and gradebook row written:
# what grading costs before any check, which no check can take away.
FLOOR = "floor"
FLOOR_EXERCISE = '''"""Written by benchmarks/batch.py for `--sets floor`: a check that asks the sandbox nothing."""
import types

from grader.checks import Exercise, passed

EXERCISE = Exercise(
    id="floor", group="bench", reference=types.ModuleType("nothing"),
    title={"en": "The cells only", "zh": "只运行单元格"},
    statement={"en": "Nothing is checked.", "zh": "不检查任何内容。"},
    messages={"ran": {"en": "The cells ran.", "zh": "单元格已运行。"}},
)


@EXERCISE.check("ran", points=1, title={"en": "The cells ran", "zh": "单元格已运行"})
def ran(sb, ref, rng):
    return passed("ran")
'''
# `--sets required`: no `grade batch`, but the student's required work for each other set, measured by
# required_work.py in one warm process of its own (torch imported once, no sandbox, no judge): each submission's
# cells, then the calls of its code that the set's checks make. The grader cannot make that code cheaper; what a
# batch spends beyond it is the grader's own cost.
REQUIRED = "required"
REQUIRED_WORK = ROOT / "benchmarks" / "required_work.py"


@dataclass(frozen=True)
class Submission:
    """What a generated student handed in, so that the checks know which grades to expect."""

    student: str
    style: str  # "book" (tests/corpus/book_style.ipynb) or "module" (solutions/chapter3.py in cells)
    bugs: tuple[str, ...]

    @property
    def correct(self) -> bool:
        return not self.bugs


# --- the class ------------------------------------------------------------------------------------

def load_mutations() -> Any:
    """tests/corpus is data, not a package: load the bug list from its file."""
    spec = importlib.util.spec_from_file_location("mutations", MUTATIONS)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bug_families(mutations: Any) -> dict[str, list[tuple[str, str, str]]]:
    """The bugs by the exercise they fail: a student's two bugs come from two exercises, whose edits
    never overlap (every cross-family pair applies)."""
    return {"3.1": mutations.SA_BUGS, "3.2": mutations.WRAPPER_BUGS, "3.3": mutations.GPT2_BUGS,
            "mask": mutations.MASK_BUGS}


def plan_class(n: int, correct_share: float, rng: random.Random,
               families: dict[str, list[tuple[str, str, str]]]) -> list[tuple[Submission, list[tuple[str, str]]]]:
    """Exactly round(n * share) correct answers, shuffled among the buggy ones (one or two bugs each)."""
    n_correct = round(n * correct_share)
    kinds = [True] * n_correct + [False] * (n - n_correct)
    rng.shuffle(kinds)
    plan = []
    for i, correct in enumerate(kinds, start=1):
        student = f"student_{i:03d}"
        if correct:
            plan.append((Submission(student, rng.choice(["book", "module"]), ()), []))
            continue
        picked = [rng.choice(families[f]) for f in rng.sample(sorted(families), rng.choice([1, 2]))]
        edits = [(old, new) for _, old, new in picked]
        plan.append((Submission(student, "module", tuple(bug for bug, _, _ in picked)), edits))
    return plan


def module_cells(source: str, cells: int = 4) -> list[str]:
    """Cut a module at its top-level definitions into a few cells, as a student's notebook holds them."""
    blocks: list[list[str]] = [[]]
    for line in source.splitlines(keepends=True):
        if line.startswith(("class ", "def ")) and blocks[-1]:
            blocks.append([])
        blocks[-1].append(line)
    cuts = sorted({round(i * len(blocks) / cells) for i in range(cells + 1)})
    return ["".join("".join(b) for b in blocks[start:end]).strip("\n") + "\n" for start, end in zip(cuts, cuts[1:])]


def notebook_for(submission: Submission, edits: list[tuple[str, str]], mutations: Any) -> Any:
    """A notebook that differs from every other one (a header naming the student), as real ones do."""
    header = nbformat.v4.new_markdown_cell(f"# Chapter 3 exercises\n\n{submission.student}")
    if submission.style == "book":
        nb = nbformat.read(BOOK_STYLE, as_version=4)
        nb.cells.insert(0, header)
        return nb
    source = SOLUTION.read_text(encoding="utf-8")
    for old, new in edits:
        source = mutations.apply(source, old, new)
    cells = [header, *(nbformat.v4.new_code_cell(c) for c in module_cells(source))]
    return nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})


def generate_class(folder: Path, n: int, correct_share: float, seed: int) -> list[Submission]:
    mutations = load_mutations()
    plan = plan_class(n, correct_share, random.Random(seed), bug_families(mutations))
    folder.mkdir(parents=True, exist_ok=True)
    for submission, edits in plan:
        nbformat.write(notebook_for(submission, edits, mutations), folder / f"{submission.student}.ipynb")
    return [submission for submission, _ in plan]


# --- memory of a process tree ---------------------------------------------------------------------

class ProcessTable:
    """pid -> ppid of every process. /proc/<pid>/task/*/children needs CONFIG_PROC_CHILDREN, which
    some kernels (this Firecracker VM's) lack; /proc/<pid>/stat is always there and, read from the
    outside, names processes inside PID namespaces by their outer pids.

    The sampler reads the table every SAMPLE_EVERY_S while the batch runs, and reading every process's stat
    is ~4 ms for ~70 processes: ~10 % of a core taken from the batch it measures. So a process's parent is
    read once, when it is first listed, and again only once that parent is gone (it was handed to another)."""

    def __init__(self) -> None:
        self.known: dict[int, int] = {}

    def read(self) -> dict[int, int]:
        listed = {int(entry.name) for entry in os.scandir("/proc") if entry.name.isdigit()}
        known = {pid: ppid for pid, ppid in self.known.items() if pid in listed and (ppid in listed or ppid == 0)}
        for pid in listed - known.keys():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:  # gone between the listing and the read
                continue
            known[pid] = int(stat.rsplit(")", 1)[1].split()[1])
        self.known = known
        return known


def descendants(root: int, table: dict[int, int]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, ppid in table.items():
        children.setdefault(ppid, []).append(pid)
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def memory_kib(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in KiB; None for a process that is gone or a zombie (no Vm lines)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    values = {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in lines) if k in ("VmRSS", "VmHWM")}
    return (values["VmRSS"], values["VmHWM"]) if len(values) == 2 else None


def pss_kib(pid: int) -> int:
    """Proportional set size: a page shared by k processes counts 1/k in each, so sums add up."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("Pss:")), 0)


@dataclass
class TreeSampler:
    """Samples the batch's process tree from a thread while it runs.

    Everything under the batch process is its judges' cost: the workers, the zygote they share (which the
    batch starts and hands over) and the sandboxes under it. Sums of RSS count the pages a forked child
    shares with its zygote twice, so they overstate that cost; they are the conservative figure the
    target is held to. The sum of VmHWM over live processes also catches a peak that fell between two
    samples; the sum of Pss is what the judges really cost the machine, sampled more rarely."""

    root: int
    parent_rss_kib: int = 0
    parent_hwm_kib: int = 0
    tree_rss_kib: int = 0
    judges_rss_kib: int = 0  # the largest sum of VmRSS under the batch process seen in one sample
    judges_hwm_kib: int = 0
    judges_pss_kib: int = 0  # every PSS_EVERY samples
    most_processes: int = 0
    samples: int = 0
    processes_seen: set[int] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _table: ProcessTable = field(default_factory=ProcessTable)

    def sample(self) -> None:
        table = self._table.read()
        own = memory_kib(self.root)
        if own:
            self.parent_rss_kib = max(self.parent_rss_kib, own[0])
            self.parent_hwm_kib = max(self.parent_hwm_kib, own[1])
        readings = {pid: memory_kib(pid) for pid in descendants(self.root, table)}
        live = {pid: m for pid, m in readings.items() if m}
        rss = sum(m[0] for m in live.values())
        self.judges_rss_kib = max(self.judges_rss_kib, rss)
        self.judges_hwm_kib = max(self.judges_hwm_kib, sum(m[1] for m in live.values()))
        if self.samples % PSS_EVERY == 0:
            self.judges_pss_kib = max(self.judges_pss_kib, sum(pss_kib(pid) for pid in live))
        self.most_processes = max(self.most_processes, len(live))
        self.processes_seen.update(live)
        self.tree_rss_kib = max(self.tree_rss_kib, rss + (own[0] if own else 0))
        self.samples += 1

    def run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(SAMPLE_EVERY_S)

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        return thread

    def stop(self, thread: threading.Thread) -> None:
        self._stop.set()
        thread.join()

    def figures(self, workers: int) -> dict[str, Any]:
        """The peaks; a worker's share is everything under the batch process divided among the workers,
        which all do the same work."""
        return {
            "samples": self.samples,
            "parent_peak_rss_bytes": self.parent_rss_kib * 1024,
            "parent_peak_hwm_bytes": self.parent_hwm_kib * 1024,
            "tree_peak_rss_bytes": self.tree_rss_kib * 1024,
            "judges_peak_rss_sum_bytes": self.judges_rss_kib * 1024,
            "judges_peak_hwm_sum_bytes": self.judges_hwm_kib * 1024,
            "judges_peak_pss_sum_bytes": self.judges_pss_kib * 1024,
            "per_worker_rss_bytes": self.judges_rss_kib * 1024 // workers,
            "per_worker_pss_bytes": self.judges_pss_kib * 1024 // workers,
            "most_processes": self.most_processes,
            "processes_seen": len(self.processes_seen),
        }


# --- the batch ------------------------------------------------------------------------------------

def grade_command(python: str = sys.executable) -> list[str]:
    """The console script beside this interpreter (or `python`), else `python -m grader` (a venv made only to
    hold nbclient has no script of its own, and `grade` on PATH may be a pyenv shim: a bash process and a
    helper around the batch, counted in its time and its tree)."""
    script = Path(python).parent / "grade"
    return [str(script)] if script.exists() else [python, "-m", "grader"]


def children_cpu() -> float:
    """User + sys of every child process waited for so far, and of the processes they waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], log: Path, env: dict[str, str]) -> tuple[int, float]:
    """Exit code and wall seconds, from spawn to exit, its output in the log."""
    with log.open("wb") as sink:
        started = time.perf_counter()
        code = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, env=env).returncode
    return code, time.perf_counter() - started


def timed_batch(grade: list[str], folder: Path, exercise_set: str, out: Path, jobs: int) -> dict[str, Any]:
    """One real `grade batch` into a fresh folder, so that it grades every submission again, timed from spawn to exit
    with nothing sampling it (otter.py and kernel_turns.py take turns with it). PYTHONSAFEPATH: another checkout's
    `python -m grader` run from this one would import this checkout's grader instead."""
    command = [*grade, "batch", str(folder), "-e", exercise_set, "-o", str(out), "-j", str(jobs)]
    cpu = children_cpu()
    code, wall = timed(command, out.with_name(out.name + ".log"), dict(os.environ, NO_COLOR="1", PYTHONSAFEPATH="1"))
    return {"command": command, "out": str(out), "exit_code": code, "wall_s": round(wall, 3),
            "cpu_s": round(children_cpu() - cpu, 3)}


def run_batch(folder: Path, exercise_set: str, out: Path, jobs: int) -> dict[str, Any]:
    """One real `grade batch`, timed from spawn to exit, its process tree sampled all along.

    Its CPU time (user + sys of every process it waited for, down to the sandboxes) is measured too:
    unlike the wall time, it hardly moves when other work shares the machine."""
    extra: list[str] = []
    if exercise_set == FLOOR:
        (out.parent / "floor").mkdir(exist_ok=True)
        (out.parent / "floor" / "floor.py").write_text(FLOOR_EXERCISE, encoding="utf-8")
        extra = ["--exercises", str(out.parent / "floor")]
    command = [*grade_command(), *extra, "batch", str(folder), "-e", exercise_set, "-o", str(out), "-j", str(jobs)]
    log = out.with_name(out.name + ".log")
    env = dict(os.environ, NO_COLOR="1")
    with log.open("wb") as sink:
        cpu_before = children_cpu()
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env)
        sampler = TreeSampler(process.pid)
        thread = sampler.start()
        code = process.wait()
        wall = time.perf_counter() - started
        sampler.stop(thread)
    cpu = children_cpu() - cpu_before
    return {"set": exercise_set, "command": command, "exit_code": code, "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "log_tail": log.read_text(encoding="utf-8", errors="replace")[-2000:], "memory": sampler.figures(jobs)}


def read_grades(out: Path) -> dict[str, tuple[str, float, float]]:
    """student -> (status, total, max_score) from grades.csv, the file an instructor takes away."""
    path = out / "grades.csv"
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        return {row["student"]: (row["status"], float(row["total"] or 0), float(row["max_score"] or 0))
                for row in csv.DictReader(f)}


def graded_runs(out: Path) -> list[dict[str, Any]]:
    """Each graded submission's run as the batch recorded it in results.jsonl."""
    path = out / "results.jsonl"
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["result"] for r in records if r.get("result") and r["result"].get("exercises") is not None]


def time_profile(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a submission's time goes, from each run's own record: its cells (the sandbox started and the
    notebook run), each check (the judge and its sandbox taking turns: one waits while the other works, so
    the wall time is close to the CPU time), and the rest of its run (teardown, the result model). Means in
    seconds over the submissions that were graded."""
    if not runs:
        return {}
    checks: dict[str, float] = {}
    for run in runs:
        for exercise in run["exercises"]:
            for check in exercise["checks"]:
                name = f"{exercise['id']} {check['id']}"
                checks[name] = checks.get(name, 0.0) + check["duration_s"]
    cells = sum(r["cells_s"] for r in runs) / len(runs)
    total = sum(r["duration_s"] for r in runs) / len(runs)
    per_check = {name: seconds / len(runs) for name, seconds in checks.items()}
    return {"runs": len(runs), "run_s": round(total, 4), "cells_s": round(cells, 4),
            "checks_s": {name: round(s, 4) for name, s in sorted(per_check.items(), key=lambda kv: -kv[1])},
            "rest_s": round(total - cells - sum(per_check.values()), 4)}


def check_run(out: Path, submissions: list[Submission], exercise_set: str) -> dict[str, Any]:
    """Was the run real: one row per student, every correct answer at full marks, and (for the whole
    set) every bug costing points."""
    grades = read_grades(out)

    def full(student: str) -> bool:
        status, total, most = grades.get(student, ("missing", 0.0, 1.0))
        return status == "graded" and total == most

    correct_short = [s.student for s in submissions if s.correct and not full(s.student)]
    buggy_full = [s.student for s in submissions if not s.correct and exercise_set == "ch03" and full(s.student)]
    return {"csv_rows": len(grades), "correct_not_full": correct_short, "buggy_at_full": buggy_full,
            "ok": len(grades) == len(submissions) and not correct_short and not buggy_full}


# --- the student's required work ------------------------------------------------------------------

def run_required(folder: Path, sets: list[str]) -> dict[str, Any]:
    """required_work.py on the class for these sets, in one process: by set, its CPU per submission and that
    of the cells and of each check's calls (or why there is none: a check it has no mirror for). The
    process's own CPU is measured inside it, after its warm-up, so its start is left out."""
    command = [sys.executable, str(REQUIRED_WORK), str(folder), "--sets", *sets]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        return {"command": command, "sets": json.loads(done.stdout)}
    except json.JSONDecodeError:
        return {"command": command, "error": f"exit code {done.returncode}: {done.stderr[-2000:]}"}


def own_cost(batches: list[dict[str, Any]], required: dict[str, Any], n: int) -> dict[str, Any]:
    """Each graded set's CPU per submission over its required work's: the grader's own cost, 1 where grading
    cost no more than the student's code. Sets whose work was not measured are left out."""
    costs = {}
    for b in batches:
        work = required.get("sets", {}).get(b["set"], {})
        if not work.get("cpu_s_per_submission"):
            continue
        cpu, floor = b["cpu_s"] / n, work["cpu_s_per_submission"]
        target = TARGET_OWN_COST.get(b["set"])
        costs[b["set"]] = {"cpu_s_per_submission": round(cpu, 4), "required_cpu_s_per_submission": floor,
                           "ratio": round(cpu / floor, 3), "target": target,
                           "met": None if target is None else cpu / floor <= target}
    return costs


# --- the Jupyter-kernel way -----------------------------------------------------------------------

def kernel_seconds(paths: list[Path]) -> list[float] | str:
    """Each notebook run top to bottom in a fresh python3 kernel, errors allowed so that every cell
    runs as in `grade`. This is a floor for nbgrader and otter, which then also run their test cells."""
    try:
        from nbclient import NotebookClient
    except ImportError:
        return f"nbclient is not installed: {INSTALL_HINT}"
    times = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        with tempfile.TemporaryDirectory(prefix="grade-bench-kernel-") as cwd:
            client = NotebookClient(nb, kernel_name="python3", timeout=600, allow_errors=True,
                                    extra_arguments=QUIET_KERNEL, resources={"metadata": {"path": cwd}})
            started = time.perf_counter()
            try:
                client.execute()
            except Exception as exc:  # no kernel spec, kernel died: say so instead of a figure
                return f"kernel run failed ({type(exc).__name__}: {exc}); try: {INSTALL_HINT}"
            times.append(time.perf_counter() - started)
    return times


def kernel_sample(folder: Path, submissions: list[Submission], k: int) -> list[Path]:
    """k notebooks, each style about as often as in the class and at least once where k allows (class_notebook_s
    weighs each style by its share), evenly spaced within it, so correct and buggy answers alike. Evenly spaced
    over the whole class, 5 of a class of 40 held no book-style notebook at all."""
    k = min(k, len(submissions))
    styles: dict[str, list[Submission]] = {}
    for submission in submissions:
        styles.setdefault(submission.style, []).append(submission)
    share = {style: k * len(group) / len(submissions) for style, group in styles.items()}
    quota = {style: max(1, round(share[style])) for style in styles}
    while sum(quota.values()) > k:  # from the style most over its share, one held twice or more first
        quota[max(quota, key=lambda style: (quota[style] > 1, quota[style] - share[style]))] -= 1
    while sum(quota.values()) < k:  # to the one most under it
        quota[max(quota, key=lambda style: share[style] - quota[style])] += 1
    picked = {group[i * len(group) // quota[style]].student for style, group in styles.items()
              for i in range(quota[style])}
    return [folder / f"{s.student}.ipynb" for s in submissions if s.student in picked]


def class_notebook_s(seconds: list[float], sample: list[Path], submissions: list[Submission]) -> float:
    """The kernel way's seconds for the class's mean notebook, from the sample's: each style's notebooks in the
    sample stand for that style's share of the class. The styles cost a kernel differently (a book-style notebook
    has 13 cells, ~4.4 s; a module-style one 4, ~3.1 s), and a few notebooks cannot hold them in the class's
    proportions: 3 of a class of 40 hold one book-style notebook for the class's 9, so their plain mean would
    count that style a third, and their median not at all."""
    style = {s.student: s.style for s in submissions}
    times: dict[str, list[float]] = {}
    for path, taken in zip(sample, seconds):
        times.setdefault(style[path.stem], []).append(taken)
    count = {kind: sum(s.style == kind for s in submissions) for kind in times}
    return sum(count[kind] * statistics.mean(taken) for kind, taken in times.items()) / sum(count.values())


# --- report ---------------------------------------------------------------------------------------

def gib(n_bytes: float) -> str:
    return f"{n_bytes / (1 << 30):.2f} GiB"


def verdict(met: bool | None) -> str:
    return "n/a " if met is None else ("PASS" if met else "MISS")


def summarise(batches: list[dict[str, Any]], kernel_s: float | None, n: int, cores: int,
              required: dict[str, Any] | None) -> dict[str, Any]:
    """The targets per exercise set: what a class costs depends on what is graded (the mask checks run
    dozens of forwards, 3.3 loads GPT-2-sized weights), so each set gets its own verdicts. `kernel_s`: the kernel
    way's seconds for the class's mean notebook (class_notebook_s), None where it was not measured."""
    sets = []
    for b in batches:
        if b["set"] == FLOOR:  # not a way to grade: nothing to hold to the targets
            continue
        per_submission = b["wall_s"] / n
        rss, pss = b["memory"]["per_worker_rss_bytes"], b["memory"]["per_worker_pss_bytes"]
        speedup = kernel_s / per_submission if kernel_s else None
        sets.append({
            "set": b["set"],
            "submissions_per_s": round(n / b["wall_s"], 2),
            "batch_s_per_submission": round(per_submission, 4),
            "speedup": round(speedup, 1) if speedup else None,
            "per_worker_rss_bytes": rss,
            "per_worker_pss_bytes": pss,
            "targets": {
                "submissions_per_s >= 20": n / b["wall_s"] >= TARGET_RATE,
                "speedup >= 30": None if speedup is None else speedup >= TARGET_SPEEDUP,
                "worker RSS sum <= 1 GiB": bool(rss) and rss <= TARGET_WORKER_BYTES,
                "worker Pss sum <= 1 GiB": bool(pss) and pss <= TARGET_WORKER_BYTES,
            },
        })
    return {"kernel_s_per_notebook": round(kernel_s, 3) if kernel_s else None, "sets": sets,
            "checks": checks_budget(batches, n, cores),
            "own_cost": own_cost(batches, required, n) if required is not None else None}


def checks_budget(batches: list[dict[str, Any]], n: int, cores: int) -> dict[str, Any] | None:
    """With a floor run: what each set's checks cost above it, and what the rate target leaves them.
    The floor run's wall time (start-up, every fork, every cell) is spent whatever is checked; of the
    n / 20 s that 20 submissions/s allows, the rest, on every core, is all the checks may use."""
    floor = next((b for b in batches if b["set"] == FLOOR), None)
    if floor is None:
        return None
    floor_cpu = floor["cpu_s"] / n
    return {
        "floor_wall_s": floor["wall_s"],
        "floor_cpu_s_per_submission": round(floor_cpu, 4),
        "budget_cpu_s_per_submission": round((n / TARGET_RATE - floor["wall_s"]) * cores / n, 4),
        "cpu_s_per_submission": {b["set"]: round(b["cpu_s"] / n - floor_cpu, 4) for b in batches if b is not floor},
        "floor_ratio": {b["set"]: round(b["cpu_s"] / floor["cpu_s"], 3) for b in batches if b is not floor},
    }


def print_batches(batches: list[dict[str, Any]], n: int, cores: int) -> None:
    print(f"{'set':<16}{'wall s':>8}{'subs/s':>8}{'CPU s/sub':>10}{'CPU-bound/s':>12}{'mean own s':>11}"
          f"{'parent':>10}{'worker':>11}  check")
    for b in batches:
        own = statistics.mean(b["own_s"]) if b["own_s"] else float("nan")
        check = "ok" if b["check"]["ok"] else f"FAILED {b['check']}"
        cpu = b["cpu_s"] / n
        print(f"{b['set']:<16}{b['wall_s']:>8.2f}{n / b['wall_s']:>8.2f}{cpu:>10.3f}{cores / cpu:>12.2f}{own:>11.3f}"
              f"{gib(b['memory']['parent_peak_hwm_bytes']):>10}"
              f"{gib(b['memory']['per_worker_rss_bytes']):>11}  {check}")
        if b["exit_code"] not in (0, 1):
            print(f"  exit code {b['exit_code']}; end of its output:\n{b['log_tail']}")
    print("  (CPU s/sub: user + sys of the whole tree per submission; CPU-bound/s: the rate on that many"
          f" idle cores ({cores}); mean own s: each submission's duration_s in results.jsonl;"
          " parent: its VmHWM; worker: the peak sum of VmRSS under the batch process, divided among the workers)")


def print_checks(checks: dict[str, Any]) -> None:
    print(f"floor (the cells only, one check that asks nothing): {checks['floor_wall_s']:.2f} s wall,"
          f" {checks['floor_cpu_s_per_submission'] * 1000:.1f} ms CPU per submission; at {TARGET_RATE:g}"
          f" submissions/s the checks may add {checks['budget_cpu_s_per_submission'] * 1000:.1f} ms CPU per submission")
    for name, cpu in checks["cpu_s_per_submission"].items():
        ratio, target = checks["floor_ratio"][name], TARGET_FLOOR_RATIO.get(name)
        print(f"{verdict(None if target is None else ratio <= target)}  -e {name}: {ratio:.2f}x the floor's CPU per"
              f" submission ({cpu * 1000:.1f} ms above it{f'; target <= {target:g}x' if target else ''})")


def print_own_cost(required: dict[str, Any], costs: dict[str, Any]) -> None:
    if "error" in required:
        print(f"the student's required work was not measured: {required['error']}")
        return
    for name, work in required["sets"].items():
        if "error" in work:
            print(f"{verdict(None)}  -e {name}: the student's required work was not measured: {work['error']}")
    for name, cost in costs.items():
        target = cost["target"]
        print(f"{verdict(cost['met'])}  -e {name}: the grader's own cost {cost['ratio']:.2f}x the student's required"
              f" work (CPU per submission {ms(cost['cpu_s_per_submission'])} vs"
              f" {ms(cost['required_cpu_s_per_submission'])}{f'; target <= {target:g}x' if target else ''})")


def print_profile(batch: dict[str, Any], required: dict[str, Any] | None) -> None:
    """Where a submission's time goes, with the student's required work in each part beside it, where measured."""
    profile = batch.get("profile")
    if not profile:
        return
    parts = ((required or {}).get("sets", {}).get(batch["set"]) or {}).get("parts_s", {})

    def part(name: str, seconds: float) -> str:
        return f"{name} {ms(seconds)}" + (f" [{ms(parts[name])}]" if name in parts else "")

    checks = ", ".join(part(name, s) for name, s in profile["checks_s"].items())
    print(f"where a submission's time goes in `-e {batch['set']}` (mean of {profile['runs']} runs,"
          f" each {ms(profile['run_s'])}): {part('cells', profile['cells_s'])}; checks: {checks};"
          f" the rest {ms(profile['rest_s'])}")
    if parts:
        print("  [in brackets: the student's required work in that part, CPU in one warm process]")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def print_memory(batch: dict[str, Any]) -> None:
    memory = batch["memory"]
    print(f"memory of `-e {batch['set']}` ({memory['samples']} samples every {SAMPLE_EVERY_S * 1000:.0f} ms):"
          f" parent peak RSS {gib(memory['parent_peak_rss_bytes'])} (VmHWM {gib(memory['parent_peak_hwm_bytes'])}),"
          f" whole tree peak RSS {gib(memory['tree_peak_rss_bytes'])}")
    print(f"  under it (workers, zygote, sandboxes): peak sum of RSS {gib(memory['judges_peak_rss_sum_bytes'])},"
          f" of VmHWM {gib(memory['judges_peak_hwm_sum_bytes'])}, of Pss {gib(memory['judges_peak_pss_sum_bytes'])};"
          f" up to {memory['most_processes']} processes at once, {memory['processes_seen']} seen")


def print_report(figures: dict[str, Any]) -> None:
    n, s = figures["n"], figures["summary"]
    print(f"{n} notebooks ({figures['n_correct']} correct), seed {figures['seed']}, -j {figures['jobs']},"
          f" {figures['cpus']} CPUs, python {figures['python']}")
    # Other work on the machine slows every figure down; the load average says how much there was.
    load = figures["load_average"]
    print(f"load average (1, 5, 15 min): before {', '.join(f'{x:.1f}' for x in load['before'])};"
          f" after {', '.join(f'{x:.1f}' for x in load['after'])}")
    command = next((b for b in figures["batches"] if b["set"] != FLOOR), figures["batches"][0])["command"]
    print(f"command: {' '.join(command[:command.index('batch') + 1])} DIR -e SET -o OUT -j {figures['jobs']}")
    print_batches(figures["batches"], n, figures["cores"])
    if s["checks"]:
        print_checks(s["checks"])
    required = figures["required"]
    if required is not None:
        print_own_cost(required, s["own_cost"])
    for batch in figures["batches"]:
        print_profile(batch, required)
    for batch in figures["batches"]:
        print_memory(batch)
    kernel = figures["kernel"]
    if isinstance(kernel["seconds"], list):
        print(f"kernel way (nbclient, {len(kernel['seconds'])} notebooks, one kernel each, sequential):"
              f" {s['kernel_s_per_notebook']} s for the class's mean notebook, each style weighted by its share of"
              f" the class ({', '.join(f'{t:.2f}' for t in kernel['seconds'])})")
    else:
        print(f"kernel way skipped: {kernel['seconds']}")
    for each in s["sets"]:
        print_verdicts(each, s["kernel_s_per_notebook"])


def print_verdicts(each: dict[str, Any], kernel_s: float | None) -> None:
    targets, name = each["targets"], f"-e {each['set']}:"
    print(f"{verdict(targets['submissions_per_s >= 20'])}  {name} {each['submissions_per_s']} submissions/s"
          f" (target >= {TARGET_RATE:g})")
    if each["speedup"] is None:
        print(f"{verdict(None)}  {name} the kernel way was not measured (target >= {TARGET_SPEEDUP:g}x)")
    else:
        print(f"{verdict(targets['speedup >= 30'])}  {name} {each['speedup']}x the kernel way per submission"
              f" ({kernel_s} s vs {each['batch_s_per_submission']} s; target >= {TARGET_SPEEDUP:g}x)")
    # RSS counts every page a fork shares once per process (torch's libraries sit in each worker, the
    # zygote and each sandbox); Pss splits each shared page among its sharers, so the workers' Pss add up
    # to the machine's memory. Both are shown.
    print(f"{verdict(targets['worker RSS sum <= 1 GiB'])}  {name} {gib(each['per_worker_rss_bytes'])}"
          " peak sum of RSS per worker (target <= 1 GiB)")
    print(f"{verdict(targets['worker Pss sum <= 1 GiB'])}  {name} {gib(each['per_worker_pss_bytes'])}"
          " peak sum of Pss per worker (target <= 1 GiB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--submissions", type=int, default=200, help="notebooks to generate (default 200)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                        help="judge workers, passed to grade batch -j (default: the CPU count)")
    parser.add_argument("--sets", nargs="+", default=["3.1", "3.1,3.2,mask", "ch03"],
                        help="exercise sets, one batch each, `floor` for the cells alone, `required` for the"
                             " student's required work of each other set (default: 3.1 3.1,3.2,mask ch03)")
    parser.add_argument("--correct", type=float, default=0.5, help="share of correct answers (default 0.5)")
    parser.add_argument("--kernel-sample", type=int, default=5,
                        help="notebooks to execute with nbclient, 0 to skip (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the class's mix of answers (default 0)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if all(exercise_set == REQUIRED for exercise_set in args.sets):
        parser.error(f"`{REQUIRED}` is measured beside the sets it is compared with: name one")
    n = max(1, args.submissions)

    compile_grader(sys.executable)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="grade-bench-batch-") as tmp:
        folder = Path(tmp) / "class"
        submissions = generate_class(folder, n, args.correct, args.seed)
        batches = []
        graded = [exercise_set for exercise_set in args.sets if exercise_set != REQUIRED]
        for i, exercise_set in enumerate(graded):
            out = Path(tmp) / f"out{i}"
            batch = run_batch(folder, exercise_set, out, args.jobs)
            ran = batch["exit_code"] in (0, 1)  # 2: it could not run at all
            batch["check"] = check_run(out, submissions, exercise_set) if ran else {"ok": False}
            runs = graded_runs(out)
            batch["own_s"] = [float(run["duration_s"]) for run in runs]  # next to the batch's wall time
            batch["profile"] = time_profile(runs)
            batches.append(batch)
        worked = [exercise_set for exercise_set in graded if exercise_set != FLOOR]
        required = run_required(folder, worked) if REQUIRED in args.sets and worked else None
        sample = kernel_sample(folder, submissions, args.kernel_sample) if args.kernel_sample > 0 else []
        kernel = kernel_seconds(sample) if sample else "--kernel-sample 0"
        kernel_s = class_notebook_s(kernel, sample, submissions) if isinstance(kernel, list) else None

    cores = min(args.jobs, os.cpu_count() or 1)  # what the workers can use at once
    figures = {
        "n": n, "n_correct": sum(s.correct for s in submissions), "seed": args.seed, "jobs": args.jobs,
        "cpus": os.cpu_count(), "cores": cores, "python": sys.version.split()[0],
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "submissions": [{"student": s.student, "style": s.style, "bugs": list(s.bugs)} for s in submissions],
        "batches": batches,
        "required": required,
        "kernel": {"notebooks": [p.name for p in sample], "seconds": kernel},
        "summary": summarise(batches, kernel_s, n, cores, required),
    }
    reporting.write_figures(figures, args.json)
    print_report(figures)
    return 0


if __name__ == "__main__":
    reporting.run(main)
