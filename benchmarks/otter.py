"""otter-grader beside `grade batch` on one class, in one run: seconds per submission, and the same verdicts.

Why: the grader is meant to grade a class at least 50x faster per submission than the way courses grade notebooks
today, and otter-grader is that way. So otter is measured here doing the same job on the same notebooks on the same
machine. The job is what a teacher would write for the book's causal attention: an otter master notebook (built
below, `otter assign` turns it into the autograder zip) whose one question holds three hidden tests of the student's
`CausalAttention(d_in, d_out, context_length, dropout, qkv_bias=False)`, the first three things `-e mask` checks:
no output depends on a later token (`causal`), a sequence shorter than the context works and gives the first outputs
of the whole one (`short`), and the attention weights are normalised: a sequence of one token repeated gives the same
output everywhere (`normalised`).

The class comes from batch.py (`generate_class`: the book's code, half of it with named bugs). Otter grades it the
way a course on a 2-core machine would: `otter run -a autograder.zip NOTEBOOK` once per submission, 2 at a time, each
in a folder of its own. Grade runs the real `grade batch DIR -e mask -o OUT -j 2`, start-up included. The two take
turns, so that the machine's drift weighs on both: otter grades the class in blocks of --also submissions (default
40), and before each block and after the last, grade grades the first --also submissions and the whole class, each
time into a fresh folder. Grade's figures are the medians of those runs; otter's are its first block (the class of
40) and the sum of its blocks (the class of n). Target: otter's seconds per submission at least 50x grade's at 200.

Then each student's verdicts: otter's three tests (read from the results.json `otter run` writes) against grade's
checks causal, short and normalised (from the batch's results.jsonl). Otter lives in a venv of its own, made by
--install (torch 2.13.0 there, as here). It only reports and always exits 0.

    python benchmarks/otter.py --install          # once: otter-grader into ~/.cache/grader-benchmarks/otter-venv
    python benchmarks/otter.py [-n 200] [--also 40] [-j 2] [--seed 0] [--venv PATH] [--json PATH]
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import reporting
from as_installed import compile_grader

ROOT = Path(__file__).resolve().parents[1]
BATCH = ROOT / "benchmarks" / "batch.py"
SOLUTION = ROOT / "solutions" / "chapter3.py"
DEFAULT_VENV = Path.home() / ".cache" / "grader-benchmarks" / "otter-venv"
OTTER_VERSION = "7.0.0"
# One pip call each, in order. torch first and pinned to this project's CPU build: a bare `torch`, pulled in by
# anything later, would fetch a multi-GB CUDA build. matplotlib because the book's environment has it: a book-style
# notebook opens with `%matplotlib inline`, and without it that cell stops before its `import torch`.
INSTALL_STEPS = (("torch==2.13.0",), (f"otter-grader=={OTTER_VERSION}", "ipykernel", "nbconvert", "matplotlib"))
TARGET_RATIO = 50.0  # otter's seconds per submission over grade's, at 200 submissions
EXERCISE_SET = "mask"
QUESTION = "mask"  # the otter question; its test cases are named "mask - 1", "mask - 2", ...
CLASSES = ("CausalAttention", "MultiHeadAttentionWrapper", "MultiHeadAttention")  # what `-e mask` builds, in order
SHOWN_DISAGREEMENTS = 8

# Exception-based otter tests (`tests: ok_format: false`): a function whose parameters otter fills from the
# student's namespace, failing by raising. "# HIDDEN" on the first line hides it from students. Each test seeds torch
# and draws its own inputs; dropout is 0, as in grade's checks. Paired with the grade check each mirrors, in order.
CAUSAL_TEST = '''\
def test_causal(CausalAttention):
    """No output depends on a later token: replacing the tokens after t leaves the outputs up to t as they were.
    A NaN that stays a NaN is left to test_normalised, as grade leaves it to its own checks."""
    import torch
    torch.manual_seed(0)
    d_in, d_out, context = 5, 4, 8
    attention = CausalAttention(d_in, d_out, context, 0.0)
    x = torch.randn(2, context, d_in)
    with torch.no_grad():
        before = attention(x)
        for t in range(context - 1):
            changed = x.clone()
            changed[:, t + 1:] = torch.randn(2, context - t - 1, d_in)
            after = attention(changed)
            assert torch.allclose(after[:, :t + 1], before[:, :t + 1], atol=1e-5, equal_nan=True), \\
                f"an output up to token {t} changed with a later token"
'''
SHORT_TEST = '''\
def test_short(CausalAttention):
    """A sequence shorter than context_length works: one output of d_out values per token, the same as the first
    outputs of the whole sequence (a causal output sees nothing after it)."""
    import torch
    torch.manual_seed(1)
    d_in, d_out, context = 5, 4, 8
    attention = CausalAttention(d_in, d_out, context, 0.0)
    x = torch.randn(2, context, d_in)
    with torch.no_grad():
        shorter = {tokens: attention(x[:, :tokens]) for tokens in (1, 2, 5)}
        whole = attention(x)
    for tokens, out in shorter.items():
        assert tuple(out.shape) == (2, tokens, d_out), f"shape {tuple(out.shape)} for {tokens} tokens"
        assert torch.allclose(out, whole[:, :tokens], atol=1e-5, equal_nan=True), \\
            f"the first {tokens} tokens alone give other outputs than in the whole sequence"
'''
NORMALISED_TEST = '''\
def test_normalised(CausalAttention):
    """The attention weights of each token sum to 1: with one token repeated, every value is the same, so every
    output is that value whatever the scores; weights that do not sum to 1 scale it, row by row."""
    import torch
    torch.manual_seed(2)
    d_in, d_out, context = 5, 4, 8
    attention = CausalAttention(d_in, d_out, context, 0.0)
    x = torch.randn(1, 1, d_in).repeat(2, context, 1)
    with torch.no_grad():
        out = attention(x)
    assert torch.allclose(out, out[:, :1].expand_as(out), atol=1e-5), "one token repeated gives different outputs"
'''
TESTS = (("causal", CAUSAL_TEST), ("short", SHORT_TEST), ("normalised", NORMALISED_TEST))
CHECKS = tuple(check for check, _ in TESTS)

ASSIGNMENT_CONFIG = """\
# ASSIGNMENT CONFIG
init_cell: false
check_all_cell: false
export_cell: false
run_tests: true
tests:
  ok_format: false
