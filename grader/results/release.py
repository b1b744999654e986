"""What a student sees of a result before the course releases its feedback: a redaction of the result model.

A course that grades an exam shows the score now and the details after the deadline. The detail is taken
out of the result itself, not left out by each renderer, so that every output a student reads (the batch
page, Gradescope's results.json, `grade ci`'s page, JUnit XML, annotations and terminal) shows the same and
none can leak what it was never given. `for_students` is applied once, before any renderer sees the result,
by what owns the policy: a class's pages by grader.classes.pages (the batch's judges and every publishing of
grader.classes.course), a course's Gradescope files by the course, `grade ci` and `grade gradescope` by their
command; no renderer takes a policy. The gradebook keeps the whole result; `grade release` renders it.

The policies, from least to most shown:

- `score`: each exercise's points and the total. An exercise's checks collapse into one, worth their
  points, whose title and message say that the details come later.
- `verdicts`: the score, and each check's title, status and points; its message and evidence replaced by
  that note.
- `everything`: the whole result (the page as it always was).

Both hide everything else that comes from the student's code or explains a verdict: cells that raised and
their code, what the submission printed, and the notes on how its files were read. What stays is what
grading was (the student's own file names, the seed and version that reproduce it, the protections, the
time), which says nothing about a check.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, get_args

from grader.messages import catalogue
from grader.results.model import CheckResult, ExerciseResult, RunResult, SubmissionResult
from grader.results.statuses import Status

Policy = Literal["score", "verdicts", "everything"]
POLICIES: tuple[Policy, ...] = get_args(Policy)
EVERYTHING: Policy = "everything"
WITHHELD = "release.withheld"  # the message of every check whose detail is withheld
ALL_CHECKS = "release.all_checks"  # the title of an exercise's checks collapsed into one (`score`)
COLLAPSED_ID = "all"


@dataclass(frozen=True)
class ForStudents:
    """A result as its student may see it: `now`, what the policy shows before release; `later`, the whole
    result where something is withheld (None where nothing is), which Gradescope shows once grades are published."""

    now: SubmissionResult
    later: RunResult | None = None


def for_students(outcome: SubmissionResult, policy: Policy) -> ForStudents:
    """The one redaction every output for students goes through: why a submission could not be graded is
    shown whole (it says what to fix); a graded run as `policy` shows it before release."""
    if not isinstance(outcome, RunResult):
        return ForStudents(outcome)
    now = withheld(outcome, policy)
    return ForStudents(now, None if now is outcome else outcome)


def withheld(run: RunResult, policy: Policy) -> RunResult:
    """A copy of `run` holding only what `policy` shows before release (`run` itself for `everything`)."""
    if policy == EVERYTHING:
        return run
    if policy not in POLICIES:
        raise ValueError(f"unknown release policy {policy!r}")
    note = catalogue.every_lang(lambda lang: catalogue.text(WITHHELD, lang))
    shown = _collapsed if policy == "score" else _verdicts
    # dataclasses.replace: every field the model gains later (an adjustment) carries over unless named here
    return replace(
        run,
        exercises=tuple(replace(exercise, checks=shown(exercise, note, run.lang)) for exercise in run.exercises),
        cells=(), cell_counts={}, output_tail="",
        submission=replace(run.submission, left_out={}, header=""),
    )


def collapsed(exercise: ExerciseResult) -> bool:
    """Whether the exercise's checks are the one that `score` collapsed them into: a count of checks passed
    would count that one, and read as a failure to a student whose points are most of the exercise's."""
    return len(exercise.checks) == 1 and exercise.checks[0].id == COLLAPSED_ID and \
        exercise.checks[0].message_key == WITHHELD


def _verdicts(exercise: ExerciseResult, note: dict[str, str], lang: str) -> tuple[CheckResult, ...]:
    """Each check with its title, status and points, its message and evidence replaced by the note."""
    return tuple(replace(check, message=catalogue.pick(note, lang), messages=note, message_key=WITHHELD, evidence={})
                 for check in exercise.checks)


def _collapsed(exercise: ExerciseResult, note: dict[str, str], lang: str) -> tuple[CheckResult, ...]:
    """The exercise's checks as one, worth what they are worth together: its points survive, nothing else."""
    if not exercise.checks:
        return ()
    titles = catalogue.every_lang(lambda each: catalogue.text(ALL_CHECKS, each))
    return (CheckResult(
        id=COLLAPSED_ID, title=catalogue.pick(titles, lang), titles=titles, status=_status(exercise.checks),
        score=sum(c.score for c in exercise.checks), max_score=sum(c.max_score for c in exercise.checks),
        message=catalogue.pick(note, lang), messages=note, message_key=WITHHELD,
        duration_s=sum(c.duration_s for c in exercise.checks)),)


def _status(checks: tuple[CheckResult, ...]) -> Status:
    """One status for several checks: a grader fault first (it is ours, and the instructor regrades it), then
    a failure; skipped only when every check was."""
    statuses = {check.status for check in checks}
    if "error" in statuses:
        return "error"
    if "failed" in statuses:
        return "failed"
    return "passed" if "passed" in statuses else "skipped"
