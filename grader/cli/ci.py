"""`grade ci [FILES]...`: a course repository graded as its [tool.grader] table says, with CI's outputs."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import click

from grader.cli.options import add_exercise_folders, lang_option, new_grader, speak, use_color
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE, EXIT_FULL, EXIT_PARTIAL, Unwritable
from grader.outputs import paths
from grader.outputs.safe_text import one_line


@click.command("ci")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="The configuration [default: grader.toml if present, else pyproject.toml].")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Write JUnit XML here (one testcase per check; '-' for stdout).")
@click.option("--pages", "pages_dir", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Folder for the feedback page [default: the configuration's pages].")
@click.option("--summary", "summary_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
              help="Append the Markdown summary here ('-' for stdout) [default: $GITHUB_STEP_SUMMARY when set].")
@click.option("--annotations/--no-annotations", default=None,
              help="Print GitHub Actions annotations [default: on when GITHUB_ACTIONS=true].")
@lang_option("Language of the outputs [default: the configuration's lang, else the locale].")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run's hidden inputs.")
def ci_command(files: tuple[Path, ...], config_path: Path | None, junit_path: Path | None, pages_dir: Path | None,
               summary_path: Path | None, annotations: bool | None, lang: str | None, seed: int | None) -> int:
    """Grade a course repository as CI does: the files and exercises its [tool.grader] table names.

    Every file the configuration's globs match is graded together as one submission. Given FILES
    (pre-commit passes the changed ones), the same files are graded when one of them matches, so the hook
    and CI agree; when none does, nothing is graded and that is no error.
    Exit 0 at or above the configuration's threshold, 1 below, 2 when it cannot grade.
    """
    from grader.integrations import ci
    from grader.results.release import withheld

    told = speak(lang)
    config = ci.load_config(ci.find_config(config_path))
    lang = speak(lang or config.lang or told)
    if files and not ci.select(config, files):  # pre-commit: no changed file is an exercise file
        click.echo(catalogue.text("ci.cmd.nothing_to_grade", lang, globs=one_line(", ".join(config.files))))
        return EXIT_FULL
    # A changed exercise file is graded as CI grades it: with every other file the globs match, in one
    # namespace (a file left out would change what the others define), so the hook's verdict is CI's.
    sources = ci.matching(config)
    if summary_path is None and os.environ.get("GITHUB_STEP_SUMMARY"):
        summary_path = Path(os.environ["GITHUB_STEP_SUMMARY"])
    pages = pages_dir or config.pages
    # before grading: a bad path costs no grading
    paths.check(files={"--junit": junit_path, "--summary": summary_path}, folders={"--pages": pages})
    add_exercise_folders(config.exercise_folders)
    with new_grader() as grader:
        run = grader.grade(list(sources), grader.select(config.exercises), seed=seed, lang=lang,
                           timeout=config.timeout)
    passed = ci.passed(run.score, run.max_score, config.threshold)
    run = withheld(run, config.before_release)  # every output below is one a student reads
    page = pages / f"{Path(run.submission.path).stem}.html"
    failed = _write_outputs(run, config, page, junit_path, summary_path, passed, lang)
    on_stdout = paths.is_stdout(junit_path) or paths.is_stdout(summary_path)
    told_junit = None if failed.get("--junit") or paths.is_stdout(junit_path) else junit_path
    _report(run, config, page, annotations, told_junit, passed, lang, sys.stderr if on_stdout else sys.stdout)
    for error in failed.values():
        if error is not None:
            raise error
    if run.grader_fault:
        return EXIT_CANNOT_GRADE
    return EXIT_FULL if passed else EXIT_PARTIAL


def _write_outputs(run: Any, config: Any, page: Path, junit_path: Path | None, summary_path: Path | None,
                   passed: bool, lang: str) -> dict[str, Unwritable | None]:
    """The page, the JUnit XML, the step summary and $GITHUB_OUTPUT, each on its own: what keeps one from
    being written, by its option, is told after the terminal summary."""
    from grader.integrations import ci
    from grader.render import github, html, junit

    failed = {"--pages": paths.attempt(lambda: paths.write_atomic(page, html.render(run), page.parent))}
    if junit_path is not None:
        junit_out: Path = junit_path
        failed["--junit"] = paths.attempt(lambda: paths.write_file(junit_out, junit.junit_xml(run, lang)))
    if summary_path is not None:  # appended: every step of a job writes to the same file
        summary_out: Path = summary_path
        table = github.step_summary(run, config.threshold, passed, lang).rstrip("\n") + "\n"
        failed["--summary"] = paths.attempt(lambda: paths.write_file(summary_out, table, append=True))
    github_output = os.environ.get("GITHUB_OUTPUT")
    if github_output:
        outputs = ci.github_outputs(run.score, run.max_score, config.threshold, page.parent)
        failed["GITHUB_OUTPUT"] = paths.attempt(lambda: paths.write_file(github_output, outputs, append=True))
    return failed


def _report(run: Any, config: Any, page: Path, annotations: bool | None, junit_path: Path | None, passed: bool,
            lang: str, out: IO[str]) -> None:
    """The terminal summary (with GitHub's annotations, when asked or in Actions) and the verdict line, on
    `out` (stderr when an output is on stdout)."""
    from grader.integrations import ci
    from grader.render import github, terminal
    from grader.results import percent

    report = terminal.render(run, page, color=use_color(out))
    if annotations is None:
        annotations = os.environ.get("GITHUB_ACTIONS") == "true"
    if annotations:  # what the submission wrote can only reach the log between these two lines
        stop, resume = github.stop_commands()
        click.echo(f"{stop}\n{report}\n{resume}", file=out)
        for line in github.annotations(run, lang, root=ci.annotation_root(config)):
            click.echo(line, file=out)
    else:
        click.echo(report, file=out)
    if junit_path is not None:
        click.echo(catalogue.text("ci.cmd.junit_written", lang, path=one_line(junit_path)), file=out)
    numbers = {"percent": ci.shown_percent(percent(run.score, run.max_score)), "score": f"{run.score:g}",
               "max_score": f"{run.max_score:g}", "threshold": ci.shown_percent(config.threshold)}
    click.echo(catalogue.text("ci.cmd.passed" if passed else "ci.cmd.not_passed", lang, **numbers), file=out)
