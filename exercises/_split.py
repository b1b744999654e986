"""Weights that show a multi-head module's split into heads, whatever its attention computes inside (3.3).

3.3 grades a configuration: 768 in and out, 12 heads of 64, a 1024-token context. Where the module's output
with random weights is none of the attentions the judge models (the book's, one of the usual bugs), the bug
is inside the attention, the mask exercise's to charge, and the configuration must still be seen by what the
judge measures, never on the child's word. So the judge loads weights of its own, chosen so that the heads
become separate experiments run side by side in one forward:

* the query, key and value matrices are one and the same matrix (so a forward that takes its keys or values
  from another projection computes the same thing), which gives head h a copy of one input block, sigma(h),
  scaled dim by dim (a diagonal block, zero for the heads switched off), and nothing else;
* the out projection moves head h's 64 dims to output block pi(h), and adds a bias the judge drew;
* sigma and pi are permutations the judge draws, with no head in its own place (and pi takes no head switched
  off to the block of another).

Whatever each head computes from its queries, keys and values (a mask that lets the future through, keys
taken from the query projection, any scaling), as long as every head computes it alike:

* a head switched off (zero weights) gives zero values, so its output block is the bias alone, while the
  others give something of their own: the weights, the out projection and its bias are at work where the
  judge put them (the count's premise);
* two twin heads given the same queries, keys and values (from different input blocks, through different
  scales) give the same output block; split otherwise (heads of 128, 96, 48 ... dims, or one head over all
  768), a twin shares its softmax with neighbours that differ, and the twins' outputs part;
* two half-twin heads, identical but for the first half of the first token's query/key/value (a key that
  every later query prefers in one, avoids in the other), differ in the second half of their outputs: the
  halves of a head share its scores. Split finer (heads of 32 dims or less) the second half
  never sees the first; in one head of 768 both share the same scores (the twins and the half-twins together:
  12 heads of 64);
* two heads alike but for the first token differ in the last token's output: the last token sees the first,
  whatever the split (the context, on 1024 tokens).

The same weights and the same kinds of heads serve the 12-token run (the count and the split) and the
1024-token run (the context, the one forward of that length), each input drawn afresh.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch

from grader.checks import close
from ._attention import Roles, student_state

# What each of 12 heads is given, by its index in the module's split: R a random head of its own, A the twins,
# B and b the half-twins, C and c two heads alike but for the first token, 0 a head switched off. The twins sit
# apart, between neighbours that differ, so that no other split of 768 dims puts them alike; the half-twins
# share one head in a single head of 768. tests/exercise/test_exercise_3_3_configuration.py tries every other split.
LAYOUT = ("R", "A", "R", "0", "B", "C", "A", "R", "b", "0", "c", "R")
SALIENT = 6.0  # the first token's key along the direction every query shares: ~e^20 over the rest, scaled by 8


@dataclass(frozen=True, eq=False)  # tensors: one split is itself alone
class Split:
    """The judge's split weights, as loaded into one module: `state` in its own layout."""

    state: dict[str, torch.Tensor]
    scale: torch.Tensor  # (heads, head_dim): head h's queries = keys = values are its input block times this
    sigma: tuple[int, ...]  # the input block head h reads
    pi: tuple[int, ...]  # the output block head h's output goes to
    bias: torch.Tensor  # the out projection's bias (zeros where the module has none)
    head_dim: int

    @property
    def heads(self) -> int:
        return len(self.sigma)

    def input(self, rng: torch.Generator, tokens: int) -> torch.Tensor:
        """A fresh (1, tokens, d_in) input giving each head what LAYOUT says, through the scales. The pairs that
        differ in the first token differ by its key along a direction every later query shares (salient in one,
        avoided in the other): an attention whose scores grow with q·k cannot give the first token the same
        weight in both."""
        n, width = self.heads, self.head_dim
        half = width // 2
        u = torch.randn(tokens, n, width, generator=rng)  # what each head's queries, keys and values hold
        u[:, LAYOUT.index("A")] = u[:, LAYOUT.index("A", LAYOUT.index("A") + 1)]
        for pair, dims in (("Bb", slice(0, half)), ("Cc", slice(0, width))):
            shared = torch.randn(width, generator=rng)
            common = shared + 0.5 * torch.randn(tokens, width, generator=rng)
            common[:, dims.stop:] = torch.randn(tokens, width - dims.stop, generator=rng)
            common[0, dims.stop:] *= 3  # a value of the first token that stands out
            for sign, kind in zip((1, -1), pair):
                h = LAYOUT.index(kind)
                u[:, h] = common
                u[0, h, dims] = sign * SALIENT * shared[dims]
        x = torch.empty(1, tokens, n * width)
        for h in range(n):  # the input blocks of the heads switched off hold numbers their zero weights hide
            given = u[:, h] / self.scale[h] if LAYOUT[h] != "0" else u[:, h]
            x[0, :, self.sigma[h] * width:(self.sigma[h] + 1) * width] = given
        return x

    def shown(self, out: torch.Tensor, tokens: int) -> Shown:
        """What the module's output on an input of `tokens` tokens shows (see the module's doc)."""
        width, d_out = self.head_dim, self.heads * self.head_dim
        if list(out.shape) != [1, tokens, d_out]:
            return Shown()
        heads = (out[0] - self.bias).view(tokens, self.heads, width)  # each output block, less its bias

        def block(kind: str) -> list[torch.Tensor]:
            return [heads[:, self.pi[h]] for h, k in enumerate(LAYOUT) if k == kind]

        off, (twin, other) = block("0"), block("A")
        (salient, avoided), (first, changed) = block("B") + block("b"), block("C") + block("c")
        if not all(bool(torch.isfinite(t).all()) for t in (*off, twin, other, salient, avoided, first, changed)):
            return Shown()
        at_work = all(close(t, torch.zeros_like(t)) for t in off) and not close(first, torch.zeros_like(first))
        half = width // 2
        twelve = close(twin, other) and not close(salient[:, half:], avoided[:, half:])
        return Shown(at_work, at_work and twelve, at_work and not close(first[-1], changed[-1]))


