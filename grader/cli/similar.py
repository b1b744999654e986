"""`grade similar OUTDIR`: the look-alike pairs of a graded class, and `grade batch --similar`'s last step.

It reads the code the gradebook kept (so it compares a merged class whose shards graded on other
machines), compares it with grader.classes.similarity, writes a side-by-side page per pair and the overview
with its "unusually alike" section, and prints the most alike pairs.
"""
from __future__ import annotations

from pathlib import Path

import click

from grader.classes.similarity import THRESHOLD
from grader.cli.options import lang_option, speak, warn
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.render.text import one_line

BOILERPLATE_HELP = "Code every student was given, besides the template and the book's (repeatable)."


def compare(outdir: Path, boilerplate: tuple[Path, ...], threshold: float, lang: str) -> Path:
    """Compare the class of OUTDIR's gradebook and write its pages; returns the overview page."""
    from grader.classes import pool, release, similarity
    from grader.classes.gradebook import FILENAME, Gradebook
    from grader.render import similar

    with Gradebook(outdir / FILENAME) as book:
        entries = book.latest()
        kept = book.code(entry.sha256 for entry in entries)
        shown = release.read(book).shown
    codes = {entry.student: kept[entry.sha256] for entry in entries if entry.sha256 in kept}
    missing = len({entry.student for entry in entries} - set(codes))
    if missing:
        warn(catalogue.text("similar.no_code", lang, count=missing))
    found = similar.LookAlike(tuple(similarity.look_alikes(codes, similarity.given(boilerplate), threshold)),
                              threshold, len(codes))
    similar.write_pages(outdir, found, codes, lang)
    index = pool.publish(outdir, entries, lang, rewrite_pages=False, shown=shown, look_alike=found)
    for line in similar.terminal_lines(found, lang):
        click.echo(one_line(line))
    click.echo(catalogue.text("similar.summary", lang, pairs=len(found.pairs), compared=found.compared,
                              threshold=similar.percent(threshold), path=one_line(index)))
    return index


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
    from grader.classes.gradebook import FILENAME

    lang = speak(lang)
    check_boilerplate(boilerplate)
    if not (outdir / FILENAME).is_file():
        raise GraderError("batch.no_gradebook", path=str(outdir))
    with writing():
        compare(outdir, boilerplate, threshold, lang)


def check_boilerplate(boilerplate: tuple[Path, ...]) -> None:
    """The --boilerplate files all exist, before any grading or comparing starts."""
    absent = next((path for path in boilerplate if not path.is_file()), None)
    if absent is not None:
        raise GraderError("similar.no_boilerplate", path=str(absent))
