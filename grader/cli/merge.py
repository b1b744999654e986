"""`grade merge OUTDIR SHARD...`: the gradebooks of `grade batch --shard` runs, combined and rendered."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import lang_option, output_folder, speak
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing


@click.command("merge")
@click.argument("outdir", type=click.Path(path_type=Path), callback=output_folder)
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@lang_option()
def merge_command(outdir: Path, shards: tuple[Path, ...], lang: str | None) -> None:
    """Combine the gradebooks of `grade batch --shard` runs (their OUTDIRs) into OUTDIR, and render it."""
    from grader.classes import pool, release
    from grader.classes.gradebook import FILENAME, Gradebook

    lang = speak(lang)
    for shard in shards:
        if not (shard / FILENAME).is_file():
            raise GraderError("batch.no_gradebook", path=str(shard))
    with writing():
        outdir.mkdir(parents=True, exist_ok=True)
        with Gradebook(outdir / FILENAME) as book:
            added = sum(book.merge(shard / FILENAME) for shard in shards)
            release.adopt(book, [shard / FILENAME for shard in shards])
            index = pool.publish(outdir, book.latest(), lang, rewrite_pages=True, shown=release.read(book).shown,
                                 left_out=book.left_out())
    click.echo(catalogue.text("batch.merged", lang, rows=added, shards=len(shards)))
    click.echo(catalogue.text("batch.index", lang, path=str(index)))
