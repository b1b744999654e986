"""What crosses the pipe between a batch's parent and its judges (grader.classes.pool, grader.classes.worker): a
submission to grade and the judge's answer, typed on both sides and written as one JSON line each.

One JSON line, not pickle: the parent reads what a judge wrote about a student's code, and a line is data. Written
with json_text, so a file name that is not UTF-8 or a lone surrogate in a student's message travels as an escape
where raw it would stop the UTF-8 pipe, and with it the judge."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.outputs.safe_text import json_text
from grader.results import SubmissionResult, outcome_from_json, to_json
from grader.results.release import POLICIES, Policy


@dataclass(frozen=True)
class Request:
    """One student's files for a judge to grade, and where and how its page is written."""

    label: str  # the student as their page is named (grader.results.entry.Entry.label)
    files: tuple[str, ...]
    handed_in: str  # what the student handed in, which titles the page (`class.zip:wangwei_1111_501_a.py`)
    seed: int  # the student's own draw
    class_seed: int  # the draw the class shares where sandboxes keep classmates apart (grader.judge.seeds)
    timeout: float
    lang: str
    shown: Policy  # what the page shows before release
    outdir: str

    def line(self) -> bytes:
        return (json_text(asdict(self)) + "\n").encode()

    @classmethod
    def read(cls, line: str) -> Request:
        data = json.loads(line)
        if data["shown"] not in POLICIES:
            raise ValueError(f"unknown release policy {data['shown']!r}")
        return cls(**{**data, "files": tuple(data["files"])})

    @property
    def paths(self) -> list[Path]:
        return [Path(f) for f in self.files]


@dataclass(frozen=True)
class Answer:
    """A judge's verdict on one request: a graded run, or why there is none (the student's files, or our fault,
    which is graded again next run)."""

    result: SubmissionResult

    def line(self) -> str:
        return json_text({"result": to_json(self.result)}) + "\n"

    @classmethod
    def read(cls, line: bytes) -> Answer:
        return cls(outcome_from_json(json.loads(line)["result"]))
