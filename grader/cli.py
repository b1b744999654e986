"""The `grade` command: parse, call the library, render. Exceptions become exit codes only here.

Exit codes: 0 every graded exercise has full marks; 1 graded, not full marks; 2 could not grade
(bad file, notebook, exercise or option, or the grader itself failed), with one line on stderr.
"""
from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, NoReturn

import click

from grader import __version__, catalogue, seeds
from grader.commands import similar
from grader.launcher import BLAS_THREADS
from grader.render.text import json_text, one_line

EXIT_FULL, EXIT_PARTIAL, EXIT_CANNOT_GRADE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C during `grade batch`: the shell's code for SIGINT

# Nothing but the grader's own lines on stderr: a library's warning (torch's when NumPy is absent,
# nbformat's about a notebook without cell ids, ...) is nothing a student or an instructor can act on,
# and it would break the promise of one clear line. GRADER_DEBUG=1 shows them, with tracebacks.
if not os.environ.get("GRADER_DEBUG"):
    warnings.simplefilter("ignore")
os.environ.setdefault(*BLAS_THREADS)  # before anything imports torch


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
@click.option("--exercises", "folders", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="Also load an instructor's exercises from DIR (repeatable).")
@click.pass_context
def cli(ctx: click.Context, folders: tuple[Path, ...]) -> None:
    """Grade the PyTorch exercises of Build a Large Language Model (From Scratch).

    \b
    grade EXERCISE SUBMISSION   grade a .py module or .ipynb notebook
    grade list                  the exercises, their titles and points
    grade batch SOURCE... -o D  grade a whole class into a gradebook
    grade export D              re-render a gradebook (csv, jsonl, gradescope, html, mistakes)
    grade merge D SHARD...      combine the gradebooks of shards
    grade similar D             rank the look-alike submissions of a graded class
    grade gradescope            grade inside Gradescope's autograder
    grade ci [FILES]...         grade a course repository in CI ([tool.grader])

    EXERCISE is an exercise id (see `grade list`), a set (`ch03`, `gpt`), several joined by
    commas, or `all`. Run `grade exercise --help` for the grading options.
    """
    ctx.obj = {"folders": folders}


@cli.command("list")
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the titles.")
def list_command(lang: str | None) -> None:
    """Show the exercises with their titles and points."""
    lang = lang or catalogue.default_lang()
    exercises = list(_exercises(lang).values())
    points = {e.id: _points(e.points, e.gpu_points, lang) for e in exercises}
    from grader.render.terminal import ljust, width

    column = max(map(width, points.values()))
    for exercise in exercises:
        click.echo(f"{exercise.id:<14} {exercise.group:<6} {ljust(points[exercise.id], column)}  "
                   f"{catalogue.pick(exercise.title, lang)}")
    for group in dict.fromkeys(e.group for e in exercises):  # a set's total, as a run without a GPU grades it
        members = [e for e in exercises if e.group == group]
        total = _points(sum(e.points for e in members), sum(e.gpu_points for e in members), lang)
        click.echo(catalogue.text("list.set", lang, group=group, points=total))


def _points(points: float, gpu: float, lang: str) -> str:
    """An exercise's points as every output shows them: those of any machine, then what a GPU adds."""
    return catalogue.text("points.gpu", lang, points=points, gpu=gpu) if gpu else f"{points:g}"


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


@cli.command("batch")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-e", "--exercises", "spec", default="all", show_default=True, metavar="EXERCISES",
              help="Exercise ids or sets (ch03, gpt) joined by commas, or `all`.")
@click.option("-o", "--outdir", type=click.Path(path_type=Path), required=True,
              help="Folder for the gradebook, pages, grades.csv, results.jsonl and index.html.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores",
              help="Submissions graded at a time.")
