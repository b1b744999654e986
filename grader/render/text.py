"""The lines every report shares: a check's glyph, a list as a sentence, the notes on what was left out or read
off the format, and the cells that did not run cleanly. The text they carry is made safe by grader.outputs.safe_text."""
from __future__ import annotations

import shlex
from typing import Sequence

from grader.messages import catalogue
from grader.results import CellRecord, RunResult, cascade, stopped_because, where

# The status of a check as a glyph, shown beside its word in every renderer (never colour alone).
STATUS_ICONS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "–"}


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
