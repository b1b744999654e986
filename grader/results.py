"""The one result model: run -> exercise -> check, plus what loading the submission recorded.

Every output (terminal, HTML, JSON) is a renderer that reads these frozen dataclasses and nothing
else, so a new output format never needs to touch grading code.
"""
from __future__ import annotations

import json
import math
import re
import signal
from dataclasses import dataclass, field, fields, is_dataclass, replace
from itertools import islice
from typing import Any, Literal, Mapping, Sequence, get_args

from grader.catalogue import Msg

Status = Literal["passed", "failed", "error", "skipped"]
CellStatus = Literal["ok", "error", "interrupted", "timeout", "crashed", "skipped"]

# What one result holds at most, whatever the submission (README, "JSON result"): a notebook of 8,000
# cells costs a line of counts, not megabytes in every output and in each gradebook row.
LISTED_PROBLEMS = 20  # cells that did not run fine listed with their error: the first ones
SOURCE_CHARS = 20_000  # the source kept of one listed cell, cut at the end of a line
SOURCES_CHARS = 100_000  # the sources of all listed cells together, the cells a check quotes first
MAGICS = 20  # skipped magics listed per cell
SHORT_CHARS = 300  # a skipped magic
MESSAGE_CHARS = 4_000  # a check's message, in each language
TEXT_CHARS = 2_000  # a string in a check's evidence
ITEMS = 256  # the items of a list or mapping in a check's evidence
EVIDENCE_CHARS = 16_000  # a check's evidence as JSON: the two caps above halve until it fits
FILES = 100  # the names in submission.files
LEFT_OUT = 20  # the names in submission.left_out

