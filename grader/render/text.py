"""Making submission-derived text safe to show: no terminal escapes, no control characters, no command.

Every text output passes what the submission chose (a file name, a message, what it printed) through
its format's one function here at its edge: `one_line` for a log line, `json_text` for JSON, `csv_text`
for a spreadsheet (and `clean` beneath them), so a terminal, a CI log or a spreadsheet never obeys it.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shlex
from typing import Any, Iterable, Sequence

from grader.messages import catalogue
from grader.results import CellRecord, RunResult, cascade, stopped_because, where

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


def listed(items: Sequence[str], lang: str) -> str:
    """Items as a sentence lists them: "a", "a and b", "a, b and c" (in Chinese "a、b 和 c")."""
    if len(items) < 2:
        return "".join(items)
    return catalogue.text("list.and", lang, items=catalogue.text("list.sep", lang).join(items[:-1]), last=items[-1])


def left_out(run: RunResult, lang: str) -> str:
    """The note for files beside a single submission that the caps kept out of its scratch folder (a
    student whose script cannot open its data should learn why); "" when none was."""
    note = run.submission.left_out
    if not note:
        return ""
    names = ", ".join(note["names"]) + (", …" if note["count"] > len(note["names"]) else "")
    return catalogue.text("page.left_out", lang, count=note["count"], names=names, max_files=note["max_files"],
                          max_mib=note["max_mib"])


def odd_header(run: RunResult, lang: str) -> str:
    """The note for a notebook read although its file is off the format (a header some editors write);
    "" for one that follows it."""
    header = run.submission.header
    return catalogue.text("page.header", lang, header=header) if header else ""


def self_check(run: RunResult, lang: str) -> str:
    """The banner of a result graded for a Jupyter kernel (RunResult.self_check), which its code could
    forge: what it is not, and the command on the saved file whose result a course relies on; "" for a
    grade."""
    if not run.self_check:
        return ""
    name = run.submission.path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith((".ipynb", ".py")):  # the front end never named the kernel's notebook
        name = "notebook.ipynb"
    command = f"grade {','.join(e.id for e in run.exercises)} {shlex.quote(name)}"
    return catalogue.text("jupyter.self_check", lang, command=command)


def problem_cells(run: RunResult) -> tuple[list[CellRecord], cascade.Cascade | None]:
    """The cells every report lists as not run cleanly, and the early failure among them, if any: a cell
    that failed only for want of what that failure left undefined is told on its line, not listed."""
    chain = cascade.find(run.cells)
    followers = {c.cell for c in chain.followers} if chain else set()
    return [c for c in run.cells if c.status != "ok" and c.cell not in followers], chain


def problem_line(record: CellRecord, chain: cascade.Cascade | None, lang: str) -> str:
    """A listed cell's line: the early failure's also names the cells that tripped over it."""
    line = cell_problem(record, lang)
    if chain is None or record is not chain.root:
        return line
    names = ", ".join(chain.names[:cascade.MAX_NAMED]) + (", …" if len(chain.names) > cascade.MAX_NAMED else "")
    units = [where(c, c.cell) for c in chain.followers]
    cells = ", ".join(catalogue.text(unit.key, lang, **unit.args) for unit in units)
    return catalogue.text("cell.cascade", lang, problem=line, count=len(chain.followers), cells=cells, names=names)


def cell_problems(run: RunResult, lang: str) -> list[str]:
    """A line for each cell the result lists as not run cleanly (problem_cells), and one counting those
    it does not list."""
    records, chain = problem_cells(run)
    lines = [problem_line(record, chain, lang) for record in records]
    if run.unlisted_problems:
        lines.append(catalogue.text("cell.unlisted", lang, count=run.unlisted_problems))
    return lines


def cell_problem(record: CellRecord, lang: str) -> str:
    """One line for a cell (or a module's statement) that did not run cleanly (shared by every renderer)."""
    error, unit = record.error or {}, where(record, record.cell)
    at = catalogue.text("cell.line", lang, line=error["line"]) if error.get("line") else ""
    if record.status == "timeout":
        return catalogue.text("cell.timeout", lang, unit=unit, seconds=error.get("seconds", 0))
    if record.status == "interrupted":
        return catalogue.text("cell.interrupted", lang, unit=unit, seconds=error.get("seconds", 0), where=at)
    if record.status == "crashed":
        cause = stopped_because(error.get("how"))
        return catalogue.text(f"cell.{cause[0]}" if cause else "cell.crashed", lang, unit=unit,
                              **(cause[1] if cause else {}))
    message = str(error.get("message", "")).splitlines()[0][:300] if error.get("message") else ""
    return catalogue.text("cell.error", lang, unit=unit, type=error.get("type", "Error"), message=message + at)
