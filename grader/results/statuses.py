"""The one vocabulary of statuses: every word a result uses to say how something ended, and what it means where.

"error" is always ours: a grader's fault, never charged to the student and graded again. What the student's
code did wrong is "failed" on a check and "raised" on a cell, so no word means both.

A check (CheckResult.status, `Status`):
    passed      the student's answer is right.
    failed      the student's answer is wrong, missing, raised, hung or crashed (its message says which).
    error       the grader failed on the check: ours (exit code 2, a JUnit <error>).
    skipped     the check needs what this machine lacks (a GPU): worth 0 of 0 points, not attempted.

A cell of a notebook, or a top-level statement of a .py file (CellRecord.status, `CellStatus`):
    ok          it ran to its end.
    raised      the student's code in it raised an exception (CellRecord.error says which).
    interrupted it ran past its share of the time and was interrupted as Jupyter's Stop button does, its
                state kept (grader.judge.budget).
    timeout     it did not stop when interrupted: killed, and skipped when the cells are replayed.
    crashed     it ended its process (a segfault, os._exit): skipped when the cells are replayed.

A submission in a class (grader.results.entry.Entry.status, the gradebook's `status` column, grades.csv and
results.jsonl, `SubmissionStatus`):
    graded      it has a run, and the grader failed on none of its checks.
    ungradable  its files cannot be graded (a broken notebook, nothing to grade): the student's to fix
                (`Ungraded`).
    error       ours: the grader failed on it (`Ungraded`, a lost worker) or on one of its checks; the next
                `grade batch` grades it again.
"""
from __future__ import annotations

from typing import Literal

Status = Literal["passed", "failed", "error", "skipped"]
CellStatus = Literal["ok", "raised", "interrupted", "timeout", "crashed"]
UngradedStatus = Literal["ungradable", "error"]  # why a submission has no run (grader.results.model.Ungraded)
SubmissionStatus = Literal["graded", UngradedStatus]
# A cell that recorded what the student's code raised or where it stopped (CellRecord.error holds the frames).
STOPPED: tuple[CellStatus, ...] = ("raised", "interrupted")
