"""The terminal summary: a compact table, one row per check, the total, and the feedback page's path last;
first, for a result graded for a Jupyter kernel, the banner saying it is a self-check and not a grade.

Widths are measured in terminal columns, not characters, so a Chinese table lines up too; colour is
added after padding, so escape sequences never count towards a column.
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

import click

from grader.messages import catalogue
from grader.render.text import STATUS_ICONS, cell_problems, left_out, odd_header, one_line, self_check
from grader.results import RunResult

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
        for check in exercise.checks:
            status = statuses[check.status]
            gap = " " * (lead - width(_INDENT + status))
            title = one_line(check.title)
            lines.append(row(_INDENT + status + gap + title, _points(check.score, check.max_score),
                             _INDENT + style(status, fg=_HUES[check.status]) + gap + title))
            if check.status != "passed":
                lines.append(" " * lead + one_line(check.message))
    lines.append(row(total, _points(run.score, run.max_score), style(total, bold=True)))
    if page is not None:
        lines.append(catalogue.text("cli.written", lang, path=one_line(page)))
    return "\n".join(lines)
