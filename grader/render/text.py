"""Making submission-derived text safe to show: no terminal escapes, no control characters."""
from __future__ import annotations

import re
from typing import Any

from grader import catalogue

# The status of a check as a glyph, shown beside its word in every renderer (never colour alone).
STATUS_ICONS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "–"}

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A lone surrogate survives JSON but cannot be encoded as UTF-8: printing it would crash the report.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # what any of the three could change


def clean(value: object) -> str:
    """Strip ANSI sequences and control characters (keeping newlines and tabs); a lone surrogate
    becomes U+FFFD."""
    text = str(value)
    if not _UNSAFE.search(text):  # nearly every string of a page: one scan instead of three
        return text
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", _ANSI.sub("", text)))


def one_line(value: object) -> str:
    """Submission-derived text for a log that CI systems read: one line, and no `::` that could start
    a GitHub workflow command (a zero-width space breaks it, invisibly)."""
    return " ".join(clean(value).split()).replace("::", ":\u200b:")


def cell_problem(cell: int, status: str, error: dict[str, Any] | None, lang: str) -> str:
    """One line for a cell that did not run cleanly (shared by every renderer)."""
    error = error or {}
    if status == "timeout":
        return catalogue.text("cell.timeout", lang, cell=cell, seconds=error.get("seconds", 0))
    if status == "crashed":
        return catalogue.text("cell.crashed", lang, cell=cell)
    where = catalogue.text("cell.line", lang, line=error["line"]) if error.get("line") else ""
    message = str(error.get("message", "")).splitlines()[0][:300] if error.get("message") else ""
    return catalogue.text("cell.error", lang, cell=cell, type=error.get("type", "Error"), message=message + where)
