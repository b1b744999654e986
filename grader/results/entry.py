"""A class's result for one student: the one result model's SubmissionResult, with who handed it in, what
was graded and when (a row of the gradebook, grader.classes.gradebook).

It holds the result itself, a run or `Ungraded`, and nothing beside it that could disagree with it: its
status, score and problem are read from the result, so a class's outputs (grades.csv, results.jsonl, the
overview, the LMS files) tell "could not grade" from the same type every other output reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from grader.messages.catalogue import Msg
from grader.results.model import RunResult, SubmissionResult, Ungraded
from grader.results.statuses import SubmissionStatus


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