"""
PROMPT = """\
Write `CausalAttention(d_in, d_out, context_length, dropout, qkv_bias=False)` (listing 3.3): for a batch `x` of
shape `(b, num_tokens, d_in)`, with `num_tokens <= context_length`, each token attends only to itself and the tokens
before it."""
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
PASSED_MARK = "✅"  # how an exception-based otter test case's result begins when it passed


def load_batch() -> Any:
    """batch.py is a script, not a module of a package: load it from its path for its class and its grade command."""
    spec = importlib.util.spec_from_file_location("batch", BATCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["batch"] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


# --- otter's venv ---------------------------------------------------------------------------------

def venv_bin(path: Path) -> Path:
    return path / "bin"


def install(path: Path) -> None:
    """A venv of otter's own (made anew only where there is none), then the packages, each step with its pip."""
    if not (venv_bin(path) / "python").exists():
        venv.EnvBuilder(with_pip=True).create(path)
    for packages in INSTALL_STEPS:
        print(f"installing {' '.join(packages)} into {path}", flush=True)
        subprocess.run([str(venv_bin(path) / "python"), "-m", "pip", "install", "--quiet", *packages], check=True)


def otter_env(path: Path) -> dict[str, str]:
    """The environment of an activated venv: otter's kernel and a notebook's `!pip` find otter's python. Without
    PYTHONPATH: with benchmarks/ on it, this file would be the `otter` that otter's own command imports."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return dict(env, VIRTUAL_ENV=str(path), PATH=f"{venv_bin(path)}{os.pathsep}{os.environ.get('PATH', '')}")


def versions(path: Path) -> dict[str, str]:
    script = "import importlib.metadata as m; print(m.version('otter-grader'), m.version('torch'))"
    otter, torch = subprocess.run([str(venv_bin(path) / "python"), "-c", script], capture_output=True, text=True,
                                  check=True).stdout.split()
    return {"otter-grader": otter, "torch": torch}


# --- the master notebook and the autograder --------------------------------------------------------

def reference_class(name: str) -> str:
    """The class's source in solutions/chapter3.py: the master notebook's solution, which its tests must pass."""
    source = SOLUTION.read_text(encoding="utf-8")
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name)
    segment = ast.get_source_segment(source, node)
    assert segment is not None
    return segment


def master_notebook() -> Any:
    """Otter assign's format: the assignment's config in a raw cell, then one question whose blocks (solution, tests)
    are opened and closed by raw cells."""
    raw, code, markdown = nbformat.v4.new_raw_cell, nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell
    cells = [
        raw(ASSIGNMENT_CONFIG),
        markdown("# Causal attention"),
        raw(f"# BEGIN QUESTION\nname: {QUESTION}\npoints: {len(TESTS)}"),
        markdown(PROMPT),
        raw("# BEGIN SOLUTION"),
        code(f"import torch\nimport torch.nn as nn\n\n\n{reference_class('CausalAttention')}"),
        raw("# END SOLUTION"),
        raw("# BEGIN TESTS"),
        *(code(f"# HIDDEN\n{source}") for _, source in TESTS),
        raw("# END TESTS"),
        raw("# END QUESTION"),
    ]
    return nbformat.v4.new_notebook(cells=cells, metadata=KERNEL)


def assign(otter: Path, folder: Path, env: dict[str, str]) -> Path:
    """`otter assign` on the master notebook, which also runs the tests on its solution: the autograder zip."""
    folder.mkdir(parents=True)
    master = folder / "mask_master.ipynb"
    nbformat.write(master_notebook(), master)
    done = subprocess.run([str(otter), "assign", master.name, "dist"], cwd=folder, env=env, capture_output=True,
                          text=True)
    zips = sorted((folder / "dist" / "autograder").glob("*.zip"))
    if done.returncode != 0 or not zips:
        raise RuntimeError(f"otter assign failed (exit code {done.returncode}): {(done.stdout + done.stderr)[-2000:]}")
    return zips[0]


# --- timing ---------------------------------------------------------------------------------------

def otter_block(batch: Any, otter: Path, autograder: Path, notebooks: list[Path], out: Path, env: dict[str, str],
                jobs: int) -> dict[str, Any]:
    """`otter run` once per notebook, `jobs` at a time, each writing results.json into a folder of its own."""
    def run(notebook: Path) -> tuple[int, float]:
        folder = out / notebook.stem
        folder.mkdir(parents=True)
        command = [str(otter), "run", "-a", str(autograder), "-o", str(folder), "--no-logo", str(notebook)]
        return batch.timed(command, folder / "otter.log", env)

    cpu, started = batch.children_cpu(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(run, notebooks))
    wall = time.perf_counter() - started
    return {"submissions": len(notebooks), "wall_s": round(wall, 3), "cpu_s": round(batch.children_cpu() - cpu, 3),
            "run_s": [round(seconds, 3) for _, seconds in runs],
            "failed_runs": [nb.stem for nb, (code, _) in zip(notebooks, runs) if code != 0]}


def take_turns(batch: Any, graders: dict[str, list[str]], classes: dict[int, Path], otter: Path, autograder: Path,
               out: Path, env: dict[str, str], jobs: int) -> dict[str, Any]:
    """Each grader's batches of each class size (batch.py's timed_batch), then an otter block, and so on; the batches
    once more at the end."""
    out.mkdir(parents=True)
    notebooks = sorted(classes[max(classes)].glob("*.ipynb"))
    block = min(classes)
    grade_runs: dict[str, dict[int, list[dict[str, Any]]]] = {name: {size: [] for size in classes} for name in graders}
    blocks = []
    for turn, start in enumerate([*range(0, len(notebooks), block), None]):
        for name, grade in graders.items():
            for size, folder in classes.items():
                grade_runs[name][size].append(batch.timed_batch(grade, folder, EXERCISE_SET,
                                                                out / f"{name}-{size}-{turn}", jobs))
        if start is not None:
            blocks.append(otter_block(batch, otter, autograder, notebooks[start:start + block], out / "otter",
                                      env, jobs))
    return {**grade_runs, "otter_blocks": blocks}


def first_class(folder: Path, n: int, into: Path) -> Path:
    """The first n notebooks of the class as a class of their own, for the smaller figure."""
    into.mkdir()
    for notebook in sorted(folder.glob("*.ipynb"))[:n]:
        shutil.copy(notebook, into / notebook.name)
    return into


# --- verdicts -------------------------------------------------------------------------------------

def otter_verdicts(results: Path) -> dict[str, bool] | None:
    """check -> whether otter's test of it passed, from the question's summary in otter's results.json (one line
    "mask - i result:" per test case, then its mark), held against the question's score (1 point a test). None
    where there is no result or the two do not add up."""
    if not results.exists():
        return None
    tests = json.loads(results.read_text(encoding="utf-8")).get("tests", [])
    entry = next((t for t in tests if t.get("name") == QUESTION), None)
    if entry is None:
        return None
    summary = entry.get("output", "")
    if "All test cases passed!" in summary:
        verdicts = {check: True for check in CHECKS}
    else:
        marks = dict(re.findall(rf"^\s*{QUESTION} - (\d+) result:\s*\n\s*(\S)", summary, flags=re.MULTILINE))
        verdicts = {check: marks.get(str(i)) == PASSED_MARK for i, check in enumerate(CHECKS, start=1)}
    return verdicts if sum(verdicts.values()) == entry.get("score") else None


def failing_class(check: dict[str, Any]) -> str | None:
    """The class a failed check names: where grade found the object it judged, else the class its message starts
    with (a forward that raised); None where neither says."""
    named = ((check.get("evidence") or {}).get("object") or {}).get("name")
    if named:
        return str(named)
    message = (check.get("messages") or {}).get("en", "")
    return next((cls for cls in sorted(CLASSES, key=len, reverse=True) if message.startswith(cls)), None)


def grade_verdicts(out: Path, batch: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """student -> check -> passed, the class a failure names, and the message, from the batch's results.jsonl."""
    verdicts = {}
    for run in batch.graded_runs(out):
        checks = {c["id"]: c for e in run["exercises"] if e["id"] == EXERCISE_SET for c in e["checks"]}
        student = Path(run["submission"]["path"]).stem
        verdicts[student] = {check: {"passed": checks[check]["status"] == "passed",
                                     "class": failing_class(checks[check]) if checks[check]["status"] != "passed"
                                     else None,
                                     "message": checks[check]["messages"]["en"][:200]}
                             for check in CHECKS if check in checks}
    return verdicts


