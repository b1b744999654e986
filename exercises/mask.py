"""Causal masking: every causal attention class the submission defines, checked by behaviour.

Correct attention is written in many styles (-inf before softmax, tril and renormalise, SDPA,
einsum, fused qkv...), so the checks do not read code: they perturb future tokens, repeat tokens,
shorten sequences, and compare with the reference with the judge's weights (mapped by name, else by what
each weight does). When a class fails, its output is compared with models of the usual bugs so the message
can name the mistake. Every check first asks that the class's output moves with its input: one that
computes nothing passes none of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Callable

import torch

from grader.checks import (
    BadReturn, Exercise, Msg, NotFound, Obj, Outcome, SandboxClient, StudentError, build, classes, close,
    comparison, computes_nothing, constant, failed, max_diff, passed, sample, with_object,
)
from grader.solutions import chapter3
from ._attention import (
    BUGS,
    attend,
    book_state,
    heads_state,
    map_heads,
    one_token_changed,
    reference_output,
    reproduces,
    with_out_proj,
)
from ._layout import map_attention, neutral_projection, wrapper_layout

CONTEXT = 8
SHORT = (1, 2, 5)
CHANGED = 1e-4  # an output "depends on" a token when perturbing it moves the output by more than this


@dataclass(frozen=True)
class Target:
    """A causal class, how the checks build it (dropout 0), and what its weights look like."""

    name: str
    args: tuple[Any, ...]
    d_in: int
    d_out: int  # per head for the wrapper
    num_heads: int
    wrapper: bool = False
    out_proj: bool = False


TARGETS = (
    Target("CausalAttention", (5, 4, CONTEXT, 0.0), 5, 4, 1),
    Target("MultiHeadAttentionWrapper", (5, 3, CONTEXT, 0.0, 2), 5, 3, 2, wrapper=True),
    Target("MultiHeadAttention", (5, 8, CONTEXT, 0.0, 2), 5, 8, 2, out_proj=True),
)

EXERCISE = Exercise(
    id="mask",
    title={"en": "Causal masking", "zh": "因果掩码"},
    statement={
        "en": "Every causal attention class you define (CausalAttention, MultiHeadAttentionWrapper, "
              "MultiHeadAttention) must let each token attend only to itself and earlier tokens, work for "
              "sequences shorter than its context length, and normalise its attention weights (book "
              "sections 3.5 and 3.6). The grader builds each class with dropout 0 and fresh inputs.",
        "zh": "你定义的每个因果注意力类（CausalAttention、MultiHeadAttentionWrapper、MultiHeadAttention）"
              "都必须让每个 Token 只关注自己和之前的 Token，能处理比上下文长度短的序列，并对注意力权重归一化"
              "（见书 3.5 和 3.6 节）。评分器以 dropout 0 和新的随机输入构建每个类。",
    },
    causes={
        "bug.diagonal_zero": r"\b(triu|tril)\b|diagonal",
        "bug.inverted_mask": r"\b(triu|tril)\b|masked_fill|~",
        "bug.mask_not_applied": r"masked_fill|\bmask",
        "bug.softmax_wrong_dim": r"softmax",
        "bug.no_scaling": r"softmax|\*\*\s*0?\.5|sqrt",
        "bug.scale_by_d_out": r"softmax|\*\*\s*0?\.5|sqrt",
        "bug.no_split_transpose": r"\.(view|reshape|transpose|permute)\(",
        "bug.no_merge_transpose": r"\.(transpose|permute|contiguous|view|reshape)\(",
        "bug.mask_not_sliced": r"\bmask\w*\s*=|masked_fill",
        "bug.mask_after_softmax_no_renorm": r"softmax|masked_fill|\b(triu|tril)\b",
        "bug.query_key_swapped": r"@|matmul|bmm|einsum",
        "bug.softmax_heads_dim": r"softmax",
        "bug.mask_shifted": r"\b(triu|tril)\b|diagonal|masked_fill",
        "bug.scale_by_tokens": r"softmax|\*\*\s*0?\.5|sqrt",
    },
    reference=chapter3,
    order=4,
    messages={
        "not_found.classes": {
            "en": "no CausalAttention, MultiHeadAttentionWrapper or MultiHeadAttention class.",
            "zh": "没有 CausalAttention、MultiHeadAttentionWrapper 或 MultiHeadAttention 类。",
        },
        "causal.ok": {"en": "No output depends on a later token ({classes}).",
                      "zh": "没有任何输出依赖于之后的 Token（{classes}）。"},
        "causal.leak": {
            "en": "{cls}: output {i} changes when token {j} changes, a later token ({count} of {total} future "
                  "positions leak). {diagnosis}",
            "zh": "{cls}：改变第 {j} 个 Token（之后的 Token）时第 {i} 个输出也改变了（{total} 个未来位置中有 "
                  "{count} 个泄漏）。{diagnosis}",
        },
        "first.ok": {"en": "The first token attends only to itself ({classes}).",
                     "zh": "第一个 Token 只关注它自己（{classes}）。"},
        "first.nan": {
            "en": "{cls}: the first token's output is NaN. {diagnosis}",
            "zh": "{cls}：第一个 Token 的输出是 NaN。{diagnosis}",
        },
        "first.leak": {
            "en": "{cls}: the first token's output changes when later tokens change. {diagnosis}",
            "zh": "{cls}：改变之后的 Token 时，第一个 Token 的输出也改变了。{diagnosis}",
        },
        "short.ok": {"en": "Sequences of {lengths} tokens (shorter than the context of {context}) work.",
                     "zh": "长度为 {lengths} 的序列（短于上下文长度 {context}）都能运行。"},
        "short.raised": {
            "en": "{cls}, which the grader built with context_length={context}, fails on a sequence of {tokens} "
                  "{tokens:token/tokens}: {error}. Slice the mask to the sequence: "
                  "self.mask.bool()[:num_tokens, :num_tokens] (book section 3.5.3).",
            "zh": "{cls}（评分器以 context_length={context} 构建）在 {tokens} 个 Token 的序列上出错：{error}。"
                  "请把掩码裁剪到序列长度：self.mask.bool()[:num_tokens, :num_tokens]（见书 3.5.3 节）。",
        },
        "short.unsliced": {
            "en": "{cls}: the first {tokens} {tokens:token/tokens} of a sequence, run alone, give other outputs than the first "
                  "{tokens} of the whole sequence's {context}, though no output depends on a later token. {diagnosis}",
            "zh": "{cls}：单独运行一个序列的前 {tokens} 个 Token，得到的输出与整个序列（{context} 个 Token）的前 "
                  "{tokens} 个输出不同，而任何输出都不依赖之后的 Token。{diagnosis}",
        },
        "short.shape": {
            "en": "{cls} returned shape {shape} for {tokens} {tokens:token/tokens}.",
            "zh": "{cls} 对 {tokens} 个 Token 返回了形状 {shape}。",
        },
        "normalised.ok": {"en": "Identical tokens give identical outputs: the weights are normalised ({classes}).",
                          "zh": "相同的 Token 得到相同的输出：注意力权重已归一化（{classes}）。"},
        "normalised.wrong": {
            "en": "{cls}: a sequence of identical tokens gives different outputs ({difference}), so each "
                  "row of attention weights does not sum to 1. {diagnosis}",
            "zh": "{cls}：由相同 Token 组成的序列得到了不同的输出（{difference}），说明注意力权重的每一行之和不为 1。"
                  "{diagnosis}",
        },
        "finite.ok": {"en": "No NaN or infinity in the outputs ({classes}).",
                      "zh": "输出中没有 NaN 或无穷大（{classes}）。"},
        "finite.wrong": {
            "en": "{cls}: {values}. {diagnosis}",
            "zh": "{cls}：{values}。{diagnosis}",
        },
        "reference.ok": {"en": "With the grader's weights, the outputs equal the reference ({classes}).",
                         "zh": "载入评分器的权重后，输出与参考实现一致（{classes}）。"},
        "reference.ok_projected": {
            "en": "With the grader's weights, the outputs equal the reference ({classes}), with "
                  "MultiHeadAttentionWrapper's projection after torch.cat ({projection}) set to the identity: this "
                  "exercise judges the masking inside the heads, not what follows them.",
            "zh": "载入评分器的权重后，输出与参考实现一致（{classes}）；其中 MultiHeadAttentionWrapper 在 torch.cat 之后的投影"
                  "（{projection}）被设为恒等映射：本练习考查的是各个头内部的掩码，而不是其后的部分。",
        },
        "reference.mismatch": {
            "en": "{cls}: with the grader's weights, the output for {tokens} {tokens:token/tokens} differs from the reference "
                  "({difference}). {diagnosis}",
            "zh": "{cls}：载入评分器的权重后，{tokens} 个 Token 的输出与参考实现不同（{difference}）。"
                  "{diagnosis}",
        },
        # the pieces of the messages above: a difference (one that is NaN says where it comes from), and
        # which output values are not finite, counted and listed as a person would
        "difference": {"en": "difference {diff:.3g}", "zh": "差值 {diff:.3g}"},
        "difference.largest": {"en": "largest difference {diff:.3g}", "zh": "最大差值 {diff:.3g}"},
        "difference.nan": {"en": "some values are NaN", "zh": "部分值是 NaN"},
        "values.some": {
            "en": "{count} output {count:value is/values are} NaN or infinite ({rows:row/rows} {listed})",
            "zh": "有 {count} 个输出值是 NaN 或无穷大（第 {listed} 行）",
        },
        "values.every": {"en": "every output value is NaN or infinite",
                         "zh": "每个输出值都是 NaN 或无穷大"},
        "reference.unmapped": {
            "en": "{cls}: its weights could not be matched to query/key/value(/out_proj), neither by their names "
                  "nor by trying each weight in each role, so its output cannot be compared with the reference. "
                  "Keep the book's layers: W_query, W_key, W_value (and out_proj).",
            "zh": "{cls}：它的权重无法对应到 query/key/value(/out_proj)，按名称不行，逐个尝试每个权重的角色也不行，"
                  "因此无法与参考实现比较输出。请保留书中的层：W_query、W_key、W_value（以及 out_proj）。",
        },
        "bug.diagonal_zero": {
            "en": "The mask hides each token from itself: use torch.triu(..., diagonal=1), not diagonal=0.",
            "zh": "掩码把每个 Token 对自身也遮住了：应使用 torch.triu(..., diagonal=1)，而不是 diagonal=0。",
        },
        "bug.inverted_mask": {
            "en": "The mask is inverted: it hides earlier tokens and lets later ones through. Mask the entries "
                  "above the diagonal (the future).",
            "zh": "掩码反了：它遮住了之前的 Token，却放过了之后的 Token。应遮住对角线以上（未来）的位置。",
        },
        "bug.mask_not_applied": {
            "en": "The mask is not applied: masked_fill returns a new tensor, so assign it "
                  "(attn_scores = attn_scores.masked_fill(...)) or use masked_fill_.",
            "zh": "掩码没有生效：masked_fill 返回新张量，需要赋值（attn_scores = attn_scores.masked_fill(...)）"
                  "或使用 masked_fill_。",
        },
        "bug.softmax_wrong_dim": {
            "en": "The softmax runs over the wrong dim: normalise each query's row of scores with dim=-1.",
            "zh": "softmax 的维度不对：应使用 dim=-1，对每个查询的那一行分数归一化。",
        },
        "bug.no_scaling": {
            "en": "The scores are not scaled: divide by sqrt(head_dim), keys.shape[-1]**0.5.",
            "zh": "注意力分数没有缩放：应除以 sqrt(head_dim)，即 keys.shape[-1]**0.5。",
        },
        "bug.scale_by_d_out": {
            "en": "The scores are scaled by sqrt(d_out); with several heads the scale is sqrt(head_dim).",
            "zh": "注意力分数除以了 sqrt(d_out)；多头时应除以 sqrt(head_dim)。",
        },
        "bug.no_split_transpose": {
            "en": "After .view(b, num_tokens, num_heads, head_dim), queries, keys and values need "
                  ".transpose(1, 2) so each head attends over tokens.",
            "zh": ".view(b, num_tokens, num_heads, head_dim) 之后，queries、keys、values 需要 .transpose(1, 2)，"
                  "这样每个头才在 Token 维上计算注意力。",
        },
        "bug.no_merge_transpose": {
            "en": "Merging the heads needs .transpose(1, 2) before .contiguous().view(b, num_tokens, d_out).",
            "zh": "合并各头时，需要先 .transpose(1, 2)，再 .contiguous().view(b, num_tokens, d_out)。",
        },
        "bug.mask_after_softmax_no_renorm": {
            "en": "The mask is applied after the softmax without renormalising: divide each row by its sum, "
                  "or mask with -inf before the softmax.",
            "zh": "掩码在 softmax 之后应用却没有重新归一化：请把每一行除以它的和，或在 softmax 之前用 -inf 掩码。",
        },
        "bug.query_key_swapped": {
            "en": "The queries and keys are swapped: the scores are queries @ keys.transpose(...), with the queries "
                  "from W_query and the keys from W_key.",
            "zh": "queries 和 keys 互换了：注意力分数应为 queries @ keys.transpose(...)，其中 queries 来自 W_query，"
                  "keys 来自 W_key。",
        },
        "bug.softmax_heads_dim": {
            "en": "The softmax runs over the wrong dim: dim=1 of the (b, num_heads, num_tokens, num_tokens) scores "
                  "is the heads. Normalise each query's row of scores with dim=-1.",
            "zh": "softmax 的维度不对：(b, num_heads, num_tokens, num_tokens) 的注意力分数中 dim=1 是头的维度。"
                  "应使用 dim=-1，对每个查询的那一行分数归一化。",
        },
        "bug.mask_shifted": {
            "en": "The mask is shifted by a row: each token also sees the next one. Hide every entry above the "
                  "diagonal, torch.triu(..., diagonal=1).",
            "zh": "掩码错开了一行：每个 Token 还能看到下一个 Token。应遮住对角线以上的所有位置，"
                  "即 torch.triu(..., diagonal=1)。",
        },
        "bug.scale_by_tokens": {
            "en": "The scores are scaled by the number of tokens (keys.shape[1] is num_tokens): divide by "
                  "sqrt(head_dim), keys.shape[-1]**0.5.",
            "zh": "注意力分数除以了 Token 数量的平方根（keys.shape[1] 是 num_tokens）：应除以 sqrt(head_dim)，"
                  "即 keys.shape[-1]**0.5。",
        },
        "bug.mask_not_sliced": {
            "en": "The mask is not cut to the sequence: slice it, self.mask.bool()[:num_tokens, :num_tokens] "
                  "(book section 3.5.3).",
            "zh": "掩码没有裁剪到序列长度：请切片，self.mask.bool()[:num_tokens, :num_tokens]（见书 3.5.3 节）。",
        },
        "bug.unknown": {
            "en": "Compare your forward with book listing 3.3 / 3.5 step by step.",
            "zh": "请将你的 forward 与书中清单 3.3 / 3.5 逐步对照。",
        },
    },
)


Model = Callable[[torch.Tensor, "str | None"], torch.Tensor]


@dataclass(frozen=True)
class Loaded:
    """The judge's weights for a student's module: what to load into it (`weights`, by its own names), its model
    (with or without a bug), and what the reference from solutions/ is built with and holds for the same weights."""

    weights: dict[str, torch.Tensor]
    model: Model
    args: tuple[Any, ...]
    state: dict[str, torch.Tensor]
    projection: str | None = None  # a wrapper's projection after torch.cat, set to the identity (neutral_projection)


def load_weights(sb: SandboxClient, target: Target, module: Obj, rng: torch.Generator) -> Loaded | None:
    """Fresh weights for the student's module, mapped to its own names (by name, else by what each weight does);
    None when they map to no role. Not loaded yet: the caller loads them, with its first forward where it can (one
    round trip for the two)."""
    params = module.info.get("parameters", [])
    args, projection = target.args, None
    if target.wrapper:
        projection = neutral_projection(sb, module, target.d_out * target.num_heads)
        mapped = map_heads(params, rng, target.d_in, target.d_out)
        if mapped is None:
            layout = wrapper_layout(sb, module, rng, target.d_in, target.d_out, CONTEXT)
            mapped = map_heads(params, rng, target.d_in, target.d_out, layout) if layout else None
        if mapped is None or len(mapped[0]) != target.num_heads:
            return None
        head_roles, state = mapped

        def model(x: torch.Tensor, bug: str | None) -> torch.Tensor:
            return torch.cat([attend(x, r, 1, bug) for r in head_roles], dim=-1)

        reference = heads_state(head_roles)
    else:
        x = torch.randn(2, CONTEXT, target.d_in, generator=rng)
        found = map_attention(sb, module, rng, x, num_heads=target.num_heads, d_in=target.d_in,
                              d_out=target.d_out, out_proj=target.out_proj, identity_out=True)
        if found is None:
            return None
        roles, state = found

        def model(x: torch.Tensor, bug: str | None) -> torch.Tensor:
            return attend(x, roles, target.num_heads, bug)

        # The reference always projects (the identity here: what follows the attention is 3.3's to judge) and
        # has biases only when asked: a module without out_proj, or one with biases, is compared with what the
        # reference computes for the same weights.
        reference = book_state(with_out_proj(roles) if target.out_proj else roles)
        args += (roles.q_b is not None,)
    return Loaded(state, model, args, reference, projection)


def diagnose(sb: SandboxClient, target: Target, cls: Obj, rng: torch.Generator, *, unsliced: bool = False) -> Msg:
    """Name the bug whose model reproduces this class's outputs (on a fresh instance) at every length it runs,
    if one does: a model that fits one length only (NaN on one token, say) is not what the class does.
    For prefixes that differ from the whole sequence's first outputs (`unsliced`), a class that no bug model
    reproduces but that is right on its whole context, the one length where an uncut mask is the whole
    mask, has a mask not cut to the sequence; without that evidence nothing is named."""
    module = build(sb, cls, chapter3, *target.args)
    loaded = load_weights(sb, target, module, rng)
    if loaded is None:
        return Msg("mask.bug.unknown")
    # Loaded on its own, not with the first forward: a load that raises ends the diagnosis, where a forward that
    # raises only leaves its length out.
    sb.load_state(module, loaded.weights)
    candidates, whole_right = list(BUGS), False
    # num_heads tokens first: the only length at which a missing split transpose still runs.
    for tokens in (target.num_heads, CONTEXT):
        x = torch.randn(2, tokens, target.d_in, generator=rng)
        try:
            got = sb.forward(module, x)
        except StudentError:
            continue
        with torch.no_grad():
            candidates = [bug for bug in candidates if reproduces(got, partial(loaded.model, x, bug))]
            whole_right = tokens == CONTEXT and reproduces(got, partial(loaded.model, x, None))
    if candidates:
        return bug_note(candidates[0])
    return bug_note("mask_not_sliced") if unsliced and whole_right else Msg("mask.bug.unknown")


def failed_with_diagnosis(sb: SandboxClient, target: Target, cls: Obj, rng: torch.Generator, key: str,
                          evidence: dict[str, Any] | None = None, **args: Any) -> Outcome:
    """A failure whose message ends with the named bug (also kept in the evidence as `diagnosis`)."""
    diagnosis = diagnose(sb, target, cls, rng)
    return failed(key, {**(evidence or {}), "class": target.name, "diagnosis": diagnosis.key},
                  cls=target.name, diagnosis=diagnosis, **args)


def difference(diff: float, key: str) -> Msg:
    """A difference as a message says it: its size (`key`), or, where it is NaN, that outputs are NaN."""
    return Msg("mask.difference.nan") if math.isnan(diff) else Msg(key, {"diff": diff})


def bug_note(bug: str) -> Msg:
    """How this exercise names one of attend's bugs, for another exercise's note that leaves it here."""
    return Msg(f"mask.bug.{bug}")


# -- building the classes ----------------------------------------------------------------------------
def targets(sb: SandboxClient) -> list[tuple[Target, Obj]]:
    """Each causal class the submission defines, with how to build it."""
    found = []
    for target in TARGETS:
        defined = classes(sb, target.name)
        if defined:
            found.append((target, defined[-1]))
    if not found:
        raise NotFound("not_found.classes")
    return found


def _classes(found: list[tuple[Target, Obj]]) -> str:
    return ", ".join(t.name for t, _ in found)


def perturbed_outputs(sb: SandboxClient, target: Target, module: Obj, rng: torch.Generator) -> torch.Tensor:
    """The module's outputs for a fresh sequence and its one-token-changed copies (one_token_changed),
    measured once per class: every check first asks whether they move at all, and "causal", "first_token"
    and "finite" read them. An output that is not one row per token of each sequence is a bad return."""
    label = f"{target.name}.forward"
    out = sb.memo(f"mask outputs {target.name}",
                  lambda: sb.forward(module, one_token_changed(rng, CONTEXT, target.d_in), label=label))
    return _per_token(out, target, CONTEXT + 1, CONTEXT)


def _per_token(out: torch.Tensor, target: Target, batch: int, tokens: int) -> torch.Tensor:
    if out.dim() != 3 or list(out.shape[:2]) != [batch, tokens]:
        raise BadReturn(f"{target.name}.forward",
                        f"shape {list(out.shape)} for an input of shape {[batch, tokens, target.d_in]}")
    return out


def visibility(sb: SandboxClient, target: Target, module: Obj, rng: torch.Generator
               ) -> tuple[list[list[int]], torch.Tensor]:
    """Who sees whom, measured: row i, column j is 1 when output i moves as token j is replaced."""
    out = perturbed_outputs(sb, target, module, rng)
    base = out[0]
    moved = (out[1:] - base).abs().amax(dim=-1) > CHANGED  # row j: the outputs that moved with token j
    return moved.T.int().tolist(), base


def inert(sb: SandboxClient, target: Target, module: Obj, rng: torch.Generator) -> Outcome | None:
    """The failure of a class whose outputs stay the same as its input changes: whatever a check looks for
    (no leak, normalised rows, no NaN) would hold of it without showing anything. None when they move, or
    when the class cannot answer the full context at all: the check itself then says what went wrong."""
    try:
        out = perturbed_outputs(sb, target, module, rng)
    except (StudentError, BadReturn):
        return None
    return computes_nothing(target.name, out) if constant(out) else None


# -- checks -----------------------------------------------------------------------------------------
Judge = Callable[[Target, Obj, Obj], "Outcome | None"]


def each_class(sb: SandboxClient, rng: torch.Generator, ok_key: str, judge: Judge,
               evidence: dict[str, Any] | None = None, *, fresh: bool = False, **ok_args: Any) -> Outcome:
    """Judge every causal class; the first failure is the check's verdict.

    The checks that only run a class with its own weights share one instance of it (built once per
    sandbox, as building costs more than a forward); a check that loads weights or runs other lengths
    asks for a `fresh` one, so what it does cannot change what the others see.
    A judge may fill `evidence` as it goes, so a pass shows what was measured on the last class.
    A class whose output does not move with its input fails before it is judged (inert).
    """
    found = targets(sb)
    for target, cls in found:
        module = build(sb, cls, chapter3, *target.args) if fresh else sb.memo(
            f"mask instance {target.name}", lambda: build(sb, cls, chapter3, *target.args))
        problem = inert(sb, target, module, rng) or judge(target, cls, module)
        if problem is not None:
            return with_object(problem, cls)
    return with_object(passed(ok_key, evidence, classes=_classes(found), **ok_args), found[-1][1])


@EXERCISE.check("causal", points=3, title={"en": "No output depends on a later token",
                                           "zh": "输出不依赖之后的 Token"})
def causal(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    measured: dict[str, Any] = {}

    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        matrix, _ = visibility(sb, target, module, rng)
        measured.update({"matrix": matrix, "class": target.name})
        leaks = [(i, j) for i in range(CONTEXT) for j in range(i + 1, CONTEXT) if matrix[i][j]]
        if not leaks:
            return None
        i, j = leaks[0]
        return failed_with_diagnosis(sb, target, cls, rng, "causal.leak", {"matrix": matrix}, i=i, j=j,
                                     count=len(leaks), total=CONTEXT * (CONTEXT - 1) // 2)

    return each_class(sb, rng, "causal.ok", judge, measured)


@EXERCISE.check("first_token", points=2, title={"en": "The first token sees only itself",
                                                "zh": "第一个 Token 只看到自己"})
def first_token(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    measured: dict[str, Any] = {}

    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        matrix, base = visibility(sb, target, module, rng)
        measured.update({"matrix": matrix, "class": target.name})
        if not torch.isfinite(base[0]).all():
            return failed_with_diagnosis(sb, target, cls, rng, "first.nan", {"matrix": matrix})
        if any(matrix[0][1:]):
            return failed_with_diagnosis(sb, target, cls, rng, "first.leak", {"matrix": matrix})
        return None

    return each_class(sb, rng, "first.ok", judge, measured)


@EXERCISE.check("short", points=2, title={"en": "Sequences shorter than the context work",
                                          "zh": "短于上下文长度的序列可用"})
def short(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        x = torch.randn(2, CONTEXT, target.d_in, generator=rng)
        # The shortest first, the full length last (a class may keep what it first saw): one that runs some
        # lengths and not others has a mask that is not cut to the sequence, indexed [n, n] say.
        lengths = (*SHORT, CONTEXT)
        ran, raised = sb.forward_each(module, [x[:, :tokens].contiguous() for tokens in lengths])
        outs = dict(zip(lengths, ran))
        for tokens, out in outs.items():
            if list(out.shape[:2]) != [2, tokens]:
                return failed("short.shape", cls=target.name, tokens=tokens, shape=list(out.shape))
        if raised is not None:
            tokens = lengths[len(ran)]
            if tokens != CONTEXT:
                sb.forward(module, x)  # only a short-sequence problem if the full context length runs
            error = f"{raised.detail.get('type')}: {raised.detail.get('message', '')}"
            return failed("short.raised", {"error": raised.detail}, cls=target.name, tokens=tokens,
                          context=CONTEXT, error=error[:300].rstrip("."))
        # On the longest short one: one token alone may be all NaN for a mask bug that other checks charge.
        if constant(outs[SHORT[-1]]):
            return computes_nothing(target.name, outs[SHORT[-1]])
        return unsliced(sb, target, cls, rng, outs) if causal_class(sb, target, module, rng) else None

    return each_class(sb, rng, "short.ok", judge, fresh=True, lengths=", ".join(map(str, SHORT)), context=CONTEXT)


def causal_class(sb: SandboxClient, target: Target, module: Obj, rng: torch.Generator) -> bool:
    """Whether no output of the class moves with a later token (visibility): only then are the outputs for
    a prefix of a sequence the first outputs for all of it; a leak is the causal check's to charge."""
    matrix, _ = visibility(sb, target, module, rng)
    return not any(matrix[i][j] for i in range(CONTEXT) for j in range(i + 1, CONTEXT))


