"""`grade release OUTDIR`: the class's feedback released, every student's page written again in full."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import lang_option, speak
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.render.text import one_line


@click.command("release")
@click.argument("outdir", type=click.Path(path_type=Path))
@lang_option()
def release_command(outdir: Path, lang: str | None) -> None:
    """Release a batch's feedback: from now on its pages (and `grade export`) show students everything.

    Until then they show what `grade batch --before-release` chose. Every page is written again from
    the gradebook, without grading anything; a later `grade batch` into OUTDIR writes full pages.
    """
    from grader.classes import pool, release
    from grader.classes.gradebook import FILENAME, Gradebook

    lang = speak(lang)
    if not (outdir / FILENAME).is_file():
        raise GraderError("batch.no_gradebook", path=str(outdir))
    with writing():
        with Gradebook(outdir / FILENAME) as book:
            release.release(book)
            entries = book.latest()
            pool.publish(outdir, entries, lang, rewrite_pages=True, shown=release.read(book).shown,
                         left_out=book.left_out())
    pages = sum(entry.run is not None for entry in entries)
    click.echo(catalogue.text("release.done", lang, count=pages, path=one_line(outdir / "pages")))
