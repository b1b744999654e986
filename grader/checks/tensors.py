"""Comparing a submission's tensors with the judge's, and the evidence a page shows of the comparison.

What any exercise needs, whatever it is about: closeness at the tolerance float32 code written in
different ways agrees to, the largest difference, where NaN appeared, whether an output computes
nothing from its input, and a few values of each for the page. The judge computed one side; the other
came from the child, so every helper here converts a bounded part of it at a time.
"""
from __future__ import annotations

from typing import Any

import torch

from grader.judge.exercise import Outcome, failed

RTOL, ATOL = 1e-4, 1e-5  # float32 attention written differently (einsum, SDPA, tril-renorm) agrees to ~1e-6
CHANGED = 1e-4  # an output "moves" with its input when it changes by more than this
# The most values evidence code converts at once: an output of any shape may come back (up to the session's
# ANSWER_BYTES), and what the judge spends on one, beside holding it, stays this size.
CHUNK = 2**20


def constant(out: torch.Tensor) -> bool:
    """Whether a module gave the same output for every input of a batch whose inputs differ (along dim 0:
    the batch, or the tokens of a 2-D output): a class that computes nothing from x. NaN counts as the
    same value, and an empty output is constant too; one input alone shows nothing."""
    if out.numel() == 0:
        return True
    if out.dim() == 0 or out.shape[0] < 2:
        return False
    flat = out.detach().reshape(out.shape[0], -1)  # compared a block of CHUNK values at a time
    columns = min(flat.shape[1], CHUNK)
    rows = max(1, CHUNK // columns)
    for c in range(0, flat.shape[1], columns):
        first = _plain_numbers(flat[:1, c:c + columns])
        for r in range(1, flat.shape[0], rows):
            if (_plain_numbers(flat[r:r + rows, c:c + columns]) - first).abs().max() > CHANGED:
                return False
    return True


def _plain_numbers(t: torch.Tensor) -> torch.Tensor:
    """t in float64, NaN as 0 and the infinities as ±1e300, so equal values subtract to 0."""
    return torch.nan_to_num(t.double(), nan=0.0, posinf=1e300, neginf=-1e300)


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    if a.shape != b.shape:
        return float("inf")
    return float((a.double() - b.double()).abs().max()) if a.numel() else 0.0


def nan_tokens(got: torch.Tensor, expected: torch.Tensor, shown: int = 8) -> dict[str, Any]:
    """Where `got` is NaN and `expected` is not, as message arguments: `count` token positions (dim -2) and
    the first `shown` of them as `tokens`; {} when nowhere. A difference of NaN says nothing to a student,
    where the NaN is and where it comes from does."""
    if got.shape != expected.shape or got.dim() < 2:
        return {}
    new = (got.isnan() & ~expected.isnan()).movedim(-2, 0).flatten(1).any(dim=1)
    positions = [str(int(i)) for i in new.nonzero().flatten()]
    if not positions:
        return {}
    return {"count": len(positions), "tokens": ", ".join(positions[:shown]) + (", …" if len(positions) > shown else "")}


_FLOAT32_MAX = torch.finfo(torch.float32).max


def close(a: torch.Tensor, b: torch.Tensor, equal_nan: bool = False) -> bool:
    """allclose in double precision. Two float32 tensors are first compared in their own precision, with a
    margin of 2x each way that float32's rounding (~1e-7 relative) cannot cross: far inside the tolerance is
    close, far outside it anywhere is not, and only what is left (NaN, the infinities, a difference near the
    tolerance) takes the double-precision comparison, ten times the cost on a GPT-2-sized output."""
    if a.shape != b.shape:
        return False
    if a.dtype == b.dtype == torch.float32:
        # an infinite b would let an infinite gap through: its tolerance stays a number
        gap, tolerance = (a - b).abs(), b.abs().mul_(RTOL).add_(ATOL).clamp_(max=_FLOAT32_MAX)
        if bool((gap <= tolerance * 0.5).all()):  # a NaN anywhere compares False: not taken
            return True
        if bool((gap > tolerance * 2).any()):  # only a number can be larger: NaN and equal infinities never are
            return False
    return bool(torch.allclose(a.double(), b.double(), rtol=RTOL, atol=ATOL, equal_nan=equal_nan))


def computes_nothing(name: str, out: torch.Tensor) -> Outcome:
    """The failure of a check whose premise, an output computed from the input, does not hold (constant)."""
    shape, values = list(out.shape), sample(out, 4)
    return failed("check.constant", {"got_shape": shape, "got": values}, name=name, shape=shape, values=values)


def sample(t: torch.Tensor, n: int = 6) -> list[float]:
    """A few values for the feedback page."""
    return [round(float(v), 5) for v in t.detach().flatten()[:n]]


def comparison(expected: torch.Tensor, got: torch.Tensor, n: int = 8) -> dict[str, Any]:
    """Evidence for an expected-vs-got table: both shapes and dtypes, and up to n values of one row of each.

    The row is the first one, or, when the tensors differ, the one holding the largest difference
    (windowed around it): under a causal mask the first token sees only itself, so the first row
    often agrees while the rest is wrong. `at` is the index of the first value shown. Only tensors of
    the expected shape are converted whole (the judge made that shape); of any other, n values are read.
    """
    e, g = expected.detach(), got.detach()
    width = e.shape[-1] if e.dim() else 1
    row = start = 0
    if e.shape == g.shape and e.numel() and not close(g, e, equal_nan=True):
        gap = torch.nan_to_num((e.double() - g.double()).abs(), nan=float("inf"))
        row, column = divmod(int(gap.flatten().argmax()), width)
        start = max(0, min(column - n // 2, width - n))
    return {
        "expected": _row_values(e, row, start, n),
        "got": _row_values(g, row, start, n),
        "expected_shape": list(expected.shape),
        "got_shape": list(got.shape),
        "expected_dtype": str(expected.dtype).removeprefix("torch."),
        "got_dtype": str(got.dtype).removeprefix("torch."),
        "at": _unravel(row * width + start, list(e.shape)) if e.numel() else [],
    }


def first_rows(t: torch.Tensor, rows: int = 6, n: int = 8) -> list[list[float]]:
    """The top-left corner of an output, row by row, for a picture of two outputs side by side."""
    return [[round(float(v), 5) for v in row[:n]] for row in _as_rows(t.detach())[:rows]]


def _row_values(t: torch.Tensor, row: int, start: int, n: int) -> list[float]:
    rows = _as_rows(t)
    if not rows.numel():
        return []
    return [round(float(v), 5) for v in rows[min(row, rows.shape[0] - 1), start:start + n]]


def _as_rows(t: torch.Tensor) -> torch.Tensor:
    """Any output as a stack of rows along its last dim (a scalar is one row of one, an empty one no rows)."""
    if not t.numel():
        return t.reshape(0, 0)
    return t.reshape(-1, t.shape[-1]) if t.dim() else t.reshape(1, 1)


def _unravel(flat: int, shape: list[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        flat, i = divmod(flat, size)
        index.append(i)
    return index[::-1]