def passed_on_causal_attention(verdict: dict[str, Any]) -> bool:
    """Grade's verdict on the class otter's tests build: the check passed, or failed naming another class (grade
    judges CausalAttention first and stops at the first class that fails, so CausalAttention passed it)."""
    return bool(verdict["passed"] or verdict["class"] not in (None, CLASSES[0]))


def compare(submissions: list[Any], otter_out: Path, grade_out: Path, batch: Any) -> dict[str, Any]:
    """Per student: otter passes all three tests iff grade gives full marks on causal, short and normalised; and
    the same on CausalAttention alone. Per test: otter's test against grade's check on CausalAttention."""
    grade_all = grade_verdicts(grade_out, batch)
    students, per_test = [], {check: {"both pass": 0, "both fail": 0, "otter only fails": 0, "grade only fails": 0}
                              for check in CHECKS}
    for submission in submissions:
        otter = otter_verdicts(otter_out / submission.student / "results.json")
        grade = grade_all.get(submission.student, {})
        otter_full = otter is not None and all(otter.values())
        grade_full = len(grade) == len(CHECKS) and all(v["passed"] for v in grade.values())
        students.append({"student": submission.student, "bugs": list(submission.bugs), "otter": otter,
                         "grade": grade, "otter_full": otter_full, "grade_full": grade_full,
                         "grade_full_on_causal_attention": len(grade) == len(CHECKS) and all(
                             passed_on_causal_attention(v) for v in grade.values())})
        for check in CHECKS:
            if otter is None or check not in grade:
                continue
            key = {(True, True): "both pass", (False, False): "both fail", (False, True): "otter only fails",
                   (True, False): "grade only fails"}[(otter[check], passed_on_causal_attention(grade[check]))]
            per_test[check][key] += 1
    disagreements = [s for s in students if s["otter_full"] != s["grade_full"]]
    return {
        "students": len(students),
        "otter_full": sum(s["otter_full"] for s in students),
        "grade_full": sum(s["grade_full"] for s in students),
        "agree": len(students) - len(disagreements),
        "agree_on_causal_attention": sum(s["otter_full"] == s["grade_full_on_causal_attention"] for s in students),
        "otter_unread": [s["student"] for s in students if s["otter"] is None],
        "per_test": per_test,
        "disagreements": disagreements,
    }


