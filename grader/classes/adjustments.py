"""Grades a person adjusted (`grade adjust`): kept in the gradebook beside the results, laid over them when read.

An adjustment is keyed by student and exercise id, not by a result row, so it outlives a regrade: every
reader of the gradebook (Gradebook.latest) gets runs whose adjusted exercises carry their Adjustment. The
table is append-only like the results: a row sets a score or takes one back (`undo`), the latest row per
student and exercise (by when it was made) is the one in force, and the history of who changed what, when and
why stays. `grade merge` brings each shard's rows over (merged), so a grade adjusted in a shard stays adjusted.
"""
from __future__ import annotations

import math
import sqlite3
import unicodedata
from dataclasses import replace
from datetime import datetime, timezone
from typing import Iterable, Sequence

from grader.messages.catalogue import Msg
from grader.messages.errors import GraderError, Unwritable
from grader.render.text import clean
from grader.results import Adjustment, Entry, ExerciseResult

BY_CHARS = 200  # who adjusted: a name, shown on the student's page
WHY_CHARS = 2_000  # the reason, shown on the student's page and in Gradescope

_SCHEMA = """
CREATE TABLE IF NOT EXISTS adjustments (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL,
    exercise TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('adjust', 'undo')),
    points REAL,
    own_score REAL NOT NULL,
    by TEXT NOT NULL,
    why TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS adjustments_by_student ON adjustments (student, exercise, id);
"""

Key = tuple[str, str]  # (student, exercise id)


def in_force(db: sqlite3.Connection) -> dict[Key, Adjustment]:
    """The adjustment in force per student and exercise: the latest row of each, unless it took one back.
    A gradebook nobody adjusted has no table: reading it writes nothing."""
    if not _has_table(db):
        return {}
    # The latest by time, then by row: rows merged from a shard come after this gradebook's own, whatever their time.
    rows = db.execute("SELECT student, exercise, kind, points, by, why, at, own_score FROM (SELECT *, ROW_NUMBER() "
                      "OVER (PARTITION BY student, exercise ORDER BY at DESC, id DESC) AS latest FROM adjustments) "
                      "WHERE latest = 1")
    return {(student, exercise): Adjustment(points=points, by=by, why=why, at=at, own_score=own)
            for student, exercise, kind, points, by, why, at, own in rows if kind == "adjust"}


_FIELDS = "student, exercise, kind, points, own_score, by, why, at"


