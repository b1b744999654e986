"""`grade adjust OUTDIR STUDENT EXERCISE POINTS --by NAME --why TEXT`: a person sets an exercise's score (or,
with --undo, takes it back), kept in the gradebook (grader.classes.adjustments), and the class outputs show it."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import lang_option, speak
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.outputs.safe_text import one_line


@click.command("adjust")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.argument("student")
@click.argument("exercise")
@click.argument("points", required=False)
@click.option("--by", metavar="NAME", help="Who sets the score (kept, and shown with it).")
@click.option("--why", metavar="TEXT", help="Why: shown on the student's page beside the adjusted score.")
@click.option("--undo", is_flag=True, help="Take the adjustment in force back: the grader's own score counts again.")
@lang_option()
def adjust_command(outdir: Path, student: str, exercise: str, points: str | None, by: str | None, why: str | None,
                   undo: bool, lang: str | None) -> None:
    """Set the score of one student's exercise by hand (or take it back with --undo); every output of OUTDIR
    (grades.csv, results.jsonl, index.html, the student's page, exports) shows it, marked as adjusted.

    STUDENT is the name grades.csv shows, or the student's LMS id (its lms_id column, or name_id as their page
    is named): a name two students share is refused, and the message lists their ids."""
    from grader.classes.course import Course

    lang = speak(lang)
    if undo and points is not None:
        raise GraderError("adjust.points_with_undo")
    if not undo and points is None:
        raise GraderError("adjust.no_points")
    with writing(), Course(outdir, lang) as course:
        if undo:
            change = course.take_back(student, exercise, by or "", why or "")
        else:
            change = course.adjust(student, exercise, _number(points, exercise), by or "", why or "")
    click.echo(one_line(catalogue.text(change.key, lang, **change.args)))


def _number(points: str | None, exercise: str) -> float:
    try:
        return float(points or "")
    except ValueError:
        raise GraderError("adjust.not_a_number", points=points, exercise=exercise) from None