def unsliced(sb: SandboxClient, target: Target, cls: Obj, rng: torch.Generator,
             outs: dict[int, torch.Tensor]) -> Outcome | None:
    """The failure of a causal class whose outputs for the first tokens alone are not its first outputs for
    the whole sequence (outs[CONTEXT]). Where the whole sequence gives NaN there is nothing to compare: the
    NaN is the finite check's to charge, and a short sequence that gives numbers there works."""
    full = outs[CONTEXT]
    for tokens in SHORT:
        shown = torch.isfinite(full[:, :tokens])
        if outs[tokens].shape != shown.shape or not close(outs[tokens][shown], full[:, :tokens][shown]):
            diagnosis = diagnose(sb, target, cls, rng, unsliced=True)
            return failed("short.unsliced", {**comparison(full[:, :tokens], outs[tokens]), "class": target.name,
                                             "diagnosis": diagnosis.key},
                          cls=target.name, tokens=tokens, context=CONTEXT, diagnosis=diagnosis)
    return None


@EXERCISE.check("normalised", points=2, title={"en": "Attention weights are normalised",
                                               "zh": "注意力权重已归一化"})
def normalised(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        token = torch.randn(1, 1, target.d_in, generator=rng)
        out = _per_token(sb.forward(module, token.expand(1, CONTEXT, target.d_in).contiguous()), target, 1, CONTEXT)[0]
        spread = max_diff(out, out[:1].expand_as(out))
        if spread <= 1e-5:
            return None
        return failed_with_diagnosis(sb, target, cls, rng, "normalised.wrong",
                                     {"rows": [sample(r, 4) for r in out[:4]]},
                                     difference=difference(spread, "mask.difference"))

    return each_class(sb, rng, "normalised.ok", judge)


@EXERCISE.check("finite", points=1, title={"en": "No NaN in the outputs", "zh": "输出中没有 NaN"})
def finite(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        bad = ~torch.isfinite(perturbed_outputs(sb, target, module, rng))
        if not bad.any():
            return None
        rows = sorted({int(r) for r in bad.nonzero()[:, 1]})
        values = Msg("mask.values.every") if bad.all() else Msg(
            "mask.values.some", {"count": int(bad.sum()), "rows": len(rows), "listed": ", ".join(map(str, rows))})
        return failed_with_diagnosis(sb, target, cls, rng, "finite.wrong", {"rows": rows}, values=values)

    return each_class(sb, rng, "finite.ok", judge)


@EXERCISE.check("reference", points=2, title={"en": "Equal to the reference with the same weights",
                                              "zh": "相同权重下与参考实现一致"})
def reference(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    projections: list[str] = []

    def judge(target: Target, cls: Obj, module: Obj) -> Outcome | None:
        loaded = load_weights(sb, target, module, rng)
        if loaded is None:
            return failed("reference.unmapped", cls=target.name)
        if loaded.projection is not None:
            projections.append(loaded.projection)
        # num_heads tokens first: a missing split transpose runs there. Loaded and run in one round trip; a length
        # that raises is the failure once the lengths before it matched.
        inputs = [torch.randn(2, tokens, target.d_in, generator=rng) for tokens in (target.num_heads, CONTEXT)]
        outputs, raised = sb.forward_each(module, inputs, load_first=loaded.weights)
        for x, got in zip(inputs, outputs):
            expected = reference_output(getattr(chapter3, target.name), loaded.args, loaded.state, x)
            if not close(got, expected):
                return failed_with_diagnosis(sb, target, cls, rng, "reference.mismatch",
                                             comparison(expected, got),
                                             tokens=x.shape[1],
                                             difference=difference(max_diff(got, expected), "mask.difference.largest"))
        if raised is not None:
            raise raised
        return None

    outcome = each_class(sb, rng, "reference.ok", judge, fresh=True)
    if outcome.status == "passed" and projections:  # the note says what the comparison left out
        return replace(outcome, key="reference.ok_projected", args={**outcome.args, "projection": projections[0]})
    return outcome
