"""When a class's feedback is released: the course's policy of what students see before (grader.results.release)
and whether `grade release` has been run, kept in the gradebook's SQLite file beside the results.

Kept there, not in an option each command repeats, so that every command that writes a student's page or
file from the gradebook (`grade batch`, `export`, `merge`, `similar`, `release`) reads the same answer,
and a folder copied or merged carries it. A gradebook without the table shows everything, as before.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from grader.classes.gradebook import FILENAME, Gradebook, GradebookError
from grader.results.release import EVERYTHING, POLICIES, Policy

_SCHEMA = "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
_BEFORE, _RELEASED = "before_release", "released"


@dataclass(frozen=True)
class Release:
    before: Policy = EVERYTHING  # what students see until the feedback is released
    released: bool = False
    stored: bool = False  # whether a command set it (a gradebook from before, or a fresh one, has not)

    @property
    def shown(self) -> Policy:
        """What a page or file for students shows now."""
        return EVERYTHING if self.released else self.before


def read(book: Gradebook) -> Release:
    return _read(book.db, book.path)


def shown_at(outdir: Path) -> Policy:
    """What students are shown now of the class graded into `outdir` (everything where it has no gradebook)."""
    if not (outdir / FILENAME).is_file():
        return EVERYTHING
    with Gradebook(outdir / FILENAME) as book:
        return read(book).shown


def choose(book: Gradebook, before: Policy | None) -> tuple[Release, bool]:
    """`grade batch --before-release`: store the policy given (none given: keep the stored one). Released feedback
    stays released. Returns the setting and whether what students are shown changed, so that pages written
    under the old policy are written again."""
    old = read(book)
    if before is None or (old.stored and before == old.before):
        return old, False
    new = Release(before, old.released, stored=True)
    _write(book, {_BEFORE: before, _RELEASED: str(int(new.released))})
    return new, new.shown != old.shown


def release(book: Gradebook) -> None:
    """`grade release`: from now on every page and file for students shows everything."""
    _write(book, {_BEFORE: read(book).before, _RELEASED: "1"})


def adopt(book: Gradebook, others: Sequence[Path]) -> None:
    """`grade merge`: the shards' settings, combined so that nothing is shown that one of them withholds: the
    policy that shows least, released only where every one that set a policy was released."""
    settings = [read(book)]
    for path in others:
        try:
            source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                settings.append(_read(source, path))
            finally:
                source.close()
        except sqlite3.Error as exc:
            raise GradebookError(f"{path}: {exc}") from None
    stored = [s for s in settings if s.stored]
    if stored:
        before = min((s.before for s in stored), key=POLICIES.index)
        _write(book, {_BEFORE: before, _RELEASED: str(int(all(s.released for s in stored)))})


def _read(db: sqlite3.Connection, path: Path) -> Release:
    try:
        has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").fetchone()
        values = dict(db.execute("SELECT name, value FROM settings").fetchall()) if has else {}
    except sqlite3.Error as exc:
        raise GradebookError(f"{path}: {exc}") from None
    for policy in POLICIES:
        if values.get(_BEFORE) == policy:
            return Release(policy, values.get(_RELEASED) == "1", stored=True)
    return Release()  # none stored (or a value no version wrote): as if none


def _write(book: Gradebook, values: dict[str, str]) -> None:
    try:
        with book.db:
            book.db.execute("BEGIN IMMEDIATE")
            book.db.execute(_SCHEMA)
            book.db.executemany("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)", values.items())
    except sqlite3.Error as exc:
        raise GradebookError(f"{book.path}: {exc}") from None
