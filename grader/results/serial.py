"""The documented JSON form of a result (docs/json.md), tagged by its type as pytest tags its reports
(`$report_type`), and read back so a gradebook re-renders every output without grading again."""
from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from typing import Any

from grader.messages.catalogue import Msg
from grader.results.bounds import bounded
from grader.results.cells import count_cells
from grader.results.model import (
    Adjustment,
    CellRecord,
    CheckResult,
    ExerciseResult,
    RunResult,
    SubmissionInfo,
    SubmissionResult,
    Ungraded,
)

REPORT_TYPE = "$report_type"

def _exercise_json(exercise: ExerciseResult) -> dict[str, Any]:
    """`adjustment` only where a person set the score, so a result nobody adjusted reads as it always did."""
    return {
        "id": exercise.id,
        "title": exercise.title,
        "statement": exercise.statement,
        "titles": exercise.titles,
        "statements": exercise.statements,
        "score": exercise.score,
        "max_score": exercise.max_score,
        "checks": [_plain(c) for c in exercise.checks],
        **({"adjustment": _plain(exercise.adjustment)} if exercise.adjustment else {}),
    }


def to_json(result: SubmissionResult) -> dict[str, Any]:
    """The documented JSON form (docs/json.md), tagged with its type."""
    if isinstance(result, Ungraded):
        return {REPORT_TYPE: "Ungraded", "status": result.status,
                "problem": {"key": result.problem.key, "args": _plain(result.problem.args)}}
    run = result
    return {
        REPORT_TYPE: "RunResult",
        "grader_version": run.grader_version,
        "seed": run.seed,
        "lang": run.lang,
        "started_at": run.started_at,
        "duration_s": run.duration_s,
        "submission": _plain(run.submission),
        "score": run.score,
        "max_score": run.max_score,
        "exercises": [_exercise_json(e) for e in run.exercises],
        "cells": [_plain(c) for c in run.cells],
        "cell_counts": dict(run.cell_counts),
        "budget_s": run.budget_s,
        "cells_s": run.cells_s,
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


# A cell's status as a result written before the statuses had one vocabulary (grader.results.statuses) spells
# it: what the student's code raised was "error", the word that is now the grader's fault alone.
_CELL_WORDS = {"error": "raised"}


def from_json(data: dict[str, Any]) -> RunResult:
    """The inverse of to_json, so a gradebook re-renders every output without regrading. A row written
    before results were bounded lists every cell: it is counted and bounded as a new one is; one written
    before the cells' statuses were renamed is read in today's words."""
    data = _floats(data)
    cells = tuple(CellRecord(**{**c, "status": _CELL_WORDS.get(c["status"], c["status"]),
                                "skipped_magics": tuple(c["skipped_magics"])}) for c in data["cells"])
    counts = {_CELL_WORDS.get(status, status): n for status, n in (data.get("cell_counts") or {}).items()}
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
                adjustment=Adjustment(**e["adjustment"]) if e.get("adjustment") else None,
            )
            for e in data["exercises"]
        ),
        protections=tuple(data["protections"]),
        output_tail=data.get("output_tail", ""),
        cell_counts=counts or count_cells(cells),
        budget_s=data.get("budget_s", 0.0),
        cells_s=data.get("cells_s", 0.0),
        self_check=data.get("self_check", False),
    ))


def outcome_from_json(data: dict[str, Any]) -> SubmissionResult:
    """Either result type, by its tag (a JSON result written before the tag is a run)."""
    if data.get(REPORT_TYPE) == "Ungraded":
        problem = data["problem"]
        return Ungraded(data["status"], Msg(problem["key"], _floats(problem.get("args", {}))))
    return from_json(data)
