"""Every earlier form of the JSON result brought to the current one, a step per format, in this one place (as
nbformat's `upgrade`), so that the reader (grader.results.serial.from_json) reads one format only. A gradebook
keeps rows for years and merges shards graded by other versions: each must still open.

Format 1 is the result as written before it carried a number. A row older than format 1 was complete is read
as format 1 too: each field its writer left out means what its absence meant then (`_FORMAT_1_DEFAULTS`).
Format 2 says its number (`format`) and leaves out each text that only repeated, in the run's language, the
map beside it that holds the text in every language (`IN_RUN_LANG`).

Each step is frozen once released: a later format adds a step and changes none of these.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, get_args

from grader.messages.errors import GraderError
from grader.results.statuses import CellStatus

FORMAT_KEY = "format"
REPORT_TYPE = "$report_type"

# Format 2's dropped texts: each (the text in the run's language) and the map that holds it in every language.
IN_RUN_LANG = {"title": "titles", "message": "messages", "statement": "statements"}

# A cell's status as a result written before the statuses had one vocabulary (grader.results.statuses) spells
# it: what the student's code raised was "error", the word that is now the grader's fault alone.
_CELL_WORDS = {"error": "raised"}
# Format 1's fields that an earlier writer left out, and what their absence meant: the value read in place.
_FORMAT_1_DEFAULTS: dict[str, dict[str, Any]] = {
    "run": {"output_tail": "", "budget_s": 0.0, "cells_s": 0.0, "self_check": False},
    "submission": {"files": [], "left_out": {}, "header": ""},
    "check": {"evidence": {}, "messages": {}, "titles": {}, "duration_s": 0.0},
    "cell": {"error": None, "skipped_magics": [], "source": "", "first_line": 1, "file": ""},
}

Result = dict[str, Any]


class NewerFormat(GraderError):
    """A result written by a newer grader (a merged shard, a gradebook it wrote): this one cannot read it."""

    def __init__(self, found: object) -> None:
        super().__init__("results.newer_format", found=found, reads=FORMAT)


def upgrade(data: Mapping[str, Any]) -> Result:
    """The result in the current format, whichever it was written in (NewerFormat past the current one)."""
    found = data.get(FORMAT_KEY, 0)  # without a number: format 1, or a row from before it was complete
    if not isinstance(found, int) or isinstance(found, bool) or not 0 <= found <= FORMAT:
        raise NewerFormat(found)
    result = dict(data)
    for step in _STEPS[found:]:
        result = step(result)
    return result


def in_run_lang(data: Mapping[str, Any], lang: str) -> Result:
    """An exercise's or a check's JSON without its texts in the run's language, each kept in its map instead
    (a map written before results held every language gets it as the run's language): what format 2 writes."""
    kept = {k: v for k, v in data.items() if k not in IN_RUN_LANG}
    for single, keyed in IN_RUN_LANG.items():
        text = data.get(single)
        if keyed in data and text:
            kept[keyed] = {**data[keyed], lang: text}
    return kept


def _format_1(data: Result) -> Result:
    """A result without a format number as format 1 holds it: tagged (a result written before the tag is a
    run), every field there, each cell in today's words, and every cell counted (a row written before
    results were bounded lists every cell and no counts: the reader bounds it as a new one)."""
    if data.get(REPORT_TYPE) == "Ungraded":
        return {**data, "problem": {"args": {}, **data["problem"]}}
    cells = [{**_defaults("cell"), **cell, "status": _CELL_WORDS.get(cell["status"], cell["status"])}
             for cell in data["cells"]]
    counts = {_CELL_WORDS.get(status, status): n for status, n in (data.get("cell_counts") or {}).items()}
    if not counts:
        counted = {status: sum(cell["status"] == status for cell in cells) for status in get_args(CellStatus)}
        counts = {status: n for status, n in counted.items() if n}
    return {
        REPORT_TYPE: "RunResult", **_defaults("run"), **data,
        "submission": {**_defaults("submission"), **data["submission"]},
        "exercises": [{**e, "checks": [{**_defaults("check"), **c} for c in e["checks"]]} for e in data["exercises"]],
        "cells": cells, "cell_counts": counts,
    }


def _defaults(kind: str) -> Result:
    """`_FORMAT_1_DEFAULTS[kind]`, each list and map its own, so that no two results share one."""
    return copy.deepcopy(_FORMAT_1_DEFAULTS[kind])


def _format_2(data: Result) -> Result:
    """Format 1 with its number, less the texts that repeat a map in the run's language."""
    if data.get(REPORT_TYPE) == "Ungraded":
        return {**data, FORMAT_KEY: 2}
    lang = data["lang"]
    exercises = [{**in_run_lang(e, lang), "checks": [in_run_lang(c, lang) for c in e["checks"]]}
                 for e in data["exercises"]]
    return {REPORT_TYPE: data[REPORT_TYPE], FORMAT_KEY: 2,
            **{k: v for k, v in data.items() if k != REPORT_TYPE}, "exercises": exercises}


_STEPS: tuple[Callable[[Result], Result], ...] = (_format_1, _format_2)
FORMAT = len(_STEPS)  # the format this grader writes: each step leads to the next
