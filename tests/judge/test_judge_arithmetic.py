"""The judge's own arithmetic, where it takes a faster road than the obvious one: the same verdicts.

`close` screens two float32 tensors in float32 before the double-precision comparison; the models of
attention (exercises/_attention.py `attend`) compute the book's attention and some of its bugs with torch's
fused kernel. Each is held here to the slow, obvious computation it replaces, at and around the edges where
the two could part: differences at the tolerance, NaN and the infinities, fully masked rows."""
from __future__ import annotations

import itertools

import pytest
import torch

from grader.checks import ATOL, RTOL, close
from grader.exercises._attention import BUGS, FUSED, Roles, attend


def _obvious_close(a: torch.Tensor, b: torch.Tensor, equal_nan: bool) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.double(), b.double(), rtol=RTOL, atol=ATOL,
                                                      equal_nan=equal_nan))


def _edges() -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Pairs that agree, disagree, and sit on the tolerance's edge, with NaN and infinities among them."""
    g = torch.Generator().manual_seed(0)
    b = torch.randn(64, 48, generator=g) * torch.logspace(-6, 3, 48)
    tolerance = ATOL + RTOL * b.abs()
    pairs = [(b + tolerance * f * torch.sign(torch.randn(b.shape, generator=g)), b)
             for f in (0.0, 0.3, 0.49, 0.5, 0.51, 0.99, 1.0, 1.01, 1.99, 2.0, 2.01, 10.0)]
    special = []
    for value in (float("nan"), float("inf"), float("-inf")):
        for a_has, b_has in ((True, False), (False, True), (True, True)):
            a, c = b.clone(), b.clone()
            if a_has:
                a[3, 5] = value
            if b_has:
                c[3, 5] = value
            special.append((a, c))
    huge = torch.full((4,), 3e38)
    special += [(huge, -huge), (huge, huge), (b[:, :2], b)]
    return pairs + special


@pytest.mark.parametrize("equal_nan", [False, True])
def test_close_says_what_the_double_precision_comparison_says(equal_nan: bool) -> None:
    for a, b in _edges():
        assert close(a, b, equal_nan=equal_nan) == _obvious_close(a, b, equal_nan)
        assert close(a.double(), b.double(), equal_nan=equal_nan) == _obvious_close(a, b, equal_nan)


def test_close_agrees_on_random_mixtures_of_numbers_and_non_numbers() -> None:
    """Each pair differs by a random share of its tolerance, with NaN and infinities strewn over both sides."""
    g = torch.Generator().manual_seed(1)
    specials = torch.tensor([float("nan"), float("inf"), float("-inf")])
    for _ in range(300):
        b = torch.randn(6, 5, generator=g) * 10 ** torch.randint(-6, 6, (1,), generator=g).item()
        a = b + (ATOL + RTOL * b.abs()) * torch.empty(b.shape).uniform_(-3, 3, generator=g)
        for side in (a, b):
            where = torch.rand(side.shape, generator=g) < 0.05
            side[where] = specials[torch.randint(0, 3, (int(where.sum()),), generator=g)]
        for equal_nan in (False, True):
            assert close(a, b, equal_nan=equal_nan) == _obvious_close(a, b, equal_nan), (a, b)


def _book(x: torch.Tensor, roles: Roles, heads: int, bug: str | None) -> torch.Tensor:
    """The book's multi-head attention step by step, with the bugs `attend` hands to torch's fused kernel."""
    if bug == "query_key_swapped":
        roles = Roles(roles.k, roles.q, roles.v, roles.k_b, roles.q_b, roles.v_b, roles.o, roles.o_b)
    b, tokens, _ = x.shape
    q, k, v = (torch.nn.functional.linear(x, w, bias).view(b, tokens, heads, -1).transpose(1, 2)
               for w, bias in ((roles.q, roles.q_b), (roles.k, roles.k_b), (roles.v, roles.v_b)))
    d_out = roles.q.shape[0]
    scores = q @ k.transpose(2, 3)
    if bug != "mask_not_applied":
        scores = scores.masked_fill(torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1), -torch.inf)
    scale = {"no_scaling": 1.0, "scale_by_d_out": d_out**0.5, "scale_by_tokens": tokens**0.5}.get(bug or "",
                                                                                                (d_out // heads)**0.5)
    context = torch.softmax(scores / scale, dim=-1) @ v
    if bug != "no_merge_transpose":
        context = context.transpose(1, 2)
    context = context.contiguous().view(b, tokens, d_out)
    return torch.nn.functional.linear(context, roles.o, roles.o_b) if roles.o is not None else context


@pytest.mark.parametrize(("bug", "shape"), list(itertools.product(FUSED, [(5, 8, 2, 8), (768, 768, 12, 12),
                                                                         (6, 4, 2, 1), (64, 64, 4, 300)])))
def test_the_fused_models_compute_what_the_book_computes(bug: str | None, shape: tuple[int, int, int, int]) -> None:
    d_in, d_out, heads, tokens = shape
    g = torch.Generator().manual_seed(tokens)
    weight = lambda rows, cols: torch.randn(rows, cols, generator=g) / cols**0.5  # noqa: E731
    roles = Roles(weight(d_out, d_in), weight(d_out, d_in), weight(d_out, d_in), torch.randn(d_out, generator=g),
                  None, None, weight(d_out, d_out), torch.randn(d_out, generator=g))
    x = torch.randn(2, tokens, d_in, generator=g)
    assert close(attend(x, roles, heads, bug), _book(x, roles, heads, bug))


def test_every_fused_model_is_one_of_the_bugs() -> None:
    assert set(FUSED) - {None} <= set(BUGS)
