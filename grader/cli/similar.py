"""`grade similar OUTDIR`: the look-alike pairs of a graded class (grader.classes.course.Course.compare)."""
from __future__ import annotations

from pathlib import Path

import click

from grader.classes.similarity import THRESHOLD
from grader.cli.options import BOILERPLATE_HELP, lang_option, speak, tell_similar
from grader.messages.errors import writing


@click.command("similar")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.option("--boilerplate", multiple=True, type=click.Path(path_type=Path), metavar="FILE", help=BOILERPLATE_HELP)
@click.option("--threshold", type=click.FloatRange(0, 1, min_open=True), default=THRESHOLD, show_default=True,
              help="The share of the smaller submission's passages two must share to be listed.")
@lang_option()
def similar_command(outdir: Path, boilerplate: tuple[Path, ...], threshold: float, lang: str | None) -> None:
    """Rank the pairs of a graded class whose code is unusually alike, with a side-by-side page per pair.

    Code the class was given (the student template, the book's and the lecture's code, --boilerplate
    FILEs) does not count, however it is typed; comments, docstrings, names, layout, statements that do
    nothing, the order of definitions and notebook cells are ignored. Exit 0 whatever it finds.
    """
    from grader.classes.course import Course
    from grader.classes.similarity import check_boilerplate

    lang = speak(lang)
    check_boilerplate(boilerplate)
    with writing(), Course(outdir, lang) as course:
        compared = course.compare(boilerplate, threshold)
        index = course.publish(compared=compared)
    tell_similar(compared, index, lang)