@click.option("--student-pattern", metavar="REGEX",
              help="Name students from file names, e.g. '^(?P<student>[^_]+)_' for LMS downloads.")
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
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the outputs.")
def batch_command(sources: tuple[Path, ...], spec: str, outdir: Path, jobs: int, student_pattern: str | None,
                  shard: str | None, shards: int | None, force: bool, timeout: float, seed: int | None,
                  look_alike: bool, boilerplate: tuple[Path, ...], lang: str | None) -> None:
    """Grade a class: SOURCE is a folder of files, a folder of per-student folders, or a zip.

    Each result is committed to OUTDIR/gradebook.sqlite when it is final; run the same command again
    after an interruption and only what was not finished is graded. Exit 0 when every submission has
    a result, 1 when the grader failed on some (they are graded again next run), 2 when it cannot run.
    """
    import shutil

    from grader import batch, roster
    from grader.gradebook import FILENAME, Gradebook, GradebookError
    from grader.render.batch_report import Progress, summary

    lang = lang or catalogue.default_lang()
    part = _shard(shard, shards, lang)
    problem = similar.boilerplate_problem(boilerplate, lang)
    if problem:
        _fail(problem)
    zygotes = batch.Zygotes(jobs)  # before our own `import torch`, so that their imports run beside it
    click.get_current_context().call_on_close(zygotes.close)
    chosen = _select(spec, lang)
    ids = [exercise.id for exercise in chosen]
    workdir = outdir / ".sources"
    try:
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        students, skipped = roster.collect(sources, workdir, student_pattern)
        if part:
            students = [s for s in students if roster.in_shard(s.name, part)]
        for item in skipped:
            _warn(catalogue.text(item.reason.key, lang, **item.reason.args))
        with Gradebook(outdir / FILENAME) as book:
            jobs_to_do, already = batch.pending(book, students, ids, force, seed)
            tally = batch.Tally(already=already)
            progress = Progress(len(jobs_to_do), sys.stderr, enabled=sys.stderr.isatty())

            def recorded(entry: Any) -> None:
                tally.add(entry)
                progress.step()

            started = time.monotonic()
            interrupted = False
            try:
                batch.run(book, jobs_to_do, chosen, outdir, workers=jobs, timeout=timeout, lang=lang,
                          on_result=recorded, zygotes=zygotes)
            except KeyboardInterrupt:  # what was recorded stays; the same command carries on from there
                interrupted = True
            progress.finish()
            index = batch.publish(outdir, book.latest(batch.exercise_set(ids)), lang, rewrite_pages=False)
        shutil.rmtree(workdir, ignore_errors=True)
    except roster.RosterError as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))
    except (GradebookError, OSError) as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))
    seconds = time.monotonic() - started
    counts = {"students": len(students), "already": tally.already, "graded": tally.graded, "full": tally.full,
              "ungradable": tally.ungradable, "errors": tally.errors, "seconds": round(seconds, 1),
              "rate": round(len(jobs_to_do) / seconds, 1) if jobs_to_do and seconds else 0}
    click.echo(summary(counts, str(index), lang))
    if look_alike and not interrupted:
        try:
            similar.compare(outdir, boilerplate, similar.THRESHOLD, lang)
        except (GradebookError, OSError) as exc:
            _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))
    if interrupted:
        _fail(catalogue.text("batch.interrupted", lang), code=EXIT_INTERRUPTED)
    sys.exit(EXIT_PARTIAL if tally.errors else EXIT_FULL)


@cli.command("export")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "mistakes", "gradescope", "html"]), required=True,
              help="csv: grades; jsonl: every result; mistakes: the common mistakes as CSV; gradescope: a "
                   "results.json per student; html: the pages and the overview.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="File (csv, jsonl, mistakes; default stdout) or folder (gradescope, html; default inside OUTDIR).")
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the outputs.")
def export_command(outdir: Path, fmt: str, output: Path | None, lang: str | None) -> None:
    """Render a batch's gradebook again, without grading anything."""
    from grader import batch
    from grader.atomic import write_atomic
    from grader.gradebook import FILENAME, Gradebook, GradebookError, page_name
    from grader.render import classbook, gradescope, mistakes

    lang = lang or catalogue.default_lang()
    if not (outdir / FILENAME).is_file():
        _fail(catalogue.text("batch.no_gradebook", lang, path=str(outdir)))
    try:
        with Gradebook(outdir / FILENAME) as book:
            entries = book.latest()
        if fmt in ("csv", "jsonl", "mistakes"):
            tables = {"csv": classbook.grades_csv, "jsonl": classbook.results_jsonl, "mistakes": mistakes.mistakes_csv}
            text = tables[fmt](entries)
            if output is None:
                click.echo(text, nl=False)
            else:
                write_atomic(output, text)
        elif fmt == "gradescope":
            folder = output or outdir / "gradescope"
            for entry in entries:
                name = Path(page_name(entry.student)).with_suffix(".json").name
                result = gradescope.results(entry.run, entry.problem, lang)
                write_atomic(folder / name, json_text(result, indent=2))
            click.echo(catalogue.text("gradescope.exported", lang, count=len(entries), path=one_line(folder)))
        else:
            batch.publish(output or outdir, entries, lang, rewrite_pages=True)
    except (GradebookError, OSError) as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))


