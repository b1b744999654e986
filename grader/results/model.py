"""The one result model: run -> exercise -> check, plus what loading the submission recorded, and a
submission that could not be graded at all (`Ungraded`).

Every output (terminal, HTML, JSON, Gradescope, the gradebook) is a renderer that reads these frozen
dataclasses and nothing else, so a new output format never needs to touch grading code. No module of the
model imports a renderer: how a result displays in Jupyter is registered by grader.render (DISPLAY), which
the model loads by name when IPython first asks.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from grader.messages.catalogue import Msg
from grader.results.statuses import CellStatus, Status, UngradedStatus

# How a run shows itself in IPython, by MIME type. DISPLAY_BACKEND, the renderers' package, fills it when it
# loads; the model names that package instead of importing it (as pandas names its plotting backend) and
# loads it the first time IPython asks, so a result shows however it was made (`from_json` in a notebook),
# and no module of the model depends on a renderer's code (nor does an import circle run through them).
DISPLAY: dict[str, Callable[[RunResult], str]] = {}
DISPLAY_BACKEND = "grader.render"


def _display(mime: str) -> Callable[[RunResult], str]:
    if not DISPLAY:
        importlib.import_module(DISPLAY_BACKEND)
    return DISPLAY[mime]


@dataclass(frozen=True)
class CheckResult:
    id: str
    title: str
    status: Status
    score: float
    max_score: float
    message: str
    message_key: str
    evidence: dict[str, Any] = field(default_factory=dict)
    # Every language of catalogue.LANGS, so a page can switch language without the catalogue.
    messages: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    # How long the check ran, probes included (pytest's CallInfo.duration), for the outputs that time
    # tests (JUnit); 0 in a result written before checks were timed.
    duration_s: float = 0.0


@dataclass(frozen=True)
class Adjustment:
    """An exercise's score as a person set it (`grade adjust`), in place of the checks' sum: who, when
    (ISO time), why, and the grader's own score of the exercise when they set it, so that a regrade that
    changes the grader's score under it is told rather than hidden."""

    points: float
    by: str
    why: str
    at: str
    own_score: float


@dataclass(frozen=True)
class ExerciseResult:
    id: str
    title: str
    statement: str
    checks: tuple[CheckResult, ...]
    titles: dict[str, str] = field(default_factory=dict)  # every language, as CheckResult.messages
    statements: dict[str, str] = field(default_factory=dict)
    # A person's score in place of the checks' sum; a gradebook adds it when read (grader.classes.adjustments).
    adjustment: Adjustment | None = None

    @property
    def score(self) -> float:
        """The exercise's score: a person's where they adjusted it, else the grader's own."""
        return self.adjustment.points if self.adjustment else self.own_score

    @property
    def own_score(self) -> float:
        """What the checks gave, whatever a person set."""
        return sum(c.score for c in self.checks)

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.checks)

    @property
    def duration_s(self) -> float:
        return sum(c.duration_s for c in self.checks)


@dataclass(frozen=True)
class CellRecord:
    """What happened to one code cell (of a .py file: a top-level statement, or a `# %%` block) when the
    sandbox ran it.

    The cell's source (as run: magics neutralised, line numbers kept) travels with it so that a
    renderer can quote the student's code without reading the submission file.
    """

    cell: int
    status: CellStatus
    error: dict[str, Any] | None = None
    skipped_magics: tuple[str, ...] = ()
    source: str = ""
    first_line: int = 1  # where the cell starts in its file (1 in a notebook); error lines number the same way
    file: str = ""  # the name tracebacks give the cell's code (a module's name, a notebook's `<cell N>`)


@dataclass(frozen=True)
class SubmissionInfo:
    path: str
    sha256: str
    kind: Literal["py", "ipynb"]
    files: tuple[str, ...] = ()  # every file graded together, when a submission has more than one
    # Single-file mode, when its caps kept files beside the submission out of the scratch folder:
    # {"count", "names" (the first LEFT_OUT), "max_files", "max_mib"} (grader.judge.scratch.Siblings.note).
    left_out: dict[str, Any] = field(default_factory=dict)
    # A notebook read although its file is off the format (grader.load.submission.notebook_cells): what was off.
    header: str = ""


SECONDS_DIGITS = 3


@dataclass(frozen=True)
class RunResult:
    grader_version: str
    seed: int
    lang: str
    started_at: str
    duration_s: float
    submission: SubmissionInfo
    cells: tuple[CellRecord, ...]
    exercises: tuple[ExerciseResult, ...]
    protections: tuple[str, ...]
    output_tail: str = ""
    cell_counts: dict[str, int] = field(default_factory=dict)  # every cell, listed or not, by status
    budget_s: float = 0.0  # the --timeout it was graded with (grader.judge.budget divides it; 0: not recorded)
    cells_s: float = 0.0  # how long its cells ran, first time through, before the checks
    # Graded for a Jupyter kernel (grader.integrations.kernel_judge): the code came from the student's process and the
    # result goes back into it, where both can be forged, so every output says it is no grade.
    self_check: bool = False

    def __post_init__(self) -> None:
        # Times as the JSON keeps them (ms): a page rendered now from this run and one rendered later from the
        # gradebook (`grade export`, `grade release`) must say the same, and 0.15004 s shows as 0.2 where the
        # 0.15 kept shows as 0.1.
        for name in ("duration_s", "cells_s"):
            object.__setattr__(self, name, round(getattr(self, name), SECONDS_DIGITS))

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)

    @property
    def full_marks(self) -> bool:
        return all(c.status in ("passed", "skipped") for e in self.exercises for c in e.checks)

    @property
    def adjusted(self) -> tuple[ExerciseResult, ...]:
        """The exercises whose score a person set."""
        return tuple(e for e in self.exercises if e.adjustment)

    @property
    def grader_fault(self) -> bool:
        return any(c.status == "error" for e in self.exercises for c in e.checks)

    def _repr_html_(self) -> str:
        """Jupyter shows a result (`check("3.1")` as a cell's last line) as its inline feedback."""
        return _display("text/html")(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """A terminal IPython shows it as `grade` does in a terminal."""
        printer.text(_display("text/plain")(self))

    @property
    def unlisted_problems(self) -> int:
        """Cells that did not run fine beyond those `cells` lists."""
        listed = sum(c.status != "ok" for c in self.cells)
        return max(0, sum(n for status, n in self.cell_counts.items() if status != "ok") - listed)


@dataclass(frozen=True)
class Ungraded:
    """A submission that has no grade, and why: its files cannot be graded ("ungradable": a broken
    notebook, nothing to grade; the student's to fix) or the grader failed on it ("error": ours, and a
    batch grades it again next run). Every output that tells "could not grade" reads this one type."""

    status: UngradedStatus
    problem: Msg


SubmissionResult = RunResult | Ungraded  # what grading one submission gives


def percent(score: float, max_score: float) -> float:
    """The score in percent of the points; a run worth nothing (every check skipped) lost nothing: 100."""
    return 100.0 if max_score <= 0 else score * 100.0 / max_score
