"""`grade EXERCISE SUBMISSION`: one file (with the files beside it), its page, its JSON, its summary."""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import click

from grader.cli.options import lang_option, new_grader, speak, spoken, use_color, warn
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE, EXIT_FULL, EXIT_PARTIAL, GraderError
from grader.outputs.safe_text import json_text


class SubmissionArgument(click.Argument):
    """SUBMISSION, which a student who forgot the exercise has given as EXERCISE (`grade my_solution.py`):
    then EXERCISE is what is missing, and the error says so."""

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        try:
            return super().process_value(ctx, value)
        except click.MissingParameter:
            given = ctx.params.get("exercise_id")
            if not (isinstance(given, str) and given.endswith((".py", ".ipynb")) and Path(given).is_file()):
                raise
            exercise = next(param for param in ctx.command.params if param.name == "exercise_id")
            raise click.MissingParameter(catalogue.text("usage.exercise_first", spoken(), path=given), ctx,
                                         exercise) from None


@click.command("exercise")
@click.argument("exercise_id", metavar="EXERCISE")
@click.argument("submission", cls=SubmissionArgument, type=click.Path(path_type=Path))
@click.option("--json", "json_path", metavar="PATH", help="Write the JSON result here ('-' for stdout).")
@click.option("--html", "html_path", type=click.Path(path_type=Path), metavar="PATH",
              help="Where to write the feedback page ('-' for stdout) [default: feedback/<submission-stem>.html].")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds the whole submission may take.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Reproduce a run's hidden inputs (the seed is printed and in the JSON).")
@lang_option("Language of the feedback [default: from the locale].")
@click.option("--open", "open_page", is_flag=True, help="Open the feedback page in the default browser.")
def exercise_command(exercise_id: str, submission: Path, json_path: str | None, html_path: Path | None,
                     timeout: float, seed: int | None, lang: str | None, open_page: bool) -> int:
    """Grade SUBMISSION (.py or .ipynb) on EXERCISE (an id, ids joined by commas, or `all`)."""
    from grader.outputs import paths

    lang = speak(lang)
    page = html_path or Path("feedback") / f"{submission.stem}.html"
    paths.check({"--json": json_path, "--html": page})  # before grading: a bad path costs no grading
    if open_page and paths.is_stdout(page):
        raise GraderError("cli.open_stdout")
    with new_grader() as grader:  # one file, with the files beside it, as the student ran it
        exercises = grader.select(exercise_id)
        # The page's templates compile while the submission runs: the judge mostly waits on it meanwhile.
        renderer = threading.Thread(target=_prepare_page, name="prepare-page", daemon=True)
        renderer.start()
        run = grader.grade(submission, exercises, seed=seed, lang=lang, timeout=timeout, beside=True)
        renderer.join()
    _write_outputs(run, page, json_path)
    if open_page:
        _open(page, lang)
    if run.grader_fault:
        return EXIT_CANNOT_GRADE
    return EXIT_FULL if run.full_marks else EXIT_PARTIAL


def _prepare_page() -> None:
    """Compile the page's templates ahead (grader.render.html.prepare). Whatever goes wrong here goes wrong again
    when the page is rendered, and is told there, through the command's one error path: not from a thread."""
    try:
        from grader.render import html

        html.prepare()
    except Exception:  # noqa: BLE001 (told when the page renders)
        pass


def _write_outputs(run: Any, page: Path, json_path: str | None) -> None:
    """The page and the JSON, each on its own, then the summary (on stderr when an output is on stdout);
    an output that cannot be written is told last, after the summary, and ends the command with exit 2."""
    from grader.outputs import paths
    from grader.render import html, terminal
    from grader.results import to_json

    failed = [paths.attempt(lambda: paths.write_file(page, html.render(run)))]
    if json_path:
        target: str = json_path
        failed.append(paths.attempt(lambda: paths.write_file(target, json_text(to_json(run), indent=2) + "\n")))
    on_stdout = paths.is_stdout(page) or paths.is_stdout(json_path)
    out = sys.stderr if on_stdout else sys.stdout
    shown = None if paths.is_stdout(page) else page
    click.echo(terminal.render(run, shown, color=use_color(out)), file=out)
    for error in failed:
        if error is not None:
            raise error


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
        warn(message)
