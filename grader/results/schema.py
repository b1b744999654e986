"""The JSON Schema (draft 2020-12) of the JSON result, generated from the result model so that it cannot drift
from it: each dataclass is an object whose properties are its fields, typed as its fields are, less the texts the
current format leaves out (grader.results.migrate.IN_RUN_LANG) and with what the writer adds beside them
(grader.results.serial: the type's tag, the format, the totals).

The package ships it (result.schema.json) for whoever reads our results; tests/results/test_result_format.py fails while
that file differs from what this module generates, and the test suite validates every result it writes against
it. docs/json.md's field tables are written from it (docs/json_fields.py). `python -m grader.results.schema`
rewrites it.
"""
from __future__ import annotations

import json
import types
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from grader.results.migrate import FORMAT, FORMAT_KEY, IN_RUN_LANG, REPORT_TYPE
from grader.results.model import RunResult, Ungraded

PATH = Path(__file__).with_name("result.schema.json")
REGENERATE = "python -m grader.results.schema"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
_NUMBER = {"type": "number"}

# What the JSON of a type holds beside its fields: its tag and format (the two types a result is), and the
# totals, which the model adds up and the JSON states for readers that do not.
_TAG = {"RunResult", "Ungraded"}
_TOTALS = {"RunResult", "ExerciseResult"}
# Fields written only when they are set (the JSON of a result nobody adjusted reads as it always did).
_ONLY_WHEN_SET = {("ExerciseResult", "adjustment")}

# What each type and field means, for whoever reads the JSON: the schema's descriptions and docs/json.md's tables.
# A field the model gains fails generation until it is described here.
DESCRIPTIONS: dict[str, str] = {
    "RunResult": "A graded run: one submission graded against the exercises asked for.",
    "RunResult.$report_type": "The result's type: a graded run.",
    "RunResult.format": "The format of this JSON; a result without it is format 1, which the grader still "
                       "reads (grader/results/migrate.py).",
    "RunResult.grader_version": "The version of the grader that graded it.",
    "RunResult.seed": "The seed every hidden input was drawn from: `--seed` with it grades the same way again.",
    "RunResult.lang": "The run's language (`en`, `zh`): its terminal summary's, and the one its texts were first "
                      "shown in.",
    "RunResult.started_at": "When grading began (ISO 8601).",
    "RunResult.duration_s": "How long grading took, in seconds (to the millisecond).",
    "RunResult.submission": "What was graded.",
    "RunResult.cells": "The cells that did not run fine (the first 20) and the cells a renderer quotes, in cell "
                       "order; a cell that ran fine is counted, not listed.",
    "RunResult.exercises": "Each exercise graded, in the order asked for.",
    "RunResult.protections": "The sandbox's protections that were active.",
    "RunResult.output_tail": "The last 8 KiB of what the submission printed.",
    "RunResult.cell_counts": "Every cell, listed or not, counted by its status (`cells[].status`).",
    "RunResult.budget_s": "The `--timeout` it was graded with, in seconds (0: not recorded).",
    "RunResult.cells_s": "How long its cells ran, the first time through, before the checks began.",
    "RunResult.self_check": "`true` only for a result graded for a Jupyter kernel (`%grade`, `check()`): the "
                            "student's feedback, never a grade.",
    "RunResult.score": "The points earned: the sum of the exercises' `score`.",
    "RunResult.max_score": "The points there were: the sum of the exercises' `max_score`.",
    "SubmissionInfo": "The submission graded.",
    "SubmissionInfo.path": "Its file, as it was given.",
    "SubmissionInfo.sha256": "The SHA-256 of its content.",
    "SubmissionInfo.kind": "A module (`py`) or a notebook (`ipynb`).",
    "SubmissionInfo.files": "Every file graded together, when there are several (batch, CI, Gradescope).",
    "SubmissionInfo.left_out": "`{}`, unless single-file mode's caps kept files beside the submission out of its "
                               "scratch folder: `{count, names, max_files, max_mib}`.",
    "SubmissionInfo.header": "`\"\"`, unless a notebook was read although its file is off the format: what was off.",
    "ExerciseResult": "One exercise of a run.",
    "ExerciseResult.id": "The exercise's id (`3.1`).",
    "ExerciseResult.checks": "Its checks, in order.",
    "ExerciseResult.titles": "Its title in every language (`en`, `zh`), the run's language included.",
    "ExerciseResult.statements": "What it asks, in every language, the run's language included.",
    "ExerciseResult.adjustment": "A person's score in place of the checks' sum (`grade adjust`): only where one "
                                 "was set.",
    "ExerciseResult.score": "Its points: the adjustment's where a person set them, else the checks' sum.",
    "ExerciseResult.max_score": "The points it is worth: the sum of its checks' `max_score`.",
    "Adjustment": "An exercise's score as a person set it.",
    "Adjustment.points": "The score they set.",
    "Adjustment.by": "Who set it.",
    "Adjustment.why": "Why, as the student's page shows it.",
    "Adjustment.at": "When (ISO 8601).",
    "Adjustment.own_score": "The grader's own score of the exercise when they set it.",
    "CheckResult": "One check of an exercise, and its verdict.",
    "CheckResult.id": "The check's id, unique in its exercise.",
    "CheckResult.status": "`passed`, `failed` (the student's answer: its message says why), `error` (the "
                          "grader's fault, not charged) or `skipped` (not applicable here: 0 of 0 points).",
    "CheckResult.score": "The points earned.",
    "CheckResult.max_score": "The points it is worth (0 when skipped).",
    "CheckResult.message_key": "The message's key in the catalogue.",
    "CheckResult.evidence": "Plain data behind the verdict (docs/json.md lists the keys a renderer can rely on).",
    "CheckResult.messages": "Its message in every language, the run's language included.",
    "CheckResult.titles": "Its title in every language, the run's language included.",
    "CheckResult.duration_s": "How long it ran, probes included, in seconds.",
    "CellRecord": "A cell of a notebook, or a top-level statement (or `# %%` block) of a `.py` file.",
    "CellRecord.cell": "Its number, from 1 (a notebook's markdown cells count too).",
    "CellRecord.status": "How it ended (grader/results/statuses.py says what each word means).",
    "CellRecord.error": "What the student's code raised or where it stopped (`type`, `message`, `line`, "
                        "`frames`), or null.",
    "CellRecord.skipped_magics": "The magics and shell lines it held, skipped.",
    "CellRecord.source": "Its code as it ran (magics neutralised, lines kept).",
    "CellRecord.first_line": "The line of its file it starts on (1 in a notebook), as its error's lines count.",
    "CellRecord.file": "The name tracebacks give its code (a module's file, a notebook's `<cell N>`).",
    "Ungraded": "A submission that could not be graded at all, and why.",
    "Ungraded.$report_type": "The result's type: no run.",
    "Ungraded.format": "The format of this JSON, as a run's.",
    "Ungraded.status": "`ungradable` (the student's files) or `error` (the grader's fault, graded again).",
    "Ungraded.problem": "Why, as a catalogue message.",
    "Msg": "A message of the catalogue, in no language yet.",
    "Msg.key": "Its key in the catalogue.",
    "Msg.args": "The values it is filled with.",
}