# --- report ---------------------------------------------------------------------------------------

def per_submission(turns: dict[str, Any], sizes: list[int], grader: str = "grade") -> dict[str, dict[str, Any]]:
    """Seconds per submission at each class size: the grader's median batch; otter's first block, or all its
    blocks."""
    blocks = turns["otter_blocks"]
    figures = {}
    for size in sizes:
        runs = turns[grader][size]
        used = blocks[:1] if size < max(sizes) else blocks
        otter_wall, otter_cpu = sum(b["wall_s"] for b in used), sum(b["cpu_s"] for b in used)
        grade_wall = statistics.median(r["wall_s"] for r in runs)
        figures[str(size)] = {
            "otter_s_per_submission": round(otter_wall / size, 4),
            "grade_s_per_submission": round(grade_wall / size, 5),
            "ratio": round(otter_wall / grade_wall, 1),
            "otter_cpu_s_per_submission": round(otter_cpu / size, 4),
            "grade_cpu_s_per_submission": round(statistics.median(r["cpu_s"] for r in runs) / size, 5),
            "grade_wall_s": [r["wall_s"] for r in runs],
            "grade_exit_codes": sorted({r["exit_code"] for r in runs}),
        }
    return figures


def print_report(figures: dict[str, Any]) -> None:
    n, sizes, turns = figures["n"], figures["sizes"], figures["turns"]
    blocks = turns["otter_blocks"]
    load = figures["load_average"]
    print(f"otter-grader {figures['versions']['otter-grader']} (torch {figures['versions']['torch']}) beside grade;"
          f" {n} notebooks ({figures['n_correct']} correct), seed {figures['seed']}, {figures['jobs']} at a time,"
          f" {figures['cpus']} CPUs, python {figures['python']}")
    print(f"load average (1, 5, 15 min): before {', '.join(f'{x:.1f}' for x in load['before'])};"
          f" after {', '.join(f'{x:.1f}' for x in load['after'])}")
    run_s = [s for b in blocks for s in b["run_s"]]
    failed = [s for b in blocks for s in b["failed_runs"]]
    print(f"otter: `otter run -a autograder.zip NOTEBOOK -o DIR`, {figures['jobs']} at a time, in {len(blocks)}"
          f" block(s) of up to {sizes[0]}; one run takes {statistics.mean(run_s):.2f} s on average"
          f" (min {min(run_s):.2f}, max {max(run_s):.2f}); {len(failed)} run(s) exited non-zero {failed[:5]}")
    print(f"grade: `{' '.join(Path(c).name for c in turns['grade'][n][0]['command'][:1])} batch DIR -e {EXERCISE_SET}"
          f" -o OUT -j {figures['jobs']}`, {len(turns['grade'][n])} runs of each class size, one before each otter"
          " block and one after the last (medians)")
    print(f"{'class':>6}{'otter s/sub':>13}{'grade s/sub':>13}{'ratio':>9}{'otter CPU/sub':>15}{'grade CPU/sub':>15}"
          "  grade's runs (s)")
    for size in sizes:
        f = figures["per_size"][str(size)]
        print(f"{size:>6}{f['otter_s_per_submission']:>13.3f}{f['grade_s_per_submission']:>13.4f}{f['ratio']:>8.1f}x"
              f"{f['otter_cpu_s_per_submission']:>15.3f}{f['grade_cpu_s_per_submission']:>15.4f}"
              f"  {', '.join(f'{s:.2f}' for s in f['grade_wall_s'])}")
    at_n = figures["per_size"][str(n)]
    print(f"{'PASS' if figures['target_met'] else 'MISS'}  otter/grade per submission at {n}: {at_n['ratio']}x"
          f" (target >= {TARGET_RATIO:g}x at 200{'' if n == 200 else f'; this run has {n}'})")
    if len(sizes) > 1:
        print(f"      at {sizes[0]}: {figures['per_size'][str(sizes[0])]['ratio']}x")
    if figures["baseline"]:
        print(f"baseline (`{figures['turns']['baseline'][n][0]['command'][0]} -m grader batch`, in the same turns):")
        for size in sizes:
            f = figures["baseline"][str(size)]
            print(f"{size:>6}{'':>13}{f['grade_s_per_submission']:>13.4f}{f['ratio']:>8.1f}x{'':>15}"
                  f"{f['grade_cpu_s_per_submission']:>15.4f}  {', '.join(f'{s:.2f}' for s in f['grade_wall_s'])}")
    print_verdicts(figures["verdicts"])


