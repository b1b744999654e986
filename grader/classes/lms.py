"""A class's grades as files an LMS imports: who each student is in the LMS (a roster), the grade and
feedback each gets, and the CSVs of Moodle's grade import and a generic LMS (grader.classes.canvas fills
Canvas's own export).

Read from the gradebook's latest entries, never by grading again. A student is matched to the LMS only
by an identifier the instructor's roster or the LMS's own file names gave, never by a display name, and
every student left unmatched on either side is reported, so no grade lands on the wrong person unseen. Where
two students share a name (their LMS ids differ), a roster row names one of them by their id; a row naming
the shared name is given to neither. A hand-in the batch left out is reported too: it has no grade here.
Every cell goes through csv_text: a name or identifier a spreadsheet would run as a formula is inert.
"""
from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from grader.classes.file_names import ANONYMOUS
from grader.messages import catalogue
from grader.messages.errors import GraderError
from grader.outputs.safe_text import clean, csv_text, one_line
from grader.results import Entry, LeftOut, StudentKey, percent

FEEDBACK_CHARS = 1000  # a feedback cell, at most: the LMS shows it to the student beside the grade
NAMES_SHOWN = 20  # students named in one line on stderr; the rest are counted
EXERCISES_SHOWN = 20  # exercises a feedback cell names
MOODLE = {"email": "Email address", "username": "Username", "idnumber": "ID number"}  # Moodle's own headers
GENERIC = ("identifier", "grade", "max_grade", "late", "feedback")


def read_text(path: Path) -> str:
    """A CSV the instructor gives, as text: one message (exit 2) when it is not there or not UTF-8."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise GraderError("lms.no_file", path=str(path)) from None
    except OSError as exc:
        raise GraderError("lms.no_file", path=f"{path} ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GraderError("lms.not_text", path=str(path), error=str(exc)) from None


def _name(name: str) -> str:
    """A student's name as `grade batch` keeps it (no spaces at its ends, accents composed)."""
    return unicodedata.normalize("NFC", name).strip()


@dataclass(frozen=True)
class Identities:
    """The instructor's roster: each of our students (its `student` column: their name, or the LMS id their
    hand-in's file name carries, as `1111` or `anon_x1Y2z`; or an `lms_id` column beside the name) and who
    they are in the LMS (`email`, `username`, `idnumber`, `canvas_id`, `sis_login`, or any other column)."""

    path: Path
    columns: tuple[str, ...]  # the header, lower case, in order
    rows: dict[str, dict[str, str]]  # the `lms_id` cell, else the student cell -> column -> value

    def row(self, mark: Mark) -> dict[str, str]:
        """The student's row: the one their LMS id names, else the one their name names, unless another
        student of the class has that name too."""
        entry = mark.entry
        if entry.lms_id in self.rows:
            return self.rows[entry.lms_id]
        return {} if mark.namesake else self.rows.get(entry.student, {})

    def first(self, mark: Mark, *columns: str) -> str:
        """The student's first non-empty value among these columns; "" when none."""
        row = self.row(mark)
        return next((row[c] for c in columns if row.get(c)), "")

    def need(self, column: str) -> None:
        if column not in self.columns:
            raise GraderError("lms.roster_no_column", path=str(self.path), column=column,
                              columns=", ".join(self.columns))


def read_roster(path: Path) -> Identities:
    text = read_text(path).removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise GraderError("lms.bad_csv", path=str(path), line=reader.line_num, error=str(exc)) from None
    header = tuple(cell.strip().lower() for cell in rows[0]) if rows else ()
    found = Identities(path, header, {})
    found.need("student")
    lines: dict[str, int] = {}
    for line, row in enumerate(rows[1:], 2):
        values = dict(zip(header, (cell.strip() for cell in row)))
        student = values.get("lms_id") or _name(values.get("student", ""))
        if not student:
            continue
        if student in lines:
            raise GraderError("lms.roster_twice", path=str(path), student=one_line(student), first=lines[student],
                              second=line)
        lines[student] = line
        found.rows[student] = values
    return found


