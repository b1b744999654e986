"""The feedback page's pictures as plain geometry, computed from a check's evidence.

The template draws them (inline SVG and tables); here is only arithmetic, so every picture can be
tested without parsing markup. Each function returns None when the evidence does not hold what
its picture needs, and the page then simply has no picture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, TypeGuard

Evidence = Mapping[str, Any]

CELL = 32  # side of one square of the visibility matrix, in px
SHOWN = 1e-5  # a difference below this is rounding, not a mistake worth pointing at


# -- who can see whom ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Square:
    row: int  # output i
    column: int  # token j
    kind: str  # "seen" (allowed), "blind" (allowed, not seen), "masked" (future, hidden), "leak"


@dataclass(frozen=True)
class Grid:
    size: int
    squares: tuple[Square, ...]

    @property
    def leaks(self) -> int:
        return sum(1 for s in self.squares if s.kind == "leak")

    @property
    def pixels(self) -> int:
        return CELL * (self.size + 1)


def visibility(evidence: Evidence) -> Grid | None:
    """The measured matrix (row i, column j: 1 when output i moved as token j changed) as squares:
    j <= i may be seen, j > i must not be (a 1 there is a leak)."""
    matrix = evidence.get("matrix")
    if not _square_matrix(matrix):
        return None
    squares = []
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if j <= i:
                kind = "seen" if value else "blind"
            else:
                kind = "leak" if value else "masked"
            squares.append(Square(i, j, kind))
    return Grid(len(matrix), tuple(squares))


def _square_matrix(value: Any) -> TypeGuard[list[list[Any]]]:
    return (isinstance(value, list) and 0 < len(value) <= 64
            and all(isinstance(r, list) and len(r) == len(value) for r in value))


# -- expected vs got -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValueRow:
    index: int  # position along the last dim
    expected: float | None
    got: float | None
    gap: float | None  # |expected - got|; inf when exactly one is NaN or infinite
    largest: bool


@dataclass(frozen=True)
class Comparison:
    expected_shape: list[int] | None
    got_shape: list[int] | None
    at: list[int]  # index of the first value shown
    rows: tuple[ValueRow, ...]
    expected_dtype: str | None = None
    got_dtype: str | None = None

    @property
    def shapes_differ(self) -> bool:
        return self.expected_shape is not None and self.got_shape is not None and \
            self.expected_shape != self.got_shape


def comparison(evidence: Evidence) -> Comparison | None:
    """Rows of expected and got values (grader.checks.tensors.comparison), the largest gap marked."""
    expected, got = evidence.get("expected"), evidence.get("got")
    if not (_numbers(expected) and _numbers(got)):
        return None
    told = evidence.get("at")
    at: list[int] = told if _ints(told) else []
    start = at[-1] if at else 0
    gaps = [_gap(expected[k], got[k]) if k < len(expected) and k < len(got) else None
            for k in range(max(len(expected), len(got)))]
    worst = max((g for g in gaps if g is not None), default=0.0)
    rows = tuple(
        ValueRow(start + k, _item(expected, k), _item(got, k), gap,
                 gap is not None and worst > SHOWN and gap == worst and gaps.index(gap) == k)
        for k, gap in enumerate(gaps)
    )
    return Comparison(_shape(evidence.get("expected_shape")), _shape(evidence.get("got_shape")), at, rows,
                      _text(evidence.get("expected_dtype")), _text(evidence.get("got_dtype")))


def _text(value: Any) -> str | None:
    return value[:40] if isinstance(value, str) else None


def _gap(a: float, b: float) -> float:
    if math.isnan(a) and math.isnan(b):
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return 0.0 if a == b else math.inf
    return abs(a - b)


def _item(values: list[float], k: int) -> float | None:
    return float(values[k]) if k < len(values) else None


def _numbers(value: Any) -> TypeGuard[list[float]]:
    return isinstance(value, list) and 0 < len(value) <= 64 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)


def _ints(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def _shape(value: Any) -> list[int] | None:
    return list(value) if _ints(value) else None


# -- two outputs side by side (exercise 3.1) ------------------------------------------------------------
@dataclass(frozen=True)
class Value:
    value: float
    differs: bool  # from the other output's value at the same place, beyond rounding


@dataclass(frozen=True)
class SideBySide:
    got: tuple[tuple[Value, ...], ...]  # rows of the student's output
    expected: tuple[tuple[Value, ...], ...]

    @property
    def differing(self) -> int:
        return sum(e.differs for row in self.got for e in row)


RTOL, ATOL = 1e-4, 1e-5  # as the checks compare


def side_by_side(evidence: Evidence) -> SideBySide | None:
    """The first rows of v1's output and of the expected one, each value marked where they differ."""
    got, expected = evidence.get("v1_rows"), evidence.get("expected_rows")
    if not (_matrix(got) and _matrix(expected)) or [len(r) for r in got] != [len(r) for r in expected]:
        return None
    flags = [[_apart(g, e) for g, e in zip(got_row, expected_row)] for got_row, expected_row in zip(got, expected)]
    return SideBySide(tuple(tuple(map(Value, row, marks)) for row, marks in zip(got, flags)),
                      tuple(tuple(map(Value, row, marks)) for row, marks in zip(expected, flags)))


