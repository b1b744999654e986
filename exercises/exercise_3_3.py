"""Exercise 3.3: a GPT-2-small-sized MultiHeadAttention (768 -> 768, 12 heads, 1024-token context).

The parameter count, the heads and the mask the child reports are claims (its description of itself runs
in the submission's process and may be rewritten), so the module is run: the judge's weights go in (mapped
by name, else by what each weight does) and the output must be what attention computes with them. The
count passes only where it does (the reference, one of the usual bugs, another head count: the heads are
`heads`' to charge); the context only where the module, with the same weights, also gives on 1024 tokens
what that attention gives, the causal mask's effect at every position included: a GPT-2-sized forward that
costs more than everything else graded in chapter 3, and the one computation that needs the context.

This exercise judges the configuration only: a forward with a bug inside the attention (the mask, the
scaling, a transpose) still shows 12 heads of 64 when it is one of the usual bugs run with 12 heads, and
passes with a note that leaves the bug to the mask exercise. Where its output is no attention the judge
models (a mask that lets the future through, keys computed with the query projection), the judge loads
weights of its own that show the split whatever each head computes (exercises/_split.py): one forward on 12
tokens shows the counted weights at work (the count) and 12 heads of 64 (the heads), and the one forward on
1024 tokens shows them at work there, the last token seeing the first (the context). What each head computes
is the mask exercise's to charge.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import torch

from grader.checks import (
    BudgetExhausted, ChildCrashed, Exercise, NotFound, Obj, Outcome, ProbeTimeout, SandboxClient, StudentError,
    close, comparison, computes_nothing, constant, failed, function, graded_as, instances, markdown_hint, max_diff,
    nan_tokens, passed, trainable_count, with_object,
)
from grader.solutions import chapter3
from ._attention import RECENT, Roles, attend, book_state, bug_of, reference_output, reproduces, with_out_proj
from ._layout import map_attention
from ._split import Split, split_weights
from .mask import bug_note

D_MODEL, HEADS, CONTEXT = 768, 12, 1024
# Tokens the module runs on: from two on, every other split of 768 into heads mixes them differently, and
# 12 (as many as heads) is the one length where a forward missing its split transpose still runs.
TOKENS = HEADS
# ... and runs on no other length, so no computation on 1024 tokens shows anything of such a module: its context
# rests on its run on TOKENS with the judge's weights and on its mask (the bug is the mask exercise's).
TOKENS_ONLY = "no_split_transpose"
EXPECTED_COUNT = 2_360_064
KNOWN_COUNTS = {
    2_362_368: "count.qkv_bias",
    1_769_472: "count.no_out_proj",
    3_408_640: "count.mask_parameter",
}
OTHER_HEADS = (1, 2, 3, 4, 6, 8, 16, 24, 32)

EXERCISE = Exercise(
    id="3.3",
    title={"en": "A GPT-2-sized attention module", "zh": "初始化 GPT-2 规模的注意力模块"},
    statement={
        "en": "Using the MultiHeadAttention class, initialize a multi-head attention module that has the "
              "same number of attention heads as the smallest GPT-2 model (12 attention heads). Also ensure "
              "that you use the respective input and output embedding sizes similar to GPT-2 (768 "
              "dimensions). Note that the smallest GPT-2 model supports a context length of 1024 tokens.",
        "zh": "使用 MultiHeadAttention 类，初始化一个具有与最小 GPT-2 模型相同数量的注意力头（12 个注意力头）的"
              "MultiHeadAttention 模块。同时确保你使用与 GPT-2 相似的输入和输出嵌入规模（768 维）。"
              "请注意，最小的 GPT-2 模型支持 1024 个 Token 的上下文长度。",
    },
    reference=chapter3,
    order=3,
    messages={
        "not_found.answer": {
            "en": "no build_gpt2_small_attention() function and no MultiHeadAttention object with 768-dim "
                  "weights{hint}.",
            "zh": "没有 build_gpt2_small_attention() 函数，也没有 768 维权重的 MultiHeadAttention 对象{hint}。",
        },
        "count.ok": {
            "en": "{name} has 2,360,064 trainable parameters, as GPT-2 small's attention does.",
            "zh": "{name} 有 2,360,064 个可训练参数，与 GPT-2 small 的注意力层一致。",
        },
        "count.qkv_bias": {
            "en": "{name} has {count:,} trainable parameters: 2,304 too many, the biases of qkv_bias=True. "
                  "The book's count uses qkv_bias=False.",
            "zh": "{name} 有 {count:,} 个可训练参数：多了 2,304 个，即 qkv_bias=True 的偏置。书中的计数使用 qkv_bias=False。",
        },
        "count.no_out_proj": {
            "en": "{name} has {count:,} trainable parameters: the output projection out_proj "
                  "(768×768 + 768) is missing.",
            "zh": "{name} 有 {count:,} 个可训练参数：缺少输出投影 out_proj（768×768 + 768）。",
        },
        "count.mask_parameter": {
            "en": "{name} has {count:,} trainable parameters: the 1024×1024 mask is an nn.Parameter. "
                  "Register it with self.register_buffer('mask', ...) so it is not trained.",
            "zh": "{name} 有 {count:,} 个可训练参数：1024×1024 的掩码被注册成了 nn.Parameter。"
                  "请用 self.register_buffer('mask', ...) 注册，使其不参与训练。",
        },
        "count.unconfirmed": {
            "en": "{name} reports {count:,} trainable parameters, but with the grader's weights loaded into them its "
                  "output is not what attention computes with those weights, so the count is not confirmed.",
            "zh": "{name} 报告有 {count:,} 个可训练参数，但把评分器的权重载入这些参数后，它的输出并不是注意力用这些权重"
                  "计算的结果，因此无法确认这个数目。",
        },
        "count.other": {
            "en": "{name} has {count:,} trainable parameters; GPT-2 small's attention has 2,360,064.",
            "zh": "{name} 有 {count:,} 个可训练参数；GPT-2 small 的注意力层有 2,360,064 个。",
        },
        "heads.ok": {
            "en": "With the grader's weights, {name} computes 12 heads of 64 dims, 768 in and out.",
            "zh": "载入评分器的权重后，{name} 计算 12 个 64 维的头，输入输出均为 768 维。",
        },
        "heads.ok_buggy": {
            "en": "With the grader's weights, {name} computes 12 heads of 64 dims, 768 in and out, but with a bug "
                  "inside the attention, which the mask exercise charges: {diagnosis}",
            "zh": "载入评分器的权重后，{name} 计算 12 个 64 维的头，输入输出均为 768 维，但注意力计算中有一个错误"
                  "（由因果掩码练习扣分）：{diagnosis}",
        },
        "heads.ok_split": {
            "en": "With the grader's weights, {name} computes 12 heads of 64 dims, 768 in and out, each head alike, but "
                  "what the heads compute is not the book's attention (largest difference {diff:.3g} from a 12-head "
                  "reference with the same weights), which the mask exercise charges.",
            "zh": "载入评分器的权重后，{name} 计算 12 个 64 维的头，输入输出均为 768 维，每个头的计算方式相同；但各个头"
                  "计算的并不是书中的注意力（与使用相同权重的 12 头参考实现的最大差值为 {diff:.3g}），这个错误由因果掩码"
                  "练习扣分。",
        },
        "heads.wrong_heads": {
            "en": "{name} behaves like {heads} heads of {head_dim}, not 12 heads of 64: use num_heads=12.",
            "zh": "{name} 的行为相当于 {heads} 个 {head_dim} 维的头，而不是 12 个 64 维的头：请使用 num_heads=12。",
        },
        "heads.wrong_dims": {
            "en": "{name} maps {d_in} inputs to {d_out} outputs; GPT-2 small uses 768 in and 768 out.",
            "zh": "{name} 把 {d_in} 维输入映射到 {d_out} 维输出；GPT-2 small 输入输出均为 768 维。",
        },
        "heads.unmapped": {
            "en": "{name}'s weights cannot be matched to query/key/value/out_proj of 768×768, neither by their "
                  "names nor by what each one does, so its heads cannot be confirmed.",
            "zh": "{name} 的权重无法对应到 768×768 的 query/key/value/out_proj：按名称不行，按每个权重的作用也不行，"
                  "因此无法确认它的头。",
        },
        "heads.nan": {
            "en": "{name}'s output is NaN at token {count:position/positions} {tokens}, where a 12-head reference "
                  "with the same weights gives numbers. A NaN in attention comes from the causal mask: a row of "
                  "attention scores set to -inf everywhere (a token that may see nothing, not even itself, as "
                  "with torch.triu(..., diagonal=0)) makes softmax divide 0 by 0. The mask exercise charges "
                  "that bug; until it is fixed, this check cannot see whether the heads are right.",
            "zh": "{name} 的输出在第 {tokens} 个 Token 位置上是 NaN，而使用相同权重的 12 头参考实现给出的是数值。"
                  "注意力中的 NaN 来自因果掩码：某一行注意力分数全部被设为 -inf（某个 Token 什么都看不到，连自己也看不到，"
                  "例如用了 torch.triu(..., diagonal=0)），softmax 就会出现 0 除以 0。这个错误由 mask 练习扣分；"
                  "修正之前，本项检查无法判断各个头是否正确。",
        },
        "heads.out_proj_unused": {
            "en": "{name} defines out_proj but its forward never applies it: with the grader's weights, its output is "
                  "12 heads of 64 merged, without the projection. End the forward with "
                  "context_vec = self.out_proj(context_vec).",
            "zh": "{name} 定义了 out_proj，但 forward 中从未使用它：载入评分器的权重后，它的输出是 12 个 64 维的头合并后的"
                  "结果，没有经过输出投影。请在 forward 最后加上 context_vec = self.out_proj(context_vec)。",
        },
        "heads.mismatch": {
            "en": "{name} differs from a 12-head reference with the same weights (largest difference {diff:.3g}).",
            "zh": "{name} 与使用相同权重的 12 头参考实现不同（最大差值 {diff:.3g}）。",
        },
        "context.ok": {
            "en": "{name} handles a full 1024-token context.",
            "zh": "{name} 能处理完整的 1024 个 Token 的上下文。",
        },
        "context.mask_ok": {
            "en": "{name}'s causal mask ({buffer}) covers 1024 tokens, GPT-2 small's full context.",
            "zh": "{name} 的因果掩码（{buffer}）覆盖 1024 个 Token，即 GPT-2 small 的完整上下文。",
        },
        "context.mask_ok_unsliced": {
            "en": "{name}'s causal mask ({buffer}) covers 1024 tokens, GPT-2 small's full context. It only runs on "
                  "all {size} tokens, which the mask exercise charges: {diagnosis}",
            "zh": "{name} 的因果掩码（{buffer}）覆盖 1024 个 Token，即 GPT-2 small 的完整上下文。但它只能在全部 "
                  "{size} 个 Token 上运行（由因果掩码练习扣分）：{diagnosis}",
        },
        "context.wrong": {
            "en": "{name}'s mask is {size}×{size}: GPT-2 small's context length is 1024.",
            "zh": "{name} 的掩码是 {size}×{size}：GPT-2 small 的上下文长度是 1024。",
        },
        "context.unconfirmed": {
            "en": "{name} is not shown to handle a 1024-token context: with the grader's weights loaded, its output "
                  "on {tokens} tokens is not what its attention computes with those weights.",
            "zh": "无法证明 {name} 能处理 1024 个 Token 的上下文：载入评分器的权重后，它在 {tokens} 个 Token 上的输出"
                  "不是它的注意力用这些权重计算的结果。",
        },
        "context.split_unshown": {
            "en": "{name} is not shown to handle a 1024-token context: with the grader's weights loaded, its output "
                  "on 1024 tokens does not show those weights at work over the whole sequence: the last token's "
                  "output does not follow the first token.",
            "zh": "无法证明 {name} 能处理 1024 个 Token 的上下文：载入评分器的权重后，它在 1024 个 Token 上的输出没有显示出"
                  "这些权重在整个序列上起作用：最后一个 Token 的输出不随第一个 Token 而变。",
        },
        "context.shape": {
            "en": "{name} returned shape {shape} for a {input} input.",
            "zh": "{name} 对 {input} 的输入返回了形状 {shape}。",
        },
    },
)


def the_answer(sb: SandboxClient) -> tuple[Obj, Obj]:
    """(the module, what the submission holds): the builder and its module, else the submission's
    768-wide MultiHeadAttention (the newest), twice. The three checks share one built module: building
    a GPT-2-sized one costs more than any of them. Each check that grades a near-named class's instance says
    so, not only the first, which found it."""
    answer = sb.memo("3.3 answer", lambda: _find_answer(sb))
    if answer[1].kind == "module" and answer[1].cls != "MultiHeadAttention":
        graded_as("MultiHeadAttention", answer[1].cls)
    return answer


def _find_answer(sb: SandboxClient) -> tuple[Obj, Obj]:
    builder = function(sb, "build_gpt2_small_attention")
    if builder is not None:
        return sb.call_module(builder, label="build_gpt2_small_attention()"), builder
    found = [m for m in instances(sb, ["MultiHeadAttention"]) if _is_768(m.info)]
    if not found:
        raise NotFound("not_found.answer", hint=markdown_hint(sb))
    exact = [m for m in found if trainable_count(m.info) == EXPECTED_COUNT]
    answer = (exact or found)[-1]
    return answer, answer


def _is_768(info: dict[str, Any]) -> bool:
    return any(D_MODEL in p["shape"] for p in info.get("parameters", []))


def inert(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Outcome | None:
    """The failure of a module whose output is the same for two different inputs: its count and its
    context would otherwise pass without it computing anything."""
    out = judged_run(sb, module, rng).out
    return computes_nothing(module.name, out) if constant(out) else None


@dataclass(frozen=True)
class Run:
    """The module run once per child on two fresh inputs x: with the judge's weights where they map to its
    parameters (roles), else with its own. All three checks read it: one GPT-2-sized forward for them all."""

    x: torch.Tensor  # (2, TOKENS, 768)
    out: torch.Tensor  # the outputs for x's tokens
    tokens: int  # the length it ran on: TOKENS, or its mask's whole length
    shape: list[int]  # the shape it returned for that length
    roles: Roles | None
    whole: tuple[torch.Tensor, torch.Tensor] | None = None  # (input, output) where it ran on its whole mask


def judged_run(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Run:
    return sb.memo("3.3 run", lambda: _judged_run(sb, module, rng))


def _judged_run(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Run:
    x = torch.randn(2, TOKENS, D_MODEL, generator=rng)
    found = map_attention(sb, module, rng, x, num_heads=HEADS, d_in=D_MODEL, d_out=D_MODEL, out_proj=True)
    roles = None
    if found is not None:
        roles, state = found
        sb.load_state(module, state)
    try:
        out = sb.forward(module, x)
        return Run(x, out, TOKENS, list(out.shape), roles)
    except StudentError as exc:
        size, error = mask_size(module), exc
        if size in (None, TOKENS):
            raise
    # It runs only on its whole mask (one not cut to the sequence, the mask exercise's bug), on x followed by
    # more tokens, which the first outputs of a causal module do not see.
    more = torch.randn(2, size - TOKENS, D_MODEL, generator=rng)
    whole = torch.cat([x, more], dim=1)
    try:
        out = sb.forward(module, whole, timeout=30)
    except StudentError:
        raise error from None
    return Run(x, out[:, :TOKENS] if out.dim() > 1 else out, size, list(out.shape), roles, (whole, out))


def mask_size(module: Obj) -> int | None:
    """The length of the module's causal mask, if it keeps one of a size the judge would run."""
    sizes = [m["shape"][-1] for m in _square_masks(module.info) if 1 < m["shape"][-1] <= CONTEXT]
    return sizes[0] if sizes else None


