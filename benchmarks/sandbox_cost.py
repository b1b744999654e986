"""What one submission's sandbox costs: the CPU of the sandbox itself (its start, the student's code, the probes'
answers, its exit), of the zygote's fork of it, and of the judge, per submission, graded one at a time on one zygote.

A batch runs its judges side by side, so its wall time moves with everything else the machine runs; graded one
at a time, with each process's CPU read from /proc (the sandboxes' as the zygote's reaped children), the figures
hold still enough to weigh one setting of the zygote against another. `--env NAME=VALUE` starts every other round's
zygote with that variable added to what the grader gives it (grader.judge.launcher.sandbox_env): PYTHONMALLOC=malloc,
say, puts Python's objects in glibc's huge pages. The rounds alternate ABBA, so that the machine's drift weighs on
both alike; each prints its figures, then the medians.

    python benchmarks/sandbox_cost.py -n 12 --rounds 6 -e mask --env PYTHONMALLOC=malloc
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import reporting
from as_installed import compile_grader
from batch import generate_class


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=12, help="submissions graded per round")
    parser.add_argument("--rounds", type=int, default=6, help="rounds, each on a zygote of its own")
    parser.add_argument("-e", "--exercises", default="mask", help="what is graded, as `grade -e` takes it")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable for the other rounds' zygote (repeatable)")
    args = parser.parse_args()
    compile_grader(sys.executable)
    variant = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory(prefix="grade-bench-sandbox-") as tmp:
        generate_class(Path(tmp), args.n, correct_share=0.5, seed=0)  # as batch.py's class: half correct
        paths = sorted(Path(tmp).glob("*.ipynb"))
        figures = rounds(paths, args.exercises, args.rounds, variant)
    for name, each in figures.items():
        print(f"{name}: " + ", ".join(f"{key} {statistics.median(r[key] for r in each):.1f} ms" for key in each[0])
              + f" (median of {len(each)} rounds of {args.n})")


def rounds(paths: list[Path], spec: str, count: int, variant: dict[str, str]) -> dict[str, list[dict[str, float]]]:
    """The figures of each round, by the environment its zygote had: "as shipped", or the variant's."""
    import grader.judge.launcher as launchers
    from grader.judge.grader import Grader
    from grader.judge.grading import grade

    shipped = launchers.sandbox_env
    exercises = Grader().select(spec)
    found: dict[str, list[dict[str, float]]] = {}
    for turn in range(count):
        changed = bool(variant) and turn % 4 in (1, 2)  # ABBA
        name = "with " + " ".join(f"{k}={v}" for k, v in variant.items()) if changed else "as shipped"
        environment: Callable[[], dict[str, str]] = (lambda: {**shipped(), **variant}) if changed else shipped
        launchers.sandbox_env = environment
        try:
            figures = one_round(paths, exercises, grade, launchers.ZygoteLauncher.shared(1)[0])
        finally:
            launchers.sandbox_env = shipped
        print(f"round {turn + 1} ({name}): " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()), flush=True)
        found.setdefault(name, []).append(figures)
    return found


def one_round(paths: list[Path], exercises: list[Any], grade: Callable[..., Any], launcher: Any) -> dict[str, float]:
    try:
        grade(paths[0], exercises, launcher, seed=1, timeout=60)  # the zygote ready, the judge warm
        zygote = launcher.zygote.proc.pid
        own, reaped = _cpu(zygote)  # its own: its import of torch, and the one fork of the warm-up
        wall, judge = time.perf_counter(), time.process_time()
        for path in paths:
            grade(path, exercises, launcher, seed=1, timeout=60)
        wall, judge = time.perf_counter() - wall, time.process_time() - judge
        own_after, reaped_after = _cpu(zygote)
    finally:
        launcher.close()
    n = len(paths)
    return {"sandbox CPU": 1000 * (reaped_after - reaped) / n, "fork CPU": 1000 * (own_after - own) / n,
            "judge CPU": 1000 * judge / n, "wall": 1000 * wall / n, "zygote import CPU": 1000 * own}


def _cpu(pid: int) -> tuple[float, float]:
    """A process's own CPU seconds, and those of the children it reaped."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


if __name__ == "__main__":
    reporting.run(main)