def merged(db: sqlite3.Connection, source: sqlite3.Connection) -> None:
    """Add the adjustment rows of another gradebook (a shard's) that this one lacks, oldest first: merging the
    same shard twice adds nothing, and the adjustment in force is the latest made in any of them."""
    if not _has_table(source):
        return
    rows = source.execute(f"SELECT {_FIELDS} FROM adjustments ORDER BY at, id").fetchall()
    if not rows:
        return
    try:
        db.executescript(_SCHEMA)
        with db:
            have = set(db.execute(f"SELECT {_FIELDS} FROM adjustments").fetchall())
            db.executemany(f"INSERT INTO adjustments ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [row for row in rows if row not in have])
    except sqlite3.Error as exc:
        raise Unwritable(exc) from None


def _has_table(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'adjustments'").fetchone() is not None


def apply(entries: Sequence[Entry], adjustments: dict[Key, Adjustment]) -> list[Entry]:
    """The entries with each adjustment in force on its exercise's result (every exercise set that graded it)."""
    if not adjustments:
        return list(entries)
    return [_adjusted(entry, adjustments) for entry in entries]


def _adjusted(entry: Entry, adjustments: dict[Key, Adjustment]) -> Entry:
    run = entry.run
    if run is None or not any((entry.student, e.id) in adjustments for e in run.exercises):
        return entry
    exercises = tuple(replace(e, adjustment=adjustments.get((entry.student, e.id))) for e in run.exercises)
    return replace(entry, result=replace(run, exercises=exercises))


def drifted(entries: Iterable[Entry]) -> list[Msg]:
    """One warning per adjusted exercise whose grader's own score is no longer what it was when a person
    adjusted it (a regrade, a changed exercise): the adjusted score stays, someone should look again.
    `grade batch` tells them after grading."""
    found: dict[Key, Msg] = {}
    for entry in entries:
        for exercise in entry.run.adjusted if entry.run else ():
            then = exercise.adjustment
            if then is not None and not math.isclose(then.own_score, exercise.own_score, abs_tol=1e-9):
                found.setdefault((entry.student, exercise.id), Msg("adjust.drifted", {
                    "student": entry.student, "exercise": exercise.id, "then": then.own_score,
                    "now": exercise.own_score, "points": then.points, "by": then.by, "date": then.at[:10]}))
    return list(found.values())


def adjust(db: sqlite3.Connection, entries: Sequence[Entry], student: str, exercise: str, points: float,
           by: str, why: str) -> Msg:
    """Set the score of one student's exercise; returns the line that says what changed. `entries` are the
    gradebook's current ones (Gradebook.latest), adjusted as they stand."""
    by, why = _text(by, "--by", BY_CHARS, "adjust.no_by"), _text(why, "--why", WHY_CHARS, "adjust.no_why")
    result = _graded(entries, student, exercise)
    if not (math.isfinite(points) and 0 <= points <= result.max_score):
        raise GraderError("adjust.points_range", points=str(points), exercise=exercise, max=result.max_score)
    _add(db, (_name(student), exercise), "adjust", points, result.own_score, by, why)
    return Msg("adjust.done", {"student": _name(student), "exercise": exercise, "before": result.score,
                               "after": points, "max": result.max_score, "own": result.own_score, "by": by})


def take_back(db: sqlite3.Connection, entries: Sequence[Entry], student: str, exercise: str, by: str,
              why: str) -> Msg:
    """Take back the adjustment in force: the grader's own score counts again."""
    by, why = _text(by, "--by", BY_CHARS, "adjust.no_by"), _text(why, "--why", WHY_CHARS, None)
    result = _graded(entries, student, exercise)
    if result.adjustment is None:
        raise GraderError("adjust.nothing_to_undo", student=_name(student), exercise=exercise)
    _add(db, (_name(student), exercise), "undo", None, result.own_score, by, why)
    return Msg("adjust.undone", {"student": _name(student), "exercise": exercise, "before": result.score,
                                 "after": result.own_score, "max": result.max_score})


def _graded(entries: Sequence[Entry], student: str, exercise: str) -> ExerciseResult:
    """The student's current graded result of the exercise, or the error that says why there is none."""
    name = _name(student)
    theirs = [entry for entry in entries if entry.student == name]
    if not theirs:
        raise GraderError("adjust.unknown_student", student=name)
    for entry in theirs:
        found = next((e for e in entry.run.exercises if e.id == exercise), None) if entry.run else None
        if entry.status == "graded" and found is not None:
            return found
    graded = sorted({e.id for entry in theirs if entry.run and entry.status == "graded" for e in entry.run.exercises})
    raise GraderError("adjust.no_exercise", student=name, exercise=exercise, graded=", ".join(graded) or "-")


def _name(student: str) -> str:
    """A name as the gradebook keeps it (grader.classes.roster): no spaces at its ends, accents composed."""
    return unicodedata.normalize("NFC", student.strip())


def _text(value: str | None, option: str, most: int, missing: str | None) -> str:
    """A person's text as kept: no control characters, no spaces at its ends, bounded; where `missing` names a
    message, required."""
    text = clean(value or "").strip()
    if not text and missing:
        raise GraderError(missing)
    if len(text) > most:
        raise GraderError("adjust.too_long", option=option, max=most)
    return text


def _add(db: sqlite3.Connection, key: Key, kind: str, points: float | None, own: float, by: str, why: str) -> None:
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        db.executescript(_SCHEMA)  # IF NOT EXISTS: the first adjustment of a gradebook makes its table
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(f"INSERT INTO adjustments ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (*key, kind, points, own, by, why, at))
    except sqlite3.Error as exc:
        raise Unwritable(exc) from None
