"""The judge a Jupyter kernel grades with: a process of its own, kept warm between `%grade`s.

The kernel is where the student's code runs, so nothing is judged there (a cell could rewrite the
checks). `grader.jupyter` starts this process once per kernel and sends it, one JSON line per request,
the code the kernel ran; it grades that in its sandbox, as `grade` does, and answers one JSON line:
the result, or a message. That result is marked a self-check, never a grade: the kernel chose the code
it sent and holds the result it gets back, so a course grades the saved notebook with `grade` instead.
Its zygote and exercises stay loaded, so a second `%grade` costs the checks alone. It ends when the
kernel closes its pipe, and dies with the kernel (the kernel kills it, and with it every sandbox, when
the student presses Stop).
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from grader import catalogue, seeds
from grader.catalogue import MessageError
from grader.launcher import BLAS_THREADS, Launcher, LaunchError, default_launcher
from grader.sandbox.confine import die_with_parent, hide_from_tracing


def serve(requests: TextIO, replies: TextIO, launcher: Launcher) -> None:
    """Answer each request line until the kernel closes the pipe."""
    from grader.exercise import discover

    exercises = discover()
    for line in requests:
        replies.write(json.dumps(answer(json.loads(line), exercises, launcher), ensure_ascii=False, allow_nan=False)
                      + "\n")
        replies.flush()


def answer(request: dict[str, Any], exercises: dict[str, Any], launcher: Launcher) -> dict[str, Any]:
    """{"result": the JSON result} or {"message": one line in the request's language}."""
    from grader.exercise import select
    from grader.judge import grade
    from grader.loading import kernel_inputs
    from grader.results import to_json

    lang = request.get("lang", "en")
    try:
        chosen = select(str(request["spec"]), exercises)
        path = Path(request["path"])
        inputs = request.get("inputs")
        source = path if inputs is None else kernel_inputs([(int(n), str(s)) for n, s in inputs], path)
        seed = request.get("seed")
        run = grade(source, chosen, launcher, seed=seeds.fresh() if seed is None else int(seed), lang=lang,
                    timeout=float(request.get("timeout", 60)), beside=True)
    except MessageError as exc:
        return {"message": catalogue.text(exc.key, lang, **exc.args_)}
    except LaunchError as exc:
        return {"message": catalogue.text("cli.sandbox_failed", lang, error=str(exc))}
    return {"result": to_json(replace(run, self_check=True))}


def main() -> None:
    if not os.environ.get("GRADER_DEBUG"):
        warnings.simplefilter("ignore")
    os.environ.setdefault(*BLAS_THREADS)
    die_with_parent()  # a kernel that is killed takes its judge with it; its zygote and scratch keeper clean up
    hide_from_tracing()  # the judge holds the expected values: no child may read its memory
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever a library prints goes to stderr, never into the replies
    launcher = default_launcher()
    try:
        serve(sys.stdin, replies, launcher)
    finally:
        launcher.close()


if __name__ == "__main__":
    main()