@dataclass(frozen=True)
class Shown:
    """What the split weights showed of a module: `at_work`, the judge's weights where it put them (the heads
    switched off give the bias alone, and the others something of their own); `twelve`, 12 heads of 64 (the
    twins alike, the half-twins' halves sharing their scores); `sees_first`, the last token's output following
    the first token's query, key and value. Each holds only with the ones before it, `sees_first` with
    `at_work` alone: a split of another size still has a context."""

    at_work: bool = False
    twelve: bool = False
    sees_first: bool = False


def split_weights(params: list[dict[str, Any]], rng: torch.Generator, heads: int, d_in: int, d_out: int,
                  like: Roles) -> Split | None:
    """The split weights (the module's doc) written in the module's layout (by its names), with query/key/value
    biases (zero) and an out projection where `like`, the roles its judged run mapped, has them. None where the
    layout is not one the names give (weights found only by what they do), or the sizes are not heads of the
    same width in and out."""
    if d_in != d_out or d_out % heads or heads != len(LAYOUT):
        return None
    width = d_out // heads
    off = {h for h, kind in enumerate(LAYOUT) if kind == "0"}
    sigma, pi = _derangement(rng, heads, set()), _derangement(rng, heads, off)
    scale = torch.empty(heads, width).uniform_(0.5, 2.0, generator=rng)
    scale *= torch.randint(0, 2, (heads, width), generator=rng) * 2 - 1
    matrix = torch.zeros(d_out, d_in)
    for h in range(heads):
        if LAYOUT[h] != "0":
            rows, cols = slice(h * width, (h + 1) * width), slice(sigma[h] * width, (sigma[h] + 1) * width)
            matrix[rows, cols] = torch.diag(scale[h])
    zeros = torch.zeros(d_out) if like.q_b is not None else None
    if like.o is not None:
        projection = torch.zeros(d_out, d_out)
        for h in range(heads):
            projection[pi[h] * width:(pi[h] + 1) * width, h * width:(h + 1) * width] = torch.eye(width)
        bound = (3 / d_out) ** 0.5
        bias = torch.empty(d_out).uniform_(-bound, bound, generator=rng) if like.o_b is not None else torch.zeros(d_out)
        o, o_b = projection, (bias if like.o_b is not None else None)
    else:  # no out projection: head h's output is block h
        pi, bias, o, o_b = tuple(range(heads)), torch.zeros(d_out), None, None
    roles = replace(like, q=matrix, k=matrix, v=matrix, q_b=zeros, k_b=zeros, v_b=zeros, o=o, o_b=o_b)
    state = student_state(params, roles, d_in, d_out)
    if state is None:
        return None
    return Split(state, scale, sigma, pi, bias, width)


def _derangement(rng: torch.Generator, n: int, apart: set[int]) -> tuple[int, ...]:
    """A random permutation of range(n) that leaves no index in its place, and takes none of `apart` to another
    of them."""
    while True:
        order = tuple(int(i) for i in torch.randperm(n, generator=rng))
        if all(i != j and not (i in apart and j in apart) for i, j in enumerate(order)):
            return order
