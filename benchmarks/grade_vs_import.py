"""How long `grade 3.1 solutions/chapter3.py` takes next to a bare `python -c "import torch"`.

Torch's import is the floor any grading run pays; the target is a ratio of at most 1.1. The two commands take
turns, run after run, so that the machine's drift weighs on both alike. This script only reports: it always
exits 0.

    python benchmarks/grade_vs_import.py [--runs N] [--warmup N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import reporting
from as_installed import compile_grader

ROOT = Path(__file__).resolve().parents[1]
SOLUTION = ROOT / "solutions" / "chapter3.py"
TARGET = 1.1


def grade_command() -> list[str]:
    """The installed console script of this interpreter's environment, else `python -m grader`."""
    script = Path(sys.executable).parent / ("grade.exe" if os.name == "nt" else "grade")
    if script.exists():
        return [str(script)]
    found = shutil.which("grade")
    return [found] if found else [sys.executable, "-m", "grader"]


def time_once(command: list[str], cwd: Path) -> tuple[float, int]:
    env = dict(os.environ, NO_COLOR="1")
    started = time.perf_counter()
    code = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - started, code


def measure(commands: dict[str, list[str]], cwd: Path, runs: int, warmup: int) -> dict[str, dict[str, Any]]:
    """Each command `runs` times, taking turns (grade, torch, grade, torch, ...): this machine's speed drifts by a
    quarter between minutes, and a block of one command's runs followed by a block of the other's measured that
    drift as much as the commands (1.20x in blocks where an outside timer taking turns saw 0.99x)."""
    for _ in range(warmup):
        for command in commands.values():
            time_once(command, cwd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    codes: dict[str, set[int]] = {name: set() for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            elapsed, code = time_once(command, cwd)
            times[name].append(elapsed)
            codes[name].add(code)
    return {name: {"command": commands[name], "median_s": statistics.median(times[name]), "min_s": min(times[name]),
                   "max_s": max(times[name]), "times_s": [round(t, 4) for t in times[name]],
                   "exit_codes": sorted(codes[name])} for name in commands}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each command (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs first, to warm the caches (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    runs, warmup = max(1, args.runs), max(0, args.warmup)

    compile_grader(sys.executable)
    with tempfile.TemporaryDirectory(prefix="grade-bench-") as tmp:
        cwd = Path(tmp)
        measured = measure({"grade": [*grade_command(), "3.1", str(SOLUTION), "--html", str(cwd / "page.html")],
                            "torch": [sys.executable, "-c", "import torch"]}, cwd, runs, warmup)
        grade, torch = measured["grade"], measured["torch"]

    ratio = grade["median_s"] / torch["median_s"] if torch["median_s"] > 0 else float("inf")
    figures = {
        "runs": runs,
        "warmup": warmup,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "grade": grade,
        "import_torch": torch,
        "ratio": round(ratio, 3),
        "target_ratio": TARGET,
        "within_target": ratio <= TARGET,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"runs: {runs} (after {warmup} warm-up), python {figures['python']}, {figures['cpus']} CPUs")
    print(f"grade 3.1 solutions/chapter3.py --html ...: median {grade['median_s']:.3f} s "
          f"(min {grade['min_s']:.3f}, max {grade['max_s']:.3f})")
    print(f"python -c 'import torch':                  median {torch['median_s']:.3f} s "
          f"(min {torch['min_s']:.3f}, max {torch['max_s']:.3f})")
    print(f"ratio: {ratio:.2f} (target <= {TARGET}: {'met' if ratio <= TARGET else 'not met'})")
    if grade["exit_codes"] != [0]:
        print(f"note: grade exited with {grade['exit_codes']} (expected 0 for the reference solution)")
    return 0


if __name__ == "__main__":
    reporting.run(main)
