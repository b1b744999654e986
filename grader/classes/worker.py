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
it reads requests from one pipe and answers each on another (grader.classes.jobs); its stdout and
stderr go to workers.log, so nothing a library prints can corrupt the answers. It also writes the
student's feedback page, so rendering spreads over the workers too.
"""
from __future__ import annotations

import os
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Sequence

from grader.classes.jobs import Answer, Request
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
    """Grade each request with a Grader on the launcher the parent handed over, or, without one, on a launcher the
    Grader starts once it has hidden this process."""
    from grader.judge.grader import Grader
    from grader.sandbox.confine import die_with_parent, set_name

    die_with_parent()  # a batch killed with -9 leaves no judge behind
    set_name(NAME)
    with os.fdopen(jobs, encoding="utf-8") as requests, os.fdopen(answers, "w", encoding="utf-8") as replies:
        try:
            with Grader(launcher=zygote) as grader:
                for line in requests:
                    replies.write(grade_job(Request.read(line), exercises, grader).line())
                    replies.flush()
        finally:
            if zygote is not None:  # the Grader closes a launcher it started, never one it was handed
                zygote.close()


def grade_job(request: Request, exercises: Sequence[Exercise], grader: Grader) -> Answer:
    """Grade one student; every outcome is an answer, a graded run or why there is none. The page shows what the
    request's release policy lets students see (grader.classes.pages)."""
    from dataclasses import replace

    from grader.classes.pages import write_page
    from grader.messages.catalogue import Msg
    from grader.results import SubmissionResult, Ungraded

    try:
        outcome: SubmissionResult = grader.outcome(request.paths, exercises, seed=request.seed,
                                                   class_seed=request.class_seed, lang=request.lang,
                                                   timeout=request.timeout)
    except Exception as exc:  # a grader bug: recorded, and the submission is graded again next run
        outcome = Ungraded("error", Msg("batch.grader_error", {"error": f"{type(exc).__name__}: {exc}"}))
    if not isinstance(outcome, Ungraded):
        # what the student handed in (`class.zip:wangwei_1111_501_a.py`), not the folder it was unpacked to
        outcome = replace(outcome, submission=replace(outcome.submission, path=request.handed_in))
        write_page(Path(request.outdir), request.label, outcome, request.shown)
    return Answer(outcome)
