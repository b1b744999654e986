"""Exercise 3.2: two heads that give 2-dim context vectors, by setting d_out=1 rather than changing the class.

Output width alone cannot tell d_out=1 with two heads from d_out=2 with one, so the heads are counted
and their weights matched to query, key and value of one dimension each (by name, else by what each
weight does): a wrapper whose heads cannot be matched, or whose output does not move with its input, is
not shown to be an answer and fails. What the heads compute is the mask exercise's to judge: the wrapper
is right when its output is its own heads' outputs side by side, whatever they compute.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import torch

from grader.checks import (
    Exercise, Msg, NotFound, Obj, Outcome, ProbeFailure, SandboxClient, StudentError, build, close, comparison,
    computes_nothing, constant, failed, function, instances, markdown_hint, max_diff, nan_tokens, passed,
    probe_failure_outcome, the_class, with_object,
)
from grader.solutions import chapter3
from ._attention import MAX_WIDTH, Roles, map_heads, per_head
from ._layout import computes_heads, neutral_projection, wrapper_layout

WRAPPER = "MultiHeadAttentionWrapper"
FRESH = [(3, 6), (5, 8)]  # (d_in, context_length) for a template-style builder
CONCAT_ARGS = (4, 3, 8, 0.0, 2)  # the class built for "concat": heads of 3 dims, so a wrong dim shows

EXERCISE = Exercise(
    id="3.2",
    title={"en": "Two-dimensional context vectors from two heads", "zh": "两个头输出二维上下文向量"},
    statement={
        "en": "Change the input arguments of the MultiHeadAttentionWrapper(..., num_heads=2) call so that "
              "the output context vectors are two-dimensional instead of four-dimensional while keeping "
              "num_heads=2. Hint: you don't have to modify the class implementation; you just have to "
              "change one of the other input arguments.",
        "zh": "更改 MultiHeadAttentionWrapper (..., num_heads=2) 调用的输入参数，使输出上下文向量为二维而不是"
              "四维，同时保持 num_heads=2 的设置。提示：你不需要修改类的实现、你只需要更改其他一个输入参数。",
    },
    reference=chapter3,
    order=2,
    messages={
        "not_found.answer": {
            "en": "no build_two_dim_wrapper(d_in, context_length) function and no MultiHeadAttentionWrapper "
                  "object{hint}.",
            "zh": "没有 build_two_dim_wrapper(d_in, context_length) 函数，也没有 MultiHeadAttentionWrapper 对象"
                  "{hint}。",
        },
        "not_found.class": {"en": "no class {name}.", "zh": "没有类 {name}。"},
        "answer.ok": {
            "en": "{name} keeps 2 heads and gives context vectors of shape {shape}.",
            "zh": "{name} 保持 2 个头，输出形状为 {shape} 的上下文向量。",
        },
        "answer.changed_heads": {
            "en": "{name} has {heads} {heads:head/heads}: the exercise keeps num_heads=2 and changes d_out to 1 "
                  "instead.{graded}",
            "zh": "{name} 只有 {heads} 个头：练习要求保持 num_heads=2，应改为把 d_out 设为 1。{graded}",
        },
        "answer.wrong_width": {
            "en": "{name} gives {width}-dim context vectors (shape {shape}); with 2 heads, d_out=1 gives 2.{graded}",
            "zh": "{name} 输出 {width} 维上下文向量（形状 {shape}）；2 个头时 d_out=1 才得到 2 维。{graded}",
        },
        "answer.unmapped": {
            "en": "{name} gives context vectors of shape {shape}, but the weights of its heads could not be matched "
                  "to query/key/value, neither by their names (heads.N.W_query ...) nor by trying each weight in "
                  "each role, so it is not shown to be two attention heads.{graded}",
            "zh": "{name} 输出形状为 {shape} 的上下文向量，但它各头的权重无法对应到 query/key/value：按名称"
                  "（heads.N.W_query 等）不行，逐个尝试每个权重的角色也不行，因此无法证明它是两个注意力头。{graded}",
        },
        "answer.graded_two_heads": {
            "en": " Graded as the 3.2 answer: {name}, the newest of the submission's wrappers with 2 heads (it also "
                  "holds {others}).",
            "zh": " 作为 3.2 的答案评分的是 {name}：提交中有 2 个头的包装类对象里最新的一个（提交中还有 {others}）。",
        },
        "answer.graded_newest": {
            "en": " Graded as the 3.2 answer: {name}, the newest of the submission's wrappers, none of which has 2 heads "
                  "(it also holds {others}).",
            "zh": " 作为 3.2 的答案评分的是 {name}：提交中最新的包装类对象，没有一个有 2 个头（提交中还有 {others}）。",
        },
        "concat.ok": {
            "en": "Your MultiHeadAttentionWrapper gives its own {heads} heads' outputs concatenated on the last dim.",
            "zh": "你的 MultiHeadAttentionWrapper 输出的是它自己 {heads} 个头的输出在最后一维上的拼接。",
        },
        "concat.ok_projected": {
            "en": "Your MultiHeadAttentionWrapper gives its own {heads} heads' outputs concatenated on the last dim, "
                  "with its projection after torch.cat ({projection}, as the book's bonus wrapper has one) set to the "
                  "identity by the grader: 3.2 is about the heads and the output's width, not what follows them.",
            "zh": "你的 MultiHeadAttentionWrapper 输出的是它自己 {heads} 个头的输出在最后一维上的拼接；它在 torch.cat "
                  "之后的投影（{projection}，与书中附加材料的包装类一样）被评分器设为恒等映射：3.2 考查的是各个头和输出宽度，"
                  "而不是其后的部分。",
        },
        "concat.mismatch": {
            "en": "Your MultiHeadAttentionWrapper's output is not its own heads' outputs concatenated with "
                  "torch.cat(..., dim=-1) (shape {got} vs {expected}, largest difference {diff:.3g}).",
            "zh": "你的 MultiHeadAttentionWrapper 的输出不是它自己各头输出用 torch.cat(..., dim=-1) 拼接的结果"
                  "（形状 {got} 对 {expected}，最大差值 {diff:.3g}）。",
        },
        "concat.nan": {
            "en": "Your MultiHeadAttentionWrapper's output is NaN at token {count:position/positions} {tokens}, where "
                  "its own heads, run one by one on the same input, give numbers: the NaN comes from the wrapper's "
                  "forward, not from the heads (a softmax or a division of its own over values that are all -inf "
                  "or 0). Return torch.cat([head(x) for head in self.heads], dim=-1).",
            "zh": "你的 MultiHeadAttentionWrapper 的输出在第 {tokens} 个 Token 位置上是 NaN，而它自己的各个头在同一"
                  "输入上逐个运行时给出的是数值：NaN 来自包装类的 forward，而不是来自各个头（它自己对全为 -inf 或 0 的值"
                  "做了 softmax 或除法）。请返回 torch.cat([head(x) for head in self.heads], dim=-1)。",
        },
        "concat.no_heads": {
            "en": "Your MultiHeadAttentionWrapper keeps no heads the grader can run: keep them in an nn.ModuleList "
                  "(self.heads = nn.ModuleList([...])).",
            "zh": "你的 MultiHeadAttentionWrapper 中没有评分器能运行的头：请把它们放进 nn.ModuleList"
                  "（self.heads = nn.ModuleList([...])）。",
        },
    },
)


def head_names(info: dict[str, Any]) -> list[str]:
    """Direct children of a ModuleList, e.g. heads.0 and heads.1."""
    return [m["name"] for m in info.get("modules", []) if re.fullmatch(r"\w+\.\d+", m["name"])]


def dims(info: dict[str, Any]) -> tuple[int, int] | None:
    """(d_in, context_length) of a wrapper, read from its first head's weight and mask (not from a projection
    after torch.cat the wrapper may define before its heads); None when it has none, or one wider than any
    input the judge draws."""
    params = info.get("parameters", [])
    heads = per_head(params)
    weights = [p["shape"] for p in (next(iter(heads.values())) if heads else params) if len(p["shape"]) == 2]
    masks = [b["shape"] for b in info.get("buffers", []) if len(b["shape"]) == 2]
    if not weights or not 0 < weights[0][1] <= MAX_WIDTH:
        return None
    return weights[0][1], masks[0][0] if masks else 6


@EXERCISE.check("answer", points=4, title={"en": "2 heads, 2-dim context vectors",
                                           "zh": "2 个头，二维上下文向量"})
def answer(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    builder = function(sb, "build_two_dim_wrapper")
    if builder is not None:
        for d_in, ctx in FRESH:
            wrapper = sb.call_module(builder, d_in, ctx, label=f"build_two_dim_wrapper({d_in}, {ctx})")
            outcome = with_object(judge_wrapper(sb, wrapper, d_in, ctx, rng), builder)
            if outcome.status != "passed":
                return outcome
        return outcome
    # A notebook usually also holds the book's 4-dim demo and may rebind the answer's name later,
    # so every wrapper it ever built is a candidate (found by object, not by name), newest first.
    outcomes: list[tuple[Outcome, Obj]] = []
    for wrapper in reversed(instances(sb, [WRAPPER])):
        found = dims(wrapper.info)
        if found is None:
            continue
        try:
            outcome = judge_wrapper(sb, wrapper, *found, rng)
        except ProbeFailure as exc:
            outcome = probe_failure_outcome(exc)
        if outcome.status == "passed":
            return with_object(outcome, wrapper)
        outcomes.append((outcome, wrapper))
    if not outcomes:
        raise NotFound("not_found.answer", hint=markdown_hint(sb))
    return graded_failure(outcomes)


def graded_failure(outcomes: list[tuple[Outcome, Obj]]) -> Outcome:
    """Of the wrappers that fail, newest first, the one the exercise describes: 2 heads (a 12-head wrapper
    built for 3.3 is not a 3.2 answer), else the newest; where there are several, the message says which
    one was graded."""
    outcome, wrapper = min(outcomes, key=lambda found: len(head_names(found[1].info)) != 2)
    others = list(dict.fromkeys(w.name for _, w in outcomes if w.name != wrapper.name))  # a name rebound: once
    if others:
        two = len(head_names(wrapper.info)) == 2
        graded = Msg(f"3.2.answer.graded_{'two_heads' if two else 'newest'}", {"name": wrapper.name,
                                                                                "others": ", ".join(others)})
        outcome = replace(outcome, args={**outcome.args, "graded": graded},
                          evidence={**outcome.evidence, "graded": wrapper.name, "others": others})
    return with_object(outcome, wrapper)


def judge_wrapper(sb: SandboxClient, wrapper: Obj, d_in: int, ctx: int, rng: torch.Generator) -> Outcome:
    """2 heads whose weights are query, key and value of one dimension, giving 2-dim context vectors."""
    tokens, out = run_wrapper(sb, wrapper, d_in, ctx, rng)
    heads = len(head_names(wrapper.info))
    shape = list(out.shape)
    width = shape[-1] if shape else 0
    if heads != 2 and width == 2:
        return failed("answer.changed_heads", name=wrapper.name, heads=heads, graded="")
    if shape != [2, tokens, 2]:
        return failed("answer.wrong_width", {"shape": shape}, name=wrapper.name, width=width, shape=shape, graded="")
    if constant(out):
        return computes_nothing(wrapper.name, out)
    mapped = heads_with_weights(sb, wrapper, rng, d_in, 1, tokens)
    if mapped is None or len(mapped[0]) != 2:
        return failed("answer.unmapped", name=wrapper.name, shape=shape, graded="")
    return passed("answer.ok", name=wrapper.name, shape=shape)


def run_wrapper(sb: SandboxClient, wrapper: Obj, d_in: int, ctx: int, rng: torch.Generator) -> tuple[int, torch.Tensor]:
    """(tokens, output) of the wrapper on two inputs of a few tokens, else of its whole context, where heads
    whose mask is not cut to the sequence still run (the mask exercise charges that). Raises what the few
    tokens raised when neither runs."""
    label = f"{wrapper.name}(x)"
    tokens = min(ctx, 6)
    try:
        return tokens, sb.forward(wrapper, torch.randn(2, tokens, d_in, generator=rng), label=label)
    except StudentError as exc:
        if tokens == ctx:
            raise
        error = exc
    try:
        return ctx, sb.forward(wrapper, torch.randn(2, ctx, d_in, generator=rng), label=label)
    except StudentError:
        raise error from None


def heads_with_weights(sb: SandboxClient, wrapper: Obj, rng: torch.Generator, d_in: int, d_out: int,
                       tokens: int) -> tuple[list[Roles], dict[str, torch.Tensor]] | None:
    """Fresh weights for the wrapper's heads (map_heads), by their names, else by what each weight does; the
    names are the child's claim, so weights mapped by them must also give what those heads compute."""
    params = wrapper.info.get("parameters", [])
    mapped = map_heads(params, rng, d_in, d_out)
    if mapped is not None:
        return mapped if computes_heads(sb, wrapper, *mapped, d_in, tokens, rng) else None
    layout = wrapper_layout(sb, wrapper, rng, d_in, d_out, tokens)  # found by what the weights do
    return map_heads(params, rng, d_in, d_out, layout) if layout else None


