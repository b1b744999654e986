"""One early failure, told once: the cell that stopped, and the later cells that failed for want of it.

When the first cell of a notebook (or the import block of a module) raises at line 2, nothing after
that line runs: `nn`, `inputs` and the like are never bound, every later cell that uses them raises
NameError, and every check finds no answer. Each of those is true and none is the cause. The cause is
the cell whose unrun lines would have bound the names the later cells missed; this module finds it
from the cell records alone (their text and errors), so every renderer and the checks' messages can
point at that one line. Read, never run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from grader.results import CellRecord
from grader.results.statuses import STOPPED

_UNDEFINED = re.compile(r"name '(?P<name>[^']+)' is not defined")
_IMPORT = re.compile(r"\s*import\s+(?P<names>[^#;]+)")
_FROM = re.compile(r"\s*from\s+\S+\s+import\s+\(?(?P<names>[^#;)]+)")
_ASSIGNED = re.compile(r"\s*(?:(?:async\s+)?(?:def|class)\s+(?P<defined>\w+)|(?P<targets>\w+(?:\s*,\s*\w+)*)\s*(?::[^=]*)?=(?!=))")
MAX_NAMED = 5  # names a message lists of those the later cells missed


@dataclass(frozen=True)
class Cascade:
    root: CellRecord  # the cell that stopped first
    followers: tuple[CellRecord, ...]  # later cells that raised NameError for a name it (or a follower) left unbound
    names: tuple[str, ...]  # the names of the root's that they missed, in the order they missed them


def find(cells: Sequence[CellRecord]) -> Cascade | None:
    """The first failed cell whose unrun lines bind a name a later cell raised NameError for, with every
    later cell that failed for want of a name it or one of those cells would have bound."""
    failed = [c for c in cells if c.status in STOPPED and isinstance(c.error, dict)]
    for i, root in enumerate(failed):
        first = unrun_bindings(root)
        unbound, followers = set(first), []
        for later in failed[i + 1:]:
            if undefined(later) in unbound:
                followers.append(later)
                unbound |= unrun_bindings(later)
        if followers:
            names = tuple(dict.fromkeys(n for c in followers if (n := undefined(c)) in first))
            return Cascade(root, tuple(followers), names)
    return None


def undefined(record: CellRecord) -> str | None:
    """The name a cell's NameError says is not defined, if that is how it failed."""
    error = record.error or {}
    match = _UNDEFINED.search(str(error.get("message", ""))) if error.get("type") == "NameError" else None
    return match["name"] if match else None


def unrun_bindings(record: CellRecord) -> set[str]:
    """The names the cell's lines from the one that raised on would have bound (imports, assignments, defs):
    the statement that raised bound nothing either."""
    line = (record.error or {}).get("line")
    if not isinstance(line, int):
        return set()
    lines = record.source.splitlines()[max(0, line - record.first_line):]
    return {name for text in lines for name in _bound(text)}


def _bound(text: str) -> list[str]:
    imported = _FROM.match(text) or _IMPORT.match(text)
    if imported:  # `import torch.nn as nn` binds nn; `import torch.nn` binds torch
        parts = [p.split(" as ")[-1].strip() for p in imported["names"].split(",")]
        return [p.split(".")[0] for p in parts if p]
    assigned = _ASSIGNED.match(text)
    if assigned is None or text[:1].isspace():
        return []
    return [assigned["defined"]] if assigned["defined"] else re.findall(r"\w+", assigned["targets"])