@cli.command("merge")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the outputs.")
def merge_command(outdir: Path, shards: tuple[Path, ...], lang: str | None) -> None:
    """Combine the gradebooks of `grade batch --shard` runs (their OUTDIRs) into OUTDIR, and render it."""
    from grader import batch
    from grader.gradebook import FILENAME, Gradebook, GradebookError

    lang = lang or catalogue.default_lang()
    for shard in shards:
        if not (shard / FILENAME).is_file():
            _fail(catalogue.text("batch.no_gradebook", lang, path=str(shard)))
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        with Gradebook(outdir / FILENAME) as book:
            added = sum(book.merge(shard / FILENAME) for shard in shards)
            index = batch.publish(outdir, book.latest(), lang, rewrite_pages=True)
    except (GradebookError, OSError) as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))
    click.echo(catalogue.text("batch.merged", lang, rows=added, shards=len(shards)))
    click.echo(catalogue.text("batch.index", lang, path=str(index)))


@cli.command("gradescope")
@click.option("--submission", type=click.Path(path_type=Path), default=Path("/autograder/submission"),
              show_default=True, help="The folder Gradescope puts the student's files in.")
@click.option("--results", type=click.Path(path_type=Path), default=Path("/autograder/results"),
              show_default=True, help="Where results.json goes.")
@click.option("-e", "--exercises", "spec", default="all", show_default=True, metavar="EXERCISES")
@click.option("--timeout", type=click.FloatRange(min=1), default=120, show_default=True)
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the feedback.")
def gradescope_command(submission: Path, results: Path, spec: str, timeout: float, lang: str | None) -> None:
    """Grade a submission inside Gradescope's autograder and write its results.json.

    Every .py and .ipynb in the submission folder is graded together. A submission that cannot be
    graded still gets a results.json (score 0 and why), so the exit code is 0 unless it cannot be written.
    """
    from grader.atomic import write_atomic
    from grader.catalogue import Msg
    from grader.launcher import LaunchError, default_launcher
    from grader.loading import LoadError
    from grader.render import gradescope
    from grader.roster import submission_files

    lang = lang or catalogue.default_lang()
    if not submission.is_dir():  # the image's setup, not the student's hand-in: no zero for them
        _fail(catalogue.text("gradescope.no_submission_folder", lang, path=str(submission)))
    selected = _select(spec, lang)
    launcher = default_launcher()
    from grader.judge import grade

    run, problem = None, None
    try:
        run = grade(submission_files(submission), selected, launcher, seed=seeds.fresh(), lang=lang, timeout=timeout)
    except LoadError as exc:
        problem = Msg(exc.key, exc.args_)
    except LaunchError as exc:
        problem = Msg("cli.sandbox_failed", {"error": str(exc)})
    finally:
        launcher.close()
    written = results / "results.json"
    try:
        write_atomic(written, json_text(gradescope.results(run, problem, lang), indent=2))
    except OSError as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))
    if run is not None:
        click.echo(catalogue.text("gradescope.written", lang, path=one_line(written), score=run.score,
                                  max=run.max_score))
    else:
        assert problem is not None
        click.echo(catalogue.text("gradescope.written_ungradable", lang, path=one_line(written),
                                  problem=one_line(catalogue.text(problem.key, lang, **problem.args))))


@cli.command("ci")
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
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None,
              help="Language of the outputs [default: the configuration's lang, else the locale].")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run's hidden inputs.")
