"""`grade release OUTDIR`: the class's feedback released, every student's page written again in full."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import lang_option, speak
from grader.messages import catalogue
from grader.messages.errors import writing
from grader.outputs.safe_text import one_line


@click.command("release")
@click.argument("outdir", type=click.Path(path_type=Path))
@lang_option()
def release_command(outdir: Path, lang: str | None) -> None:
    """Release a batch's feedback: from now on its pages (and `grade export`) show students everything.

    Until then they show what `grade batch --before-release` chose. Every page is written again from
    the gradebook, without grading anything; a later `grade batch` into OUTDIR writes full pages.
    """
    from grader.classes.course import Course

    lang = speak(lang)
    with writing(), Course(outdir, lang) as course:
        pages = course.release()
    click.echo(catalogue.text("release.done", lang, count=pages, path=one_line(outdir / "pages")))