def schema() -> dict[str, Any]:
    """The schema of the current format: either result type, by its tag."""
    defs: dict[str, Any] = {}
    for root in (RunResult, Ungraded):
        _define(root, defs)
    return {
        "$schema": DIALECT,
        "title": f"A result of llm-from-scratch-grader, format {FORMAT}",
        "description": f"Generated from the result model by `{REGENERATE}` (docs/json.md).",
        "oneOf": [{"$ref": f"#/$defs/{root.__name__}"} for root in (RunResult, Ungraded)],
        "$defs": defs,
    }


def text() -> str:
    """The schema as the package ships it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def _define(cls: type, defs: dict[str, Any]) -> None:
    """`cls` and every dataclass its fields hold, each once, in `defs`."""
    name = cls.__name__
    if name in defs:
        return
    defs[name] = {}  # its place before the types its fields hold: the definitions read from the run down
    hints = get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    properties: dict[str, Any] = {}
    if name in _TAG:
        properties[REPORT_TYPE] = {"const": name}
        properties[FORMAT_KEY] = {"const": FORMAT}
    for f in fields(cls):
        if IN_RUN_LANG.get(f.name) in names:
            continue
        hint = hints[f.name]
        if (name, f.name) in _ONLY_WHEN_SET:
            hint = _without_none(hint)
        properties[f.name] = _json_type(hint, defs)
    if name in _TOTALS:
        properties.update(score=dict(_NUMBER), max_score=dict(_NUMBER))
    for key, value in properties.items():
        value["description"] = _described(f"{name}.{key}")
    defs[name] = {
        "description": _described(name),
        "type": "object",
        "properties": properties,
        "required": [key for key in properties if (name, key) not in _ONLY_WHEN_SET],
        "additionalProperties": False,
    }


def _json_type(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """A field's type as JSON writes it (a tuple as an array, a dataclass as its definition)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return {}
    if hint in _PLAIN:
        return {"type": _PLAIN[hint]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_json_type(arg, defs) for arg in args]}
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": _json_type(args[0], defs)}
    if origin is dict and args[0] is str:
        values = _json_type(args[1], defs)
        return {"type": "object", **({"additionalProperties": values} if values else {})}
    if isinstance(hint, type) and is_dataclass(hint):
        _define(hint, defs)
        return {"$ref": f"#/$defs/{hint.__name__}"}
    raise TypeError(f"no JSON type for {hint!r}: say in grader/results/schema.py how the JSON writes it")


_PLAIN: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _without_none(hint: Any) -> Any:
    """`X | None` as X: a field written only when it is set is never null."""
    kept = [arg for arg in get_args(hint) if arg is not type(None)]
    return kept[0] if len(kept) == 1 else hint


def _described(key: str) -> str:
    if key not in DESCRIPTIONS:
        raise KeyError(f"{key} has no description: add one to grader/results/schema.py's DESCRIPTIONS")
    return DESCRIPTIONS[key]


if __name__ == "__main__":
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH}")
