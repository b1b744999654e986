"""`grade export OUTDIR --format F`: a gradebook rendered again, without grading anything.

Every format is one row of FORMATS: how it renders the class's latest entries, and whether it writes
one file (stdout by default) or a folder of them.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

import click

from grader.cli.options import lang_option, speak
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.render.text import json_text, one_line

if TYPE_CHECKING:
    from grader.classes.gradebook import Entry

Write = Callable[[Path, Sequence["Entry"], Path | None, str], None]


class Format(NamedTuple):
    help: str
    write: Write


def _table(module: str, render: str) -> Write:
    """A format that is one text, rendered by `module.render(entries)`: to the file asked for, else to
    stdout. The renderer is imported only when its format is asked for."""

    def write(outdir: Path, entries: Sequence[Entry], output: Path | None, lang: str) -> None:
        from grader.render.atomic import write_atomic

        text: str = getattr(importlib.import_module(module), render)(entries)
        if output is None:
            click.echo(text, nl=False)
        else:
            write_atomic(output, text)

    return write


def _gradescope(outdir: Path, entries: Sequence[Entry], output: Path | None, lang: str) -> None:
    """A results.json per student, as `grade gradescope` writes it."""
    from grader.classes.gradebook import page_name
    from grader.render import gradescope
    from grader.render.atomic import write_atomic

    folder = output or outdir / "gradescope"
    for entry in entries:
        name = Path(page_name(entry.student)).with_suffix(".json").name
        write_atomic(folder / name, json_text(gradescope.results(entry.outcome, lang), indent=2))
    click.echo(catalogue.text("gradescope.exported", lang, count=len(entries), path=one_line(folder)))


def _html(outdir: Path, entries: Sequence[Entry], output: Path | None, lang: str) -> None:
    from grader.classes import pool

    pool.publish(output or outdir, entries, lang, rewrite_pages=True)


FORMATS = {
    "csv": Format("grades", _table("grader.render.classbook", "grades_csv")),
    "jsonl": Format("every result", _table("grader.render.classbook", "results_jsonl")),
    "mistakes": Format("the common mistakes as CSV", _table("grader.render.mistakes", "mistakes_csv")),
    "gradescope": Format("a results.json per student", _gradescope),
    "html": Format("the pages and the overview", _html),
}


@click.command("export")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), required=True,
              help="; ".join(f"{name}: {spec.help}" for name, spec in FORMATS.items()) + ".")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="File (csv, jsonl, mistakes; default stdout) or folder (gradescope, html; default inside OUTDIR).")
@lang_option()
def export_command(outdir: Path, fmt: str, output: Path | None, lang: str | None) -> None:
    """Render a batch's gradebook again, without grading anything."""
    from grader.classes.gradebook import FILENAME, Gradebook

    lang = speak(lang)
    if not (outdir / FILENAME).is_file():
        raise GraderError("batch.no_gradebook", path=str(outdir))
    with writing():
        with Gradebook(outdir / FILENAME) as book:
            entries = book.latest()
        FORMATS[fmt].write(outdir, entries, output, lang)