def ci_command(files: tuple[Path, ...], config_path: Path | None, junit_path: Path | None, pages_dir: Path | None,
               summary_path: Path | None, annotations: bool | None, lang: str | None, seed: int | None) -> None:
    """Grade a course repository as CI does: the files and exercises its [tool.grader] table names.

    Every file the configuration's globs match is graded together as one submission; given FILES
    (pre-commit passes the changed ones), only those of them that match are, and none is no error.
    Exit 0 at or above the configuration's threshold, 1 below, 2 when it cannot grade.
    """
    from grader import ci

    told = lang or catalogue.default_lang()
    try:
        config = ci.load_config(ci.find_config(config_path))
    except ci.ConfigError as exc:
        _fail(catalogue.text(exc.key, told, **exc.args_))
    lang = lang or config.lang or told
    try:
        sources = ci.select(config, files) if files else ci.matching(config)
    except ci.ConfigError as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))
    if not sources:  # pre-commit: no changed file is an exercise file
        click.echo(catalogue.text("ci.cmd.nothing_to_grade", lang, globs=one_line(", ".join(config.files))))
        sys.exit(EXIT_FULL)

    from grader.launcher import LaunchError, default_launcher
    from grader.loading import LoadError
    from grader.sandbox.confine import hide_from_tracing

    hide_from_tracing()  # the judge holds the expected values: no child may read its memory
    launcher = default_launcher()  # before the judge's own `import torch`, so both load at once
    try:
        context = click.get_current_context().find_root()
        context.obj["folders"] = (*context.obj["folders"], *config.exercise_folders)
        selected = _select(config.exercises, lang)
        from grader.judge import grade

        run = grade(list(sources), selected, launcher, seed=seeds.fresh() if seed is None else seed,
                    lang=lang, timeout=config.timeout)
    except LoadError as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))
    except LaunchError as exc:
        _fail(catalogue.text("cli.sandbox_failed", lang, error=str(exc)))
    finally:
        launcher.close()

    from grader.render import github, html, junit, terminal

    passed = ci.passed(run.score, run.max_score, config.threshold)
    page = (pages_dir or config.pages) / f"{Path(run.submission.path).stem}.html"
    if summary_path is None and os.environ.get("GITHUB_STEP_SUMMARY"):
        summary_path = Path(os.environ["GITHUB_STEP_SUMMARY"])
    try:
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
    except OSError as exc:
        _fail(catalogue.text("cli.unwritable", lang, error=str(exc)))

    report = terminal.render(run, page, color=_use_color(sys.stdout))
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
    numbers = {"percent": ci.shown_percent(ci.percent(run.score, run.max_score)), "score": f"{run.score:g}",
               "max_score": f"{run.max_score:g}", "threshold": ci.shown_percent(config.threshold)}
    click.echo(catalogue.text("ci.cmd.passed" if passed else "ci.cmd.not_passed", lang, **numbers))
    if run.grader_fault:
        sys.exit(EXIT_CANNOT_GRADE)
    sys.exit(EXIT_FULL if passed else EXIT_PARTIAL)


def _shard(spec: str | None, shards: int | None, lang: str) -> tuple[int, int] | None:
    """The part of the class `--shard` and `--shards` name, or None for the whole class."""
    from grader import roster, shards as parts

    if spec is None:
        if shards is not None:
            _fail(catalogue.text("shard.shards_without_auto", lang))
        return None
    try:
        return parts.choose(spec, shards, os.environ)
    except (roster.RosterError, parts.ShardError) as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))


def _grade(submission: Path, selected: list[Any], launcher: Any, seed: int | None, lang: str,
           timeout: float) -> Any:
    """One file, with the files beside it, as the student ran it (README, "Files beside the submission")."""
    from grader.judge import grade
    from grader.loading import LoadError

    try:
        return grade(submission, selected, launcher, seed=seeds.fresh() if seed is None else seed,
                     lang=lang, timeout=timeout, beside=True)
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
            click.echo(json_text(to_json(run), indent=2))
        elif json_path:
            Path(json_path).write_text(json_text(to_json(run), indent=2), encoding="utf-8")
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
        _warn(message)


def _select(spec: str, lang: str) -> list[Any]:
    """Exercises by id, by set (`ch03`, `gpt`) or `all`, joined by commas, each once, in list order."""
    from grader.exercise import UnknownExercise, select

    try:
        return select(spec, _exercises(lang))
    except UnknownExercise as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))


def _exercises(lang: str) -> dict[str, Any]:
    """The package's exercises and those of every `--exercises DIR`."""
    from grader.exercise import ExerciseFolderError, discover

    try:
        return discover(folders=exercise_folders())
    except ExerciseFolderError as exc:
        _fail(catalogue.text(exc.key, lang, **exc.args_))


def exercise_folders() -> tuple[Path, ...]:
    context = click.get_current_context(silent=True)
    return tuple(context.find_root().obj["folders"]) if context and context.find_root().obj else ()


def _use_color(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def _warn(message: str) -> None:
    """One line on stderr. It may quote a file name or an error a student chose: no escape, no line
    break and no workflow command of theirs reaches the terminal or a CI log."""
    click.echo(f"grade: {one_line(message)}", err=True)


def _fail(message: str, code: int = EXIT_CANNOT_GRADE) -> NoReturn:
    _warn(message)
    sys.exit(code)


cli.add_command(similar.similar_command)


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
        _warn(f"internal error: {type(exc).__name__}: {exc}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
