"""benchmarks/batch.py's comparison with the Jupyter-kernel way, measured in turns: round after round, `grade batch`
on one class, then a few of its notebooks in fresh kernels, each round's ratio taken from the two measured side by
side. With `--baseline PYTHON`, another checkout's `grade batch` (the main a change starts from) takes its turn in
each round too, first in one round and second in the next.

One batch.py run times one batch of 40 (~4 s) and then five kernels (~15 s): on a machine whose speed moves by a
quarter within minutes, the same code gave ratios from 20x to 38x run to run. Here the figure held to the target is
the median of the rounds' ratios, and a change is weighed by the ratio of its batch to the baseline's in the same
round.

    python benchmarks/kernel_turns.py -n 40 -j 2 -e mask --rounds 8 [--kernel-sample 5] [--baseline PYTHON]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import reporting
from as_installed import compile_grader
from batch import (TARGET_SPEEDUP, Submission, check_run, class_notebook_s, generate_class, grade_command,
                   kernel_sample, kernel_seconds, timed_batch)


def rounds(graders: dict[str, list[str]], folder: Path, exercise_set: str, jobs: int, count: int,
           notebooks: list[Path], work: Path, submissions: list[Any]) -> list[dict[str, Any]]:
    """Each round: every grader's batch (their order turned round each time), then the kernel notebooks. One
    kernel first, not counted, so that every round times kernels whose files the machine has read before."""
    kernel_seconds(notebooks[:1])
    done = []
    for number in range(count):
        order = list(graders) if number % 2 == 0 else list(reversed(graders))
        batches = {}
        for name in order:
            out = work / f"{name}-{number}"
            batches[name] = timed_batch(graders[name], folder, exercise_set, out, jobs)
            batches[name]["check_ok"] = check_run(out, submissions, exercise_set)["ok"]
        kernel = kernel_seconds(notebooks)
        if isinstance(kernel, str):
            raise RuntimeError(kernel)
        done.append({"order": order, "batches": batches, "kernel_s": [round(s, 3) for s in kernel]})
    return done


def summarise(done: list[dict[str, Any]], n: int, notebooks: list[Path],
              submissions: list[Submission]) -> dict[str, Any]:
    """Per grader: each round's ratio (the round's kernel seconds for the class's mean notebook, batch.py's
    class_notebook_s, over its batch's seconds per submission), their median, and how many rounds met the target;
    with a baseline, the rounds' ratio of the two batches' wall times. A kernel that stalls (75 s once, against
    ~3 s) makes one round's ratio an outlier, which the median over the rounds leaves aside."""
    kernels = [class_notebook_s(r["kernel_s"], notebooks, submissions) for r in done]
    figures: dict[str, Any] = {"kernel_s_per_notebook_median": round(statistics.median(kernels), 3), "graders": {}}
    for name in done[0]["batches"]:
        per_submission = [r["batches"][name]["wall_s"] / n for r in done]
        ratios = [kernel / each for kernel, each in zip(kernels, per_submission)]
        figures["graders"][name] = {
            "ratios": [round(r, 1) for r in ratios], "ratio_median": round(statistics.median(ratios), 1),
            "rounds_at_target": sum(r >= TARGET_SPEEDUP for r in ratios),
            "s_per_submission_median": round(statistics.median(per_submission), 4),
            "cpu_s_per_submission_median": round(statistics.median([r["batches"][name]["cpu_s"] / n for r in done]), 4),
            "all_checked": all(r["batches"][name]["check_ok"] and r["batches"][name]["exit_code"] in (0, 1)
                               for r in done)}
    if "baseline" in figures["graders"]:
        paired = [r["batches"]["grade"]["wall_s"] / r["batches"]["baseline"]["wall_s"] for r in done]
        figures["paired_wall_ratio"] = {"each": [round(p, 3) for p in paired],
                                        "median": round(statistics.median(paired), 3),
                                        "rounds_faster": sum(p < 1 for p in paired)}
    return figures


def print_report(figures: dict[str, Any]) -> None:
    s = figures["summary"]
    print(f"{figures['n']} notebooks, -e {figures['set']}, -j {figures['jobs']}, {figures['rounds']} rounds of one"
          f" batch each and {len(figures['notebooks'])} kernel notebooks; {figures['cpus']} CPUs")
    print(f"kernel way: the class's mean notebook (each style weighted by its share of the class), median"
          f" {s['kernel_s_per_notebook_median']} s over the rounds")
    for name, g in s["graders"].items():
        verdict = "PASS" if g["ratio_median"] >= TARGET_SPEEDUP else "MISS"
        print(f"{verdict}  {name}: median {g['ratio_median']}x the kernel way per submission, {g['rounds_at_target']}"
              f" of {figures['rounds']} rounds at or over {TARGET_SPEEDUP:g}x; median {g['s_per_submission_median']} s"
              f" and {g['cpu_s_per_submission_median']} CPU-s per submission"
              f" (rounds: {', '.join(map(str, g['ratios']))})"
              + ("" if g["all_checked"] else "  [a batch failed or graded wrongly: see the JSON]"))
    if "paired_wall_ratio" in s:
        p = s["paired_wall_ratio"]
        print(f"grade over baseline, wall, same round: median {p['median']}, faster in {p['rounds_faster']} of"
              f" {figures['rounds']} ({', '.join(map(str, p['each']))})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--submissions", type=int, default=40, help="notebooks in the class (default 40)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="grade batch -j (default 2)")
    parser.add_argument("-e", "--exercises", default="mask", help="the set graded (default mask)")
    parser.add_argument("--rounds", type=int, default=8, help="rounds (default 8)")
    parser.add_argument("--kernel-sample", type=int, default=5,
                        help="kernel notebooks per round, chosen as batch.py chooses them (default 5)")
    parser.add_argument("--correct", type=float, default=0.5, help="share of correct answers (default 0.5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the class's mix of answers (default 0)")
    parser.add_argument("--baseline", type=Path, metavar="PYTHON",
                        help="also time the `grade batch` of PYTHON (its console script, else `PYTHON -m grader`)"
                             " in each round: another checkout's interpreter")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    n, count = max(1, args.submissions), max(1, args.rounds)
    graders = {"grade": grade_command(), **({"baseline": grade_command(str(args.baseline))} if args.baseline else {})}
    for python in [sys.executable, *([str(args.baseline)] if args.baseline else [])]:
        compile_grader(python)
    with tempfile.TemporaryDirectory(prefix="grade-bench-turns-") as tmp:
        folder = Path(tmp) / "class"
        submissions = generate_class(folder, n, args.correct, args.seed)
        notebooks = kernel_sample(folder, submissions, max(1, args.kernel_sample))
        done = rounds(graders, folder, args.exercises, args.jobs, count, notebooks, Path(tmp), submissions)
    figures = {"n": n, "set": args.exercises, "jobs": args.jobs, "rounds": count, "cpus": os.cpu_count(),
               "notebooks": [p.name for p in notebooks], "graders": graders, "each_round": done,
               "summary": summarise(done, n, notebooks, submissions)}
    reporting.write_figures(figures, args.json)
    print_report(figures)
    return 0


if __name__ == "__main__":
    reporting.run(main)
