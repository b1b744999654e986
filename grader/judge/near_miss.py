"""Why an answer was not found, when the submission tells more than "missing" (judge side).

Checks look answers up by the exercise's exact names. A learner's answer is often there all the
same: under another spelling (`Causal_Attention`, `MultiHeadAttentionWraper`, `causalattention`), or
written in a cell that raised before it bound it. The finding functions note each name they looked
for in vain (`missed`); when a check ends in NotFound, the judge asks `explain` for the message that
names the near miss or points at the cell that raised, or, where a lookup found only the grader's own code
under a name (SandboxClient.shipped), says so. Everything here is read from the submission's text, the cell
records the sandbox kept and what the lookups noted: nothing asks the child, so nothing here can fail on it.

What a near name is (docs/students.md, "Where answers are found"), the slips a learner makes, whatever the
name's length: the same name up to letter case, underscores and a dimension suffix (`1d`); else, on the name
so normalised, a few letter edits (insert, delete, substitute, swap of neighbours: 1 for a name of up to 7
letters, 2 up to 15, 3 beyond; none for a name of one or two); else the name with one descriptive word added
(`MultiHeadCausalAttentionWrapper`) where the class's shape fits the exercise's (`fits`). Never a name whose
other digits differ (`SelfAttention_v1` is not `_v2`), never one that is the name of another answer, and never
one that another answer's name is as near to or nearer (`near_names`).
"""
from __future__ import annotations

import functools
import importlib
import inspect
import keyword
import pkgutil
import re
import weakref
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from grader.judge.client import SandboxClient
from grader.judge.exercise import NotFound, Outcome
from grader.load.submission import Cell
from grader.messages.catalogue import Msg
from grader.results import CellRecord, cascade, where
from grader.results.statuses import STOPPED

# The letter edits a near name may differ by (insert, delete, substitute, swap of neighbours), by the length of
# the name looked for, normalised: up to 7 letters 1, up to 15 2, beyond 3; a name of one or two letters, none
# (`yb` is no slip for `xb`). Names whose digits differ never are near: SelfAttention_v1 and SelfAttention_v2,
# xbow2 and xbow3 are different answers.
EDITS = ((2, 0), (7, 1), (15, 2))
MORE_EDITS = 3
# The words a learner adds to a class's name to say what it is (`MultiHeadCausalAttentionWrapper`,
# `CausalSelfAttention`, `MyLayerNorm1d`), as written between capitals or underscores: one of them added to the
# exercise's name is a near name where the class's shape fits the exercise's (`fits`). `Wrapper` is none: it
# tells two answers of the book apart.
WORDS = frozenset({
    "causal", "self", "masked", "multi", "multihead", "multiheaded", "scaled", "dotproduct", "scaleddotproduct",
    "attention", "selfattention", "my", "own", "new", "simple", "basic", "custom", "efficient", "batched", "fused",
    "compact", "parallel", "layer", "module", "class", "impl",
})
MAX_WORD_PARTS = 3  # `Scaled` `Dot` `Product`: the parts one added word may be written in
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
_FOUND_AS: ContextVar[dict[str, str] | None] = ContextVar("grader_found_as", default=None)
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


Fits = Callable[[str, str], bool]  # (the submission's class, the exercise's name): whether its shape fits


def stand_in(wanted: str, names: Iterable[str], fits: Fits | None = None) -> str | None:
    """The one name among `names` (the submission's own classes) that is a near name of `wanted`, to be graded
    in its place: a correct `CasualAttention` is the student's CausalAttention. Noted for the check's message
    (`graded_as`). None where no name is near, or several are: the judge never picks between two silently.
    `fits(name, wanted)`: whether a class named with a word added to `wanted` has its shape (its constructor's
    parameters, as grader.checks.answers reads them); without it, a word added is no near name."""
    found = near_names(wanted, names, fits)
    if len(found) != 1:
        return None
    note(wanted, found[0])
    return found[0]


def note(wanted: str, found: str) -> None:
    """The check being judged grades the submission's `found` as the exercise's `wanted`: noted for its message
    (as `stand_in` notes its choice). A check that grades an answer another check found (an exercise's shared,
    built-once answer) notes it again, so its message says so too."""
    noted = _GRADED_AS.get()
    if noted is not None:
        noted[wanted] = found


def found_as(wanted: str, found: str) -> None:
    """As `note`, for an answer found by what it is rather than by a near name (a `BigramModel` that is the
    lecture's BigramLanguageModel by what the judge measured it to do): its message says so in its own words."""
    noted = _FOUND_AS.get()
    if noted is not None and found != wanted:
        noted[wanted] = found


@contextmanager
def recording(names: list[str], graded_as: dict[str, str], found: dict[str, str]) -> Iterator[None]:
    """Collect into `names` what the finding functions miss while the block runs (one check), into `graded_as`
    each name they graded a near miss for (wanted -> the submission's name), and into `found` each answer
    graded by what it is (found_as). A check that ends in NotFound graded nothing: its message says what is
    missing, and no stand-in it looked at along the way is noted on it (3.3 looks at a near-named class's
    instances and finds none of 768 dims)."""
    tokens = _MISSED.set(names), _GRADED_AS.set(graded_as), _FOUND_AS.set(found)
    try:
        yield
    except NotFound:
        graded_as.clear()
        found.clear()
        raise
    finally:
        _MISSED.reset(tokens[0])
        _GRADED_AS.reset(tokens[1])
        _FOUND_AS.reset(tokens[2])


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
    renames = [f"{' / '.join(found)} → {name}" for name in names if (found := near(name, bound, names))]
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


