"""`grade batch SOURCE... -o OUTDIR`: a whole class into a gradebook, its pages, grades.csv and index."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from grader.cli import similar
from grader.cli.options import EXERCISES_HELP, lang_option, new_grader, output_folder, speak, warn
from grader.messages import catalogue
from grader.messages.errors import EXIT_FULL, EXIT_PARTIAL, GraderError, Interrupted, writing
from grader.render.text import one_line
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
              help=similar.BOILERPLATE_HELP)
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
    import shutil

    from grader.classes import adjustments, comparison, pool, release, roster
    from grader.classes.definitions import fingerprints
    from grader.classes.gradebook import FILENAME, Gradebook
    from grader.render.batch_report import Progress, summary

    lang = speak(lang)
    part = _part(shard, shards)
    comparison.check_boilerplate(boilerplate)
    zygotes = pool.Zygotes(jobs)  # before our own `import torch`, so that their imports run beside it
    click.get_current_context().call_on_close(zygotes.close)
    chosen = new_grader().select(spec)
    ids = [exercise.id for exercise in chosen]
    workdir = outdir / ".sources"
    with writing():
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        students, skipped = roster.collect(sources, workdir, student_pattern)
        if part:
            students = [s for s in students if roster.in_shard(s.who, part)]
        for item in skipped:
            warn(catalogue.text(item.reason.key, lang, **item.reason.args))
        definitions = fingerprints(chosen)
        with Gradebook(outdir / FILENAME) as book:
            setting, policy_changed = release.choose(book, before_release)
            book.leave_out(skipped)
            todo = pool.pending(book, students, ids, definitions, force, seed)
            for exercise, count in todo.changed.items():
                warn(catalogue.text("batch.definition_changed", lang, exercise=exercise, count=count))
            jobs_to_do = todo.jobs
            tally = pool.Tally(already=todo.already)
            progress = Progress(len(jobs_to_do), sys.stderr, enabled=sys.stderr.isatty())

            def recorded(entry: Any) -> None:
                tally.add(entry)
                progress.step()

            started = time.monotonic()
            interrupted = False
            try:
                pool.run(book, jobs_to_do, chosen, outdir, workers=jobs, timeout=timeout, lang=lang,
                         on_result=recorded, zygotes=zygotes, definitions=definitions,
                         shown=setting.shown)
            except KeyboardInterrupt:  # what was recorded stays; the same command carries on from there
                interrupted = True
            progress.finish()
            if not interrupted:
                pool.keep_code(book, students)
            entries = book.latest(pool.exercise_set(ids))
            for drift in adjustments.drifted(entries):  # a person's grade over a score the grader changed
                warn(catalogue.text(drift.key, lang, **drift.args))
            index = pool.publish(outdir, entries, lang, rewrite_pages=policy_changed, shown=setting.shown,
                                 left_out=book.left_out())
        shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.monotonic() - started
    left_out = sum(item.hand_in for item in skipped)
    counts = {"students": len(students), "already": tally.already, "graded": tally.graded, "full": tally.full,
              "ungradable": tally.ungradable, "errors": tally.errors, "left_out": left_out,
              "seconds": round(seconds, 1),
              "rate": round(len(jobs_to_do) / seconds, 1) if jobs_to_do and seconds else 0}
    click.echo(summary(counts, str(index), lang))
    if setting.shown != "everything":
        click.echo(catalogue.text("release.kept", lang, policy=setting.shown, path=one_line(outdir)))
    if look_alike and not interrupted:
        with writing():
            similar.tell(comparison.compare(outdir, boilerplate, similar.THRESHOLD, lang), lang)
    if interrupted:
        raise Interrupted()
    return EXIT_PARTIAL if tally.errors or left_out else EXIT_FULL


def _part(spec: str | None, shards: int | None) -> tuple[int, int] | None:
    """The part of the class `--shard` and `--shards` name, or None for the whole class."""
    from grader.classes import shards as parts

    if spec is None:
        if shards is not None:
            raise GraderError("shard.shards_without_auto")
        return None
    return parts.choose(spec, shards, os.environ)
