"""Grades a person adjusted (`grade adjust`): kept in the gradebook beside the results, laid over them when read.

An adjustment is keyed by student (their name and their LMS id where the class has one: namesakes are two
students) and exercise id, not by a result row, so it outlives a regrade: every
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
from grader.outputs.safe_text import clean
from grader.results import Adjustment, Entry, ExerciseResult, StudentKey, student_key

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
    at TEXT NOT NULL,
    lms_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS adjustments_by_student ON adjustments (student, exercise, id);
"""
_LMS_ID = "lms_id TEXT NOT NULL DEFAULT ''"  # a column that tables made before namesakes were told apart lack

Key = tuple[StudentKey, str]  # (student, exercise id)


def in_force(db: sqlite3.Connection) -> dict[Key, Adjustment]:
    """The adjustment in force per student and exercise: the latest row of each, unless it took one back.
    A gradebook nobody adjusted has no table: reading it writes nothing."""
    if not _has_table(db):
        return {}
    # The latest by time, then by row: rows merged from a shard come after this gradebook's own, whatever their time.
    table = "adjustments" if _has_lms_id(db) else "(SELECT *, '' AS lms_id FROM adjustments)"
    rows = db.execute(f"SELECT student, lms_id, exercise, kind, points, by, why, at, own_score FROM (SELECT *, "
                      "ROW_NUMBER() OVER (PARTITION BY lms_id, student, exercise "
                      f"ORDER BY at DESC, id DESC) AS latest FROM {table}) WHERE latest = 1")
    return {(student_key(student, lms_id), exercise): Adjustment(points=points, by=by, why=why, at=at, own_score=own)
            for student, lms_id, exercise, kind, points, by, why, at, own in rows if kind == "adjust"}


_FIELDS = "student, exercise, kind, points, own_score, by, why, at, lms_id"


