"""`grade batch SOURCE... -o OUTDIR`: a whole class into a gradebook, its pages, grades.csv and index."""
from __future__ import annotations

import os
import sys
from pathlib import Path
import click

from grader.classes.similarity import THRESHOLD
from grader.cli.options import (
    BOILERPLATE_HELP,
    EXERCISES_HELP,
    exercise_folders,
    lang_option,
    output_folder,
    speak,
    tell_similar,
    warn,
)
from grader.messages import catalogue
from grader.messages.errors import EXIT_FULL, EXIT_PARTIAL, GraderError, Interrupted, writing
from grader.outputs.safe_text import one_line
from grader.results.release import POLICIES, Policy


@click.command("batch")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-e", "--exercises", "spec", default="all", show_default=True, metavar="EXERCISES",
              help=EXERCISES_HELP)
@click.option("-o", "--outdir", type=click.Path(path_type=Path), required=True, callback=output_folder,
              help="Folder for the gradebook, pages, grades.csv, results.jsonl and index.html.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores",
              help="Submissions graded at a time.")
@click.option("--student-pattern", metavar="REGEX",
              help="Name students from file names, e.g. '^(?P<student>[^_]+)_' for LMS downloads; `canvas` for "
                   "Canvas's (its user ids and late hand-ins are kept for `grade export --format canvas`).")
@click.option("--shard", metavar="K/N|auto",
              help="Grade only the K-th of N deterministic parts of the class; `auto` reads K/N from a Slurm "
                   "job array or a Kubernetes Indexed Job (docs/cluster.md).")
@click.option("--shards", type=click.IntRange(min=1), default=None, metavar="N",
              help="With --shard auto, N when the engine does not say it (Kubernetes) [default: $GRADER_SHARDS].")
@click.option("--force", is_flag=True, help="Grade again submissions that already have a result.")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds each submission may take.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run's hidden inputs.")
@click.option("--similar", "look_alike", is_flag=True,
              help="Then rank the look-alike submissions, as `grade similar OUTDIR` does.")
@click.option("--boilerplate", multiple=True, type=click.Path(path_type=Path), metavar="FILE",
              help=BOILERPLATE_HELP)
@click.option("--before-release", type=click.Choice(POLICIES), default=None,
              help="What students' pages show until `grade release OUTDIR`: score, verdicts or everything "
                   "[default: as set by an earlier run, else everything].")
@lang_option()
def batch_command(sources: tuple[Path, ...], spec: str, outdir: Path, jobs: int, student_pattern: str | None,
                  shard: str | None, shards: int | None, force: bool, timeout: float, seed: int | None,
                  look_alike: bool, boilerplate: tuple[Path, ...], lang: str | None,
                  before_release: Policy | None) -> int:
    """Grade a class: SOURCE is a folder of files, a folder of per-student folders, or a zip.

    Each result is committed to OUTDIR/gradebook.sqlite when it is final; run the same command again
    after an interruption and only what was not finished is graded. Exit 0 when every submission has
    a result, 1 when the grader failed on some (they are graded again next run) or a hand-in was left out
    (a code file or zip whose name the pattern does not match, or that cannot be read: listed in the
    summary, grades.csv and index.html), 2 when it cannot run.
    """
    from grader.classes.pool import Zygotes
    from grader.classes.similarity import check_boilerplate

    lang = speak(lang)
    part = _part(shard, shards)
    check_boilerplate(boilerplate)
    # The zygote's `import torch` is what a batch's start waits on longest: it starts before the class's modules load.
    with Zygotes(jobs) as zygotes, writing():
        from grader.classes.course import Course
        from grader.render.batch_report import Progress, summary

        progress = Progress(sys.stderr, enabled=sys.stderr.isatty())
        with Course(outdir, lang, new=True,
                    tell=lambda message: warn(catalogue.text(message.key, lang, **message.args))) as course:
            graded = course.grade(sources, spec, folders=exercise_folders(), pattern=student_pattern, part=part,
                                  workers=jobs, timeout=timeout, seed=seed, force=force,
                                  before_release=before_release, progress=progress, zygotes=zygotes)
            compared = course.compare(boilerplate, THRESHOLD) if look_alike and not graded.interrupted else None
            index = course.publish(compared=compared)
            shown = course.shown
    counts = {"students": graded.students, "already": graded.already, "graded": graded.graded, "full": graded.full,
              "ungradable": graded.ungradable, "errors": graded.errors, "left_out": graded.left_out,
              "seconds": round(graded.seconds, 1),
              "rate": round(graded.to_grade / graded.seconds, 1) if graded.to_grade and graded.seconds else 0}
    click.echo(summary(counts, str(index), lang))
    if shown != "everything":
        click.echo(catalogue.text("release.kept", lang, policy=shown, path=one_line(outdir)))
    if compared is not None:
        tell_similar(compared, index, lang)
    if graded.interrupted:
        raise Interrupted()
    return EXIT_PARTIAL if graded.errors or graded.left_out else EXIT_FULL


def _part(spec: str | None, shards: int | None) -> tuple[int, int] | None:
    """The part of the class `--shard` and `--shards` name, or None for the whole class."""
    from grader.classes import shards as parts

    if spec is None:
        if shards is not None:
            raise GraderError("shard.shards_without_auto")
        return None
    return parts.choose(spec, shards, os.environ)
