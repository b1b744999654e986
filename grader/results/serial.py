"""The documented JSON form of a result (docs/json.md), tagged by its type as pytest tags its reports
(`$report_type`) and numbered by its format (grader.results.migrate), and read back so a gradebook re-renders
every output without grading again. Its schema (grader.results.schema) is generated from the same model."""
from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from typing import Any, Mapping

from grader.messages.catalogue import Msg
from grader.results.bounds import bounded
from grader.results.migrate import FORMAT, FORMAT_KEY, REPORT_TYPE, in_run_lang, upgrade
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


def _exercise_json(exercise: ExerciseResult, lang: str) -> dict[str, Any]:
    """`adjustment` only where a person set the score, so a result nobody adjusted reads as it always did."""
    return in_run_lang({
        "id": exercise.id,
        "title": exercise.title,
        "statement": exercise.statement,
        "titles": exercise.titles,
        "statements": exercise.statements,
        "score": exercise.score,
        "max_score": exercise.max_score,
        "checks": [in_run_lang(_plain(c), lang) for c in exercise.checks],
        **({"adjustment": _plain(exercise.adjustment)} if exercise.adjustment else {}),
    }, lang)


def to_json(result: SubmissionResult) -> dict[str, Any]:
    """The documented JSON form (docs/json.md), tagged with its type and its format."""
    if isinstance(result, Ungraded):
        return {REPORT_TYPE: "Ungraded", FORMAT_KEY: FORMAT, "status": result.status,
                "problem": {"key": result.problem.key, "args": _plain(result.problem.args)}}
    run = result
    return {
        REPORT_TYPE: "RunResult",
        FORMAT_KEY: FORMAT,
        "grader_version": run.grader_version,
        "seed": run.seed,
        "lang": run.lang,
        "started_at": run.started_at,
        "duration_s": run.duration_s,
        "submission": _plain(run.submission),
        "score": run.score,
        "max_score": run.max_score,
        "exercises": [_exercise_json(e, run.lang) for e in run.exercises],
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


def from_json(data: Mapping[str, Any]) -> RunResult:
    """The inverse of to_json, so a gradebook re-renders every output without regrading: a run in any format
    this grader knows, brought to the current one first (grader.results.migrate). Whatever its format, the run
    is held to today's caps (grader.results.bounds), which a result written before them may exceed."""
    run = upgrade(_floats(data))
    lang = run["lang"]
    cells = tuple(CellRecord(**{**c, "skipped_magics": tuple(c["skipped_magics"])}) for c in run["cells"])
    return bounded(RunResult(
        grader_version=run["grader_version"],
        seed=run["seed"],
        lang=lang,
        started_at=run["started_at"],
        duration_s=run["duration_s"],
        submission=SubmissionInfo(**{**run["submission"], "files": tuple(run["submission"]["files"])}),
        cells=cells,
        exercises=tuple(
            ExerciseResult(
                id=e["id"], title=e["titles"].get(lang, ""), statement=e["statements"].get(lang, ""),
                titles=e["titles"], statements=e["statements"],
                checks=tuple(CheckResult(**c, title=c["titles"].get(lang, ""), message=c["messages"].get(lang, ""))
                             for c in e["checks"]),
                adjustment=Adjustment(**e["adjustment"]) if "adjustment" in e else None,
            )
            for e in run["exercises"]
        ),
        protections=tuple(run["protections"]),
        output_tail=run["output_tail"],
        cell_counts=run["cell_counts"],
        budget_s=run["budget_s"],
        cells_s=run["cells_s"],
        self_check=run["self_check"],
    ))


def outcome_from_json(data: Mapping[str, Any]) -> SubmissionResult:
    """Either result type, by its tag (a JSON result written before the tag is a run)."""
    if data.get(REPORT_TYPE) == "Ungraded":
        problem = upgrade(data)["problem"]
        return Ungraded(data["status"], Msg(problem["key"], _floats(problem["args"])))
    return from_json(data)
