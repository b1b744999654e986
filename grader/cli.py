"""The `grade` command: parse, call the library, render. Exceptions become exit codes only here.

Exit codes: 0 every graded exercise has full marks; 1 graded, not full marks; 2 could not grade
(bad file, notebook, exercise or option, or the grader itself failed), with one line on stderr.
"""
from __future__ import annotations

import json
import os
import secrets
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn

import click

from grader import __version__, catalogue

EXIT_FULL, EXIT_PARTIAL, EXIT_CANNOT_GRADE = 0, 1, 2

# torch warns on import when NumPy is absent; the grader never uses NumPy, and the warning would
# break the promise of one clear line on stderr.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")


class GradeGroup(click.Group):
    """`grade EXERCISE SUBMISSION` beside named subcommands such as `grade list`."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["exercise", *args]
        return super().resolve_command(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("grade", "EXERCISE SUBMISSION [OPTIONS] | grade COMMAND [ARGS]")


@click.group(cls=GradeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grader", message="%(prog)s %(version)s")
def cli() -> None:
    """Grade the PyTorch exercises of Build a Large Language Model (From Scratch).

    \b
    grade EXERCISE SUBMISSION   grade a .py module or .ipynb notebook
    grade list                  the exercises, their titles and points

    EXERCISE is an exercise id (see `grade list`), several joined by commas, or `all`.
    Run `grade exercise --help` for the grading options.
    """


@cli.command("list")
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the titles.")
def list_command(lang: str | None) -> None:
    """Show the exercises with their titles and points."""
    lang = lang or catalogue.default_lang()
    for exercise in _exercises().values():
        click.echo(f"{exercise.id:<8} {exercise.points:>5g}  {catalogue.pick(exercise.title, lang)}")


@cli.command("exercise")
@click.argument("exercise_id", metavar="EXERCISE")
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--json", "json_path", metavar="PATH", help="Write the JSON result here ('-' for stdout).")
@click.option("--html", "html_path", type=click.Path(path_type=Path), metavar="PATH",
              help="Where to write the feedback page [default: feedback/<submission-stem>.html].")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds the whole submission may take.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Reproduce a run's hidden inputs (the seed is printed and in the JSON).")
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None,
              help="Language of the feedback [default: from the locale].")
@click.option("--open", "open_page", is_flag=True, help="Open the feedback page in the default browser.")
def exercise_command(exercise_id: str, submission: Path, json_path: str | None, html_path: Path | None,
                     timeout: float, seed: int | None, lang: str | None, open_page: bool) -> None:
    """Grade SUBMISSION (.py or .ipynb) on EXERCISE (an id, ids joined by commas, or `all`)."""
    lang = lang or catalogue.default_lang()
    from grader.launcher import LaunchError, default_launcher
    from grader.sandbox.confine import hide_from_tracing

    hide_from_tracing()  # the judge holds the expected values: no child may read its memory
    launcher = default_launcher()  # before the judge's own `import torch`, so both load at once
    try:
        selected = _select(exercise_id, lang)
        run = _grade(submission, selected, launcher, seed, lang, timeout)
    except LaunchError as exc:
        _fail(catalogue.text("cli.sandbox_failed", lang, error=str(exc)))
    finally:
        launcher.close()
    page = _write_outputs(run, submission, json_path, html_path, lang)
    if open_page:
        _open(page, lang)
    if run.grader_fault:
        sys.exit(EXIT_CANNOT_GRADE)
    sys.exit(EXIT_FULL if run.full_marks else EXIT_PARTIAL)


def _grade(submission: Path, selected: list[Any], launcher: Any, seed: int | None, lang: str,
           timeout: float) -> Any:
    from grader.judge import grade
    from grader.loading import LoadError

    try:
        return grade(submission, selected, launcher, seed=secrets.randbelow(2**31) if seed is None else seed,
                     lang=lang, timeout=timeout)
    except LoadError as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))


def _write_outputs(run: Any, submission: Path, json_path: str | None, html_path: Path | None,
                   lang: str) -> Path:
    from grader.render import html, terminal
    from grader.results import to_json

    page = html_path or Path("feedback") / f"{submission.stem}.html"
    try:
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(html.render(run), encoding="utf-8")
        if json_path == "-":
            click.echo(json.dumps(to_json(run), ensure_ascii=False, indent=2))
        elif json_path:
            Path(json_path).write_text(json.dumps(to_json(run), ensure_ascii=False, indent=2), encoding="utf-8")
    except OSError as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))
    out = sys.stderr if json_path == "-" else sys.stdout
    click.echo(terminal.render(run, page, color=_use_color(out)), file=out)
    return page


def _open(page: Path, lang: str) -> None:
    """Show the page in the default browser, after the summary: some browser commands return only
    when the browser closes. A browser that cannot start is one line on stderr and changes nothing
    else. Whatever the browser prints goes to stderr, so `--json - --open` keeps stdout pure JSON."""
    import webbrowser

    sys.stdout.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
        try:
            opened = webbrowser.open(page.resolve().as_uri())
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        message = "" if opened else catalogue.text("cli.no_browser", lang)
    except Exception as exc:  # webbrowser.Error, OSError, or whatever the platform's opener raises
        message = catalogue.text("cli.open_failed", lang, error=f"{type(exc).__name__}: {exc}")
    if message:
        click.echo(f"grade: {message}", err=True)


def _select(spec: str, lang: str) -> list[Any]:
    exercises = _exercises()
    if spec == "all":
        return list(exercises.values())
    chosen = []
    for name in spec.split(","):
        if name not in exercises:
            choices = ", ".join([*exercises, "all"])
            _fail(catalogue.text("cli.unknown_exercise", lang, name=name, choices=choices))
        chosen.append(exercises[name])
    return chosen


def _exercises() -> dict[str, Any]:
    from grader.exercise import discover

    return discover()


def _use_color(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def _fail(message: str) -> NoReturn:
    click.echo(f"grade: {message}", err=True)
    sys.exit(EXIT_CANNOT_GRADE)


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
        click.echo(f"grade: internal error: {type(exc).__name__}: {exc}", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
