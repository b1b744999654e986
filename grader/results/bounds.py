"""What one result holds at most, whatever the submission (docs/json.md): a notebook of 8,000 cells
costs a line of counts, not megabytes in every output and in each gradebook row.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from itertools import islice
from typing import Any, Mapping, Sequence

from grader.results.cells import cell_at, deepest_frame
from grader.results.model import CellRecord, CheckResult, RunResult

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


def readable(name: str) -> str:
    """A file's name as text every output can hold. Python spells a byte of a name that is not UTF-8 (GBK,
    as Chinese Windows zips write names) as a lone surrogate, which no UTF-8 writer, SQLite or hash takes:
    each becomes `\\xd7`, the byte it stands for, so the name is carried and shown, never fatal."""
    return _SURROGATE.sub(_escape, name)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"  # os.fsdecode's bytes


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
        submission=replace(run.submission, path=readable(run.submission.path),
                           files=tuple(readable(name) for name in run.submission.files[:FILES]),
                           left_out=capped(run.submission.left_out, SHORT_CHARS, LEFT_OUT),
                           header=run.submission.header[:SHORT_CHARS]),
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
    kept: dict[str, Any] = capped(evidence, chars, items)
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
