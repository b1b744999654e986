"""A student's feedback page in a class's output folder, as the release policy lets them see it now.

The one place a class's pages are written: by a batch's judge as soon as its student is graded (so rendering
spreads over the judges) and by grader.classes.course whenever it publishes the class again. Both redact here,
once, before the renderer sees the result (grader.results.release)."""
from __future__ import annotations

from pathlib import Path

from grader.outputs.names import page_name
from grader.outputs.paths import write_atomic
from grader.results import RunResult
from grader.results.release import Policy, withheld


def write_page(outdir: Path, label: str, run: RunResult, shown: Policy) -> None:
    """Write the page of the student `label`."""
    from grader.render import html

    write_atomic(outdir / page_name(label), html.render(withheld(run, shown)), outdir)