@dataclass(frozen=True)
class Mark:
    """What the LMS gets for one student: their entry, and the share of it kept after a late penalty."""

    entry: Entry
    kept: float = 1.0  # 1 - the penalty, for a late hand-in under one
    namesake: bool = False  # another student of the class has this one's name (and another LMS id)

    @property
    def shown(self) -> str:
        """The student as a report names them: with their LMS id where another student has their name."""
        return self.entry.label if self.namesake or self.anonymous else self.entry.student

    @property
    def anonymous(self) -> bool:
        """An anonymous hand-in's id is no user id of the LMS: only a roster can say who it is."""
        return self.entry.lms_id.startswith(ANONYMOUS)

    @property
    def graded(self) -> bool:
        return self.entry.status == "graded"

    @property
    def points(self) -> float:
        return round(self.entry.score * self.kept, 2)

    def scaled(self, possible: float) -> float:
        """The grade in an LMS column worth `possible` points."""
        return round(percent(self.entry.score, self.entry.max_score) / 100 * possible * self.kept, 2)


def marks(entries: Sequence[Entry], late_penalty: float) -> list[Mark]:
    """One mark a student. An LMS column holds one grade a student, so a gradebook of several exercise
    sets (two batches into one folder) is refused rather than one picked."""
    sets = list(dict.fromkeys(entry.exercise_set for entry in entries))
    if len(sets) > 1:
        raise GraderError("lms.many_sets", sets=", ".join(one_line(s) for s in sets))
    keys: dict[str, set[StudentKey]] = {}
    for entry in entries:
        keys.setdefault(entry.student, set()).add(entry.key)
    return [Mark(entry, 1 - late_penalty / 100 if entry.late and late_penalty else 1.0, len(keys[entry.student]) > 1)
            for entry in entries]