def near(wanted: str, bound: Sequence[Binding], others: Iterable[str] = ()) -> list[str]:
    """The names bound that are near names of `wanted` (never `wanted` itself), closest first; a class
    or def is preferred to a variable, as the answers looked for by name are mostly classes and functions.
    Read from the text, where no shape is known: a word added counts by the name alone (a hint to rename).
    `others`: the other names the check looks for, which keep the names nearer to them."""
    for defines in (True, False):
        found = near_names(wanted, {b.name for b in bound if b.defines == defines}, _ANY_SHAPE, others)
        if found:
            return found
    return []


def near_names(wanted: str, names: Iterable[str], fits: Fits | None = None, others: Iterable[str] = ()) -> list[str]:
    """The near names of `wanted` among `names` (never `wanted` itself), closest first (the rule in the module's
    docstring): each name that is near `wanted` and nearer to it than to any other answer's name (the book's and
    the lecture's, `book()`, and `others`), and is none of those names itself. `fits` as for `stand_in`."""
    rivals = (set(book()) | set(others)) - {wanted}
    found = []
    for name in sorted(set(names) - {wanted} - rivals):
        rank = nearness(wanted, name, fits)
        if rank is not None and all(rank < other for r in rivals if (other := nearness(r, name, fits)) is not None):
            found.append((rank, name))
    return [name for _, name in sorted(found)][:MAX_SHOWN]


def nearness(wanted: str, name: str, fits: Fits | None = None) -> tuple[int, int] | None:
    """How near `name` is to `wanted`, the nearer the smaller: (0, 0) the same name up to letter case, underscores
    and a dimension suffix; (1, edits) a few letter edits from it; (2, 0) it with one descriptive word added,
    where `fits(name, wanted)`; None when it is no near name (or it is `wanted` itself)."""
    if name == wanted or _digits(name) != _digits(wanted):
        return None
    key, other = _key(wanted), _key(name)
    if key == other:
        return (0, 0)
    limit = allowed_edits(key)
    edits = distance(key, other, limit)
    if 0 < edits <= limit:
        return (1, edits)
    if fits is not None and added_word(wanted, name) is not None and fits(name, wanted):
        return (2, 0)
    return None


def allowed_edits(key: str) -> int:
    """The letter edits a near name of the (normalised) name `key` may differ by (EDITS)."""
    return next((edits for longest, edits in EDITS if len(key) <= longest), MORE_EDITS)


def distance(a: str, b: str, limit: int) -> int:
    """The letter edits from `a` to `b` (insert, delete, substitute, swap of two neighbours: the optimal string
    alignment distance), or `limit + 1` once it is known to be more than `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    # an edit changes the letters' counts by at most 2 (a swap not at all): a cheap bound before the table
    if sum((Counter(a) - Counter(b)).values()) + sum((Counter(b) - Counter(a)).values()) > 2 * limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        before, previous = previous, row
    return min(previous[-1], limit + 1)


_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")  # a word of a name, as capitals write them


def added_word(wanted: str, name: str) -> str | None:
    """The descriptive word (WORDS) that `name` adds to `wanted`, between its capitals or underscores
    (`Causal` in `MultiHeadCausalAttentionWrapper`), else None."""
    parts = [part.casefold() for chunk in name.split("_") for part in _PART.findall(chunk)]
    if "".join(parts) != name.replace("_", "").casefold():  # letters the parts do not cover: no words to read
        return None
    key, whole = _key(wanted), _key(name)
    if len(whole) - len(key) not in _WORD_LENGTHS or not _around(key, whole):
        return None
    for start in range(len(parts)):
        for end in range(start + 1, min(len(parts), start + MAX_WORD_PARTS) + 1):
            word = "".join(parts[start:end])
            if word in WORDS and _key("".join(parts[:start] + parts[end:])) == key:
                return word
    return None


_WORD_LENGTHS = frozenset(len(word) for word in WORDS)


def _around(key: str, whole: str) -> bool:
    """Whether `whole` is `key` with letters inserted in one place (what a word added makes)."""
    prefix = next((i for i, (a, b) in enumerate(zip(key, whole)) if a != b), len(key))
    suffix = next((i for i, (a, b) in enumerate(zip(reversed(key), reversed(whole))) if a != b), len(key))
    return prefix + suffix >= len(key)


def _any_shape(name: str, wanted: str) -> bool:
    return True


_ANY_SHAPE: Fits = _any_shape


@functools.lru_cache(maxsize=1)
def book() -> dict[str, tuple[str, ...] | None]:
    """The names the exercises look for: each class and function the references in `solutions/` define (the
    book's and the lecture's), a class with its constructor's parameters (after self), a function with None."""
    solutions = importlib.import_module("grader.solutions")
    found: dict[str, tuple[str, ...] | None] = {}
    for info in pkgutil.iter_modules(solutions.__path__):
        module = importlib.import_module(f"grader.solutions.{info.name}")
        for name, value in vars(module).items():
            if getattr(value, "__module__", None) != module.__name__ or name.startswith("_"):
                continue
            if inspect.isclass(value):
                try:
                    params = tuple(inspect.signature(value.__init__).parameters)[1:]
                except (TypeError, ValueError):
                    params = ()
                found[name] = params
            elif inspect.isfunction(value):
                found.setdefault(name, None)
    return found


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