_NOTEBOOK_CELL = re.compile(r"<cell (\d+)>")
_KERNEL_INPUT = re.compile(r"<In \[(\d+)\]>")  # a cell as a Jupyter kernel ran it (grader.loading.kernel_inputs)


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
class ExerciseResult:
    id: str
    title: str
    statement: str
    checks: tuple[CheckResult, ...]
    titles: dict[str, str] = field(default_factory=dict)  # every language, as CheckResult.messages
    statements: dict[str, str] = field(default_factory=dict)

    @property
    def score(self) -> float:
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
    # {"count", "names" (the first LEFT_OUT), "max_files", "max_mib"} (grader.scratch.Siblings.note).
    left_out: dict[str, Any] = field(default_factory=dict)


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
    budget_s: float = 0.0  # the --timeout it was graded with (grader.shares divides it; 0: not recorded)
    cells_s: float = 0.0  # how long its cells ran, first time through, before the checks
    # Graded for a Jupyter kernel (grader.kernel_judge): the code came from the student's process and the
    # result goes back into it, where both can be forged, so every output says it is no grade.
    self_check: bool = False

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
    def grader_fault(self) -> bool:
        return any(c.status == "error" for e in self.exercises for c in e.checks)

    def _repr_html_(self) -> str:
        """Jupyter shows a result (`check("3.1")` as a cell's last line) as its inline feedback."""
        from grader.render.html import fragment

        return fragment(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """A terminal IPython shows it as `grade` does in a terminal."""
        from grader.render.terminal import render

        printer.text(render(self, None, color=False))

    @property
    def unlisted_problems(self) -> int:
        """Cells that did not run fine beyond those `cells` lists."""
        listed = sum(c.status != "ok" for c in self.cells)
        return max(0, sum(n for status, n in self.cell_counts.items() if status != "ok") - listed)


def count_cells(cells: Sequence[CellRecord]) -> dict[str, int]:
    """How many cells ended in each status (those that occurred), in CellStatus order."""
    counts = {status: sum(c.status == status for c in cells) for status in get_args(CellStatus)}
    return {status: n for status, n in counts.items() if n}


def bounded(run: RunResult) -> RunResult:
    """The run as a result holds it, within the caps above. Of the cells, only those a renderer
    shows: the first LISTED_PROBLEMS that did not run fine, and the cells a check or one of those
    errors points at (where an answer was bound or raised), so a page can still quote the student's
    code; `cell_counts` counts them all."""
    checks = [c for e in run.exercises for c in e.checks]
    problems = [c for c in run.cells if c.status != "ok"][:LISTED_PROBLEMS]
    wanted = {**_quoted(run.cells, checks, problems), **dict.fromkeys(c.cell for c in problems)}
    by_number = {c.cell: c for c in run.cells}
    budget, kept = SOURCES_CHARS, {}
    for number in wanted:  # the cells checks quote first: they get their sources before the budget runs out
        if number in by_number:
            kept[number] = _bounded_cell(by_number[number], min(SOURCE_CHARS, budget))
            budget -= len(kept[number].source)
    return replace(
        run,
        cells=tuple(kept[n] for n in sorted(kept)),
        exercises=tuple(replace(e, checks=tuple(_bounded_check(c) for c in e.checks)) for e in run.exercises),
        submission=replace(run.submission, files=run.submission.files[:FILES],
                           left_out=capped(run.submission.left_out, SHORT_CHARS, LEFT_OUT)),
    )


def _quoted(cells: Sequence[CellRecord], checks: Sequence[CheckResult],
            problems: Sequence[CellRecord]) -> dict[int, None]:
    """The numbers of the cells renderers quote, in order: where each check's object was bound or its
    error raised, then where each problem's error raised (it may be another cell: a class above)."""
    wanted: dict[int, None] = {}
    for check in checks:
        found = check.evidence.get("object")
        if isinstance(found, Mapping) and isinstance(found.get("cell"), int):
            wanted[found["cell"]] = None
    for error in [c.evidence.get("error") for c in checks] + [p.error for p in problems]:
        frame = deepest_frame(error)
        record = cell_at(cells, frame["file"], frame["line"]) if frame else None
        if record is not None:
            wanted[record.cell] = None
    return wanted


def _bounded_cell(record: CellRecord, source_chars: int) -> CellRecord:
    source = record.source
    if len(source) > source_chars:  # whole lines, so that line numbers and excerpts stay true
        source = source[:source.rfind("\n", 0, source_chars) + 1]
    magics = tuple(_cut(m, SHORT_CHARS) for m in record.skipped_magics[:MAGICS])
    return replace(record, source=source, skipped_magics=magics)


def _bounded_check(check: CheckResult) -> CheckResult:
    return replace(check, message=_cut(check.message, MESSAGE_CHARS),
                   messages={k: _cut(v, MESSAGE_CHARS) for k, v in check.messages.items()},
                   evidence=_bounded_evidence(check.evidence))


def _bounded_evidence(evidence: dict[str, Any]) -> dict[str, Any]:
    """Evidence capped; when many capped strings and lists still add up, cut each harder."""
    chars, items = TEXT_CHARS, ITEMS
    kept = capped(evidence, chars, items)
    while items > 1 and len(json.dumps(kept, default=str)) > EVIDENCE_CHARS:
        chars, items = chars // 2, items // 2
        kept = capped(evidence, chars, items)
    return kept


def capped(value: Any, chars: int = TEXT_CHARS, items: int = ITEMS) -> Any:
    """Plain data with every string cut to `chars` and every list or mapping to its first `items`."""
    if isinstance(value, str):
        return _cut(value, chars)
    if isinstance(value, (list, tuple)):
        kept = [capped(v, chars, items) for v in value[:items]]
        return tuple(kept) if isinstance(value, tuple) else kept
    if isinstance(value, Mapping):
        return {_cut(str(k), chars): capped(v, chars, items) for k, v in islice(value.items(), items)}
    return value


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:max(0, chars - 1)] + "…"


def stopped_because(how: Any) -> tuple[str, dict[str, Any]] | None:
    """Why the sandbox stopped a child that ended (a cell's `error["how"]`, a probe's exit status), where
    it was one of its walls: a message suffix (`cell.<it>`, `check.<it>`) and its arguments."""
    how = how if isinstance(how, dict) else {}
    if isinstance(how.get("disk_bytes"), int):  # the judge's disk watch
        return "disk_full", {"mib": how["disk_bytes"] / 2**20}
    if how.get("signal") == getattr(signal, "SIGSYS", None):  # how the system-call filter ends a process
        return "forbidden_call", {}
    return None


def frames_of(error: Any) -> list[dict[str, Any]]:
    """An error's frames (the student's own code only) that name a file and a line."""
    if not isinstance(error, Mapping) or not isinstance(error.get("frames"), list):
        return []
    return [f for f in error["frames"]
            if isinstance(f, Mapping) and isinstance(f.get("file"), str) and isinstance(f.get("line"), int)]


def deepest_frame(error: Any) -> dict[str, Any] | None:
    """The innermost frame of the student's own code (the child keeps no other frames)."""
    frames = frames_of(error)
    return frames[-1] if frames else None


