"""Why an answer was not found, when the submission tells more than "missing" (judge side).

Checks look answers up by the exercise's exact names. A learner's answer is often there all the
same: under another spelling (`Causal_Attention`, `MultiHeadAttentionWraper`, `causalattention`), or
written in a cell that raised before it bound it. The finding functions note each name they looked
for in vain (`missed`); when a check ends in NotFound, the judge asks `explain` for the message that
names the near miss or points at the cell that raised, or, where a lookup found only the grader's own code
under a name (SandboxClient.shipped), says so. Everything here is read from the submission's text, the cell
records the sandbox kept and what the lookups noted: nothing asks the child, so nothing here can fail on it.
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

from grader.judge.client import SandboxClient
from grader.judge.exercise import Outcome
from grader.load.submission import Cell
from grader.messages.catalogue import Msg
from grader.results import CellRecord, cascade, where
from grader.results.statuses import STOPPED

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

# `from attention import MutliHeadAttentionWrapper as W, CausalAttention`: the names it imports are classes and
# functions of another module, the student's own or not.
_FROM_IMPORT = re.compile(r"from\s+[\w.]+\s+import\s+\(?(?P<names>[^)#]*)")

_MISSED: ContextVar[list[str] | None] = ContextVar("grader_near_miss", default=None)
_GRADED_AS: ContextVar[dict[str, str] | None] = ContextVar("grader_graded_as", default=None)
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


def stand_in(wanted: str, names: Iterable[str]) -> str | None:
    """The one name among `names` (the submission's own classes) that is a near miss of `wanted`, to be graded
    in its place: a correct `CasualAttention` is the student's CausalAttention. Noted for the check's message
    (`graded_as`). None where no name is near, or several are: the judge never picks between two silently."""
    found = near_names(wanted, names)
    if len(found) != 1:
        return None
    noted = _GRADED_AS.get()
    if noted is not None:
        noted[wanted] = found[0]
    return found[0]


@contextmanager
def recording(names: list[str], graded_as: dict[str, str]) -> Iterator[None]:
    """Collect into `names` what the finding functions miss while the block runs (one check), and into
    `graded_as` each name they graded a near miss for (wanted -> the submission's name)."""
    tokens = _MISSED.set(names), _GRADED_AS.set(graded_as)
    try:
        yield
    finally:
        _MISSED.reset(tokens[0])
        _GRADED_AS.reset(tokens[1])


def explain(sb: SandboxClient, what: Msg, wanted: Iterable[str]) -> Outcome:
    """The failure for an answer not found under any of the `wanted` names: the cell that raised
    before binding one, else the grader's own code found under one (which earns nothing), else the near
    misses of each, else plain "no answer found"."""
    names = list(dict.fromkeys(wanted))
    bound = _BOUND.get(sb)
    if bound is None:  # read once per submission: every check that misses an answer asks
        bound = _BOUND[sb] = bindings(sb.submission.cells)
    records = sb.cell_records()
    chain = cascade.find(records)
    followers = {r.cell for r in chain.followers} if chain else set()
    raised = {r.cell: r for r in records if r.status in STOPPED and isinstance(r.error, dict)
              and r.cell not in followers}  # a follower's NameError is not the cause: the chain's root is
    for name in names:
        stopped = _stopped(raised, bound, name)
        if stopped is not None:
            return stopped
    shipped = sb.shipped
    found = [f"{name} ({shipped[name]})" for name in names if name in shipped]
    if found:
        return Outcome("failed", "check.grader_code", {"what": what, "found": ", ".join(found)},
                       {"grader_code": {name: shipped[name] for name in names if name in shipped}})
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
            imported = _FROM_IMPORT.match(text)
            match = _BINDS.match(text)
            if imported is not None:  # the class's own name, not an alias: the name to rename
                words = (_IDENTIFIER.findall(part) for part in imported["names"].split(","))
                names, defines = [each[0] for each in words if each], True
            elif match is not None:
                names, defines = _IDENTIFIER.findall(match["defined"] or match["assigned"]), bool(match["defined"])
            else:
                continue
            found += [Binding(n, cell.number, cell.first_line + offset, defines)
                      for n in names if not keyword.iskeyword(n)]
            if len(found) >= MAX_BINDINGS:
                return found[:MAX_BINDINGS]
    return found


def near(wanted: str, bound: Sequence[Binding]) -> list[str]:
    """The names bound that are spelled close to `wanted` (never `wanted` itself), closest first; a class
    or def is preferred to a variable, as the answers looked for by name are mostly classes and functions."""
    for defines in (True, False):
        found = near_names(wanted, {b.name for b in bound if b.defines == defines})
        if found:
            return found
    return []


def near_names(wanted: str, names: Iterable[str]) -> list[str]:
    """The names spelled close to `wanted` (never `wanted` itself), closest first: letter case, underscores,
    a typo, or a dimension suffix added or dropped (`LayerNorm` for `LayerNorm1d`); never names whose
    other digits differ (SelfAttention_v1 and SelfAttention_v2, xbow2 and xbow3 are different answers)."""
    digits = _digits(wanted)
    by_key: dict[str, list[str]] = {}
    for name in sorted(set(names)):
        if name != wanted and _digits(name) == digits:
            by_key.setdefault(_key(name), []).append(name)
    keys = difflib.get_close_matches(_key(wanted), by_key, n=MAX_SHOWN, cutoff=CLOSE)
    return [name for k in keys for name in by_key[k]][:MAX_SHOWN]


_DIMENSION = re.compile(r"[123]d$")  # LayerNorm1d, BatchNorm2d: the suffix a learner's name may leave out


def _key(name: str) -> str:
    return _DIMENSION.sub("", name.replace("_", "").casefold())


def _digits(name: str) -> str:
    return "".join(c for c in _DIMENSION.sub("", name.casefold()) if c.isdigit())


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
