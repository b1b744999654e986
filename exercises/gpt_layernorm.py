"""gpt.layernorm: the lecture's LayerNorm1d, a plain class (not an nn.Module) with __call__, gamma, beta
and parameters().

The judge builds `LayerNorm1d(dim)` with a dim of its choice and calls it on rows it draws: every row
(dim 1) must come out with mean 0 and standard deviation 1, equal to solutions/gpt_attention.LayerNorm1d.
A constant row and rows of tiny variance show whether eps sits inside the square root. Then gamma and
beta are set to values the judge draws and the output must become gamma * xhat + beta, where xhat is
the student's own output before, so a wrong normalisation is not charged twice.

The variance: the lecture writes x.var(1, keepdim=True), the unbiased one; nn.LayerNorm and the paper
use the biased one. Both are layer norms, and they differ by a factor sqrt(dim / (dim - 1)), so the
grader accepts either (the reference, like the lecture, is unbiased) and the messages name which one
matched. A class written as an nn.Module (gamma and beta as parameters) is graded the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from grader.checks import (
    BadReturn, Exercise, Msg, NotFound, Obj, Outcome, SandboxClient, StudentError, Verdict, classes, close,
    comparison, computes_nothing, constant, describe_value, failed, max_diff, passed, sample, with_object,
)
from grader.solutions import gpt_attention

DIM = 48
ROWS = 20  # not DIM, so normalising the wrong dim cannot hide behind a square input
EPS = 1e-5  # the lecture's default, and nn.LayerNorm's
CONSTANT = 0.5  # a row of 0.5 has an exact float mean, so its variance is exactly 0
AFFINE_NAMES = (("gamma", "beta"), ("weight", "bias"))

EXERCISE = Exercise(
    id="gpt.layernorm",
    title={"en": "LayerNorm1d", "zh": "LayerNorm1d"},
    statement={
        "en": "Write the lecture's LayerNorm1d(dim, eps=1e-5): calling it on x of shape (N, dim) normalises each "
              "row (dim 1, one example's features; not dim 0, the batch, which is BatchNorm) to mean 0 and variance "
              "1 with eps inside the square root, then returns gamma * xhat + beta; gamma starts as ones, beta as "
              "zeros, and parameters() returns [gamma, beta]. The grader builds LayerNorm1d with a dim of its "
              "choice, calls it on fresh rows, and sets gamma and beta to values of its own.",
        "zh": "实现课程中的 LayerNorm1d(dim, eps=1e-5)：对形状为 (N, dim) 的 x 调用它时，将每一行（第 1 维，即一个样本"
              "的特征；而不是第 0 维的批次，那是 BatchNorm）归一化为均值 0、方差 1，eps 加在平方根内，然后返回 "
              "gamma * xhat + beta；gamma 初始为全 1，beta 初始为全 0，parameters() 返回 [gamma, beta]。评分器以自选"
              "的 dim 构建 LayerNorm1d，在新的随机行上调用它，并把 gamma 和 beta 设为自己的值。",
    },
    causes={
        "dim0": r"\.(mean|var|std)\(",
        "no_eps": r"sqrt|eps|rsqrt",
        "eps_outside": r"sqrt|eps|rsqrt",
        "ignored": r"gamma|beta",
        "gamma_ignored": r"gamma|beta",
        "beta_ignored": r"gamma|beta",
        "swapped": r"gamma|beta",
    },
    reference=gpt_attention,
    order=206,
    group="gpt",
    messages={
        "not_found.class": {"en": "no class {name}.", "zh": "没有类 {name}。"},
        "var.unbiased": {"en": "the unbiased variance x.var(1), as in the lecture",
                         "zh": "与课程相同，使用无偏方差 x.var(1)"},
        "var.biased": {"en": "the biased variance, as in nn.LayerNorm", "zh": "与 nn.LayerNorm 相同，使用有偏方差"},
        "normalised.ok": {
            "en": "Every row of the output has mean 0 and standard deviation 1 (largest |row mean| {mean:.1e}) and "
                  "equals the lecture's layer norm, with {variance}.",
            "zh": "输出的每一行均值为 0、标准差为 1（行均值绝对值最大为 {mean:.1e}），与课程中的层归一化一致，{variance}。",
        },
        "normalised.dim0": {
            "en": "Your LayerNorm1d normalises each column, over the batch (dim 0): that is BatchNorm, where the "
                  "lecture's code came from. A layer norm normalises each row, one example's own features: "
                  "x.mean(1, keepdim=True) and x.var(1, keepdim=True).",
            "zh": "你的 LayerNorm1d 对每一列、即在批次维（第 0 维）上归一化：这是 BatchNorm，也就是课程代码的出处。"
                  "层归一化应对每一行、即每个样本自己的特征归一化：x.mean(1, keepdim=True) 与 x.var(1, keepdim=True)。",
        },
        "normalised.wrong": {
            "en": "The output differs from the lecture's layer norm (largest difference {diff:.3g}): the largest "
                  "|row mean| is {mean:.3g} and the row standard deviations run from {low:.3g} to {high:.3g}, where "
                  "each row should have mean 0 and standard deviation 1.",
            "zh": "输出与课程中的层归一化不同（最大差值 {diff:.3g}）：行均值绝对值最大为 {mean:.3g}，各行标准差在 "
                  "{low:.3g} 到 {high:.3g} 之间，而每一行应为均值 0、标准差 1。",
        },
        "eps.rows_wrong": {
            "en": "eps cannot be judged yet: the ordinary rows are not normalised right either (see the check "
                  "\"Each row is normalised\").",
            "zh": "暂时无法判断 eps：普通的行也没有被正确归一化（见检查“每一行都被归一化”）。",
        },
        "eps.ok": {
            "en": "A constant row gives beta (no division by zero), and rows of tiny variance are damped by eps "
                  "inside the square root, as in the lecture.",
            "zh": "常数行输出 beta（没有除以零），方差极小的行被平方根内的 eps 抑制，与课程一致。",
        },
        "eps.no_eps": {
            "en": "A constant row (row {row}) comes out as NaN or infinity: its variance is 0, and without eps the "
                  "division is 0/0. Add eps inside the square root: (x - xmean) / torch.sqrt(xvar + self.eps).",
            "zh": "常数行（第 {row} 行）的输出是 NaN 或无穷大：它的方差为 0，没有 eps 时除法成了 0/0。请在平方根内"
                  "加上 eps：(x - xmean) / torch.sqrt(xvar + self.eps)。",
        },
        "eps.outside": {
            "en": "eps is added outside the square root, (x - xmean) / (x.std(1) + eps); the lecture and nn.LayerNorm "
                  "add it to the variance, torch.sqrt(xvar + self.eps), which differs for rows of small variance.",
            "zh": "eps 加在了平方根之外，(x - xmean) / (x.std(1) + eps)；课程和 nn.LayerNorm 都把它加在方差上，"
                  "torch.sqrt(xvar + self.eps)，两者在方差较小的行上结果不同。",
        },
        "eps.wrong": {
            "en": "On a constant row and rows of tiny variance (standard deviation 0.001) the output differs from "
                  "the lecture's (largest difference {diff:.3g}): eps = 1e-5 belongs inside the square root, "
                  "torch.sqrt(xvar + self.eps).",
            "zh": "在常数行和方差极小（标准差 0.001）的行上，输出与课程中的不同（最大差值 {diff:.3g}）：eps = 1e-5 "
                  "应加在平方根内，torch.sqrt(xvar + self.eps)。",
        },
        "affine.ok": {
            "en": "gamma and beta start as ones and zeros, and with the grader's values the output is "
                  "gamma * xhat + beta.",
            "zh": "gamma 与 beta 初始为全 1 和全 0，设为评分器的值后输出为 gamma * xhat + beta。",
        },
        "affine.no_attributes": {
            "en": "LayerNorm1d({dim}) has no gamma and beta attributes (nor weight and bias) to scale and shift its "
                  "output: self.gamma = torch.ones(dim), self.beta = torch.zeros(dim).",
            "zh": "LayerNorm1d({dim}) 没有用于缩放和平移输出的 gamma 和 beta 属性（也没有 weight 和 bias）："
                  "self.gamma = torch.ones(dim)，self.beta = torch.zeros(dim)。",
        },
        "affine.parameters": {
            "en": "parameters() should return [gamma, beta], two tensors of shape [{dim}]; it returned {got}.",
            "zh": "parameters() 应返回 [gamma, beta]，即两个形状为 [{dim}] 的张量；实际返回了 {got}。",
        },
        "affine.init": {
            "en": "A fresh LayerNorm1d({dim}) should only normalise: gamma starts as ones and beta as zeros, of "
                  "shape [{dim}]. Got gamma {gamma} (shape {gamma_shape}) and beta {beta} (shape {beta_shape}).",
            "zh": "新建的 LayerNorm1d({dim}) 应只做归一化：gamma 初始为全 1，beta 初始为全 0，形状为 [{dim}]。"
                  "实际 gamma 为 {gamma}（形状 {gamma_shape}），beta 为 {beta}（形状 {beta_shape}）。",
        },
        "affine.ignored": {
            "en": "Setting gamma and beta does not change the output: return self.gamma * xhat + self.beta.",
            "zh": "设置 gamma 和 beta 后输出没有变化：应返回 self.gamma * xhat + self.beta。",
        },
        "affine.gamma_ignored": {
            "en": "beta is added but gamma does not scale the output: return self.gamma * xhat + self.beta.",
            "zh": "加上了 beta，但 gamma 没有缩放输出：应返回 self.gamma * xhat + self.beta。",
        },
        "affine.beta_ignored": {
            "en": "gamma scales the output but beta is not added: return self.gamma * xhat + self.beta.",
            "zh": "gamma 缩放了输出，但没有加上 beta：应返回 self.gamma * xhat + self.beta。",
        },
        "affine.swapped": {
            "en": "gamma and beta are swapped: gamma scales and beta shifts, self.gamma * xhat + self.beta.",
            "zh": "gamma 和 beta 用反了：gamma 负责缩放，beta 负责平移，self.gamma * xhat + self.beta。",
        },
        "affine.wrong": {
            "en": "With gamma and beta set, the output is not gamma * xhat + beta (largest difference {diff:.3g}).",
            "zh": "设置 gamma 和 beta 后，输出不等于 gamma * xhat + beta（最大差值 {diff:.3g}）。",
        },
    },
)


# -- the lecture's layer norm and the usual mistakes, computed here ----------------------------------------
def normalise(x: torch.Tensor, dim: int = 1, unbiased: bool = True, eps: str = "inside") -> torch.Tensor:
    """(x - mean) / sqrt(var + eps) over `dim`; eps "outside" the root, or "none"."""
    centred = x - x.mean(dim, keepdim=True)
    var = x.var(dim, keepdim=True, unbiased=unbiased)
    if eps == "inside":
        return centred / torch.sqrt(var + EPS)
    return centred / (torch.sqrt(var) + EPS) if eps == "outside" else centred / torch.sqrt(var)


def accepted(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """The right answers by the variance each uses: the lecture's (the reference) and nn.LayerNorm's."""
    return {"unbiased": gpt_attention.LayerNorm1d(x.shape[1], eps=EPS)(x),
            "biased": F.layer_norm(x, (x.shape[1],), eps=EPS)}


def matches(got: torch.Tensor, x: torch.Tensor, **mistake: Any) -> bool:
    return any(close(got, normalise(x, unbiased=u, **mistake), equal_nan=True) for u in (True, False))


def rows(rng: torch.Generator) -> torch.Tensor:
    """Rows of their own scale and offset, so that normalising columns instead shows."""
    scale = torch.rand(ROWS, 1, generator=rng) * 2.5 + 0.5
    offset = torch.rand(ROWS, 1, generator=rng) * 4 - 2
    return torch.randn(ROWS, DIM, generator=rng) * scale + offset


def rows_with_small_variance(rng: torch.Generator) -> torch.Tensor:
    """Ordinary rows, a constant row (variance exactly 0) and rows of standard deviation 0.001 (variance 1e-6,
    below eps), where eps inside or outside the root, or none, all give different outputs."""
    x = rows(rng)
    x[1] = CONSTANT
    x[2:6] = torch.randn(4, DIM, generator=rng) * 1e-3  # centred: an offset would cost float32 the digits compared
    return x


def row_stats(out: torch.Tensor) -> dict[str, float]:
    std = out.double().std(1)
    return {"mean": float(out.double().mean(1).abs().max()), "low": float(std.min()), "high": float(std.max())}


# -- the student's LayerNorm1d ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Norm:
    """A LayerNorm1d(DIM) the judge built in the sandbox, and how to reach its gamma and beta."""

    sb: SandboxClient
    cls: Obj
    obj: Obj

    @property
    def is_module(self) -> bool:
        return self.obj.kind == "module"

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        label = f"LayerNorm1d({DIM})(x of shape {list(x.shape)})"
        out = self.sb.call(self.obj, x, label=label)
        if not isinstance(out, torch.Tensor) or not out.is_floating_point():
            raise BadReturn(label, describe_value(out))
        if list(out.shape) != list(x.shape):
            raise BadReturn(label, f"shape {list(out.shape)}")
        return out

    def names(self) -> tuple[str, str]:
        """The attributes holding gamma and beta (the lecture's names, else weight and bias)."""
        if self.is_module:
            held = {t["name"] for key in ("parameters", "buffers", "plain_tensors") for t in self.obj.info.get(key, [])}
            for pair in AFFINE_NAMES:
                if set(pair) <= held:
                    return pair
        else:
            for pair in AFFINE_NAMES:
                try:
                    for name in pair:
                        self.sb.call(self.obj, name, method="__getattribute__", label=f"LayerNorm1d({DIM}).{name}")
                    return pair
                except StudentError:
                    continue
        raise Verdict(with_object(failed("affine.no_attributes", dim=DIM), self.cls))

    def parameters(self, names: tuple[str, str]) -> list[Any]:
        if self.is_module:  # nn.Module.parameters() is a generator: read the tensors by name instead
            state = self.sb.state(self.obj, list(names))
            return [state.get(n) for n in names]
        value = self.sb.call(self.obj, method="parameters", label=f"LayerNorm1d({DIM}).parameters()")
        return value if isinstance(value, list) else [value]

    def set(self, names: tuple[str, str], gamma: torch.Tensor, beta: torch.Tensor) -> None:
        registered = {t["name"] for key in ("parameters", "buffers") for t in self.obj.info.get(key, [])}
        values = dict(zip(names, (gamma, beta)))
        if self.is_module and set(names) <= registered:
            self.sb.load_state(self.obj, values)
            return
        for name, value in values.items():
            self.sb.call(self.obj, name, value, method="__setattr__", label=f"setting LayerNorm1d({DIM}).{name}")


def build(sb: SandboxClient) -> Norm:
    found = classes(sb, "LayerNorm1d", modules_only=False)
    if not found:
        raise NotFound("not_found.class", name="LayerNorm1d")
    cls = found[-1]
    return Norm(sb, cls, sb.construct(cls, DIM, label=f"LayerNorm1d({DIM})"))


# -- checks -----------------------------------------------------------------------------------------------
@EXERCISE.check("normalised", points=2, title={"en": "Each row is normalised", "zh": "每一行都被归一化"})
def normalised(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    norm = build(sb)
    x = rows(rng)
    got = norm(x)
    right = accepted(x)
    stats = row_stats(got)
    evidence = {**comparison(right["unbiased"], got), **stats}
    for variance, expected in right.items():
        if close(got, expected):
            return with_object(passed("normalised.ok", evidence, variance=Msg(f"gpt.layernorm.var.{variance}"),
                                      mean=stats["mean"]), norm.cls)
    if any(close(got, normalise(x, dim=0, unbiased=u)) for u in (True, False)):
        return with_object(failed("normalised.dim0", {**evidence, "diagnosis": "dim0"}), norm.cls)
    return with_object(failed("normalised.wrong", evidence, diff=max_diff(got, right["unbiased"]), **stats), norm.cls)


@EXERCISE.check("eps", points=2, title={"en": "eps keeps the division safe", "zh": "eps 保证除法安全"})
def eps(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    norm = build(sb)
    x = rows_with_small_variance(rng)
    got = norm(x)
    right = accepted(x)
    evidence = comparison(right["unbiased"], got)
    if any(close(got, expected) for expected in right.values()):
        return with_object(passed("eps.ok", evidence), norm.cls)
    if any(close(got, normalise(x, dim=0, unbiased=u), equal_nan=True) for u in (True, False)):
        return with_object(failed("normalised.dim0", {**evidence, "diagnosis": "dim0"}), norm.cls)
    ordinary = [0, *range(6, ROWS)]  # eps cannot be judged while the ordinary rows are wrong too
    if not any(close(got[ordinary], expected[ordinary]) for expected in right.values()):
        return with_object(failed("eps.rows_wrong", evidence), norm.cls)
    if not torch.isfinite(got[1]).all():
        return with_object(failed("eps.no_eps", {**evidence, "diagnosis": "no_eps"}, row=1), norm.cls)
    if matches(got, x, eps="outside"):
        return with_object(failed("eps.outside", {**evidence, "diagnosis": "eps_outside"}), norm.cls)
    return with_object(failed("eps.wrong", evidence, diff=max_diff(got, right["unbiased"])), norm.cls)


@EXERCISE.check("affine", points=2, title={"en": "gamma and beta scale and shift the output",
                                           "zh": "gamma 与 beta 对输出缩放和平移"})
def affine(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    norm = build(sb)
    names = norm.names()
    params = norm.parameters(names)
    if len(params) != 2 or not all(isinstance(p, torch.Tensor) for p in params):
        shown = "[" + ", ".join(describe_value(p) for p in params) + "]"
        return with_object(failed("affine.parameters", dim=DIM, got=shown), norm.cls)
    gamma0, beta0 = params
    if not (close(gamma0, torch.ones(DIM)) and close(beta0, torch.zeros(DIM))):
        return with_object(failed("affine.init", dim=DIM, gamma=sample(gamma0, 4), beta=sample(beta0, 4),
                                  gamma_shape=list(gamma0.shape), beta_shape=list(beta0.shape)), norm.cls)
    x = rows(rng)
    xhat = norm(x)  # the student's own normalisation: only gamma and beta are judged here
    gamma = torch.rand(DIM, generator=rng) * 2 + 0.5
    beta = torch.randn(DIM, generator=rng)
    norm.set(names, gamma, beta)
    got = norm(x)
    expected = gamma * xhat + beta
    evidence = comparison(expected, got)
    if close(got, expected):
        if constant(xhat):  # the same for rows that differ: gamma and beta acted on nothing computed from x
            return with_object(computes_nothing(f"LayerNorm1d({DIM})", xhat), norm.cls)
        return with_object(passed("affine.ok", evidence), norm.cls)
    # The mistakes are modelled on the student's own xhat and on the right ones: with gamma and beta
    # swapped, the student's "xhat" (gamma 1, beta 0) is all ones.
    for normalised_x in (xhat, *accepted(x).values()):
        mistakes = {"ignored": normalised_x, "gamma_ignored": normalised_x + beta,
                    "beta_ignored": gamma * normalised_x, "swapped": beta * normalised_x + gamma}
        for key, model in mistakes.items():
            if close(got, model):
                return with_object(failed(f"affine.{key}", {**evidence, "diagnosis": key}), norm.cls)
    return with_object(failed("affine.wrong", evidence, diff=max_diff(got, expected)), norm.cls)
