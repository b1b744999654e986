"""The terminal summary: one line per check, the total, and the feedback page's path last."""
from __future__ import annotations

from pathlib import Path

import click

from grader import catalogue
from grader.render.text import cell_problem, one_line
from grader.results import RunResult

_MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("!", "yellow"), "skipped": ("-", "blue")}


def render(run: RunResult, page: Path | None, color: bool) -> str:
    lang = run.lang
    lines = [f"{one_line(run.submission.path)}  (seed {run.seed})"]
    for record in run.cells:
        if record.status != "ok":
            lines.append("  " + one_line(cell_problem(record.cell, record.status, record.error, lang)))
    for exercise in run.exercises:
        lines.append(f"{exercise.id:<7} {exercise.score:g}/{exercise.max_score:g}  {exercise.title}")
        for check in exercise.checks:
            mark, hue = _MARKS[check.status]
            head = click.style(mark, fg=hue) if color else mark
            lines.append(f"  {head} {check.title} ({check.score:g}/{check.max_score:g})")
            if check.status != "passed":
                lines.append(f"      {one_line(check.message)}")
    total = f"{catalogue.text('term.total', lang)}: {run.score:g}/{run.max_score:g}"
    lines.append(click.style(total, bold=True) if color else total)
    if page is not None:
        lines.append(catalogue.text("cli.written", lang, path=one_line(page)))
    return "\n".join(lines)