def print_verdicts(verdicts: dict[str, Any]) -> None:
    total = verdicts["students"]
    print(f"verdicts: otter passes all three tests for {verdicts['otter_full']} of {total} students, grade gives full"
          f" marks on {', '.join(CHECKS)} to {verdicts['grade_full']}; they agree on {verdicts['agree']}/{total}")
    print(f"  grade's checks build each causal class a notebook defines ({', '.join(CLASSES)}), otter's tests"
          f" {CLASSES[0]} alone; on {CLASSES[0]} (each check passed, or failed naming another class) they agree on"
          f" {verdicts['agree_on_causal_attention']}/{total}")
    print(f"  per test, otter's against grade's check on {CLASSES[0]}:")
    for check, counts in verdicts["per_test"].items():
        print(f"    {check:<11} " + ", ".join(f"{key} {count}" for key, count in counts.items()))
    if verdicts["otter_unread"]:
        print(f"  no otter result read for {len(verdicts['otter_unread'])}: {verdicts['otter_unread'][:5]}")
    for s in verdicts["disagreements"][:SHOWN_DISAGREEMENTS]:
        otter = "no result" if s["otter"] is None else ", ".join(f"{c} {'ok' if ok else 'FAIL'}"
                                                                 for c, ok in s["otter"].items())
        grade = ", ".join(f"{c} {'ok' if v['passed'] else 'FAIL (' + str(v['class']) + ')'}"
                          for c, v in s["grade"].items())
        print(f"  differ: {s['student']} bugs {s['bugs']}: otter {otter}; grade {grade}")
    if len(verdicts["disagreements"]) > SHOWN_DISAGREEMENTS:
        print(f"  ... and {len(verdicts['disagreements']) - SHOWN_DISAGREEMENTS} more (--json lists them all)")


