"""The `grade` command: parse, call the library, render. Errors become exit codes here and nowhere else.

Each command is a module of this package and returns its exit code; library code raises a GraderError
(grader.messages.errors) where it finds a problem, and the group tells it as one line on stderr, in
the command's language, and exits with the error's code. Exit codes: 0 every graded exercise has full
marks; 1 graded, not full marks; 2 could not grade (bad file, notebook, exercise or option, or the
grader itself failed), with one line on stderr; 130 `grade batch` interrupted.
"""
from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import click

from grader import __version__
from grader.cli import adjust, batch, ci, export, grade, gradescope, listing, merge, release, similar
from grader.cli.options import spoken, warn
from grader.judge.launcher import BLAS_THREADS
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE, EXIT_FULL, EXIT_INTERRUPTED, EXIT_PARTIAL, GraderError

__all__ = ["cli", "main", "EXIT_FULL", "EXIT_PARTIAL", "EXIT_CANNOT_GRADE", "EXIT_INTERRUPTED"]

# Nothing but the grader's own lines on stderr: a library's warning (torch's when NumPy is absent,
# nbformat's about a notebook without cell ids, ...) is nothing a student or an instructor can act on,
# and it would break the promise of one clear line. GRADER_DEBUG=1 shows them, with tracebacks.
if not os.environ.get("GRADER_DEBUG"):
    warnings.simplefilter("ignore")
os.environ.setdefault(*BLAS_THREADS)  # before anything imports torch


class GradeGroup(click.Group):
    """`grade EXERCISE SUBMISSION` beside named subcommands such as `grade list`; the one edge where a
    GraderError becomes its line on stderr and its exit code, and a command's return value its exit code."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["exercise", *args]
        return super().resolve_command(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("grade", "EXERCISE SUBMISSION [OPTIONS] | grade COMMAND [ARGS]")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            code = super().invoke(ctx)
        except GraderError as exc:
            warn(catalogue.text(exc.key, spoken(), **exc.args_))
            ctx.exit(exc.exit_code)
        ctx.exit(code or EXIT_FULL)


@click.group(cls=GradeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grader", message="%(prog)s %(version)s")
@click.option("--exercises", "folders", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Also load an instructor's exercises from DIR (repeatable).")
@click.pass_context
def cli(ctx: click.Context, folders: tuple[Path, ...]) -> None:
    """Grade the PyTorch exercises of Build a Large Language Model (From Scratch).

    \b
    grade EXERCISE SUBMISSION   grade a .py module or .ipynb notebook
    grade list                  the exercises, their titles and points
    grade batch SOURCE... -o D  grade a whole class into a gradebook
    grade export D              re-render a gradebook (csv, jsonl, html, ...) or an LMS import file
    grade merge D SHARD...      combine the gradebooks of shards
    grade adjust D S EX POINTS  set a student's exercise score by hand (--by, --why)
    grade release D             show students their full feedback (after --before-release)
    grade similar D             rank the look-alike submissions of a graded class
    grade gradescope            grade inside Gradescope's autograder
    grade ci [FILES]...         grade a course repository in CI ([tool.grader])

    EXERCISE is an exercise id (see `grade list`), a set (`ch03`, `gpt`), several joined by
    commas, or `all`. Run `grade exercise --help` for the grading options.
    """
    ctx.ensure_object(dict)["folders"] = folders  # a test run may have handed in its launcher beside them


for _command in (listing.list_command, grade.exercise_command, batch.batch_command, export.export_command,
                 merge.merge_command, similar.similar_command, gradescope.gradescope_command, ci.ci_command,
                 adjust.adjust_command, release.release_command):
    cli.add_command(_command)


def main() -> None:
    """Console entry point: one line and exit 2 for anything unexpected, never a traceback.

    It ends with os._exit once the outputs are flushed: tearing torch down costs a few hundred
    milliseconds and there is nothing left to clean (the sandbox and zygote are already closed).
    """
    code = EXIT_CANNOT_GRADE
    try:
        cli(standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_CANNOT_GRADE)
    except Exception as exc:  # a grader bug; GRADER_DEBUG=1 shows the traceback
        if os.environ.get("GRADER_DEBUG"):
            raise
        warn(f"internal error: {type(exc).__name__}: {exc}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
