"""The judge a Jupyter kernel grades with: a process of its own, kept warm between `%grade`s.

The kernel is where the student's code runs, so nothing is judged there (a cell could rewrite the
checks). `grader.integrations.jupyter` starts this process once per kernel and sends it, one JSON line per request,
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

from grader.judge.grader import Grader
from grader.judge.launcher import BLAS_THREADS
from grader.messages import catalogue
from grader.messages.errors import GraderError
from grader.render.text import json_text
from grader.sandbox.confine import die_with_parent


def serve(requests: TextIO, replies: TextIO, grader: Grader) -> None:
    """Answer each request line until the kernel closes the pipe."""
    for line in requests:
        replies.write(json_text(answer(json.loads(line), grader)) + "\n")  # a lone surrogate as an escape
        replies.flush()


def answer(request: dict[str, Any], grader: Grader) -> dict[str, Any]:
    """{"result": the JSON result} or {"message": one line in the request's language}."""
    from grader.load.submission import kernel_inputs
    from grader.results import to_json

    lang = request.get("lang", "en")
    try:
        chosen = grader.select(str(request["spec"]))
        path = Path(request["path"])
        inputs = request.get("inputs")
        source = path if inputs is None else kernel_inputs([(int(n), str(s)) for n, s in inputs], path)
        seed = request.get("seed")
        run = grader.grade(source, chosen, seed=None if seed is None else int(seed), lang=lang,
                           timeout=float(request.get("timeout", 60)), beside=True)
    except GraderError as exc:
        return {"message": catalogue.text(exc.key, lang, **exc.args_)}
    return {"result": to_json(replace(run, self_check=True))}


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
