"""The terminal summary: a compact table, one row per check, the total, and the feedback page's path last;
first, for a result graded for a Jupyter kernel, the banner saying it is a self-check and not a grade.

Under a check that did not pass, its message starts with where in the student's code it points, as
`path/to/file.py:68` (the form editors and terminals make clickable; a notebook's cell as the page names
it). A named bug that several failed checks of one exercise end their messages with is told once, under
the exercise's row, with the checks it failed; their own lines then keep only what they saw.

Widths are measured in terminal columns, not characters, so a Chinese table lines up too; colour is
added after padding, so escape sequences never count towards a column.
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

import click

from grader.messages import catalogue
from grader.render import source
from grader.render.github import student_file
from grader.outputs.safe_text import one_line
from grader.render.text import STATUS_ICONS, cell_problems, left_out, listed, odd_header, self_check
from grader.results import CheckResult, ExerciseResult, RunResult, where

_HUES = {"passed": "green", "failed": "red", "error": "yellow", "skipped": "blue"}
_INDENT = "  "
_GAP = "  "


def width(text: str) -> int:
    """Columns `text` takes in a terminal: wide (CJK) characters take two, combining and format
    characters (such as the zero-width space one_line inserts) take none."""
    columns = 0
    for ch in text:
        if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        columns += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return columns


def ljust(text: str, columns: int) -> str:
    return text + " " * max(0, columns - width(text))


def _rjust(text: str, columns: int) -> str:
    return " " * max(0, columns - width(text)) + text


def _points(score: float, max_score: float) -> str:
    return f"{score:g}/{max_score:g}"


def location(run: RunResult, check: CheckResult, lang: str, base: Path | None = None) -> str:
    """Where in the student's code a check points, as the page and the CI annotations find it
    (source.for_check): `file.py:68` for a module's line, `notebook.ipynb, cell 5, line 3` for a cell's
    (as the page names a cell); "" when the check points nowhere. The path is as GitHub's annotations give
    it, relative to `base` (the working directory) where the file is under it."""
    excerpt = source.for_check(run.cells, check.evidence)
    record = None if excerpt is None else next((c for c in run.cells if c.cell == excerpt.cell), None)
    if excerpt is None or record is None:
        return ""
    path = student_file(run, record, (base or Path.cwd()).resolve())
    unit = where(record, excerpt.cell, excerpt.line)
    if unit.key == "unit.file_line":
        return f"{path}:{unit.args['line']}"
    return f"{path}, {catalogue.text(unit.key, lang, **unit.args)}"


def causes(exercise: ExerciseResult, lang: str) -> dict[str, list[CheckResult]]:
    """The named bugs (a check's `diagnosis` evidence, grader.judge.grading) that two or more failed checks
    of the exercise end their messages with, each with those checks, in the order they are listed."""
    found: dict[str, list[CheckResult]] = {}
    for check in exercise.checks:
        key = check.evidence.get("diagnosis")
        if check.status == "failed" and isinstance(key, str) and catalogue.has(key) \
                and check.message.endswith(catalogue.text(key, lang)):
            found.setdefault(key, []).append(check)
    return {key: checks for key, checks in found.items() if len(checks) > 1}


def render(run: RunResult, page: Path | None, color: bool) -> str:
    lang = run.lang

    def style(text: str, **how: object) -> str:
        return click.style(text, **how) if color else text  # type: ignore[arg-type]

    used = {c.status for e in run.exercises for c in e.checks}
    statuses = {s: f"{STATUS_ICONS[s]} {catalogue.text('status.' + s, lang)}" for s in _HUES if s in used}
    # titles start in one column: after the widest status word, or the widest exercise id
    lead = max([width(_INDENT + s + _GAP) for s in statuses.values()]
               + [width(one_line(e.id) + _GAP) for e in run.exercises], default=0)
    total = catalogue.text("term.total", lang)
    label_w = max([lead + width(one_line(c.title)) for e in run.exercises for c in e.checks]
                  + [lead + width(one_line(e.title)) for e in run.exercises] + [width(total)])
    points_w = max([width(_points(c.score, c.max_score)) for e in run.exercises for c in e.checks]
                   + [width(_points(e.score, e.max_score)) for e in run.exercises]
                   + [width(_points(run.score, run.max_score))])

    def row(label: str, points: str, shown: str | None = None) -> str:
        """`shown` is `label` with colour added; padding is measured on the plain `label`."""
        return (shown or label) + " " * (label_w - width(label)) + _GAP + _rjust(points, points_w)

    banner = self_check(run, lang)
    lines = [style(one_line(banner), fg="yellow", bold=True)] if banner else []
    lines.append(f"{one_line(run.submission.path)}  (seed {run.seed})")
    lines += [_INDENT + one_line(note) for note in (odd_header(run, lang), left_out(run, lang)) if note]
    lines += [_INDENT + one_line(problem) for problem in cell_problems(run, lang)]
    for exercise in run.exercises:
        header = ljust(one_line(exercise.id), lead) + one_line(exercise.title)
        lines.append(row(header, _points(exercise.score, exercise.max_score), style(header, bold=True)))
        if exercise.adjustment:  # a gradebook's run (grade adjust): the person's score, and the grader's own
            note = catalogue.text("adjust.by", lang, by=exercise.adjustment.by, date=exercise.adjustment.at[:10],
                                  why=exercise.adjustment.why)
            own = catalogue.text("adjust.own", lang, own=exercise.own_score, max=exercise.max_score)
            lines.append(_INDENT + one_line(f"{note} ({own})"))
        told: dict[str, str] = {}  # a check's id: the bug its message ends with, told once above it
        for key, checks in causes(exercise, lang).items():
            diagnosis = catalogue.text(key, lang)
            places = {location(run, check, lang) for check in checks}
            at = places.pop() + ": " if len(places) == 1 and "" not in places else ""
            lines.append(_INDENT + one_line(at + diagnosis))
            lines.append(_INDENT * 2 + one_line(catalogue.text(
                "term.cause_checks", lang, count=len(checks), checks=listed([c.title for c in checks], lang))))
            told.update((check.id, diagnosis) for check in checks)
        for check in exercise.checks:
            status = statuses[check.status]
            gap = " " * (lead - width(_INDENT + status))
            title = one_line(check.title)
            lines.append(row(_INDENT + status + gap + title, _points(check.score, check.max_score),
                             _INDENT + style(status, fg=_HUES[check.status]) + gap + title))
            if check.status != "passed":
                message = check.message
                if check.id in told:
                    message = message[:len(message) - len(told[check.id])].rstrip()
                at = location(run, check, lang) if check.status in ("failed", "error") else ""
                lines.append(" " * lead + one_line(f"{at}: {message}" if at else message))
    lines.append(row(total, _points(run.score, run.max_score), style(total, bold=True)))
    if page is not None:
        lines.append(catalogue.text("cli.written", lang, path=one_line(page)))
    return "\n".join(lines)
