"""The one result model: run -> exercise -> check, plus what loading the submission recorded.

Every output (terminal, HTML, JSON) is a renderer that reads these frozen dataclasses and nothing
else, so a new output format never needs to touch grading code.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

Status = Literal["passed", "failed", "error", "skipped"]
CellStatus = Literal["ok", "error", "timeout", "crashed", "skipped"]


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


@dataclass(frozen=True)
class CellRecord:
    """What happened to one code cell (a .py file is one cell) when the sandbox ran it.

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
        "protections": list(run.protections),
        "output_tail": run.output_tail,
    }


def _plain(value: Any) -> Any:
    """dataclasses.asdict, less its deep copy of every leaf: a run's evidence holds thousands of plain
    values, and a batch converts each run three times (worker, gradebook, results.jsonl)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def from_json(data: dict[str, Any]) -> RunResult:
    """The inverse of to_json, so a gradebook re-renders every output without regrading."""
    return RunResult(
        grader_version=data["grader_version"],
        seed=data["seed"],
        lang=data["lang"],
        started_at=data["started_at"],
        duration_s=data["duration_s"],
        submission=SubmissionInfo(**{**data["submission"], "files": tuple(data["submission"].get("files", ()))}),
        cells=tuple(CellRecord(**{**c, "skipped_magics": tuple(c["skipped_magics"])}) for c in data["cells"]),
        exercises=tuple(
            ExerciseResult(
                id=e["id"], title=e["title"], statement=e["statement"], titles=e["titles"],
                statements=e["statements"], checks=tuple(CheckResult(**c) for c in e["checks"]),
            )
            for e in data["exercises"]
        ),
        protections=tuple(data["protections"]),
        output_tail=data.get("output_tail", ""),
    )
