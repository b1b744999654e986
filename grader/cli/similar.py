"""`grade similar OUTDIR`: the look-alike pairs of a graded class, compared by grader.classes.comparison; and
what `grade batch --similar` prints after comparing the same way."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from grader.classes.similarity import THRESHOLD
from grader.cli.options import lang_option, speak, warn
from grader.messages import catalogue
from grader.messages.errors import writing
from grader.render.text import one_line

if TYPE_CHECKING:
    from grader.classes.comparison import Compared

BOILERPLATE_HELP = "Code every student was given, besides the template and the book's (repeatable)."


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
    from grader.classes import comparison

    lang = speak(lang)
    comparison.check_boilerplate(boilerplate)
    with writing():
        tell(comparison.compare(outdir, boilerplate, threshold, lang), lang)


def tell(compared: Compared, lang: str) -> None:
    """What a comparison found, for the terminal: the students it could not compare, the most alike pairs,
    and where the overview is."""
    from grader.render import similar

    found = compared.found
    if compared.missing:
        warn(catalogue.text("similar.no_code", lang, count=compared.missing))
    for line in similar.terminal_lines(found, lang):
        click.echo(one_line(line))
    click.echo(catalogue.text("similar.summary", lang, pairs=len(found.pairs), compared=found.compared,
                              threshold=similar.percent(found.threshold), path=one_line(compared.index)))
