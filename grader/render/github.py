"""GitHub Actions: error annotations on the student's lines, and the Markdown of the job summary.

Workflow commands are lines the runner reads from the log
(https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands). The runner
(actions/runner, ActionCommand.TryParseV2) takes a line that starts with `::`, reads the command and
its comma-separated properties up to the next `::`, and the rest of the line as data; it unescapes
data and properties as @actions/core escapes them (escape_data, escape_property). So a message can
neither end the line early nor open a second command, and a `::` inside the data is only text.

Everything else a submission makes `grade ci` print goes between stop_commands(), so the runner
takes none of it for a command.
"""
import re
import secrets
from pathlib import Path

from grader.messages import catalogue
from grader.messages.catalogue import in_lang
from grader.render import source
from grader.outputs.safe_text import clean
from grader.render.text import STATUS_ICONS, cell_problems, problem_cells, problem_line
from grader.results import CellRecord, CheckResult, ExerciseResult, RunResult, where
from grader.results import percent as score_percent

MESSAGE_WIDTH = 500  # a summary row quotes a message, it does not reproduce a traceback (1 MiB per step)

_NOTEBOOK_CELL = re.compile(r"<cell \d+>")
_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one (from a student's str) cannot be written as UTF-8
_MARKDOWN = re.compile(r"[\\`*_\[\]|~$]")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# GitHub links bare URLs, www. names and @mentions on its own; an invisible space stops each.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)


def annotations(run: RunResult, lang: str, root: Path | None = None) -> list[str]:
    """`::error` lines: one per cell that did not run, then one per failed check or grader error.
    Skipped and passed checks get none: there is nothing to fix."""
    base = (root or Path.cwd()).resolve()
    records, chain = problem_cells(run)
    lines = [_cell_annotation(run, record, problem_line(record, chain, lang), lang, base) for record in records]
    lines += [_check_annotation(run, exercise, check, lang, base)
              for exercise in run.exercises for check in exercise.checks
              if check.status in ("failed", "error")]
    return lines


def step_summary(run: RunResult, threshold: float, passed: bool, lang: str) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY. `threshold` is a percentage (0-100), as `passed` was
    decided against it by the caller. Every piece of text goes through markdown_text, so nothing a
    submission says can become a link, an image, HTML or a table column."""
    percent = score_percent(run.score, run.max_score)
    verdict = catalogue.text("ci.verdict_pass" if passed else "ci.verdict_fail", lang, score=run.score,
                             max=run.max_score, percent=round(percent, 2), threshold=threshold)
    lines = [
        "## " + markdown_text(catalogue.text("ci.summary_title", lang, path=", ".join(graded_files(run)))),
        "",
        f"**{STATUS_ICONS['passed' if passed else 'failed']} {markdown_text(verdict)}**",
        "",
        *_table(run, lang),
    ]
    faults = sum(c.status == "error" for e in run.exercises for c in e.checks)
    if faults:
        lines += ["", markdown_text(catalogue.text("ci.grader_faults", lang, count=faults))]
    broken = cell_problems(run, lang)
    if broken:
        lines += ["", "### " + markdown_text(catalogue.text("ci.cells", lang)), ""]
        lines += ["- " + markdown_text(problem) for problem in broken]
    return "\n".join(lines) + "\n"


def graded_files(run: RunResult) -> list[str]:
    """Every file the run graded, as the summary heading names them: the submission's path alone, or each
    of the files graded together, beside it as the annotations place them (`student_file`)."""
    if not run.submission.files:
        return [run.submission.path]
    folder = Path(run.submission.path).parent
    return [(folder / name).as_posix() for name in run.submission.files]


def stop_commands(token: str | None = None) -> tuple[str, str]:
    """The lines that stop and resume the runner's reading of workflow commands. The token must be
    unguessable (the docs' warning): whoever prints `::token::` resumes it."""
    token = token or secrets.token_hex(16)
    return f"::stop-commands::{token}", f"::{token}::"


def escape_data(text: str) -> str:
    """As @actions/core's escapeData: the runner reverses exactly this on a command's data."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """As @actions/core's escapeProperty: also `:` and `,`, which end a property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def markdown_text(value: object) -> str:
    """Text shown as itself in GitHub-flavoured Markdown, on one line and inside a table cell:
    Markdown punctuation backslash-escaped, `& < >` as entities, automatic links broken."""
    text = " ".join(_printable(value).split())
    text = _MARKDOWN.sub(lambda m: "\\" + m.group(0), text)
    text = "".join(_HTML.get(ch, ch) for ch in text)
    return _AUTOLINK.sub("\u200b", text)


def _table(run: RunResult, lang: str) -> list[str]:
    head = [catalogue.text(f"ci.col_{col}", lang) for col in ("exercise", "check", "status", "points", "message")]
    rows = [_row(head), "| --- | --- | --- | --- | --- |"]
    for exercise in run.exercises:
        rows += [_row(_cells(exercise, check, lang)) for check in exercise.checks]
    return rows


def _cells(exercise: ExerciseResult, check: CheckResult, lang: str) -> list[str]:
    message = "" if check.status == "passed" else in_lang(check.messages, check.message, lang)
    if len(message) > MESSAGE_WIDTH:
        message = message[:MESSAGE_WIDTH - 1] + "…"
    return [
        exercise.id,
        in_lang(check.titles, check.title, lang),
        f"{STATUS_ICONS[check.status]} {catalogue.text('status.' + check.status, lang)}",
        f"{check.score:g} / {check.max_score:g}",
        message,
    ]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(markdown_text(cell) for cell in cells) + " |"


def _check_annotation(run: RunResult, exercise: ExerciseResult, check: CheckResult, lang: str,
                      base: Path) -> str:
    title = catalogue.text("ci.annotation_title", lang, exercise=exercise.id,
                           title=in_lang(check.titles, check.title, lang),
                           status=catalogue.text("status." + check.status, lang))
    excerpt = source.for_check(run.cells, check.evidence)
    site = None if excerpt is None else next((c for c in run.cells if c.cell == excerpt.cell), None)
    return _command(run, site, None if excerpt is None else excerpt.line, title,
                    in_lang(check.messages, check.message, lang), lang, base)


def _cell_annotation(run: RunResult, record: CellRecord, problem: str, lang: str, base: Path) -> str:
    """Points at the line that raised, which may be in another cell (a class defined above and
    called here), so the title says which cell did not run and the location says where."""
    site, line = record, (record.error or {}).get("line")
    frame = source.deepest_frame(record.error)
    if frame is not None:
        site, line = source.cell_at(run.cells, frame["file"], frame["line"]) or record, frame["line"]
    return _command(run, site, line if isinstance(line, int) else None,
                    catalogue.text("ci.cell_title", lang, unit=where(record, record.cell)),
                    problem, lang, base)


def _command(run: RunResult, site: CellRecord | None, line: int | None, title: str, message: str,
             lang: str, base: Path) -> str:
    """The `::error` line for a place in the student's code. GitHub numbers a notebook's lines as
    JSON, so a cell's line cannot be pointed at: the annotation goes on line 1 and its title names
    the cell and line. Without a known line (a module's), the cell's first line stands in."""
    if site is not None and _in_notebook(site):
        where = "ci.at_cell" if line is None else "ci.at_cell_line"
        title += catalogue.text(where, lang, cell=site.cell, line=line)
        line = 1
    elif site is not None and line is None:
        line = site.first_line
    properties = [f"file={escape_property(_printable(student_file(run, site, base)))}"]
    if line is not None:
        properties.append(f"line={line}")
    properties.append(f"title={escape_property(_printable(title))}")
    return f"::error {','.join(properties)}::{escape_data(_printable(message))}"


def student_file(run: RunResult, record: CellRecord | None, base: Path) -> str:
    """The student's file, relative to the repository root as GitHub wants it. In a submission of
    several files a module's cells name their file; a notebook's (`<cell N>`) do not, so they are
    given to the one notebook handed in, else to the submission's first file."""
    path = Path(run.submission.path)
    if run.submission.files and record is not None:
        notebooks = [name for name in run.submission.files if name.endswith(".ipynb")]
        if record.file in run.submission.files:
            path = path.parent / record.file
        elif _in_notebook(record) and len(notebooks) == 1:
            path = path.parent / notebooks[0]
    resolved = path.resolve()
    return (resolved.relative_to(base) if resolved.is_relative_to(base) else path).as_posix()


def _printable(value: object) -> str:
    """Submission-derived text for the log or the summary file: no terminal escapes or control
    characters (text.clean), and no lone surrogate, which would stop `grade ci` printing at all."""
    return _SURROGATE.sub("\ufffd", clean(value))


def _in_notebook(record: CellRecord) -> bool:
    return bool(_NOTEBOOK_CELL.fullmatch(record.file))