@EXERCISE.check("parameters", points=2, title={"en": "2,360,064 trainable parameters",
                                               "zh": "2,360,064 个可训练参数"})
def parameters(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    module, origin = the_answer(sb)
    try:
        problem = inert(sb, module, rng)
    except (StudentError, ProbeTimeout, BudgetExhausted, ChildCrashed):
        problem = None  # raised, hung or crashed: charged by heads and context; a bad or lying answer is not
    if problem is not None:
        return with_object(problem, origin)
    count = trainable_count(module.info)
    breakdown = {"parameters": trainable(module.info.get("parameters", [])),
                 "reference_parameters": reference_parameters()}
    if count != EXPECTED_COUNT:
        outcome = failed(KNOWN_COUNTS.get(count, "count.other"),
                         {"count": count, "expected": EXPECTED_COUNT, **breakdown}, name=module.name, count=count)
        return with_object(outcome, origin)
    try:
        shown = explanation(sb, module, rng)
    except (StudentError, ProbeTimeout, BudgetExhausted, ChildCrashed):
        shown = None  # nothing ran with the judge's weights: the count, the child's word, stays unconfirmed
    if shown is None:
        return with_object(failed("count.unconfirmed", {"count": count, **breakdown}, name=module.name, count=count),
                           origin)
    return with_object(passed("count.ok", {"count": count, **breakdown}, name=module.name), origin)


@dataclass(frozen=True)
class Model:
    """Attention that, with the judge's weights, computes what the module returned: its head count, one of
    attend's bugs or none, and whether it applies its out_proj. Or, where the module's attention is none of
    these, the split weights (now loaded into it) that showed themselves at work whatever each head computes,
    and whether they showed 12 heads of 64 (`twelve`)."""

    heads: int = HEADS
    bug: str | None = None
    projected: bool = True
    split: Split | None = None
    twelve: bool = True

    def __call__(self, x: torch.Tensor, roles: Roles) -> torch.Tensor:
        return attend(x, roles if self.projected else replace(roles, o=None, o_b=None), self.heads, self.bug)


def explanation(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Model | None:
    """What the judged run's output is, computed here from the judge's weights; None when nothing explains it
    (its weights unmapped, or an output that is not attention with them). The count and the context pass only
    where it is found: they are the child's claims until the weights they describe are seen at work. Where
    no model gives the judged run's output, the bug is inside the attention, and the split weights show the
    configuration instead (_split)."""
    return sb.memo("3.3 model", lambda: _explain(judged_run(sb, module, rng)) or _split(sb, module, rng))


def _explain(run: Run) -> Model | None:
    roles, x, got = run.roles, run.x, run.out
    if roles is None:
        return None
    if close(got, reference(run)):
        return Model()
    bug = bug_of(got, lambda bug: attend(x, roles, HEADS, bug))
    if bug is not None:
        return Model(bug=bug)
    if roles.o is not None and close(got, Model(projected=False)(x, roles)):
        return Model(projected=False)
    # computed from the roles: a GPT-2-sized reference module per count would cost more
    return next((Model(heads=h) for h in OTHER_HEADS if close(got, attend(x, roles, h))), None)


def _split(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Model | None:
    """The split weights loaded into the module (in the layout its names give, with the biases and the out
    projection its judged run mapped), one forward on TOKENS tokens, and a Model holding them where its output
    shows them at work, saying whether it shows 12 heads of 64 (exercises/_split.py); None where it does not,
    or where it cannot be tried: weights mapped only by what they do, or a module that runs only on its whole
    mask (a second long forward)."""
    run = judged_run(sb, module, rng)
    if run.roles is None or run.tokens != TOKENS:
        return None
    split = split_weights(module.info.get("parameters", []), rng, HEADS, D_MODEL, D_MODEL, run.roles)
    if split is None:
        return None
    try:
        out = sb.forward(module, split.input(rng, TOKENS), load_first=split.state)
    except StudentError:
        return None  # it ran with the judge's random weights: what it raises with these shows no split
    shown = split.shown(out, TOKENS)
    return Model(split=split, twelve=shown.twelve) if shown.at_work else None


def reference(run: Run) -> torch.Tensor:
    """What the 12-head reference from solutions/ computes on the run's input with the judge's weights."""
    assert run.roles is not None
    roles = run.roles
    return reference_output(chapter3.MultiHeadAttention, (D_MODEL, D_MODEL, CONTEXT, 0.0, HEADS, roles.q_b is not None),
                            book_state(with_out_proj(roles)), run.x)


def trainable(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Name, shape and size of each trainable parameter, for the page's per-layer breakdown."""
    return [{"name": p["name"], "shape": list(p["shape"]), "count": math.prod(p["shape"])}
            for p in params if p.get("requires_grad")]


@cache
def reference_parameters() -> list[dict[str, Any]]:
    """The same breakdown for the reference answer, built here in the judge from solutions/."""
    module = chapter3.MultiHeadAttention(D_MODEL, D_MODEL, CONTEXT, 0.0, HEADS)
    return [{"name": n, "shape": list(p.shape), "count": p.numel()}
            for n, p in module.named_parameters() if p.requires_grad]


@EXERCISE.check("heads", points=2, title={"en": "12 heads of 64, 768 in and out",
                                          "zh": "12 个 64 维的头，输入输出 768 维"})
def heads(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    module, origin = the_answer(sb)
    return with_object(_heads(sb, module, rng), origin)


def _heads(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Outcome:
    """12 heads of 64 with the judge's weights (mapped by the names, else by what each weight does, qkv biases
    and a missing out_proj included: those are the count's to charge)."""
    try:
        run = judged_run(sb, module, rng)
    except StudentError:
        wrong = wrong_dims(module)  # what a forward raises on 768-dim inputs then
        if wrong is None:
            raise
        return wrong
    if run.roles is None:
        return wrong_dims(module) or failed("heads.unmapped", name=module.name)
    shown, got = explanation(sb, module, rng), run.out
    if shown == Model():
        return passed("heads.ok", name=module.name)
    if shown is not None and shown.bug is not None:
        note = bug_note(shown.bug)
        return passed("heads.ok_buggy", {"diagnosis": note.key}, name=module.name, diagnosis=note)
    expected = reference(run)
    if shown is not None and shown.split is not None:
        if shown.twelve:
            return passed("heads.ok_split", comparison(expected, got), name=module.name,
                          diff=max_diff(got, expected))
        shown = None  # its weights at work, its heads not 12 of 64: what they compute says no more
    if shown is not None and not shown.projected:
        return failed("heads.out_proj_unused", comparison(expected, got), name=module.name)
    if shown is not None:
        return failed("heads.wrong_heads", comparison(expected, got), name=module.name, heads=shown.heads,
                      head_dim=D_MODEL // shown.heads)
    nan = nan_tokens(got, expected)
    if nan:
        return failed("heads.nan", comparison(expected, got), name=module.name, **nan)
    return failed("heads.mismatch", comparison(expected, got), name=module.name, diff=max_diff(got, expected))


def wrong_dims(module: Obj) -> Outcome | None:
    """The failure of a module whose first weight is not 768 by 768, in its own numbers."""
    params = module.info.get("parameters", [])
    weights = [p["shape"] for p in params if p["name"].endswith("weight") and len(p["shape"]) == 2]
    if weights and tuple(weights[0]) != (D_MODEL, D_MODEL):
        return failed("heads.wrong_dims", name=module.name, d_in=weights[0][1], d_out=weights[0][0])
    return None


@EXERCISE.check("context", points=2, title={"en": "A 1024-token context that works",
                                            "zh": "可用的 1024 Token 上下文"})
def context(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    module, origin = the_answer(sb)
    return with_object(_context(sb, module, rng), origin)


def _context(sb: SandboxClient, module: Obj, rng: torch.Generator) -> Outcome:
    masks = [m for m in _square_masks(module.info) if m["shape"][-1] > 1]
    fitting = [m for m in masks if m["shape"][-1] == CONTEXT]
    if masks and not fitting:
        return failed("context.wrong", {"mask": masks[0]}, name=module.name, size=masks[0]["shape"][-1])
    run = judged_run(sb, module, rng)
    shape = [2, run.tokens, D_MODEL]
    if run.shape != shape:
        return failed("context.shape", name=module.name, shape=run.shape, input=tuple(shape))
    problem = inert(sb, module, rng)
    if problem is not None:
        return problem
    shown = explanation(sb, module, rng)
    if shown is None or run.roles is None:
        return failed("context.unconfirmed", name=module.name, tokens=run.tokens)
    problem = long_run(sb, module, run, shown, rng)
    if problem is not None:
        return problem
    if not fitting:
        return passed("context.ok", name=module.name)
    evidence, buffer = {"mask": fitting[0]}, fitting[0]["name"]
    if shape[1] != TOKENS:  # it ran only on the whole mask: not cut to the sequence
        note = bug_note("mask_not_sliced")
        return passed("context.mask_ok_unsliced", {**evidence, "diagnosis": note.key},
                      name=module.name, buffer=buffer, size=shape[1], diagnosis=note)
    return passed("context.mask_ok", evidence, name=module.name, buffer=buffer)


def long_run(sb: SandboxClient, module: Obj, run: Run, shown: Model, rng: torch.Generator) -> Outcome | None:
    """The failure of a module that, with the judge's weights, does not give on 1024 tokens what its attention
    (shown on a few) gives there: what its mask claims, measured. None where it does, or where that attention
    runs on no other length than the few (TOKENS_ONLY). Where the split weights showed themselves at work
    (attention the judge does not model), the same weights, loaded, must show it on 1024 tokens too, the last
    token's output following the first token."""
    assert run.roles is not None
    if shown.bug == TOKENS_ONLY:
        return None
    if shown.split is not None:
        return split_long_run(sb, module, shown.split, rng)
    x, got = run.whole if run.whole is not None and run.tokens == CONTEXT else (None, None)
    if x is None:
        x = torch.randn(1, CONTEXT, D_MODEL, generator=rng)
    expected = RECENT.get(shown, x, run.roles)  # the same for a class on one draw
    if got is None:
        got = sb.forward(module, x, timeout=30)
    if list(got.shape) != list(x.shape):
        return failed("context.shape", name=module.name, shape=list(got.shape), input=tuple(x.shape))
    if not reproduces(got, lambda: expected):
        return failed("context.unconfirmed", comparison(expected, got), name=module.name, tokens=CONTEXT)
    return None


def split_long_run(sb: SandboxClient, module: Obj, split: Split, rng: torch.Generator) -> Outcome | None:
    """long_run with the split weights (loaded by _split): the failure of a module whose output on 1024 tokens
    does not show them at work, the last token's output following the first token; None where it does."""
    x = split.input(rng, CONTEXT)
    got = sb.forward(module, x, timeout=30)
    if list(got.shape) != list(x.shape):
        return failed("context.shape", name=module.name, shape=list(got.shape), input=tuple(x.shape))
    if not split.shown(got, CONTEXT).sees_first:
        return failed("context.split_unshown", name=module.name)
    return None


def _square_masks(info: dict[str, Any]) -> list[dict[str, Any]]:
    """Tensors ending in a square (n, n): every such buffer, and a parameter named as a mask (the
    mask_parameter slip); a weight is never one of them, since 768x768 weights are parameters."""
    named = [p for p in info.get("parameters", []) if "mask" in p["name"].lower()]
    return [{"name": t["name"], "shape": list(t["shape"])} for t in info.get("buffers", []) + named
            if len(t["shape"]) >= 2 and t["shape"][-1] == t["shape"][-2]]
