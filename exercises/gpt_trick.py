"""gpt.trick: the lecture's "mathematical trick in self-attention", three ways to average the past.

Each version must give xbow[b, t] = mean(x[b, :t+1]). The judge recomputes that mean itself, by a
formula of its own, from an x it holds, and compares each version with it; the child's own
`torch.allclose(xbow, xbow2)` is never evidence.

Two styles are graded:
- the lecture's: tensors bound at the top level, `xbow` (loops), `xbow2` (tril matrix) and `xbow3`
  (masked_fill + softmax), each checked against the last `x` of the same shape bound at or before its
  cell, read with the sandbox's `variables` probe as each cell left them (so an `x` that a later cell
  rebinds, as the lecture's self-attention and LayerNorm cells do, is still found);
- functions `xbow(x)` (or `xbow1(x)`), `xbow2(x)`, `xbow3(x)`, called on a fresh x of shape (4, 8, 2)
  drawn by the judge (the lecture's B, T, C). A function is preferred over a tensor of the same name.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Any

import torch

from grader.checks import (
    BadReturn, Exercise, Msg, NotFound, Obj, Outcome, SandboxClient, Verdict, close, comparison, describe_value,
    failed, found_in, max_diff, passed,
)
from grader.solutions import gpt_attention

SHAPE = (4, 8, 2)  # the lecture's B, T, C, so a function that reads the notebook's globals still fits
TELLS = 1e-3  # an x tells the versions apart when the right answer and each wrong one differ by this much


@dataclass(frozen=True)
class Version:
    check: str
    name: str  # the lecture's name for the tensor
    names: tuple[str, ...]  # names accepted for it (tensor or function)


LOOP = Version("loop", "xbow", ("xbow", "xbow1"))
MATRIX = Version("matrix", "xbow2", ("xbow2",))
SOFTMAX = Version("softmax", "xbow3", ("xbow3",))

EXERCISE = Exercise(
    id="gpt.trick",
    title={"en": "The mathematical trick in self-attention", "zh": "self-attention 中的数学技巧"},
    statement={
        "en": "For x of shape (B, T, C), compute xbow, where xbow[b, t] is the mean of x[b, 0], ..., x[b, t] "
              "(each token averages itself and the tokens before it), in the lecture's three ways: with loops "
              "(xbow), as a matrix product with a lower-triangular matrix whose rows sum to 1 (xbow2), and with "
              "masked_fill and softmax (xbow3). The grader recomputes the mean from your x and compares each "
              "version with it; functions xbow(x), xbow2(x), xbow3(x) are called on a fresh x instead.",
        "zh": "对形状为 (B, T, C) 的 x，计算 xbow：xbow[b, t] 是 x[b, 0], ..., x[b, t] 的均值（每个 Token 对自己和"
              "之前的 Token 取平均），并用课程中的三种方法实现：循环（xbow）、与每行之和为 1 的下三角矩阵做矩阵乘法"
              "（xbow2）、masked_fill 加 softmax（xbow3）。评分器用你的 x 重新计算均值并与每个方案比较；若写成函数 "
              "xbow(x)、xbow2(x)、xbow3(x)，则用新的随机 x 调用它们。",
    },
    reference=gpt_attention,
    order=204,
    group="gpt",
    messages={
        "not_found.version": {
            "en": "{name}: neither a tensor named {name} (computed from x, as in the lecture) nor a function {name}(x).",
            "zh": "{name}：既没有名为 {name} 的张量（像课程中那样由 x 计算得到），也没有函数 {name}(x)。",
        },
        "source.yours": {"en": "from your x of cell {cell}", "zh": "由你在单元格 {cell} 中的 x 计算"},
        "source.fresh": {"en": "called on a fresh x of shape {shape} from the grader",
                         "zh": "用评分器给出的形状为 {shape} 的新 x 调用"},
        "ok": {
            "en": "{name} holds, at every position, the mean of that token and the tokens before it ({source}).",
            "zh": "{name} 在每个位置上都是该 Token 与之前所有 Token 的均值（{source}）。",
        },
        "no_x": {
            "en": "{name} (cell {cell}) has shape {shape}, but no x of that shape was bound at or before that cell, "
                  "so it cannot be compared. Keep the input in a variable named x (a line later in the same cell "
                  "that rebinds x hides it).",
            "zh": "{name}（单元格 {cell}）的形状为 {shape}，但在该单元格及之前没有绑定过同样形状的 x，因此无法比较。"
                  "请把输入保存在名为 x 的变量中（同一单元格中后面重新赋值 x 会把它覆盖）。",
        },
        "x_degenerate": {
            "en": "Your x (cell {cell}) does not change along the time dim, so any average agrees with it and "
                  "{name} cannot be judged; draw x at random: x = torch.randn(B, T, C).",
            "zh": "你的 x（单元格 {cell}）在时间维上没有变化，任何平均方式都与它一致，无法判断 {name}；"
                  "请随机生成 x：x = torch.randn(B, T, C)。",
        },
        "shape": {
            "en": "{name} has shape {got}, but x has shape {expected}: every version keeps the shape (B, T, C).",
            "zh": "{name} 的形状是 {got}，但 x 的形状是 {expected}：每个方案都应保持形状 (B, T, C)。",
        },
        "not_causal": {
            "en": "{name}: every position holds the mean of all {T} tokens, later ones included, so the future "
                  "leaks into the past. Average only the positions up to t: x[b, :t+1] in the loops, the lower "
                  "triangle (torch.tril) in the matrix versions; and masked_fill returns a new tensor, so assign "
                  "it: wei = wei.masked_fill(tril == 0, float('-inf')).",
            "zh": "{name}：每个位置都是全部 {T} 个 Token（包括之后的 Token）的均值，未来的信息泄漏到了过去。"
                  "只应对位置 t 及之前取平均：循环中用 x[b, :t+1]，矩阵方案中保留下三角（torch.tril）；"
                  "另外 masked_fill 返回新张量，需要赋值：wei = wei.masked_fill(tril == 0, float('-inf'))。",
        },
        "not_normalised": {
            "en": "{name}: every position holds the sum of that token and the tokens before it, not their mean: "
                  "the rows of wei must sum to 1 (wei = wei / wei.sum(1, keepdim=True), or the softmax).",
            "zh": "{name}：每个位置是该 Token 与之前 Token 的和，而不是均值：wei 的每一行之和必须为 1"
                  "（wei = wei / wei.sum(1, keepdim=True)，或使用 softmax）。",
        },
        "wrong_dim": {
            "en": "{name}: the weights are normalised over the wrong dim, so each column of wei sums to 1 instead "
                  "of each row: use wei.sum(1, keepdim=True), or F.softmax(wei, dim=-1).",
            "zh": "{name}：权重在错误的维度上归一化，结果是 wei 的每一列之和为 1，而不是每一行：应使用 "
                  "wei.sum(1, keepdim=True)，或 F.softmax(wei, dim=-1)。",
        },
        "future": {
            "en": "{name}: each position averages itself and the tokens after it, the future: the mask is upside "
                  "down. Keep the lower triangle (torch.tril), not the upper one.",
            "zh": "{name}：每个位置对自己和之后（未来）的 Token 取平均：掩码上下颠倒了。应保留下三角（torch.tril），"
                  "而不是上三角。",
        },
        "wrong": {
            "en": "{name} is not the mean of each token and the tokens before it (largest difference {diff:.3g}).",
            "zh": "{name} 不是每个 Token 与之前 Token 的均值（最大差值 {diff:.3g}）。",
        },
    },
)


# -- the right answer and the usual mistakes, computed here from x -----------------------------------
def _models(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """What the usual mistakes compute, by the message key that names each."""
    T = x.shape[1]
    tril = torch.tril(torch.ones(T, T, dtype=x.dtype))
    return {
        "not_causal": x.mean(1, keepdim=True).expand_as(x),
        "not_normalised": x.cumsum(1),
        "wrong_dim": (tril / tril.sum(0, keepdim=True)) @ x,
        "future": gpt_attention.prefix_mean(x.flip(1)).flip(1),
    }


def _diagnosis(x: torch.Tensor, got: torch.Tensor) -> str:
    for key, model in _models(x).items():
        if close(got, model):
            return key
    return "wrong"


# -- finding each version --------------------------------------------------------------------------
def _function(sb: SandboxClient, version: Version) -> Obj | None:
    found = [o for o in sb.inventory() if o.kind == "function"
             and (o.cls in version.names or any(b.get("name") in version.names for b in o.bindings))]
    return found[-1] if found else None


_BOUND: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, dict[int, dict[str, torch.Tensor]]]]" = \
    weakref.WeakKeyDictionary()


def bound_by_cell(sb: SandboxClient) -> dict[int, dict[str, torch.Tensor]]:
    """The floating tensors each cell left bound to x or a version's name, read once per child. Only cells
    whose source names one are asked (no other cell can bind it); a value that is not a floating tensor
    (or could not be sent) is left out, as if unbound."""
    cached = _BOUND.get(sb)
    if cached is not None and cached[0] == sb.generation:
        return cached[1]
    names = sorted({"x", *LOOP.names, *MATRIX.names, *SOFTMAX.names})
    mentions = re.compile(r"\b(" + "|".join(names) + r")\b")
    found: dict[int, dict[str, torch.Tensor]] = {}
    for cell in sb.submission.cells:
        if mentions.search(cell.source):
            values = sb.variables(names, cell=cell.number)
            tensors = {n: v for n, v in values.items() if isinstance(v, torch.Tensor) and v.is_floating_point()}
            if tensors:
                found[cell.number] = tensors
    _BOUND[sb] = (sb.generation, found)
    return found


def _latest(bound: dict[int, dict[str, torch.Tensor]], names: tuple[str, ...], before: int | None = None,
            shape: torch.Size | None = None) -> tuple[str, int, torch.Tensor] | None:
    """(name, cell, value) of the last binding of one of `names` (at or before cell `before`, of `shape`)."""
    for cell in sorted(bound, reverse=True):
        if before is not None and cell > before:
            continue
        for name in names:
            value = bound[cell].get(name)
            if value is not None and (shape is None or value.shape == shape):
                return name, cell, value
    return None


def _answer(sb: SandboxClient, version: Version, rng: torch.Generator
            ) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any], Msg]:
    """(x, the version's output, evidence naming what was judged, where x came from)."""
    fn = _function(sb, version)
    if fn is not None:
        x = torch.randn(*SHAPE, generator=rng)
        out = sb.call(fn, x, label=f"{fn.name}(x of shape {list(SHAPE)})")
        if not isinstance(out, torch.Tensor) or not out.is_floating_point():
            raise BadReturn(f"{fn.name}(x)", describe_value(out))
        return x, out, found_in(fn), Msg("gpt.trick.source.fresh", {"shape": list(SHAPE)})
    bound = bound_by_cell(sb)
    found = _latest(bound, version.names)
    if found is None:
        raise NotFound("not_found.version", name=version.name)
    name, cell, got = found
    where = {"object": {"name": name, "cell": cell}}
    if got.dim() != 3:  # the mean is over the time dim of (B, T, C): no other x can be judged with it
        raise Verdict(failed("shape", where, name=version.name, got=list(got.shape), expected="(B, T, C)"))
    x_found = _latest(bound, ("x",), before=cell, shape=got.shape)
    if x_found is None:
        raise Verdict(failed("no_x", where, name=version.name, cell=cell, shape=list(got.shape)))
    _, x_cell, x = x_found
    models, right = _models(x), gpt_attention.prefix_mean(x)
    if not all(max_diff(right, models[key]) > TELLS for key in ("not_causal", "not_normalised")):
        raise Verdict(failed("x_degenerate", {"object": {"name": "x", "cell": x_cell}}, name=version.name,
                             cell=x_cell))
    return x, got, where, Msg("gpt.trick.source.yours", {"cell": x_cell})


def judge(sb: SandboxClient, version: Version, rng: torch.Generator) -> Outcome:
    x, got, where, source = _answer(sb, version, rng)
    expected = gpt_attention.prefix_mean(x)
    evidence: dict[str, Any] = {**where, **comparison(expected, got)}
    if got.shape != expected.shape:
        return failed("shape", evidence, name=version.name, got=list(got.shape), expected=list(x.shape))
    if close(got, expected):
        return passed("ok", evidence, name=version.name, source=source)
    return failed(_diagnosis(x, got), evidence, name=version.name, T=x.shape[1], diff=max_diff(got, expected))


@EXERCISE.check("loop", points=2, title={"en": "Version 1 (loops) is the mean of the past",
                                         "zh": "方案一（循环）是过去的均值"})
def loop(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    return judge(sb, LOOP, rng)


@EXERCISE.check("matrix", points=2, title={"en": "Version 2 (a normalised tril matrix) agrees",
                                           "zh": "方案二（归一化的下三角矩阵）一致"})
def matrix(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    return judge(sb, MATRIX, rng)


@EXERCISE.check("softmax", points=2, title={"en": "Version 3 (masked_fill and softmax) agrees",
                                            "zh": "方案三（masked_fill 与 softmax）一致"})
def softmax(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    return judge(sb, SOFTMAX, rng)
