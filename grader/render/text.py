"""Making submission-derived text safe to show: no terminal escapes, no control characters.

Every text output passes what the submission chose (a file name, a message, what it printed) through
`clean` (or `one_line`, `json_text`) at its edge, so `cat grades.csv` or a CI log never obeys it.
"""
from __future__ import annotations

import json
import re
from typing import Any

from grader import catalogue
from grader.results import RunResult, stopped_because

# The status of a check as a glyph, shown beside its word in every renderer (never colour alone).
STATUS_ICONS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "–"}

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
# C0 but newline and tab, DEL, C1, and the bidirectional overrides and isolates that make text show
# in another order than it is read (a name that reverses its row of a spreadsheet or page).
_CONTROLS = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_CONTROLS}]")
# A lone surrogate survives JSON but cannot be encoded as UTF-8: printing it would crash the report.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_UNSAFE = re.compile(f"[{_CONTROLS}\\ud800-\\udfff]")  # what any of the three could change


def clean(value: object) -> str:
    """Strip ANSI sequences, control characters (keeping newlines and tabs) and bidirectional
    overrides; a lone surrogate becomes U+FFFD."""
    text = str(value)
    if not _UNSAFE.search(text):  # nearly every string of a page: one scan instead of three
        return text
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", _ANSI.sub("", text)))


def json_text(data: Any, indent: int | None = None) -> str:
    """JSON that keeps every string whole (a student's name is data there) but holds none of `clean`'s
    characters raw: json escapes C0 itself, the rest become \\u escapes, which any reader decodes."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def one_line(value: object) -> str:
    """Submission-derived text for a log that CI systems read: one line, and no `::` that could start
    a GitHub workflow command (a zero-width space breaks it, invisibly)."""
    return " ".join(clean(value).split()).replace("::", ":\u200b:")


def cell_problems(run: RunResult, lang: str) -> list[str]:
    """A line for each cell the result lists as not run cleanly, and one counting those it does not list."""
    lines = [cell_problem(c.cell, c.status, c.error, lang) for c in run.cells if c.status != "ok"]
    if run.unlisted_problems:
        lines.append(catalogue.text("cell.unlisted", lang, count=run.unlisted_problems))
    return lines


def cell_problem(cell: int, status: str, error: dict[str, Any] | None, lang: str) -> str:
    """One line for a cell that did not run cleanly (shared by every renderer)."""
    error = error or {}
    if status == "timeout":
        return catalogue.text("cell.timeout", lang, cell=cell, seconds=error.get("seconds", 0))
    if status == "crashed":
        cause = stopped_because(error.get("how"))
        return catalogue.text(f"cell.{cause[0]}" if cause else "cell.crashed", lang, cell=cell,
                              **(cause[1] if cause else {}))
    where = catalogue.text("cell.line", lang, line=error["line"]) if error.get("line") else ""
    message = str(error.get("message", "")).splitlines()[0][:300] if error.get("message") else ""
    return catalogue.text("cell.error", lang, cell=cell, type=error.get("type", "Error"), message=message + where)
