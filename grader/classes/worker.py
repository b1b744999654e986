"""One judge of a batch, forked by grader.classes.pool from the process that imported torch and the exercises.

Why processes and not threads: the judge does real work per check (drawing inputs, running the
reference, comparing), so N judges on N cores each need their own interpreter. Why forked and not
started fresh: the parent imports torch and the exercises once for the whole class and a fork shares
them, where each fresh interpreter would spend about a second of CPU importing them again. The parent
never runs a torch op, so the fork is safe. The zygote is still started by exec, so a submission's
process holds nothing of the parent; the parent starts one for all the workers before its own import, so
that the two imports run at once, and hands each worker a launcher with a socket of its own. A worker
started in place of a lost one is handed none: its Grader hides it from tracing, then starts one of its
own; a zygote killed from outside costs each worker one new zygote of its own. A worker is trusted code:
it reads jobs as JSON lines from one pipe and answers each with one JSON line on another; its stdout and
stderr go to workers.log, so nothing a library prints can corrupt the answers. It also writes the
student's feedback page, so rendering spreads over the workers too.
"""
from __future__ import annotations

import json
import os
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Sequence

from grader.judge.launcher import ZygoteLauncher

if TYPE_CHECKING:
    from grader.judge.exercise import Exercise
    from grader.judge.grader import Grader

NAME = b"grade-worker"  # what ps and top show for a worker (its command line is the parent's)


def become(exercises: Sequence[Exercise], zygote: ZygoteLauncher | None, jobs: int, answers: int,
           log: int) -> NoReturn:
    """The forked child's whole life: leave the parent's session and files behind, serve, exit."""
    code = 70
    try:
        os.setsid()  # its own group: the parent kills the worker and everything it started at once
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        kept = {jobs, answers, *(zygote.descriptors() if zygote else ())}
        for low, high in _gaps(sorted(kept), start=3):  # the parent's gradebook, pipes and other zygotes
            os.closerange(low, high)
        serve(exercises, zygote, jobs, answers)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _gaps(kept: list[int], start: int) -> list[tuple[int, int]]:
    """The fd ranges from `start` up that hold none of `kept`, for os.closerange."""
    ranges, low = [], start
    for fd in kept:
        ranges.append((low, fd))
        low = fd + 1
    return [*ranges, (low, 1 << 16)]


def serve(exercises: Sequence[Exercise], zygote: ZygoteLauncher | None, jobs: int, answers: int) -> None:
    """Grade each job with a Grader on the launcher the parent handed over, or, without one, on a launcher the
    Grader starts once it has hidden this process."""
    from grader.judge.grader import Grader
    from grader.render.text import json_text
    from grader.sandbox.confine import die_with_parent, set_name

    die_with_parent()  # a batch killed with -9 leaves no judge behind
    set_name(NAME)
    with os.fdopen(jobs, encoding="utf-8") as requests, os.fdopen(answers, "w", encoding="utf-8") as replies:
        try:
            with Grader(launcher=zygote) as grader:
                for line in requests:
                    # json_text: a lone surrogate a student's message holds travels as an escape, where raw it
                    # would stop this UTF-8 pipe, and with it the worker
                    replies.write(json_text(grade_job(json.loads(line), exercises, grader)) + "\n")
                    replies.flush()
        finally:
            if zygote is not None:  # the Grader closes a launcher it started, never one it was handed
                zygote.close()


def grade_job(job: dict[str, Any], exercises: Sequence[Exercise], grader: Grader) -> dict[str, Any]:
    """Grade one student; every outcome is an answer: {"student", "result"}, the result a graded run or
    why there is none (the student's files, or our fault, which is graded again next run). The page shows
    what the request's `shown` release policy lets students see (grader.results.release)."""
    from dataclasses import replace

    from grader.messages.catalogue import Msg
    from grader.render import html
    from grader.render.atomic import write_atomic
    from grader.results import SubmissionResult, Ungraded, to_json
    from grader.results.release import withheld

    try:
        outcome: SubmissionResult = grader.outcome([Path(f) for f in job["files"]], exercises, seed=job["seed"],
                                                   lang=job["lang"], timeout=job["timeout"])
    except Exception as exc:  # a grader bug: recorded, and the submission is graded again next run
        outcome = Ungraded("error", Msg("batch.grader_error", {"error": f"{type(exc).__name__}: {exc}"}))
    if not isinstance(outcome, Ungraded):
        # what the student handed in (`class.zip:wangwei_1111_501_a.py`), not the folder it was unpacked to
        outcome = replace(outcome, submission=replace(outcome.submission, path=job["handed_in"]))
        write_atomic(Path(job["page"]), html.render(withheld(outcome, job["shown"])), Path(job["outdir"]))
    return {"student": job["student"], "result": to_json(outcome)}
