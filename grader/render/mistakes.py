"""What the class got wrong: every failed check of the gradebook grouped by the mistake that failed it.

A mistake is named by the most specific message its exercise gave it: the diagnosis the message
explains itself with (`evidence["diagnosis"]`, such as `3.1.diag.missing_transpose` or
`gpt.head.bug.softmax_dim`), else the check's own message (`mask.short.unsliced`,
`gpt.split.leak`). A failure nothing names is "other", one group per exercise: a message of the grader's
core (the student's code raised, hung, or lacked the name) or a diagnosis that says it does not know.
A grader error is ours, not a mistake, and a skipped check was not attempted.

A mistake is shown by its title (`titles`, every language): the title the judge kept beside the diagnosis that
names it (its message's first clause, `The mask is inverted`), else the title of the check that reported it.
Like the other class views it reads the gradebook's entries alone (the checks' titles, the message one student
got), never the exercises' catalogue, so `grade export` runs without the exercises that wrote them and says
what `grade batch` said.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from grader.messages import catalogue
from grader.outputs.names import page_name
from grader.outputs.safe_text import csv_text
from grader.results import CheckResult, Entry

OTHER = "other"  # the mistake column of an unnamed failure in the spreadsheet


@dataclass(frozen=True)
class AffectedStudent:
    name: str
    href: str  # the check on the student's page


@dataclass(frozen=True)
class MistakeCheck:
    id: str
    title: str
    titles: dict[str, str]  # every language


@dataclass
class Mistake:
    """One mistake in one exercise: a named one however many of the exercise's checks reported it, or the
    unnamed failures of the exercise."""

    key: str  # the message key naming it; "" for the exercise's unnamed failures
    exercise: str
    titles: dict[str, str]  # what the class view calls it, in every language
    checks: list[MistakeCheck]  # the checks that reported it, in the order the page shows them
    example: dict[str, str]  # the message the first of its students got, in every language
    students: list[AffectedStudent] = field(default_factory=list)  # each once, linked to the first check that said so

    @property
    def count(self) -> int:
        return len(self.students)


def mistake_key(exercise: str, check: CheckResult) -> str:
    """The key that names a failed check's mistake, or "" when nothing names it."""
    own = f"{exercise}."
    diagnosis = check.evidence.get("diagnosis")
    if isinstance(diagnosis, str) and diagnosis.startswith(own):
        return "" if diagnosis.endswith(".unknown") else diagnosis
    return check.message_key if check.message_key.startswith(own) else ""


def titled(key: str, check: CheckResult) -> dict[str, str]:
    """A mistake's title in every language: the title the judge kept for the diagnosis that names it (its
    message's first clause, `diagnosis_titles`), else the title of the check that reported it; for the
    exercise's unnamed failures, "Other failures"."""
    if not key:
        return catalogue.every_lang(lambda lang: catalogue.text("index.mistakes.other", lang))
    titles = check.evidence.get("diagnosis_titles")
    if check.evidence.get("diagnosis") == key and isinstance(titles, dict) and all(
            isinstance(titles.get(lang), str) for lang in catalogue.LANGS):
        return {lang: titles[lang] for lang in catalogue.LANGS}
    return dict(check.titles)


def check_href(student: str, exercise: str, check: str) -> str:
    """A check on a student's feedback page (its article's id, grader/render/templates/feedback.html.j2)."""
    return f"{page_name(student)}#ex-{exercise}-{check}"


def common_mistakes(entries: Sequence[Entry]) -> list[Mistake]:
    """Every mistake of the class, the most common first; ties in the order the runs list the checks."""
    found: dict[tuple[str, str], Mistake] = {}
    order: dict[tuple[str, str], tuple[int, int]] = {}
    for entry in sorted(entries, key=lambda e: (e.student, e.lms_id)):
        if entry.status != "graded" or entry.run is None:
            continue
        for n, exercise in enumerate(entry.run.exercises):
            for m, check in enumerate(exercise.checks):
                if check.status != "failed":
                    continue
                key = mistake_key(exercise.id, check)
                group = (exercise.id, key or OTHER)
                mistake = found.setdefault(group, Mistake(key, exercise.id, titled(key, check), [], check.messages))
                order.setdefault(group, (n, m))
                if check.id not in (c.id for c in mistake.checks):
                    mistake.checks.append(MistakeCheck(check.id, check.title, check.titles))
                if not mistake.students or mistake.students[-1].name != entry.label:
                    href = check_href(entry.label, exercise.id, check.id)
                    mistake.students.append(AffectedStudent(entry.label, href))
    ranked = sorted(found, key=lambda group: (-found[group].count, *order[group], found[group].key == ""))
    return [found[group] for group in ranked]


def mistakes_csv(entries: Sequence[Entry]) -> str:
    """The mistakes as a spreadsheet: mistake, exercise, check, count, students (lists joined by "; ")."""
    rows = [(mistake.key or OTHER, mistake.exercise, "; ".join(check.id for check in mistake.checks),
             str(mistake.count), "; ".join(student.name for student in mistake.students))
            for mistake in common_mistakes(entries)]
    return csv_text([("mistake", "exercise", "check", "count", "students"), *rows])