def measure(args: argparse.Namespace, otter_venv: Path) -> dict[str, Any]:
    """The autograder, the class, the turns and the verdicts, all in a temporary folder; the figures."""
    batch = load_batch()
    env = otter_env(otter_venv)
    otter = venv_bin(otter_venv) / "otter"
    n, jobs = max(1, args.submissions), max(1, args.jobs)
    sizes = sorted({min(max(1, args.also), n), n})
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="grade-bench-otter-") as tmp:
        work = Path(tmp)
        autograder = assign(otter, work / "assign", env)
        folder = work / "class"
        submissions = batch.generate_class(folder, n, args.correct, args.seed)
        classes = {size: first_class(folder, size, work / f"class-{size}") for size in sizes[:-1]} | {n: folder}
        graders = {"grade": batch.grade_command()}
        if args.baseline:
            graders["baseline"] = batch.grade_command(str(args.baseline))
        for python in [sys.executable, *([str(args.baseline)] if args.baseline else [])]:
            compile_grader(python)
        turns = take_turns(batch, graders, classes, otter, autograder, work / "out", env, jobs)
        verdicts = compare(submissions, work / "out" / "otter", Path(turns["grade"][n][-1]["out"]), batch)
    per_size = per_submission(turns, sizes)
    baseline = per_submission(turns, sizes, "baseline") if args.baseline else None
    return {
        "n": n, "sizes": sizes, "n_correct": sum(s.correct for s in submissions), "seed": args.seed,
        "jobs": jobs, "cpus": os.cpu_count(), "python": sys.version.split()[0], "versions": versions(otter_venv),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "tests": {check: source for check, source in TESTS},
        "turns": turns, "per_size": per_size, "baseline": baseline, "target_ratio": TARGET_RATIO,
        "target_met": per_size[str(n)]["ratio"] >= TARGET_RATIO,
        "verdicts": verdicts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--submissions", type=int, default=200, help="notebooks to generate (default 200)")
    parser.add_argument("--also", type=int, default=40,
                        help="the smaller class measured in the same run, its first N notebooks, and the size of"
                             " otter's blocks (default 40)")
    parser.add_argument("-j", "--jobs", type=int, default=2,
                        help="otter runs at a time and grade's workers (default 2, a 2-core machine's)")
    parser.add_argument("--correct", type=float, default=0.5, help="share of correct answers (default 0.5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the class's mix of answers (default 0)")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV, help=f"otter's venv (default {DEFAULT_VENV})")
    parser.add_argument("--install", action="store_true", help="make otter's venv and install otter into it first")
    parser.add_argument("--baseline", type=Path, metavar="PYTHON",
                        help="also time `PYTHON -m grader batch` in the same turns: the interpreter of another checkout"
                             " (the main a change starts from), for its figures before beside after")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.install:
        install(args.venv)
    elif not (venv_bin(args.venv) / "otter").exists():
        print(f"otter-grader is not installed in {args.venv}: python benchmarks/otter.py --install [--venv PATH]")
        return 0
    figures = measure(args, args.venv)
    reporting.write_figures(figures, args.json)
    print_report(figures)
    return 0


if __name__ == "__main__":
    reporting.run(main)
