"""The judge a Jupyter kernel grades with: a process of its own, kept warm between `%grade`s.

The kernel is where the student's code runs, so nothing is judged there (a cell could rewrite the checks).
`grader.integrations.jupyter` starts this process once per kernel and sends it, one JSON line per request,
the code the kernel ran; it grades that in its sandbox with a `Grader`, as `grade` does, and answers one
JSON line: the result model's own JSON (docs/json.md), a run or why there is none. A run is marked a
self-check, never a grade: the kernel chose the code it sent and holds the result it gets back, so a course
grades the saved notebook with `grade` instead. Its zygote and exercises stay loaded, so a second `%grade`
costs the checks alone. It ends when the kernel closes its pipe, and dies with the kernel (the kernel kills
it, and with it every sandbox, when the student presses Stop).
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from grader.judge.grader import Grader
from grader.judge.launcher import BLAS_THREADS
from grader.messages.errors import GraderError
from grader.outputs.safe_text import json_text
from grader.sandbox.confine import die_with_parent


def serve(requests: TextIO, replies: TextIO, grader: Grader) -> None:
    """Answer each request line until the kernel closes the pipe."""
    for line in requests:
        replies.write(json_text(answer(json.loads(line), grader)) + "\n")  # a lone surrogate as an escape
        replies.flush()


def answer(request: dict[str, Any], grader: Grader) -> dict[str, Any]:
    """The result as `grade --json` writes it: the run, marked a self-check, or `Ungraded` and why (an
    exercise no exercise has, code that cannot be graded: "ungradable"; a sandbox that did not start: "error")."""
    from grader.load.submission import kernel_inputs
    from grader.results import RunResult, SubmissionResult, Ungraded, to_json

    outcome: SubmissionResult
    try:
        chosen = grader.select(str(request["spec"]))
        path = Path(request["path"])
        inputs = request.get("inputs")
        source = path if inputs is None else kernel_inputs([(int(n), str(s)) for n, s in inputs], path)
        seed = request.get("seed")
        outcome = grader.outcome(source, chosen, seed=None if seed is None else int(seed),
                                 lang=request.get("lang", "en"), timeout=float(request.get("timeout", 60)),
                                 beside=True)
    except GraderError as exc:  # an exercise id or set no exercise has: the student's to fix
        outcome = Ungraded("ungradable", exc.msg)
    return to_json(replace(outcome, self_check=True) if isinstance(outcome, RunResult) else outcome)


def main() -> None:
    if not os.environ.get("GRADER_DEBUG"):
        warnings.simplefilter("ignore")
    os.environ.setdefault(*BLAS_THREADS)
    die_with_parent()  # a kernel that is killed takes its judge with it; its zygote and scratch keeper clean up
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever a library prints goes to stderr, never into the replies
    with Grader() as grader:
        grader.exercises  # imported now, beside the zygote's import, not at the first %grade
        serve(sys.stdin, replies, grader)


if __name__ == "__main__":
    main()
