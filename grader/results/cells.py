"""Reading cell records: how a cell stopped, the frames of its error, where a line of it is."""
from __future__ import annotations

import re
import signal
from typing import Any, Mapping, Sequence, get_args

from grader.messages.catalogue import Msg
from grader.results.model import CellRecord
from grader.results.statuses import CellStatus

_NOTEBOOK_CELL = re.compile(r"<cell (\d+)>")
_KERNEL_INPUT = re.compile(r"<In \[(\d+)\]>")  # a cell as a Jupyter kernel ran it (grader.load.submission.kernel_inputs)


def count_cells(cells: Sequence[CellRecord]) -> dict[str, int]:
    """How many cells ended in each status (those that occurred), in CellStatus order."""
    counts = {status: sum(c.status == status for c in cells) for status in get_args(CellStatus)}
    return {status: n for status, n in counts.items() if n}



def stopped_because(how: Any) -> tuple[str, dict[str, Any]] | None:
    """Why the sandbox stopped a child that ended (a cell's `error["how"]`, a probe's exit status), where
    it was one of its walls: a message suffix (`cell.<it>`, `check.<it>`) and its arguments."""
    how = how if isinstance(how, dict) else {}
    if isinstance(how.get("disk_bytes"), int):  # the judge's disk watch
        return "disk_full", {"mib": how["disk_bytes"] / 2**20}
    if isinstance(how.get("memory_bytes"), int):  # the whole submission's memory cap (grader.judge.memory)
        return "memory_full", {"mib": how["memory_bytes"] / 2**20}
    if how.get("signal") == getattr(signal, "SIGSYS", None):  # how the system-call filter ends a process
        return "forbidden_call", {}
    return None


def frames_of(error: Any) -> list[Mapping[str, Any]]:
    """An error's frames (the student's own code only) that name a file and a line."""
    if not isinstance(error, Mapping) or not isinstance(error.get("frames"), list):
        return []
    return [f for f in error["frames"]
            if isinstance(f, Mapping) and isinstance(f.get("file"), str) and isinstance(f.get("line"), int)]


def deepest_frame(error: Any) -> Mapping[str, Any] | None:
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
