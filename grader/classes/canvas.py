"""Canvas's own gradebook export (Grades → Export → CSV) with one assignment column filled in, ready for
Canvas's import (Grades → Import).

Canvas imports the file it exported and changes what differs, so every byte but the grades we write
stays as it was: the BOM, the line endings, each field's quoting, the other columns and the rows of
students we have no result for. A small RFC 4180 tokenizer keeps each field's raw span in the text, and
only the target fields' spans are replaced. The export's shape: a header `Student,ID,SIS User ID,SIS
Login ID,Section,<assignments "Name (12345)">...,Current Points,...`, then a `    Points Possible` row
giving each column's points (`(read only)` for those Canvas computes), sometimes a `Student, Test` row.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from grader.classes.lms import Identities, Mark, Report, marks, number, read_text
from grader.messages.catalogue import Msg
from grader.messages.errors import GraderError
from grader.outputs.safe_text import one_line
from grader.results import Entry, LeftOut

BOM = "\ufeff"
_UNQUOTED_END = re.compile(r"[,\r\n]")
_ASSIGNMENT = re.compile(r"(?P<name>.*) \((?P<id>\d+)\)")  # "Attention (12345)"
# Who the row is: Canvas's identity columns are never an assignment, whatever their points row says.
IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Root Account", "Section")
TEST_STUDENTS = ("Student, Test", "Test Student")  # the student view's row, in no class list


@dataclass(frozen=True)
class Field:
    start: int  # the field's raw text is text[start:end], quotes included
    end: int
    value: str
    quoted: bool


@dataclass(frozen=True)
class Row:
    line: int  # where it starts in the file, from 1
    fields: tuple[Field, ...]

    def value(self, column: int) -> str:
        return self.fields[column].value if column < len(self.fields) else ""


def rows(text: str, path: Path) -> list[Row]:
    """Every record of the CSV with each field's span and value (RFC 4180: a quoted field may hold
    commas, doubled quotes and line breaks; records end with CRLF, LF or CR)."""
    found, at, line = [], len(BOM) if text.startswith(BOM) else 0, 1
    while at < len(text):
        fields, start_line = [], line
        while True:
            if text.startswith('"', at):
                end = at + 1
                while True:
                    end = text.find('"', end)
                    if end < 0:
                        raise GraderError("lms.bad_csv", path=str(path), line=start_line, error=Msg("lms.csv.unclosed"))
                    if not text.startswith('"', end + 1):
                        break
                    end += 2
                end += 1
                raw = text[at:end]
                if end < len(text) and text[end] not in ",\r\n":
                    raise GraderError("lms.bad_csv", path=str(path), line=line + raw.count("\n"),
                                      error=Msg("lms.csv.after_quote"))
                fields.append(Field(at, end, raw[1:-1].replace('""', '"'), True))
                line += raw.count("\n")
            else:
                match = _UNQUOTED_END.search(text, at)
                end = match.start() if match else len(text)
                fields.append(Field(at, end, text[at:end], False))
            at = end
            if at < len(text) and text[at] == ",":
                at += 1
                continue
            at += 2 if text.startswith("\r\n", at) else 1
            line += 1
            break
        found.append(Row(start_line, tuple(fields)))
    return found


@dataclass(frozen=True)
class Export:
    """The export as read: its text and records, where its columns are, which row gives the points."""

    path: Path
    text: str
    header: tuple[str, ...]
    records: list[Row]
    points: Row | None  # the "Points Possible" row

    def column(self, name: str) -> int | None:
        return self.header.index(name) if name in self.header else None

    def students(self) -> list[Row]:
        """The rows of students: those with an id, but the points row."""
        ids = self.column("ID")
        assert ids is not None
        return [row for row in self.records[1:] if row is not self.points and row.value(ids).strip()]


def read(path: Path) -> Export:
    text = read_text(path)
    records = rows(text, path)
    header = tuple(f.value.strip() for f in records[0].fields) if records else ()
    ids = header.index("ID") if "ID" in header else None
    if ids is None:
        raise GraderError("lms.canvas_no_column", path=str(path), column="ID")
    points = next((row for row in records[1:] if not row.value(ids).strip()
                   and row.value(0).strip() == "Points Possible"), None)
    return Export(path, text, header, records, points)


def assignment_column(export: Export, wanted: str) -> int:
    """The column `--assignment` names: its whole header, its name without the ` (id)` Canvas adds, or
    its id. One column or a clear refusal: missing, ambiguous, or one Canvas computes (read only)."""
    wanted = wanted.strip()
    named = [n for n, h in enumerate(export.header) if h == wanted]
    if not named:
        parts = [(n, _ASSIGNMENT.fullmatch(h)) for n, h in enumerate(export.header)]
        named = [n for n, m in parts if m and m["name"].strip() == wanted] or \
                [n for n, m in parts if m and m["id"] == wanted]
    path = str(export.path)
    if not named:
        assignments = [h for h in export.header if _ASSIGNMENT.fullmatch(h)]
        shown = ", ".join(one_line(h) for h in assignments[:20]) + (", …" if len(assignments) > 20 else "")
        raise GraderError("lms.canvas_no_assignment", path=path, assignment=one_line(wanted), columns=shown or "—")
    if len(named) > 1:
        raise GraderError("lms.canvas_ambiguous", path=path, assignment=one_line(wanted),
                          columns=", ".join(one_line(export.header[n]) for n in named))
    column = named[0]
    if export.header[column] in IDENTITY or (export.points and "read only" in export.points.value(column)):
        raise GraderError("lms.canvas_read_only", path=path, column=one_line(export.header[column]))
    return column


def possible(export: Export, column: int) -> float:
    """The column's Points Possible, to scale our points to."""
    value = export.points.value(column).strip() if export.points else ""
    try:
        points = float(value)
    except ValueError:
        points = 0.0
    if not points > 0 or points == float("inf"):
        raise GraderError("lms.canvas_no_points", path=str(export.path), column=one_line(export.header[column]),
                          value=one_line(value) or "—")
    return points


