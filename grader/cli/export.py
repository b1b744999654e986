"""`grade export OUTDIR --format F`: a gradebook rendered again, without grading anything.

Every format is one row of FORMATS: how it renders the class (grader.classes.course.Course), whether it writes
one file (stdout by default) or a folder of them, and which of the LMS options it reads (`canvas`,
`moodle`, `lms`: grader.classes.lms and grader.classes.canvas); an option given to a format that does not
read it is refused rather than silently ignored.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple

import click
from click.core import ParameterSource

from grader.cli.options import lang_option, speak, warn
from grader.messages import catalogue
from grader.messages.errors import GraderError, writing
from grader.outputs.safe_text import one_line

if TYPE_CHECKING:
    from grader.classes.course import Course
    from grader.classes.lms import Identities, Report


@dataclass(frozen=True)
class ExportOptions:
    """What the LMS formats read beside the gradebook."""

    gradebook: Path | None = None  # the course's Canvas gradebook export
    assignment: str | None = None  # its column to fill (canvas), the grade column's header (moodle)
    roster: Path | None = None  # our student names -> their LMS identities
    identifier: str | None = None  # the roster column that names a student to the LMS
    scale: bool = True  # canvas: our points scaled to the column's Points Possible
    late_penalty: float = 0.0  # percent off a late hand-in's grade


Write = Callable[["Course", Path | None, ExportOptions], None]


class Format(NamedTuple):
    help: str
    write: Write
    reads: tuple[str, ...] = ()  # the options of ExportOptions it reads
    folder: bool = False  # -o names a folder (`-`, standard output, is refused), else one file (`-` is stdout)


def _table(module: str, render: str, lists_left_out: bool = True) -> Write:
    """A format that is one text, rendered by `module.render(entries, left_out)` (`module.render(entries)`
    for a table of graded work alone): to the file asked for, else to stdout. The renderer is imported only
    when its format is asked for."""

    def write(course: Course, output: Path | None, _: ExportOptions) -> None:
        from grader.outputs.paths import STDOUT, write_file

        rendering = getattr(importlib.import_module(module), render)
        entries = course.entries()
        text: str = rendering(entries, course.left_out()) if lists_left_out else rendering(entries)
        write_file(output or STDOUT, text)

    return write


def _gradescope(course: Course, output: Path | None, _: ExportOptions) -> None:
    """A results.json per student, as `grade gradescope` writes it."""
    folder = output or course.outdir / "gradescope"
    count = course.gradescope_files(folder)
    click.echo(catalogue.text("gradescope.exported", course.lang, count=count, path=one_line(folder)))


def _html(course: Course, output: Path | None, _: ExportOptions) -> None:
    course.publish(rewrite_pages=True, into=output)


def _canvas(course: Course, output: Path | None, options: ExportOptions) -> None:
    """Canvas's own gradebook export with the assignment column filled: every other byte as it was."""
    from grader.classes import canvas

    if options.gradebook is None or options.assignment is None:
        raise GraderError("lms.needs_option", format="canvas", option="--gradebook, --assignment")
    filled = canvas.fill(options.gradebook, course.entries(), _roster(options), options.assignment,
                         scale=options.scale, late_penalty=options.late_penalty, left_out=course.left_out())
    _emit(output, filled.data, filled.report, course.lang, options, filled.column)


def _moodle(course: Course, output: Path | None, options: ExportOptions) -> None:
    """Moodle's grade import: identifier, grade, feedback."""
    from grader.classes import lms

    roster = _roster(options)
    if roster is None:
        raise GraderError("lms.needs_option", format="moodle", option="--roster")
    text, report = lms.moodle_csv(course.entries(), roster, options.identifier or "email",
                                  options.assignment or "Grade", options.late_penalty, course.lang, course.left_out())
    _emit(output, text.encode("utf-8"), report, course.lang, options)


def _lms(course: Course, output: Path | None, options: ExportOptions) -> None:
    """The generic LMS CSV: identifier, grade, max_grade, late, feedback."""
    from grader.classes import lms

    text, report = lms.lms_csv(course.entries(), _roster(options), options.identifier, options.late_penalty,
                               course.lang, course.left_out())
    _emit(output, text.encode("utf-8"), report, course.lang, options)


