"""`grade merge OUTDIR SHARD...`: the gradebooks of `grade batch --shard` runs, combined and rendered."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import lang_option, output_folder, speak
from grader.messages import catalogue
from grader.messages.errors import writing


@click.command("merge")
@click.argument("outdir", type=click.Path(path_type=Path), callback=output_folder)
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@lang_option()
def merge_command(outdir: Path, shards: tuple[Path, ...], lang: str | None) -> None:
    """Combine the gradebooks of `grade batch --shard` runs (their OUTDIRs) into OUTDIR, and render it."""
    from grader.classes.course import Course, check_shards

    lang = speak(lang)
    check_shards(shards)
    with writing(), Course(outdir, lang, new=True) as course:
        added = course.merge(shards)
    click.echo(catalogue.text("batch.merged", lang, rows=added, shards=len(shards)))
    click.echo(catalogue.text("batch.index", lang, path=str(outdir / "index.html")))