@dataclass(frozen=True)
class Filled:
    data: bytes  # the export, the column filled
    report: Report
    column: str  # the header of the column filled


def fill(path: Path, entries: Sequence[Entry], roster: Identities | None, assignment: str, *, scale: bool,
         late_penalty: float, left_out: Sequence[LeftOut] = ()) -> Filled:
    """The Canvas export at `path` with `assignment` filled for each student we match: by Canvas user id
    (its `ID` column; ours from Canvas's file names or the roster's `canvas_id`/`id`), else by SIS login
    (`SIS Login ID`; ours the roster's `sis_login`/`login`, or our student name where no other student has
    it). An anonymous hand-in's id is not a user id: only the roster matches it. A student without a grade
    keeps the cell as it was; nobody is matched by name."""
    export = read(path)
    column = assignment_column(export, assignment)
    points = possible(export, column) if scale else None
    report = Report(str(path), left_out=[item.path for item in left_out if item.hand_in])
    students = export.students()
    matched = _match(export, students, marks(entries, late_penalty), roster, report)
    edits: list[tuple[Field, str]] = []
    for row, mark in matched.items():
        if len(row.fields) <= column:
            raise GraderError("lms.canvas_short_row", path=str(path), line=row.line, count=len(row.fields))
        if not mark.graded:
            report.no_grade.append(mark.shown)
            continue
        report.count(mark)
        edits.append((row.fields[column], number(mark.scaled(points) if points is not None else mark.points)))
    name = export.column("Student") or 0
    report.unmatched_theirs = [_who(row, export) for row in students
                               if row not in matched and row.value(name).strip() not in TEST_STUDENTS]
    return Filled(_replaced(export.text, edits).encode("utf-8"), report, export.header[column])


def _match(export: Export, students: list[Row], every: list[Mark], roster: Identities | None,
           report: Report) -> dict[Row, Mark]:
    ids, logins = export.column("ID"), export.column("SIS Login ID")
    by_id: dict[str, list[Row]] = {}
    by_login: dict[str, list[Row]] = {}
    for row in students:
        by_id.setdefault(row.value(ids or 0).strip(), []).append(row)
        if logins is not None and row.value(logins).strip():
            by_login.setdefault(row.value(logins).strip().casefold(), []).append(row)
    matched: dict[Row, Mark] = {}
    for mark in every:
        entry = mark.entry
        known_ids = [roster.first(mark, "canvas_id", "id") if roster else "", "" if mark.anonymous else entry.lms_id]
        known_logins = [roster.first(mark, "sis_login", "login") if roster else "",
                        "" if mark.namesake or mark.anonymous else entry.student]
        found = next((by_id[i] for i in known_ids if i and i in by_id), None) or \
            next((by_login[n.casefold()] for n in known_logins if n and n.casefold() in by_login), None)
        if not found:
            report.unmatched(mark)
            continue
        for row in found:  # a student Canvas lists twice (two sections) is graded in both rows
            if row in matched:
                raise GraderError("lms.canvas_same_row", path=str(export.path), row=_who(row, export),
                                  students=", ".join(one_line(s) for s in (matched[row].shown, mark.shown)))
            matched[row] = mark
    return matched


def _who(row: Row, export: Export) -> str:
    """A Canvas row as the report names it: the student's name in Canvas, and their Canvas id."""
    return f"{row.value(export.column('Student') or 0).strip()} ({row.value(export.column('ID') or 0).strip()})"


def _replaced(text: str, edits: list[tuple[Field, str]]) -> str:
    """The text with each field's raw span replaced by its new value, quoted as the field was."""
    out, at = [], 0
    for field, value in sorted(edits, key=lambda edit: edit[0].start):
        out += [text[at:field.start], f'"{value}"' if field.quoted else value]
        at = field.end
    out.append(text[at:])
    return "".join(out)