@EXERCISE.check("concat", points=2, title={"en": "The wrapper concatenates its heads",
                                           "zh": "包装类拼接各头的输出"})
def concat(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    """The wrapper's output against its own heads' outputs side by side, on its whole context (where even
    heads whose mask is not cut to the sequence run): whatever the heads compute, that is the concatenation."""
    cls = the_class(sb, WRAPPER)
    return with_object(_concat(sb, build(sb, cls, chapter3, *CONCAT_ARGS), rng), cls)


def _concat(sb: SandboxClient, wrapper: Obj, rng: torch.Generator) -> Outcome:
    names = head_names(wrapper.info)
    if len(names) < 2:
        return failed("concat.no_heads")
    d_in, d_out, ctx = CONCAT_ARGS[0], CONCAT_ARGS[1], CONCAT_ARGS[2]
    projection = neutral_projection(sb, wrapper, d_out * len(names))
    x = torch.randn(2, ctx, d_in, generator=rng)
    got = sb.forward(wrapper, x)
    if constant(got):
        return computes_nothing(wrapper.cls, got)
    heads = [sb.submodule(wrapper, name) for name in names]
    expected = torch.cat([sb.forward(head, x, label=f"{wrapper.cls}.{name}.forward")
                          for head, name in zip(heads, names)], dim=-1)
    if not close(got, expected, equal_nan=True):
        nan = nan_tokens(got, expected)
        if nan:
            return failed("concat.nan", comparison(expected, got), **nan)
        return failed("concat.mismatch", comparison(expected, got), got=list(got.shape),
                      expected=list(expected.shape), diff=max_diff(got, expected))
    if projection is not None:
        return passed("concat.ok_projected", {"projection": projection}, heads=len(names), projection=projection)
    return passed("concat.ok", heads=len(names))
