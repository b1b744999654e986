"""`grade ci [FILES]...`: a course repository graded as its [tool.grader] table says, with CI's outputs."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from grader.cli.options import add_exercise_folders, lang_option, new_grader, speak, use_color
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE, EXIT_FULL, EXIT_PARTIAL, writing
from grader.render.text import one_line


@click.command("ci")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="The configuration [default: grader.toml if present, else pyproject.toml].")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Write JUnit XML here (one testcase per check).")
@click.option("--pages", "pages_dir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Folder for the feedback page [default: the configuration's pages].")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Append the Markdown summary here [default: $GITHUB_STEP_SUMMARY when set].")
@click.option("--annotations/--no-annotations", default=None,
              help="Print GitHub Actions annotations [default: on when GITHUB_ACTIONS=true].")
@lang_option("Language of the outputs [default: the configuration's lang, else the locale].")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run's hidden inputs.")
def ci_command(files: tuple[Path, ...], config_path: Path | None, junit_path: Path | None, pages_dir: Path | None,
               summary_path: Path | None, annotations: bool | None, lang: str | None, seed: int | None) -> int:
    """Grade a course repository as CI does: the files and exercises its [tool.grader] table names.

    Every file the configuration's globs match is graded together as one submission; given FILES
    (pre-commit passes the changed ones), only those of them that match are, and none is no error.
    Exit 0 at or above the configuration's threshold, 1 below, 2 when it cannot grade.
    """
    from grader.integrations import ci
    from grader.results.release import withheld

    told = speak(lang)
    config = ci.load_config(ci.find_config(config_path))
    lang = speak(lang or config.lang or told)
    sources = ci.select(config, files) if files else ci.matching(config)
    if not sources:  # pre-commit: no changed file is an exercise file
        click.echo(catalogue.text("ci.cmd.nothing_to_grade", lang, globs=one_line(", ".join(config.files))))
        return EXIT_FULL
    add_exercise_folders(config.exercise_folders)
    with new_grader() as grader:
        run = grader.grade(list(sources), grader.select(config.exercises), seed=seed, lang=lang,
                           timeout=config.timeout)
    passed = ci.passed(run.score, run.max_score, config.threshold)
    run = withheld(run, config.before_release)  # every output below is one a student reads
    page = (pages_dir or config.pages) / f"{Path(run.submission.path).stem}.html"
    if summary_path is None and os.environ.get("GITHUB_STEP_SUMMARY"):
        summary_path = Path(os.environ["GITHUB_STEP_SUMMARY"])
    with writing():
        _write_outputs(run, config, page, junit_path, summary_path, passed, lang)
    _report(run, config, page, annotations, junit_path, passed, lang)
    if run.grader_fault:
        return EXIT_CANNOT_GRADE
    return EXIT_FULL if passed else EXIT_PARTIAL


def _write_outputs(run: Any, config: Any, page: Path, junit_path: Path | None, summary_path: Path | None,
                   passed: bool, lang: str) -> None:
    """The page, the JUnit XML, the step summary and $GITHUB_OUTPUT."""
    from grader.integrations import ci
    from grader.render import github, html, junit

    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(html.render(run), encoding="utf-8")
    if junit_path is not None:
        junit_path.parent.mkdir(parents=True, exist_ok=True)
        junit_path.write_text(junit.junit_xml(run, lang), encoding="utf-8")
    if summary_path is not None:  # appended: every step of a job writes to the same file
        with summary_path.open("a", encoding="utf-8") as out:
            out.write(github.step_summary(run, config.threshold, passed, lang).rstrip("\n") + "\n")
    if os.environ.get("GITHUB_OUTPUT"):
        with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
            out.write(ci.github_outputs(run.score, run.max_score, config.threshold, page.parent))


def _report(run: Any, config: Any, page: Path, annotations: bool | None, junit_path: Path | None, passed: bool,
            lang: str) -> None:
    """The terminal summary (with GitHub's annotations, when asked or in Actions) and the verdict line."""
    from grader.integrations import ci
    from grader.render import github, terminal
    from grader.results import percent

    report = terminal.render(run, page, color=use_color(sys.stdout))
    if annotations is None:
        annotations = os.environ.get("GITHUB_ACTIONS") == "true"
    if annotations:  # what the submission wrote can only reach the log between these two lines
        stop, resume = github.stop_commands()
        click.echo(f"{stop}\n{report}\n{resume}")
        for line in github.annotations(run, lang, root=ci.annotation_root(config)):
            click.echo(line)
    else:
        click.echo(report)
    if junit_path is not None:
        click.echo(catalogue.text("ci.cmd.junit_written", lang, path=one_line(junit_path)))
    numbers = {"percent": ci.shown_percent(percent(run.score, run.max_score)), "score": f"{run.score:g}",
               "max_score": f"{run.max_score:g}", "threshold": ci.shown_percent(config.threshold)}
    click.echo(catalogue.text("ci.cmd.passed" if passed else "ci.cmd.not_passed", lang, **numbers))