def merged(db: sqlite3.Connection, source: sqlite3.Connection) -> None:
    """Add the adjustment rows of another gradebook (a shard's) that this one lacks, oldest first: merging the
    same shard twice adds nothing, and the adjustment in force is the latest made in any of them."""
    if not _has_table(source):
        return
    fields = _FIELDS if _has_lms_id(source) else _FIELDS.replace("lms_id", "'' AS lms_id")
    rows = source.execute(f"SELECT {fields} FROM adjustments ORDER BY at, id").fetchall()
    if not rows:
        return
    try:
        _make_table(db)
        with db:
            have = set(db.execute(f"SELECT {_FIELDS} FROM adjustments").fetchall())
            db.executemany(f"INSERT INTO adjustments ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [row for row in rows if row not in have])
    except sqlite3.Error as exc:
        raise Unwritable(exc) from None


def _has_table(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'adjustments'").fetchone() is not None


def _has_lms_id(db: sqlite3.Connection) -> bool:
    return any(row[1] == "lms_id" for row in db.execute("PRAGMA table_info(adjustments)"))


def _make_table(db: sqlite3.Connection) -> None:
    """The table, made by the first adjustment of a gradebook, with the column an older one lacks added."""
    db.executescript(_SCHEMA)  # IF NOT EXISTS
    if not _has_lms_id(db):
        db.execute(f"ALTER TABLE adjustments ADD COLUMN {_LMS_ID}")


def apply(entries: Sequence[Entry], adjustments: dict[Key, Adjustment]) -> list[Entry]:
    """The entries with each adjustment in force on its exercise's result (every exercise set that graded it).
    An adjustment made before namesakes were told apart is keyed by a name: it holds for the one student of
    that name with an LMS id, and for none where two share it."""
    if not adjustments:
        return list(entries)
    ids_of_name: dict[str, set[str]] = {}
    for entry in entries:
        ids_of_name.setdefault(entry.student, set()).add(entry.lms_id)
    return [_adjusted(entry, adjustments, by_name=len(ids_of_name[entry.student]) == 1) for entry in entries]


def _adjusted(entry: Entry, adjustments: dict[Key, Adjustment], *, by_name: bool) -> Entry:
    run = entry.run
    if run is None:
        return entry
    keys = [entry.key] + ([student_key(entry.student, "")] if by_name and entry.lms_id else [])
    found = {e.id: next((adjustments[k, e.id] for k in keys if (k, e.id) in adjustments), None) for e in run.exercises}
    if not any(found.values()):
        return entry
    exercises = tuple(replace(e, adjustment=found[e.id]) for e in run.exercises)
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
                found.setdefault((entry.key, exercise.id), Msg("adjust.drifted", {
                    "student": entry.label, "exercise": exercise.id, "then": then.own_score,
                    "now": exercise.own_score, "points": then.points, "by": then.by, "date": then.at[:10]}))
    return list(found.values())


def adjust(db: sqlite3.Connection, entries: Sequence[Entry], student: str, exercise: str, points: float,
           by: str, why: str) -> Msg:
    """Set the score of one student's exercise; returns the line that says what changed. `entries` are the
    gradebook's current ones (Gradebook.latest), adjusted as they stand."""
    by, why = _text(by, "--by", BY_CHARS, "adjust.no_by"), _text(why, "--why", WHY_CHARS, "adjust.no_why")
    whose, result = _graded(entries, student, exercise)
    if not (math.isfinite(points) and 0 <= points <= result.max_score):
        raise GraderError("adjust.points_range", points=str(points), exercise=exercise, max=result.max_score)
    _add(db, whose, exercise, "adjust", points, result.own_score, by, why)
    return Msg("adjust.done", {"student": whose.label, "exercise": exercise, "before": result.score,
                               "after": points, "max": result.max_score, "own": result.own_score, "by": by})


def take_back(db: sqlite3.Connection, entries: Sequence[Entry], student: str, exercise: str, by: str,
              why: str) -> Msg:
    """Take back the adjustment in force: the grader's own score counts again."""
    by, why = _text(by, "--by", BY_CHARS, "adjust.no_by"), _text(why, "--why", WHY_CHARS, None)
    whose, result = _graded(entries, student, exercise)
    if result.adjustment is None:
        raise GraderError("adjust.nothing_to_undo", student=whose.label, exercise=exercise)
    _add(db, whose, exercise, "undo", None, result.own_score, by, why)
    return Msg("adjust.undone", {"student": whose.label, "exercise": exercise, "before": result.score,
                                 "after": result.own_score, "max": result.max_score})


def _graded(entries: Sequence[Entry], student: str, exercise: str) -> tuple[Entry, ExerciseResult]:
    """Whose grade it is (one of their entries) and their current graded result of the exercise, or the error
    that says why there is none."""
    theirs = _whose(entries, student)
    for entry in theirs:
        found = next((e for e in entry.run.exercises if e.id == exercise), None) if entry.run else None
        if entry.status == "graded" and found is not None:
            return entry, found
    graded = sorted({e.id for entry in theirs if entry.run and entry.status == "graded" for e in entry.run.exercises})
    raise GraderError("adjust.no_exercise", student=theirs[0].label, exercise=exercise, graded=", ".join(graded) or "-")


def _whose(entries: Sequence[Entry], student: str) -> list[Entry]:
    """The entries of the student named on the command line: by their LMS id, by name and id as their page is
    named (`wangwei_1111`), or by a name no one else has. A name that two ids share is refused, naming the ids."""
    name = _name(student)
    for same in (lambda e: e.lms_id == name, lambda e: e.label == name, lambda e: e.student == name):
        theirs = [entry for entry in entries if same(entry)]
        keys = sorted({entry.key for entry in theirs})
        if len(keys) > 1:
            raise GraderError("adjust.namesakes", student=name, ids=", ".join(lms_id for lms_id, _ in keys))
        if theirs:
            return theirs
    raise GraderError("adjust.unknown_student", student=name)


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


def _add(db: sqlite3.Connection, whose: Entry, exercise: str, kind: str, points: float | None, own: float, by: str,
         why: str) -> None:
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        _make_table(db)
        with db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(f"INSERT INTO adjustments ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (whose.student, exercise, kind, points, own, by, why, at, whose.lms_id))
    except sqlite3.Error as exc:
        raise Unwritable(exc) from None