def _apart(got: float, expected: float) -> bool:
    if math.isnan(got) or math.isnan(expected):
        return not (math.isnan(got) and math.isnan(expected))
    return not abs(got - expected) <= ATOL + RTOL * abs(expected)


def _matrix(value: Any) -> TypeGuard[list[list[float]]]:
    return isinstance(value, list) and 0 < len(value) <= 64 and all(_numbers(r) for r in value)


# -- parameters, layer by layer (exercise 3.3) ------------------------------------------------------------
@dataclass(frozen=True)
class LayerRow:
    name: str
    yours: Mapping[str, Any] | None  # {"shape", "count"}
    reference: Mapping[str, Any] | None
    kind: str  # "same", "differs", "extra" (only yours), "missing" (only the reference's)
    yours_width: float  # bar lengths, px, on one scale
    reference_width: float


@dataclass(frozen=True)
class Breakdown:
    rows: tuple[LayerRow, ...]
    yours_total: int
    reference_total: int


BREAKDOWN_BAR = 140


def breakdown(evidence: Evidence) -> Breakdown | None:
    """The student's trainable parameters next to the reference's, by name (reference order first)."""
    yours, reference = _layers(evidence.get("parameters")), _layers(evidence.get("reference_parameters"))
    if yours is None or reference is None:
        return None
    names = list(reference) + [n for n in yours if n not in reference]
    largest = max([p["count"] for p in (*yours.values(), *reference.values())] + [1])

    def width(p: Mapping[str, Any] | None) -> float:
        return BREAKDOWN_BAR * p["count"] / largest if p else 0.0

    rows = []
    for name in names:
        mine, theirs = yours.get(name), reference.get(name)
        if mine is None:
            kind = "missing"
        elif theirs is None:
            kind = "extra"
        else:
            kind = "same" if (mine["shape"], mine["count"]) == (theirs["shape"], theirs["count"]) else "differs"
        rows.append(LayerRow(name, mine, theirs, kind, width(mine), width(theirs)))
    return Breakdown(tuple(rows), sum(p["count"] for p in yours.values()),
                     sum(p["count"] for p in reference.values()))


def _layers(value: Any) -> dict[str, Mapping[str, Any]] | None:
    if not isinstance(value, list) or len(value) > 200:
        return None
    layers = {}
    for p in value:
        if not (isinstance(p, Mapping) and isinstance(p.get("name"), str) and _ints(p.get("shape"))
                and isinstance(p.get("count"), int)):
            return None
        layers[p["name"]] = p
    return layers


# -- each figure once a page --------------------------------------------------------------------------
# What each picture is drawn from: two checks whose evidence holds the same of these show one picture.
_DRAWN_FROM = {
    "matrix": ("class", "matrix"),
    "comparison": ("class", "expected", "got", "at", "expected_shape", "got_shape"),
    "side_by_side": ("v1_rows", "expected_rows"),
    "breakdown": ("parameters", "reference_parameters"),
}
_DRAWS = {"matrix": visibility, "comparison": comparison, "side_by_side": side_by_side, "breakdown": breakdown}


@dataclass(frozen=True)
class Placed:
    """Where one check's pictures go: `drawn` holds, by kind, those drawn with the check (the figure, as
    computed here); `elsewhere` maps a kind to the check (exercise id, check id) whose copy of the same
    picture the page draws instead."""

    drawn: Mapping[str, Any]
    elsewhere: Mapping[str, tuple[str, str]]


def place_figures(checks: Sequence[tuple[str, str, str, Evidence]]) -> dict[tuple[str, str], Placed]:
    """For (exercise id, check id, status, evidence) in page order: each picture is drawn once, with the
    first failed check that has it (shown open), else the first check that has it; the others point there."""
    pictures: dict[tuple[str, str], dict[str, tuple[str, Any]]] = {}  # check -> key -> (kind, figure)
    homes: dict[str, tuple[tuple[str, str], bool]] = {}  # picture -> (its check, whether that one failed)
    for exercise, check, status, evidence in checks:
        drawn = {kind: figure for kind, draw in _DRAWS.items() if (figure := draw(evidence)) is not None}
        mine = {kind + repr([evidence.get(k) for k in _DRAWN_FROM[kind]]): (kind, figure)
                for kind, figure in drawn.items()}
        pictures[(exercise, check)] = mine
        for key in mine:
            if key not in homes or (status == "failed" and not homes[key][1]):
                homes[key] = ((exercise, check), status == "failed")
    return {
        at: Placed({kind: figure for key, (kind, figure) in mine.items() if homes[key][0] == at},
                   {kind: homes[key][0] for key, (kind, _) in mine.items() if homes[key][0] != at})
        for at, mine in pictures.items()
    }
