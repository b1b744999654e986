"""Quoting the student's own code on the page: which cell and line a check points at, and a few lines
around it, from the cell records of the result (never from the submission file).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

from grader.results import CellRecord, cell_at, deepest_frame

BEFORE, AFTER = 3, 3  # lines shown around the line in question
WIDTH = 200  # a longer line is cut: the page quotes, it does not reproduce

_BOOK = re.compile(r"\bbook (section|listing)s? (\d+(?:\.\d+)+(?:(?: and |, | / )\d+(?:\.\d+)+)*)")


@dataclass(frozen=True)
class Line:
    number: int  # as the student's editor numbers it
    text: str
    marked: bool  # the line the check or error points at


@dataclass(frozen=True)
class Excerpt:
    cell: int
    line: int | None  # the marked line, when there is one
    lines: tuple[Line, ...]
    name: str | None = None  # the object quoted, when the excerpt shows where it was defined


def for_check(cells: Sequence[CellRecord], evidence: Mapping[str, Any]) -> Excerpt | None:
    """The student's code behind a check: the deepest own frame of its error, else where the object
    it judged was defined (evidence["object"]): the lines of it that make the diagnosed mistake
    (evidence["cause"], grader.judge.exercise.Exercise.causes) where it has them, else its first lines."""
    frame = deepest_frame(evidence.get("error"))
    if frame is not None:
        record = cell_at(cells, frame["file"], frame["line"])
        if record is not None:
            return around(record, frame["line"])
    found = evidence.get("object")
    if isinstance(found, Mapping):
        record = next((c for c in cells if c.cell == found.get("cell")), None)
        if record is not None:
            name = str(found.get("name", ""))
            line = definition(record, name)
            cause = evidence.get("cause")
            shown = causes(record, line, cause) if isinstance(cause, str) else None
            return replace(shown or defined(record, line), name=name)
    return None


def for_cell(record: CellRecord) -> Excerpt:
    """A cell that failed to run, around its error line (its start when the error has none)."""
    line = (record.error or {}).get("line")
    return around(record, line if isinstance(line, int) else None)


def definition(record: CellRecord, name: str) -> int | None:
    """The line where the cell defines or assigns name (None: not found, show the cell's start)."""
    if not name.isidentifier():
        return None
    pattern = re.compile(rf"^\s*(?:(?:class|def)\s+{name}\b|{name}\s*(?::[^=]*)?=(?!=))")
    for offset, text in enumerate(record.source.splitlines()):
        if pattern.match(text):
            return record.first_line + offset
    return None


def defined(record: CellRecord, line: int | None, body: int = 5) -> Excerpt:
    """A definition's first line and the first lines of its body, past its docstring (which the
    student wrote or copied from the template, and which says nothing about the mistake)."""
    if line is None:
        return around(record, None)
    source = record.source.splitlines()
    start = line - record.first_line
    after = _past_docstring(source, start + 1)
    while after < len(source) and not source[after].strip():
        after += 1
    shown = [start] + list(range(after, min(len(source), after + body)))
    return Excerpt(record.cell, line, _trimmed(
        Line(record.first_line + k, source[k][:WIDTH], k == start) for k in shown))


def causes(record: CellRecord, line: int | None, pattern: str) -> Excerpt | None:
    """The definition's first line, then each line of its body that matches `pattern` (not a comment),
    marked, with the line before and after it; None when no line matches."""
    if line is None:
        return None
    try:
        wanted = re.compile(pattern)
    except re.error:
        return None
    source = record.source.splitlines()
    start = line - record.first_line
    end = start + 1
    while end < len(source) and (not source[end].strip() or _indent(source[end]) > _indent(source[start])):
        end += 1
    hits = {k for k in range(start + 1, end)
            if wanted.search(source[k]) and not source[k].lstrip().startswith("#")}
    if not hits:
        return None
    shown = sorted({start} | {k + d for k in hits for d in (-1, 0, 1) if start < k + d < end})
    return Excerpt(record.cell, record.first_line + min(hits), _trimmed(
        Line(record.first_line + k, source[k][:WIDTH], k in hits) for k in shown))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _past_docstring(source: list[str], k: int) -> int:
    """The index of the first line after a docstring starting at line k (k itself when there is none)."""
    head = source[k].lstrip() if k < len(source) else ""
    quote = next((q for q in ('"""', "'''") if head.lstrip("rRuU").startswith(q)), None)
    if quote is None:
        return k
    opened = head.index(quote) + 3
    if quote in head[opened:]:
        return k + 1
    for end in range(k + 1, len(source)):
        if quote in source[end]:
            return end + 1
    return k


def around(record: CellRecord, line: int | None, before: int = BEFORE, after: int = AFTER) -> Excerpt:
    source = record.source.splitlines()
    centre = line - record.first_line if line is not None else 0
    if not 0 <= centre < len(source):
        centre, line = 0, None
    low, high = (centre - before, centre + after) if line is not None else (0, before + after)
    shown = _trimmed(
        Line(record.first_line + k, source[k][:WIDTH], line is not None and k == centre)
        for k in range(max(0, low), min(len(source), high + 1))
    )
    return Excerpt(record.cell, line, shown)


def _trimmed(lines: Iterable[Line]) -> tuple[Line, ...]:
    """Without the blank lines at the end."""
    kept = list(lines)
    while kept and not kept[-1].marked and not kept[-1].text.strip():
        kept.pop()
    return tuple(kept)


def book_reference(*texts: str) -> tuple[str, list[str]] | None:
    """("section" or "listing", their numbers) from the first English text that names the book's."""
    for text in texts:
        match = _BOOK.search(text)
        if match:
            return match.group(1), re.findall(r"\d+(?:\.\d+)+", match.group(2))
    return None
