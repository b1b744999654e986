"""Why an answer was not found, when the submission tells more than "missing" (judge side).

Checks look answers up by the exercise's exact names. A learner's answer is often there all the
same: under another spelling (`Causal_Attention`, `MultiHeadAttentionWraper`, `causalattention`), or
written in a cell that raised before it bound it. The finding functions note each name they looked
for in vain (`missed`); when a check ends in NotFound, the judge asks `explain` for the message that
names the near miss or points at the cell that raised. Everything here is read from the submission's
text and the cell records the sandbox kept: nothing asks the child, so nothing here can fail on it.
"""
from __future__ import annotations

import difflib
import keyword
import re
import weakref
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from grader.checks.exercise import Outcome
from grader.judge.client import SandboxClient
from grader.load.submission import Cell
from grader.messages.catalogue import Msg
from grader.results import CellRecord, cascade, where

# A name this close to the one looked for (after letter case and underscores are set aside) is a near miss;
# names whose digits differ never are: SelfAttention_v1 and SelfAttention_v2, xbow2 and xbow3 are different answers.
CLOSE = 0.9
MAX_SHOWN = 3  # near misses named per name looked for
ERROR_SHOWN = 300  # characters of the error quoted in the message
# A learner's files bind a few hundred names; a submission is read no further than this many, so that one
# built to slow the judge down costs it little.
MAX_BINDINGS = 5000

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# A top-level statement that binds a name: `class X`, `def X`, `X = ...`, `a, X = ...`, `X: T = ...`.
_BINDS = re.compile(r"(?:async\s+)?(?:def|class)\s+(?P<defined>[^\W\d]\w*)"
                    r"|(?P<assigned>[^\W\d]\w*(?:\s*,\s*[^\W\d]\w*)*)\s*(?::[^=]*)?=(?!=)")

_MISSED: ContextVar[list[str] | None] = ContextVar("grader_near_miss", default=None)
_BOUND: "weakref.WeakKeyDictionary[SandboxClient, list[Binding]]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Binding:
    """Where a cell's text binds a name at the top level."""

    name: str
    cell: int
    line: int  # in the file's numbering, as error lines are
    defines: bool  # a class or def (what a near miss of a class or function is), not an assignment


def missed(name: str) -> None:
    """A finding function looked for `name` and found nothing: noted for the check's message, should
    the check end in NotFound (outside a check being judged, nothing is noted)."""
    names = _MISSED.get()
    if names is not None:
        names.append(name)


@contextmanager
def recording(names: list[str]) -> Iterator[None]:
    """Collect into `names` what the finding functions miss while the block runs (one check)."""
    token = _MISSED.set(names)
    try:
        yield
    finally:
        _MISSED.reset(token)


def explain(sb: SandboxClient, what: Msg, wanted: Iterable[str]) -> Outcome:
    """The failure for an answer not found under any of the `wanted` names: the cell that raised
    before binding one, else the near misses of each, else plain "no answer found"."""
    names = list(dict.fromkeys(wanted))
    bound = _BOUND.get(sb)
    if bound is None:  # read once per submission: every check that misses an answer asks
        bound = _BOUND[sb] = bindings(sb.submission.cells)
    records = sb.cell_records()
    chain = cascade.find(records)
    followers = {r.cell for r in chain.followers} if chain else set()
    raised = {r.cell: r for r in records if r.status in ("error", "interrupted") and isinstance(r.error, dict)
              and r.cell not in followers}  # a follower's NameError is not the cause: the chain's root is
    for name in names:
        stopped = _stopped(raised, bound, name)
        if stopped is not None:
            return stopped
    if chain is not None and _hidden_by(chain, bound, names):
        return after_failure(chain, what)
    renames = [f"{' / '.join(found)} → {name}" for name in names if (found := near(name, bound))]
    if renames:
        return Outcome("failed", "check.near_miss", {"what": what, "renames": "; ".join(renames)})
    return Outcome("failed", "check.not_found", {"what": what})


