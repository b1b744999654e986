"""Making submission-derived text safe to show: no terminal escapes, no control characters, no command.

Every text output passes what the submission chose (a file name, a message, what it printed) through
its format's one function here at its edge: `one_line` for a log line, `json_text` for JSON, `csv_text`
for a spreadsheet (and `clean` beneath them), so a terminal, a CI log or a spreadsheet never obeys it.
Not a renderer: the gradebook, the workers and the commands write with these as much as the pages do.
"""
from __future__ import annotations

import csv
import io
import json
import re
from typing import Any, Iterable, Sequence

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
# C0 but newline and tab, DEL, C1, and the bidirectional overrides and isolates that make text show
# in another order than it is read (a name that reverses its row of a spreadsheet or page).
_CONTROLS = r"\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_CONTROLS}]")
# A lone surrogate survives JSON but cannot be encoded as UTF-8: printing it would crash the report.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_UNSAFE = re.compile(f"[{_CONTROLS}\\ud800-\\udfff]")  # what any of the three could change
# A spreadsheet reads a cell starting with one of these as a formula, and students choose the file
# names that become the student column.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A cell also starts after a separator inside a field: a spreadsheet whose list separator is `;` (most
# of Europe), a tab-separated import, or one that ignores the quotes splits the field there; a space or
# a quote before the formula is trimmed by some.
_FORMULA_INSIDE = re.compile(r'([,;\t\n][ "]*)(?=[=+\-@])')
# GitHub's runner obeys a workflow command that starts a line (after spaces) with `::`, and one in the
# old spelling, `##[command]`, anywhere in a line (actions/runner, ActionCommand.TryParse); Azure's
# `##vso[` and TeamCity's `##teamcity[` have the second shape. Each match is the first of two characters
# that must not stay adjacent.
_NEW_COMMAND = re.compile(r":(?=:)")
_OLD_COMMAND = re.compile(r"#(?=#[A-Za-z]*\[)")


def clean(value: object) -> str:
    """Strip ANSI sequences, control characters (keeping newlines and tabs) and bidirectional
    overrides; a lone surrogate becomes U+FFFD."""
    text = str(value)
    if not _UNSAFE.search(text):  # nearly every string of a page: one scan instead of three
        return text
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", _ANSI.sub("", text)))


def inert(cell: str) -> str:
    """The cell as text a spreadsheet shows rather than runs, whichever separator splits it: a `'`
    before each formula start, at the beginning and after every `,`, `;`, tab or newline."""
    cell = _FORMULA_INSIDE.sub(r"\1'", cell)
    return "'" + cell if cell.lstrip(' "').startswith(FORMULA_STARTS) else cell


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    """The one CSV writer: every field quoted, so a `,`, `;` or tab in a name stays in its cell, and
    cleaned and inert, so `cat` shows it and a spreadsheet displays it, obeying neither."""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(
        [inert(clean(cell)) for cell in row] for row in rows)
    return out.getvalue()


def json_text(data: Any, indent: int | None = None) -> str:
    """JSON that keeps every string whole (a student's name is data there) but holds none of `clean`'s
    characters raw: json escapes C0 itself, the rest become \\u escapes, which any reader decodes. Strict
    (RFC 8259): a NaN or infinity raises rather than be written bare (the result spells them, to_json).
    Printed to a CI log (`--json -`), no workflow command of the old spelling stays: its first `#` is
    written `\\u0023` (JSON's syntax holds no `#`, so every one is inside a string). A JSON line cannot
    start with `::`."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=False)
    return _OLD_COMMAND.sub(r"\\u0023", _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def one_line(value: object) -> str:
    """Submission-derived text for a log that CI systems read: one line, and no workflow command in
    either spelling, `::` or `##[` (a zero-width space between the two characters breaks it, invisibly)."""
    text = " ".join(clean(value).split())
    return _OLD_COMMAND.sub("#\u200b", _NEW_COMMAND.sub(":\u200b", text))