def _roster(options: ExportOptions) -> Identities | None:
    from grader.classes import lms

    return lms.read_roster(options.roster) if options.roster is not None else None


def _emit(output: Path | None, data: bytes, report: Report, lang: str, options: ExportOptions,
          column: str | None = None) -> None:
    """The file, exactly these bytes (to stdout by default), then the report on stderr."""
    from grader.outputs.paths import STDOUT, write_file

    write_file(output or STDOUT, data)
    for line in report.lines(lang, options.late_penalty, column):
        warn(line)


FORMATS = {
    "csv": Format("grades", _table("grader.render.classbook", "grades_csv")),
    "jsonl": Format("every result", _table("grader.render.classbook", "results_jsonl")),
    "mistakes": Format("the common mistakes as CSV",
                       _table("grader.render.mistakes", "mistakes_csv", lists_left_out=False)),
    "gradescope": Format("a results.json per student", _gradescope, folder=True),
    "html": Format("the pages and the overview", _html, folder=True),
    "canvas": Format("Canvas's gradebook export with one assignment filled", _canvas,
                     ("gradebook", "assignment", "roster", "scale", "late_penalty")),
    "moodle": Format("Moodle's grade import CSV", _moodle, ("assignment", "roster", "identifier", "late_penalty")),
    "lms": Format("a generic LMS CSV (identifier, grade, max_grade, late, feedback)", _lms,
                  ("roster", "identifier", "late_penalty")),
}
# The option each ExportOptions field comes from, to name it when a format does not read it.
LMS_OPTIONS = {"gradebook": "--gradebook", "assignment": "--assignment", "roster": "--roster",
               "identifier": "--identifier", "scale": "--scale/--no-scale", "late_penalty": "--late-penalty"}


@click.command("export")
@click.argument("outdir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), required=True,
              help="; ".join(f"{name}: {spec.help}" for name, spec in FORMATS.items()) + ".")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="File (csv, jsonl, mistakes, canvas, moodle, lms; default stdout, or '-') or folder (gradescope, "
                   "html; default inside OUTDIR).")
@click.option("--gradebook", type=click.Path(path_type=Path), metavar="CANVAS.csv",
              help="canvas: the course's gradebook exported from Canvas (Grades → Export → CSV), filled in.")
@click.option("--assignment", metavar="COLUMN",
              help="canvas: the assignment column to fill (its header, its name without ` (id)`, or its id); "
                   "moodle: the grade column's header (default Grade).")
@click.option("--roster", type=click.Path(path_type=Path), metavar="FILE",
              help="CSV mapping the `student` column (our names, or LMS ids; or an `lms_id` column) to email, username, "
                   "idnumber, canvas_id, sis_login.")
@click.option("--identifier", metavar="COLUMN",
              help="moodle: email, username or idnumber (default email); lms: the roster column that names a "
                   "student (default id, else its first column besides student).")
@click.option("--scale/--no-scale", default=True,
              help="canvas: scale our points to the column's Points Possible (default), or write them as they are.")
@click.option("--late-penalty", type=click.FloatRange(0, 100), default=0.0, metavar="PERCENT",
              help="canvas, moodle, lms: take PERCENT off a late hand-in's grade (default 0: no penalty).")
@lang_option()
@click.pass_context
def export_command(ctx: click.Context, outdir: Path, fmt: str, output: Path | None, gradebook: Path | None,
                   assignment: str | None, roster: Path | None, identifier: str | None, scale: bool,
                   late_penalty: float, lang: str | None) -> None:
    """Render a batch's gradebook again, without grading anything, or as a file an LMS imports."""
    from grader.classes.course import Course
    from grader.outputs import paths

    lang = speak(lang)
    for name, option in LMS_OPTIONS.items():
        if name not in FORMATS[fmt].reads and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT:
            raise GraderError("lms.unused_option", option=option, format=fmt)
    options = ExportOptions(gradebook, assignment, roster, identifier, scale, late_penalty)
    if FORMATS[fmt].folder:
        paths.check(folders={"-o/--output": output})
    else:
        paths.check(files={"-o/--output": output})
    with writing(), Course(outdir, lang) as course:
        FORMATS[fmt].write(course, output, options)
