"""A class's result for one student: the one result model's SubmissionResult, with who handed it in, what
was graded and when (a row of the gradebook, grader.classes.gradebook).

It holds the result itself, a run or `Ungraded`, and nothing beside it that could disagree with it: its
status, score and problem are read from the result, so a class's outputs (grades.csv, results.jsonl, the
overview, the LMS files) tell "could not grade" from the same type every other output reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from grader.messages.catalogue import Msg
from grader.results.model import RunResult, SubmissionResult, Ungraded
from grader.results.statuses import SubmissionStatus


# Who a student is: their LMS id, where an LMS's file names carry one, and their name. Two students sharing a
# name are two students when their ids differ; two names under one id are two as well, so that an LMS file
# matched by that id stops and names both rather than picking one (grader.classes.canvas).
StudentKey = tuple[str, str]
HAND_IN_SUFFIXES = (".py", ".ipynb", ".zip")  # what a student hands in, a zip of such files included


def student_key(name: str, lms_id: str) -> StudentKey:
    return (lms_id, name)


def student_label(name: str, lms_id: str) -> str:
    """`wangwei_1111` for Canvas's user 1111, `anon_x1Y2z` for an anonymous hand-in, else the name."""
    return f"{name}_{lms_id}" if lms_id and lms_id != name else name


@dataclass(frozen=True)
class LeftOut:
    """A file under a class's SOURCE that got no result, and why. A hand-in (a code file, a zip) left out is
    the instructor's to fix, so every output lists it; any other file (a README, a screenshot) only the index."""

    path: str  # as the instructor knows it: `class.zip:folder/file.py` inside a zip
    reason: Msg

    @property
    def hand_in(self) -> bool:
        suffix = PurePosixPath(self.path.rpartition(":")[2] or self.path).suffix.lower()
        return self.reason.key != "roster.not_submission" and suffix in HAND_IN_SUFFIXES


@dataclass(frozen=True)
class Entry:
    """One student's result for one exercise set: a graded run, or why there is none."""

    student: str
    exercise_set: str
    sha256: str
    grader_version: str
    files: tuple[str, ...]
    result: SubmissionResult
    graded_at: str = ""
    uid: str = ""  # the row's id in its gradebook
    # exercise id -> the fingerprint of its definition when this was graded (grader.classes.definitions)
    definitions: dict[str, str] = field(default_factory=dict)
    lms_id: str = ""  # the student's id in the course's LMS, where its download's file names say it (Canvas)
    late: bool = False  # handed in after the deadline, as the LMS's file names say

    @property
    def key(self) -> StudentKey:
        """Who this is: the LMS id where the download's file names gave one, and the name."""
        return student_key(self.student, self.lms_id)

    @property
    def label(self) -> str:
        """The student as one string, unique in a class: the name, with the LMS id where there is one."""
        return student_label(self.student, self.lms_id)

    @property
    def status(self) -> SubmissionStatus:
        """"graded", or why not (grader.results.statuses): a run the grader failed on a check of is ours,
        "error", and graded again like a submission it could not grade."""
        if isinstance(self.result, Ungraded):
            return self.result.status
        return "error" if self.result.grader_fault else "graded"

    @property
    def run(self) -> RunResult | None:
        """The run, where there is one (a run the grader failed on a check of included)."""
        return self.result if isinstance(self.result, RunResult) else None

    @property
    def problem(self) -> Msg | None:
        """Why there is no run, where there is none."""
        return self.result.problem if isinstance(self.result, Ungraded) else None

    @property
    def score(self) -> float:
        return self.result.score if isinstance(self.result, RunResult) else 0.0

    @property
    def max_score(self) -> float:
        return self.result.max_score if isinstance(self.result, RunResult) else 0.0
