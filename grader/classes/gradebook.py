"""The class gradebook: one SQLite file in the output folder, written the moment each result is final.

Why SQLite in WAL mode: each commit survives the grading process being killed (even with -9), a reader
(an export while a batch runs) never blocks the writer, and the file is one thing an instructor can copy,
merge or query. Rows are never updated or deleted: a regrade adds a row, so the history of a changed
submission stays, and "the" result of a student is the latest row for their exercise set.

Beside the results it keeps the code of each submission it graded (grader.classes.similarity.code_of), by
sha256, so that `grade similar` compares the whole class after `grade merge`, on no machine that
still holds the submissions.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from grader.classes import adjustments
from grader.messages.catalogue import Msg
from grader.messages.errors import Unwritable
from grader.outputs.safe_text import json_text
from grader.results import Entry, LeftOut, RunResult, SubmissionResult, Ungraded, from_json, student_key, to_json

FILENAME = "gradebook.sqlite"
# A grader error is not final: the next run grades that submission again.
FINAL = ("graded", "ungradable")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    student TEXT NOT NULL,
    exercise_set TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('graded', 'ungradable', 'error')),
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    files TEXT NOT NULL,
    graded_at TEXT NOT NULL,
    result TEXT,
    problem TEXT,
    definitions TEXT NOT NULL DEFAULT '{}',
    lms_id TEXT NOT NULL DEFAULT '',
    late INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS results_by_student ON results (student, exercise_set, id);
CREATE TABLE IF NOT EXISTS left_out (
    path TEXT PRIMARY KEY,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS code (
    sha256 TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
"""
_COLUMNS = ("uid", "student", "exercise_set", "sha256", "grader_version", "status", "score", "max_score",
            "files", "graded_at", "result", "problem", "definitions", "lms_id", "late")
# Columns a gradebook written by an earlier version lacks, added when it is opened: (name, declaration).
_ADDED = (("definitions", "TEXT NOT NULL DEFAULT '{}'"), ("lms_id", "TEXT NOT NULL DEFAULT ''"),
          ("late", "INTEGER NOT NULL DEFAULT 0"))
# Who a row's student is (grader.results.entry.StudentKey): the LMS id where the row has one, and the name. A
# gradebook written before namesakes were told apart kept a Canvas class's names with their ids, so it reads
# the same way.
_WHO = "lms_id, student"


class GradebookError(Unwritable):
    """The gradebook cannot be opened or written (not a gradebook, a locked or read-only file)."""


