"""The `grade` group: parse, call the library, render. Errors become exit codes here and nowhere else.

Each command is a module of this package and returns its exit code; library code raises a GraderError
(grader.messages.errors) where it finds a problem, and the group tells it as one line on stderr, in
the command's language, and exits with the error's code (grader.cli lists them).
"""
from __future__ import annotations

import atexit
import importlib
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

import click

from grader import __version__
from grader.cli.commands import COMMANDS, names_an_exercise
from grader.cli.options import spoken, warn
from grader.judge.launcher import BLAS_THREADS
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE, EXIT_FULL, GraderError
from grader.outputs.safe_text import one_line

os.environ.setdefault(*BLAS_THREADS)  # before anything imports torch


class GradeGroup(click.Group):
    """`grade EXERCISE SUBMISSION` beside named subcommands such as `grade list`; the one edge where a
    GraderError becomes its line on stderr and its exit code, and a command's return value its exit code.

    It follows click: standalone, an error is told and the process exits (a GraderError as one `grade:` line,
    a usage error as click lays it out, exit 2); under `standalone_mode=False` both reach the caller and a
    command's exit code is returned. Either way an error speaks the user's language (grader.cli.options.spoken).
    """

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """Click's main, with the group's state in the root object it is given (or a new one): the command
        line, for the language an error is told in before the command chose one, and that choice, which an
        error raised as the command's context closes still finds."""
        state = extra["obj"] = {} if extra.get("obj") is None else extra["obj"]
        state["args"] = list(sys.argv[1:] if args is None else args)
        try:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        except GraderError as exc:
            if not standalone_mode:
                raise
            warn(catalogue.text(exc.key, spoken(state), **exc.args_))
            sys.exit(exc.exit_code)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with usage_in_language():  # the group's own options (`grade --no-such-option`)
            return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, command = COMMANDS[name]
        found: click.Command = getattr(importlib.import_module(module), command)
        return found

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if names_an_exercise(args):
            args = ["exercise", *args]
        return super().resolve_command(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("grade", "EXERCISE SUBMISSION [OPTIONS] | grade COMMAND [ARGS]")

    def invoke(self, ctx: click.Context) -> Any:
        with usage_in_language():  # a command's options and arguments
            code = super().invoke(ctx)
        ctx.exit(code or EXIT_FULL)


class UsageInLanguage(click.UsageError):
    """A usage error of click's (an unknown option, a missing argument, a bad value) as click tells it, the
    usage line, where to find help and the error, with its exit code 2, in the user's language."""

    def __init__(self, error: click.UsageError, lang: str) -> None:
        super().__init__(_detail(error, lang), error.ctx)
        self.lang = lang

    def show(self, file: IO[Any] | None = None) -> None:
        if self.ctx is not None:
            word, _, usage = self.ctx.get_usage().partition(":")
            lines = [catalogue.text("usage.usage", self.lang, usage=usage.lstrip()) if word == "Usage" else word]
            if self.ctx.command.get_help_option(self.ctx) is not None:
                command = f"{self.ctx.command_path} {max(self.ctx.command.get_help_option_names(self.ctx), key=len)}"
                lines.append(catalogue.text("usage.help", self.lang, command=command))
            click.echo("\n".join(lines) + "\n", file=file, err=True, color=self.ctx.color)
        click.echo(one_line(catalogue.text("usage.error", self.lang, error=self.format_message())), file=file,
                   err=True)


def _detail(error: click.UsageError, lang: str) -> str:
    """What was wrong, in `lang` where click's error says what and where; click's own words otherwise."""
    if isinstance(error, click.NoSuchOption):
        said = catalogue.text("usage.no_such_option", lang, name=error.option_name)
        names = ", ".join(error.possibilities or ())
        return catalogue.text("usage.did_you_mean", lang, error=said, names=names) if names else said
    if isinstance(error, click.BadParameter):
        hint = error.param_hint
        if hint is None and error.param is not None:
            hint = error.param.get_error_hint(error.ctx) if error.ctx is not None else repr(error.param.name)
        name = hint if isinstance(hint, str) else " / ".join(map(repr, hint or ()))
        if isinstance(error, click.MissingParameter):
            kind = error.param_type or (error.param.param_type_name if error.param is not None else "")
            missing = catalogue.text("usage.missing_option" if kind == "option" else "usage.missing_argument",
                                     lang, name=name)
            return catalogue.text("usage.missing_hint", lang, error=missing, hint=error.message) if error.message \
                else missing
        if name:
            return catalogue.text("usage.bad_value", lang, name=name, error=error.message)
    return error.format_message()


@contextmanager
def usage_in_language() -> Iterator[None]:
    """Click's usage errors raised in this block, told in the user's language (help asked for by giving no
    arguments stays click's)."""
    try:
        yield
    except click.UsageError as error:
        if isinstance(error, (UsageInLanguage, click.exceptions.NoArgsIsHelpError)):
            raise
        raise UsageInLanguage(error, spoken()) from error


@click.group(cls=GradeGroup, context_settings={"help_option_names": ["-h", "--help"]})
# --version names the distribution, what pip knows this by
@click.version_option(__version__, prog_name="llm-from-scratch-grader", message="%(prog)s %(version)s")
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


def run() -> None:
    """The command line run whole: one line and exit 2 for anything unexpected, never a traceback.

    While the command runs, no library's warning reaches stderr (torch's "Failed to initialize NumPy" where
    NumPy is absent, nbformat's about a notebook without cell ids): nothing a student or an instructor can act
    on, and it would break the promise of one clear line. The process's own filters are as they were once the
    command returns, and importing grader.cli leaves them alone. GRADER_DEBUG=1 shows the warnings, and a
    traceback for an unexpected error.

    It ends with os._exit once the process's atexit handlers have run and the outputs are flushed: tearing
    torch down costs a quarter of a second a command and there is nothing left to clean (the sandbox and the
    zygote are already closed).
    """
    state: dict[str, Any] = {}
    code = EXIT_CANNOT_GRADE
    with warnings.catch_warnings():
        if not os.environ.get("GRADER_DEBUG"):
            warnings.simplefilter("ignore")
        try:
            cli(standalone_mode=True, obj=state)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_CANNOT_GRADE)
        except Exception as exc:  # a grader bug; GRADER_DEBUG=1 shows the traceback
            if os.environ.get("GRADER_DEBUG"):
                raise
            warn(catalogue.text("cli.internal_error", spoken(state), error=f"{type(exc).__name__}: {exc}"))
    atexit._run_exitfuncs()  # what os._exit skips: handlers of the program (coverage, logging) and finalizers
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
