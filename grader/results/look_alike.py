"""What comparing a class's code found (grader.classes.similarity, `grade similar`): the pairs of students
whose code is unusually alike, as the renderers read them (the overview's section, a page per pair)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float  # shared fingerprints / the own fingerprints of the smaller of the two, 0..1
    shared: int
    lines_a: frozenset[int]  # the lines of a's code (and b's) in passages the two share
    lines_b: frozenset[int]


@dataclass(frozen=True)
class LookAlike:
    """What a comparison of the class found, for the overview."""

    pairs: tuple[Pair, ...]
    threshold: float
    compared: int  # the students whose code was compared