def number(value: float) -> str:
    """A grade as an LMS reads it: 7.5, 10, 6.33."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def feedback(mark: Mark, lang: str) -> str:
    """The short plain-text summary beside the grade: the score, the exercises that lost points, and a
    late hand-in with its penalty; bounded."""
    entry, t = mark.entry, lambda key, **args: catalogue.text(key, lang, **args)
    parts = [t("lms.feedback.score", score=number(entry.score), max=number(entry.max_score))]
    lost = [f"{e.id} ({number(e.score)}/{number(e.max_score)})" for e in entry.run.exercises
            if e.score < e.max_score] if entry.run else []
    shown = ", ".join(lost[:EXERCISES_SHOWN]) + (", …" if len(lost) > EXERCISES_SHOWN else "")
    parts.append(t("lms.feedback.lost", exercises=shown) if lost else t("lms.feedback.full"))
    if entry.late:
        parts.append(t("lms.feedback.penalty", percent=number(100 * (1 - mark.kept)), grade=number(mark.points),
                       max=number(entry.max_score)) if mark.kept < 1 else t("lms.feedback.late"))
    text = " ".join(clean(t("lms.feedback.join").join(parts)).split())
    return text if len(text) <= FEEDBACK_CHARS else text[:FEEDBACK_CHARS - 1] + "…"


@dataclass
class Report:
    """What an export says on stderr beside its file: how many grades it wrote, and who it left out."""

    against: str  # the file the students were matched against
    written: int = 0
    penalised: int = 0
    unmatched_ours: list[str] = field(default_factory=list)  # our students with no place in the LMS file
    unmatched_theirs: list[str] = field(default_factory=list)  # the LMS's students with no result of ours
    no_grade: list[str] = field(default_factory=list)  # matched, but could not be graded: left blank
    anonymous: list[str] = field(default_factory=list)  # anonymous hand-ins no roster row names
    left_out: list[str] = field(default_factory=list)  # hand-ins the batch left out: nobody's grade

    def unmatched(self, mark: Mark) -> None:
        (self.anonymous if mark.anonymous else self.unmatched_ours).append(mark.shown)

    def count(self, mark: Mark) -> None:
        self.written += 1
        self.penalised += mark.kept < 1

    def lines(self, lang: str, late_penalty: float, column: str | None = None) -> list[str]:
        """The report in `lang`: what was written, then each group of students left out."""
        penalty = catalogue.text("lms.penalised", lang, count=self.penalised, percent=number(late_penalty)) \
            if self.penalised else ""
        said = [catalogue.text("lms.filled", lang, count=self.written, column=column, penalty=penalty) if column
                else catalogue.text("lms.written", lang, count=self.written, penalty=penalty)]
        for key, names in (("lms.unmatched_ours", self.unmatched_ours), ("lms.unmatched_theirs", self.unmatched_theirs),
                           ("lms.no_grade", self.no_grade), ("lms.anonymous", self.anonymous),
                           ("lms.left_out", self.left_out)):
            if names:
                said.append(catalogue.text(key, lang, count=len(names), path=self.against, names=listed(names, lang)))
        return said


def listed(names: Sequence[str], lang: str) -> str:
    shown = ", ".join(one_line(name) for name in names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return catalogue.text("lms.more", lang, names=shown, count=more) if more > 0 else shown


def moodle_csv(entries: Sequence[Entry], roster: Identities, identifier: str, column: str, late_penalty: float,
               lang: str, left_out: Sequence[LeftOut] = ()) -> tuple[str, Report]:
    """Moodle's grade import (Grades → Import → CSV file): an identifier column Moodle maps to its users
    (`Email address`, `Username` or `ID number`), the grade, and the feedback, UTF-8 and comma separated."""
    if identifier not in MOODLE:
        raise GraderError("lms.moodle_identifier", identifier=identifier)
    roster.need(identifier)
    rows, report = _rows(marks(entries, late_penalty), lambda mark: roster.first(mark, identifier), roster, lang,
                         left_out)
    header = (MOODLE[identifier], column, "Feedback")
    return csv_text([header, *((who, grade, text) for who, grade, _, _, text in rows)]), report


def lms_csv(entries: Sequence[Entry], roster: Identities | None, identifier: str | None, late_penalty: float,
            lang: str, left_out: Sequence[LeftOut] = ()) -> tuple[str, Report]:
    """The generic import most LMSs take: identifier, grade, max_grade, late, feedback. The identifier is
    the roster's `--identifier` column (default `id`, else its first column besides `student`), or, without a
    roster, our student name (two students of one name, or an anonymous hand-in, need a roster to be told
    apart: they are reported, not written)."""
    every = marks(entries, late_penalty)
    if roster is None:
        if identifier is not None:
            raise GraderError("lms.needs_option", format="lms --identifier", option="--roster")
        rows, report = _rows(every, lambda mark: "" if mark.anonymous or mark.namesake else mark.entry.student,
                             None, lang, left_out)
    else:
        others = [c for c in roster.columns if c != "student"]
        chosen = identifier or ("id" if "id" in others else others[0] if others else "id")
        roster.need(chosen)
        rows, report = _rows(every, lambda mark: roster.first(mark, chosen), roster, lang, left_out)
    return csv_text([GENERIC, *rows]), report


def _rows(every: Sequence[Mark], identify: Callable[[Mark], str], roster: Identities | None, lang: str,
          left_out: Sequence[LeftOut]) -> tuple[list[tuple[str, str, str, str, str]], Report]:
    """A row per graded student the roster names; the others reported."""
    report = Report(str(roster.path) if roster else "", left_out=[item.path for item in left_out if item.hand_in])
    rows = []
    for mark in every:
        who = identify(mark)
        if not who:
            report.unmatched(mark)
        elif not mark.graded:
            report.no_grade.append(mark.shown)
        else:
            report.count(mark)
            rows.append((who, number(mark.points), number(mark.entry.max_score), "yes" if mark.entry.late else "no",
                         feedback(mark, lang)))
    if roster is not None:
        ours = [roster.row(mark) for mark in every]
        report.unmatched_theirs = [student for student, row in roster.rows.items() if not any(row is o for o in ours)]
    return rows, report