def after_failure(chain: cascade.Cascade, what: Msg) -> Outcome:
    """No answer, after one early failure that the cells after it tripped over: point at its line."""
    root, error = chain.root, chain.root.error or {}
    unit = where(root, root.cell, error.get("line"))
    return Outcome("failed", "check.after_failure", {"what": what, "unit": unit, "error": _shown(error)},
                   {"error": error})


def _hidden_by(chain: cascade.Cascade, bound: Sequence[Binding], names: Sequence[str]) -> bool:
    """Whether a name looked for is bound where the early failure kept code from running: a follower, or
    the root from the line that raised on. A submission that never writes the answer is told so plainly."""
    followers = {c.cell for c in chain.followers}
    line = (chain.root.error or {}).get("line", 0)
    return any(b.name in names and (b.cell in followers or (b.cell == chain.root.cell and b.line >= line))
               for b in bound)


def bindings(cells: Sequence[Cell]) -> list[Binding]:
    """Every top-level binding the cells' text makes, in order (the first MAX_BINDINGS). Text, not a
    parse: a cell with a syntax error is exactly one a learner needs pointed at."""
    found = []
    for cell in cells:
        for offset, text in enumerate(cell.source.split("\n")):  # lines as Python numbers them
            match = _BINDS.match(text)
            if match is None:
                continue
            names = _IDENTIFIER.findall(match["defined"] or match["assigned"])
            found += [Binding(n, cell.number, cell.first_line + offset, bool(match["defined"]))
                      for n in names if not keyword.iskeyword(n)]
            if len(found) >= MAX_BINDINGS:
                return found[:MAX_BINDINGS]
    return found


def near(wanted: str, bound: Sequence[Binding]) -> list[str]:
    """The names bound that are spelled close to `wanted` (never `wanted` itself), closest first; a class
    or def is preferred to a variable, as the answers looked for by name are mostly classes and functions."""
    digits = _digits(wanted)
    for defines in (True, False):
        names = {b.name for b in bound if b.defines == defines and b.name != wanted and _digits(b.name) == digits}
        by_key: dict[str, list[str]] = {}
        for name in sorted(names):
            by_key.setdefault(_key(name), []).append(name)
        keys = difflib.get_close_matches(_key(wanted), by_key, n=MAX_SHOWN, cutoff=CLOSE)
        found = [name for k in keys for name in by_key[k]][:MAX_SHOWN]
        if found:
            return found
    return []


def _key(name: str) -> str:
    return name.replace("_", "").casefold()


def _digits(name: str) -> str:
    return "".join(c for c in name if c.isdigit())


def _stopped(raised: dict[int, CellRecord], bound: Sequence[Binding], name: str) -> Outcome | None:
    """The failure naming the last cell that binds `name` and raised (`raised`: cell -> its record) before
    it did; None when none did."""
    for binding in reversed(bound):
        record = raised.get(binding.cell)
        if (binding.name != name or record is None or record.error is None
                or not _raised_before(record.error, record.file, binding.line)):
            continue
        error, unit = record.error, where(record, binding.cell, binding.line)
        # The error, not an `object`: nothing was judged, and the page quotes the student's code where it stopped.
        if record.status == "interrupted":
            return Outcome("failed", "check.not_run_interrupted",
                           {"name": name, "unit": unit, "seconds": error.get("seconds", 0)}, {"error": error})
        return Outcome("failed", "check.not_run", {"name": name, "unit": unit, "error": _shown(error)},
                       {"error": error})
    return None


def _shown(error: dict[str, Any]) -> str:
    shown = f"{error.get('type', '?')}: {error.get('message', '')}"
    return shown if len(shown) <= ERROR_SHOWN else shown[:ERROR_SHOWN - 1] + "…"


def _raised_before(error: dict[str, Any], file: str, line: int) -> bool:
    """Whether a cell's error came from a statement at or before `line` (so the binding never ran).
    The cell's own top-level frame says where; without one (a syntax error: nothing ran), it did."""
    frames = error.get("frames")
    lines = [f.get("line") for f in frames if isinstance(f, dict) and f.get("file") == file
             and f.get("function") == "<module>"] if isinstance(frames, list) else []
    return not lines or not isinstance(lines[-1], int) or lines[-1] <= line