def where(record: CellRecord | None, cell: int, line: int | None = None) -> Msg:
    """How the student finds a cell, or a line in it, in their own editor: a notebook's cell by its
    number (its lines count from 1), a module's statement by the file and the file's line."""
    if record is not None and _KERNEL_INPUT.fullmatch(record.file):
        return Msg("unit.input_line", {"count": cell, "line": line}) if line else Msg("unit.input", {"count": cell})
    if record is not None and record.file and not _NOTEBOOK_CELL.fullmatch(record.file):
        return Msg("unit.file_line", {"file": record.file, "line": line or record.first_line})
    return Msg("unit.cell_line", {"cell": cell, "line": line}) if line else Msg("unit.cell", {"cell": cell})


def cell_at(cells: Sequence[CellRecord], file: str, line: int) -> CellRecord | None:
    """The cell a traceback frame is in: named by a notebook's `<cell N>`, else found by line range
    (a .py file's `# %%` blocks share one file name)."""
    match = _NOTEBOOK_CELL.fullmatch(file) or _KERNEL_INPUT.fullmatch(file)
    if match:
        return next((c for c in cells if c.cell == int(match.group(1))), None)
    return next((c for c in cells if c.file in ("", file)
                 and c.first_line <= line < c.first_line + max(1, len(c.source.splitlines()))), None)


def _exercise_json(exercise: ExerciseResult) -> dict[str, Any]:
    return {
        "id": exercise.id,
        "title": exercise.title,
        "statement": exercise.statement,
        "titles": exercise.titles,
        "statements": exercise.statements,
        "score": exercise.score,
        "max_score": exercise.max_score,
        "checks": [_plain(c) for c in exercise.checks],
    }


def to_json(run: RunResult) -> dict[str, Any]:
    """The documented JSON form (README, "JSON result")."""
    return {
        "grader_version": run.grader_version,
        "seed": run.seed,
        "lang": run.lang,
        "started_at": run.started_at,
        "duration_s": round(run.duration_s, 3),
        "submission": _plain(run.submission),
        "score": run.score,
        "max_score": run.max_score,
        "exercises": [_exercise_json(e) for e in run.exercises],
        "cells": [_plain(c) for c in run.cells],
        "cell_counts": dict(run.cell_counts),
        "budget_s": run.budget_s,
        "cells_s": round(run.cells_s, 3),
        "self_check": run.self_check,
        "protections": list(run.protections),
        "output_tail": run.output_tail,
    }


# A number strict JSON (RFC 8259) cannot spell, as the JSON result writes it: evidence holds NaN and the
# infinities where an honest output does (an all-masked row, a difference against one), and every
# output that holds the result must still parse. from_json reads them back as the floats they were.
NON_FINITE = "__float__"
_SPELLINGS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _plain(value: Any) -> Any:
    """dataclasses.asdict, less its deep copy of every leaf: a run's evidence holds thousands of plain
    values, and a batch converts each run three times (worker, gradebook, results.jsonl). A float that
    is not finite becomes {NON_FINITE: "NaN" | "Infinity" | "-Infinity"}."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return {NON_FINITE: "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"}
    return value


def _floats(value: Any) -> Any:
    """The JSON form read back: each {NON_FINITE: spelling} the float it spells."""
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and value.get(NON_FINITE) in _SPELLINGS:
            return _SPELLINGS[value[NON_FINITE]]
        return {k: _floats(v) for k, v in value.items()}
    return value


def from_json(data: dict[str, Any]) -> RunResult:
    """The inverse of to_json, so a gradebook re-renders every output without regrading. A row written
    before results were bounded lists every cell: it is counted and bounded as a new one is."""
    data = _floats(data)
    cells = tuple(CellRecord(**{**c, "skipped_magics": tuple(c["skipped_magics"])}) for c in data["cells"])
    return bounded(RunResult(
        grader_version=data["grader_version"],
        seed=data["seed"],
        lang=data["lang"],
        started_at=data["started_at"],
        duration_s=data["duration_s"],
        submission=SubmissionInfo(**{**data["submission"], "files": tuple(data["submission"].get("files", ()))}),
        cells=cells,
        exercises=tuple(
            ExerciseResult(
                id=e["id"], title=e["title"], statement=e["statement"], titles=e["titles"],
                statements=e["statements"], checks=tuple(CheckResult(**c) for c in e["checks"]),
            )
            for e in data["exercises"]
        ),
        protections=tuple(data["protections"]),
        output_tail=data.get("output_tail", ""),
        cell_counts=data.get("cell_counts") or count_cells(cells),
        budget_s=data.get("budget_s", 0.0),
        cells_s=data.get("cells_s", 0.0),
        self_check=data.get("self_check", False),
    ))
