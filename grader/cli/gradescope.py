"""`grade gradescope`: grade inside Gradescope's autograder and write its results.json."""
from __future__ import annotations

from pathlib import Path

import click

from grader.cli.options import EXERCISES_HELP, lang_option, new_grader, speak
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.outputs.safe_text import json_text, one_line
from grader.results.release import EVERYTHING, POLICIES, Policy, for_students


@click.command("gradescope")
@click.option("--submission", type=click.Path(path_type=Path), default=Path("/autograder/submission"),
              show_default=True, help="The folder Gradescope puts the student's files in.")
@click.option("--results", type=click.Path(path_type=Path), default=Path("/autograder/results"),
              show_default=True, help="The folder results.json goes in.")
@click.option("-e", "--exercises", "spec", default="all", show_default=True, metavar="EXERCISES",
              help=EXERCISES_HELP)
@click.option("--timeout", type=click.FloatRange(min=1), default=120, show_default=True,
              help="Seconds the whole submission may take.")
@click.option("--before-release", type=click.Choice(POLICIES), default=EVERYTHING, show_default=True,
              help="What students see before the grades are published on Gradescope: score, verdicts or "
                   "everything (the rest is shown after publishing).")
@lang_option("Language of the feedback.")
def gradescope_command(submission: Path, results: Path, spec: str, timeout: float, lang: str | None,
                       before_release: Policy) -> None:
    """Grade a submission inside Gradescope's autograder and write its results.json.

    Every .py and .ipynb in the submission folder is graded together. A submission that cannot be
    graded still gets a results.json (score 0 and why), so the exit code is 0 unless it cannot be written.
    """
    from grader.classes.roster import submission_files
    from grader.outputs import paths
    from grader.render import gradescope
    from grader.results import Ungraded

    lang = speak(lang)
    if not submission.is_dir():  # the image's setup, not the student's hand-in: no zero for them
        raise GraderError("gradescope.no_submission_folder", path=str(submission))
    paths.check(folders={"--results": results})  # before grading: a bad folder costs no grading
    with new_grader() as grader:
        outcome = grader.outcome(submission_files(submission), grader.select(spec), lang=lang, timeout=timeout)
    written = results / "results.json"
    with writing():
        shown = for_students(outcome, before_release)
        paths.write_atomic(written, json_text(gradescope.results(shown, lang), indent=2) + "\n", results)
    if isinstance(outcome, Ungraded):
        click.echo(catalogue.text("gradescope.written_ungradable", lang, path=one_line(written),
                                  problem=one_line(catalogue.text(outcome.problem.key, lang, **outcome.problem.args))))
    else:
        click.echo(catalogue.text("gradescope.written", lang, path=one_line(written), score=outcome.score,
                                  max=outcome.max_score))