class Gradebook:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a commit outlives a killed process
            self.db.executescript(_SCHEMA)
            have = {row[1] for row in self.db.execute("PRAGMA table_info(results)")}
            for name, declaration in _ADDED:
                if name not in have:
                    self.db.execute(f"ALTER TABLE results ADD COLUMN {name} {declaration}")
        except sqlite3.Error as exc:
            raise GradebookError(f"{path}: {exc}") from None
        # The runs this object recorded, by their rows' JSON text, and each run with its text by its id: the outputs
        # a batch publishes read each run back without decoding or encoding it again (~1 ms each way for a mask
        # run, serial at the end of a batch).
        self._recorded: dict[str, RunResult] = {}
        self._texts: dict[int, tuple[RunResult, str]] = {}

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def record(self, entry: Entry) -> Entry:
        """Commit one final result; returns it with its id in the book and the time it was recorded."""
        stamped = replace(entry, uid=entry.uid or uuid.uuid4().hex,
                          graded_at=entry.graded_at or datetime.now(timezone.utc).isoformat(timespec="seconds"))
        row = _row(stamped)
        self._insert([row])
        text = row[_COLUMNS.index("result")]
        if stamped.run is not None and text is not None:
            self._recorded[text] = stamped.run
            self._texts[id(stamped.run)] = (stamped.run, text)  # holding the run, so no other object takes its id
        return stamped

    def json_of(self, run: RunResult) -> dict[str, Any]:
        """The run's JSON form (grader.results.to_json), read from the row it was recorded as where it was."""
        held = self._texts.get(id(run))
        return json.loads(held[1]) if held is not None and held[0] is run else to_json(run)

    def standing(self, student: str, exercise_set: str, sha256: str, grader_version: str,
                 definitions: dict[str, str], lms_id: str = "") -> tuple[bool, list[str]]:
        """Whether this exact submission already has a final result from this grader version and these
        exercise definitions, and which of the definitions changed since the result it has (then it has none)."""
        row = self.db.execute(
            f"SELECT sha256, grader_version, status, definitions FROM results WHERE ({_WHO}) = (?, ?) "
            "AND exercise_set = ? ORDER BY id DESC LIMIT 1", (*student_key(student, lms_id), exercise_set)).fetchone()
        if row is None or tuple(row)[:2] != (sha256, grader_version) or row[2] not in FINAL:
            return False, []
        then = json.loads(row[3] or "{}")
        changed = [exercise for exercise, now in definitions.items() if then.get(exercise) != now]
        return not changed, changed

    def latest(self, exercise_set: str | None = None) -> list[Entry]:
        """Each student's current result (the latest row) for each exercise set, ordered by student, with
        the grades a person adjusted (grader.classes.adjustments) in force."""
        where = "WHERE exercise_set = ?" if exercise_set is not None else ""
        args = (exercise_set,) if exercise_set is not None else ()
        rows = self.db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE id IN "
            f"(SELECT MAX(id) FROM results {where} GROUP BY {_WHO}, exercise_set) "
            "ORDER BY student, lms_id, exercise_set", args)
        return adjustments.apply([self._entry(row) for row in rows], adjustments.in_force(self.db))

    def history(self, student: str, lms_id: str = "") -> list[Entry]:
        """Every result of one student, oldest first."""
        rows = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM results WHERE ({_WHO}) = (?, ?) ORDER BY id",
                               student_key(student, lms_id))
        return [self._entry(row) for row in rows]

    def leave_out(self, left_out: Sequence[LeftOut]) -> None:
        """What the latest run found under its sources and left out, in place of what an earlier run did (a file
        graded now, under a pattern that was fixed, is left out no more)."""
        rows = [(item.path, json_text({"key": item.reason.key, "args": item.reason.args})) for item in left_out]
        self._write_all(["DELETE FROM left_out"], "INSERT OR IGNORE INTO left_out (path, reason) VALUES (?, ?)", rows)

    def left_out(self) -> list[LeftOut]:
        """What the runs that filled this gradebook left out (every shard's, after `grade merge`), by path."""
        rows = self.db.execute("SELECT path, reason FROM left_out ORDER BY path").fetchall()
        return [LeftOut(path, Msg(reason["key"], reason["args"])) for path, reason in
                ((path, json.loads(text)) for path, text in rows)]

    def merge(self, other: Path) -> int:
        """Add every row of another gradebook (a shard's) that this one lacks, in the order it was graded, the
        code it kept and the grades adjusted in it; merging the same shard twice adds nothing. Returns how many
        result rows were added."""
        before = self._count()
        try:
            source = sqlite3.connect(f"file:{other}?mode=ro", uri=True)
            try:
                have = {row[1] for row in source.execute("PRAGMA table_info(results)")}
                picked = [name if name in have else f"{declaration.rpartition('DEFAULT ')[2]} AS {name}"
                          for name, declaration in ((c, dict(_ADDED).get(c, "")) for c in _COLUMNS)]
                rows = source.execute(f"SELECT {', '.join(picked)} FROM results ORDER BY graded_at, id").fetchall()
                has_code = source.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'code'").fetchone()
                code = source.execute("SELECT sha256, text FROM code").fetchall() if has_code else []
                has_left_out = source.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'left_out'").fetchone()
                left_out = source.execute("SELECT path, reason FROM left_out").fetchall() if has_left_out else []
                self._insert(rows)
                self._write("INSERT OR IGNORE INTO code (sha256, text) VALUES (?, ?)", code)
                self._write("INSERT OR IGNORE INTO left_out (path, reason) VALUES (?, ?)", left_out)
                adjustments.merged(self.db, source)
            finally:
                source.close()
        except sqlite3.Error as exc:
            raise GradebookError(f"{other}: {exc}") from None
        return self._count() - before

    def lacks_code(self, sha256: str) -> bool:
        return self.db.execute("SELECT 1 FROM code WHERE sha256 = ?", (sha256,)).fetchone() is None

    def keep_code(self, sha256: str, text: str) -> None:
        """Keep the code of a submission, known by its sha256, for `grade similar`."""
        self._write("INSERT OR IGNORE INTO code (sha256, text) VALUES (?, ?)", [(sha256, text)])

    def code(self, sha256s: Iterable[str]) -> dict[str, str]:
        """The code kept of each of these submissions (those it has)."""
        wanted = list(dict.fromkeys(sha256s))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), 500):  # SQLite's limit on the arguments of one statement
            chunk = wanted[start:start + 500]
            found.update(self.db.execute(f"SELECT sha256, text FROM code WHERE sha256 IN ({', '.join('?' * len(chunk))})",
                                         chunk).fetchall())
        return found

    def _entry(self, row: tuple[Any, ...]) -> Entry:
        values = dict(zip(_COLUMNS, row))
        return Entry(
            student=values["student"],
            exercise_set=values["exercise_set"],
            sha256=values["sha256"],
            grader_version=values["grader_version"],
            files=tuple(json.loads(values["files"])),
            result=self._recorded.get(values["result"]) or _result(values),
            graded_at=values["graded_at"],
            uid=values["uid"],
            definitions=json.loads(values["definitions"] or "{}"),
            lms_id=values["lms_id"] or "",
            late=bool(values["late"]),
        )

    def _count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        marks = ", ".join("?" * len(_COLUMNS))
        self._write(f"INSERT OR IGNORE INTO results ({', '.join(_COLUMNS)}) VALUES ({marks})", rows)

    def _write(self, statement: str, rows: list[tuple[Any, ...]]) -> None:
        self._write_all([], statement, rows)

    def _write_all(self, first: list[str], statement: str, rows: list[tuple[Any, ...]]) -> None:
        """The statements `first`, then `statement` for each row, in one transaction."""
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                for each in first:
                    self.db.execute(each)
                self.db.executemany(statement, rows)
        except sqlite3.Error as exc:
            raise GradebookError(f"{self.path}: {exc}") from None


def _row(entry: Entry) -> tuple[Any, ...]:
    """The entry as its columns: the status, score and maximum read from its result (kept as columns to be
    queried), the run as its JSON (`result`) or why there is none (`problem`)."""
    problem = entry.problem
    return (
        entry.uid, entry.student, entry.exercise_set, entry.sha256, entry.grader_version, entry.status,
        entry.score, entry.max_score, json_text(list(entry.files)), entry.graded_at,
        json_text(to_json(entry.run)) if entry.run else None,
        json_text({"key": problem.key, "args": problem.args}) if problem else None,
        json_text(entry.definitions), entry.lms_id, int(entry.late),
    )


def _result(values: dict[str, Any]) -> SubmissionResult:
    """A row's result: its run, or why it has none (a row that kept no reason was the grader's fault)."""
    if values["result"]:
        return from_json(json.loads(values["result"]))
    problem = json.loads(values["problem"]) if values["problem"] else None
    why = Msg(problem["key"], problem["args"]) if problem else Msg("batch.grader_error")
    return Ungraded("ungradable" if values["status"] == "ungradable" else "error", why)
