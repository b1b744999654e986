"""The judge's recent computations (exercises/_recent.py), found again only for equal arguments: the reference
a class on one draw shares must be exactly the one each student's own computation would give."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from grader.exercises._recent import Recent


@dataclass(frozen=True)
class Weights:
    w: torch.Tensor
    b: torch.Tensor | None = None


def counted() -> tuple[list[int], object]:
    calls: list[int] = []

    def compute(x: torch.Tensor, weights: Weights, heads: int) -> torch.Tensor:
        calls.append(1)
        out = x @ weights.w.T * heads
        return out if weights.b is None else out + weights.b

    return calls, compute


def test_equal_arguments_find_the_result_again() -> None:
    calls, compute = counted()
    recent = Recent()
    x, w = torch.randn(3, 4), torch.randn(5, 4)
    first = recent.get(compute, x, Weights(w), 2)
    again = recent.get(compute, x.clone(), Weights(w.clone()), 2)  # other tensors, the same numbers
    assert len(calls) == 1 and torch.equal(first, again)


def test_any_difference_computes_again() -> None:
    calls, compute = counted()
    recent = Recent()
    x, w = torch.randn(3, 4), torch.randn(5, 4)
    recent.get(compute, x, Weights(w), 2)
    nudged = x.clone()
    nudged[1, 2] += 1e-6
    for args in ((nudged, Weights(w), 2), (x, Weights(w), 3), (x, Weights(w, torch.zeros(5)), 2),
                 (x.double(), Weights(w.double()), 2), (x[:2], Weights(w), 2)):
        recent.get(compute, *args)
    assert len(calls) == 6


def test_nan_never_matches() -> None:
    calls, compute = counted()
    recent = Recent()
    x = torch.full((3, 4), float("nan"))
    w = torch.randn(5, 4)
    recent.get(compute, x, Weights(w), 1)
    recent.get(compute, x, Weights(w), 1)
    assert len(calls) == 2


def test_changing_a_tensor_in_place_changes_nothing_stored() -> None:
    calls, compute = counted()
    recent = Recent()
    x, w = torch.randn(3, 4), torch.randn(5, 4)
    original = x.clone()
    expected = compute(x, Weights(w), 1)
    out = recent.get(compute, x, Weights(w), 1)
    out.zero_()  # the caller's copy
    x.add_(1.0)  # and its argument, changed after the call
    again = recent.get(compute, original, Weights(w), 1)
    assert len(calls) == 2 and torch.allclose(again, expected)  # the stored entry kept the first x, untouched


def test_only_the_last_few_are_kept() -> None:
    calls, compute = counted()
    recent = Recent(per_shape=2)
    w = torch.randn(5, 4)
    xs = [torch.randn(3, 4) for _ in range(3)]
    for x in xs:
        recent.get(compute, x, Weights(w), 1)
    recent.get(compute, xs[2], Weights(w), 1)
    recent.get(compute, xs[0], Weights(w), 1)
    assert len(calls) == 4


def test_what_is_held_stays_within_its_bytes() -> None:
    """A class whose answers bring ever new shapes drops the least recently used: the judge's memory stays
    bounded."""
    calls, compute = counted()
    w = torch.randn(5, 4)
    xs = {tokens: torch.randn(tokens, 4) for tokens in (3, 4, 5)}
    held = {tokens: 4 * (tokens * 4 + 5 * 4 + tokens * 5) for tokens in xs}  # x, w and the output, in float32
    recent = Recent(most_bytes=held[4] + held[5])
    for x in xs.values():
        recent.get(compute, x, Weights(w), 1)  # the third drops the first
    recent.get(compute, xs[5], Weights(w), 1)  # held
    recent.get(compute, xs[3], Weights(w), 1)  # dropped, computed again
    assert len(calls) == 4 and recent._bytes <= held[4] + held[5]
    small = Recent(most_bytes=held[3] - 1)
    small.get(compute, xs[3], Weights(w), 1)
    small.get(compute, xs[3], Weights(w), 1)  # too large to keep at all
    assert len(calls) == 6 and small._bytes == 0
