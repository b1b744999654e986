"""gpt.head: one head of causal self-attention, as the lecture's `Head(head_size)`.

The judge builds the student's class as the lecture does, `Head(head_size)` with a head_size it chooses
(the class reads n_embd, block_size and dropout from the notebook's globals), or through the constructor
the student wrote where it takes those sizes by the lecture's names (`Head(n_embd, head_size)`), reads
n_embd and block_size back from the shapes of its weights and mask, writes fresh weights into it, and
compares its forward (eval mode, so dropout is off) with solutions/gpt_attention.Head. A head that matches a model of
a known mistake instead is told which: the lecture's first, unscaled version; scaling by C**-0.5 (n_embd);
no mask; the mask applied after the softmax. Causality is its own check, by perturbing future tokens.
Weights whose names say nothing are matched to key/query/value by what they do; a head whose weights
cannot be matched, or whose output does not move with its input, fails the checks that rest on them.
A head under a name of the student's own is the one class the judge can build as a Head and that maps
(B, T, n_embd) to (B, T, head_size) (`_by_shape`), graded with a note.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from grader.checks import (
    BadReturn, ChildCrashed, Exercise, Msg, NotFound, Obj, Outcome, ProbeTimeout, SandboxClient, StudentError,
    Verdict, arguments, canonical, close, comparison, computes_nothing, constant, failed, found_as, max_diff, passed,
    with_object,
)
from grader.solutions import gpt_attention
from ._attention import (
    MAX_WIDTH,
    Roles,
    degenerate,
    one_token_changed,
    random_roles,
    reference_output,
    roles_from_state,
    student_state,
)
from . import _found
from ._layout import find_layout, roles_read

HEAD_SIZES = (16, 8)  # the judge's head_size; the second one when the student's n_embd is the first
LONGEST = 8  # tokens in the causal and reference checks (fewer when block_size is smaller)
SHORT = (1, 3)
CHANGED = 1e-4  # an output "depends on" a token when perturbing it moves the output by more than this
GLOBALS = {"n_embd": 32, "block_size": LONGEST}  # what a constructor taking them gets where the notebook has none
KNOWN = ("head_size", "d_out", "n_embd", "d_in", "block_size", "context_length", "dropout")  # names it can be given
MAX_CANDIDATES = 8  # classes of the submission's own built as a Head to find it under another name
TRIAL_S = 5.0  # seconds a class tried as the head may take on a few tokens
BUGS = ("unscaled", "scale_n_embd", "scale_up", "no_mask", "mask_after_softmax", "mask_after_softmax_inf",
        "softmax_dim", "query_key_swapped")

EXERCISE = Exercise(
    id="gpt.head",
    title={"en": "A single head of causal self-attention", "zh": "单头因果自注意力"},
    statement={
        "en": "Write the lecture's Head(head_size): key, query and value are nn.Linear(n_embd, head_size, "
              "bias=False); the scores q @ k.transpose(-2, -1) are scaled by head_size**-0.5, masked with a "
              "lower-triangular tril buffer so that no token sees a later one, softmaxed over the last dim and "
              "applied to v. The grader builds Head with a head_size of its choice, loads fresh weights, and "
              "compares the output with the reference in eval mode (dropout off).",
        "zh": "实现课程中的 Head(head_size)：key、query、value 为 nn.Linear(n_embd, head_size, bias=False)；"
              "注意力分数 q @ k.transpose(-2, -1) 乘以 head_size**-0.5 进行缩放，用下三角的 tril 缓冲区做掩码，"
              "使任何 Token 都看不到之后的 Token，在最后一维上做 softmax，再作用于 v。评分器以自选的 head_size "
              "构建 Head，载入新的权重，并在 eval 模式（关闭 dropout）下将输出与参考实现比较。",
    },
    causes={
        "bug.unscaled": r"softmax|\*\*\s*-?0?\.5|sqrt|@",
        "bug.scale_n_embd": r"\*\*\s*-?0?\.5|sqrt",
        "bug.scale_up": r"\*\*\s*-?0?\.5|sqrt",
        "bug.no_mask": r"masked_fill|\btril\b",
        "bug.mask_after_softmax": r"softmax|masked_fill",
        "bug.mask_after_softmax_inf": r"softmax|masked_fill",
        "bug.softmax_dim": r"softmax",
        "bug.query_key_swapped": r"@|matmul|transpose",
    },
    reference=gpt_attention,
    order=205,
    group="gpt",
    messages={
        "not_found.class": {
            "en": "no class {name} (an nn.Module). Write the head as the lecture's class Head(head_size), so that "
                  "it can be built and tested; attention computed inline in a cell cannot be.",
            "zh": "没有类 {name}（nn.Module）。请像课程中那样把注意力头写成类 Head(head_size)，这样才能构建并测试它；"
                  "直接在单元格中计算的注意力无法测试。",
        },
        "unmapped": {
            "en": "The weights of your Head ({names}) could not be matched to key/query/value, neither by their "
                  "names nor by trying each weight in each role, so it cannot be compared with the reference: "
                  "keep the lecture's nn.Linear layers key, query and value.",
            "zh": "你的 Head 的权重（{names}）无法对应到 key/query/value：按名称不行，逐个尝试每个权重的角色也不行，"
                  "因此无法与参考实现比较。请保留课程中的 nn.Linear 层 key、query、value。",
        },
        "signature": {
            "en": "Head({params}) could not be built ({error}): the grader gives a Head's parameters by the "
                  "lecture's names (head_size, n_embd, block_size, dropout) and did not understand {unknown}. "
                  "Name them as the lecture does, or build a Head in your file, so that it can be judged.",
            "zh": "无法构建 Head({params})（{error}）：评分器按课程中的名称（head_size、n_embd、block_size、dropout）"
                  "传入 Head 的参数，无法理解 {unknown}。请按课程的方式命名，或在文件中构建一个 Head，以便评分。",
        },
        "causal.ok": {"en": "No output of your Head depends on a later token ({tokens} tokens).",
                      "zh": "你的 Head 的输出都不依赖于之后的 Token（{tokens} 个 Token）。"},
        "causal.leak": {
            "en": "Output {i} changes when token {j} changes, a later token ({count} of {total} future positions "
                  "leak). {diagnosis}",
            "zh": "改变第 {j} 个 Token（之后的 Token）时第 {i} 个输出也改变了（{total} 个未来位置中有 {count} 个泄漏）。"
                  "{diagnosis}",
        },
        "causal.not_finite": {
            "en": "{count} output values are NaN or infinite (rows {rows}), so no position can be shown to ignore "
                  "later tokens. {diagnosis}",
            "zh": "有 {count} 个输出值是 NaN 或无穷大（行 {rows}），因此无法证明各位置不受之后 Token 的影响。{diagnosis}",
        },
        "reference.ok": {
            "en": "With the grader's weights, Head({head_size}) equals the reference: causal, and scaled by "
                  "head_size**-0.5.",
            "zh": "载入评分器的权重后，Head({head_size}) 与参考实现一致：因果，并按 head_size**-0.5 缩放。",
        },
        "reference.unscaled": {
            "en": "Your head is causal and right except for the scale. The lecture's first version has no scaling, "
                  "but the softmax of unscaled scores saturates as head_size grows (the scores' variance is about "
                  "head_size, here {head_size}), so each token ends up attending to one other token. Multiply the "
                  "scores by head_size**-0.5: wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5.",
            "zh": "你的 Head 是因果的，除了缩放之外都正确。课程中的第一个版本没有缩放，但随着 head_size 增大，"
                  "未缩放分数的 softmax 会趋于饱和（分数的方差约为 head_size，这里是 {head_size}），每个 Token 最终"
                  "只关注另一个 Token。请把分数乘以 head_size**-0.5：wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5。",
        },
        "reference.scale_n_embd": {
            "en": "Your head scales the scores by C**-0.5, with C = n_embd = {n_embd} (the channels of x, as a slip in "
                  "the lecture's code has it), but the scores are dot products of head_size-dim queries and keys: "
                  "scale by head_size**-0.5 (k.shape[-1]**-0.5, here {head_size}**-0.5).",
            "zh": "你的 Head 用 C**-0.5 缩放分数，其中 C = n_embd = {n_embd}（x 的通道数，课程代码里的一个笔误正是"
                  "如此），但分数是 head_size 维的 query 与 key 的点积：应按 head_size**-0.5 缩放"
                  "（k.shape[-1]**-0.5，这里是 {head_size}**-0.5）。",
        },
        "reference.mismatch": {
            "en": "With the grader's weights, the output of Head({head_size}) differs from the reference (largest "
                  "difference {diff:.3g}). {diagnosis}",
            "zh": "载入评分器的权重后，Head({head_size}) 的输出与参考实现不同（最大差值 {diff:.3g}）。{diagnosis}",
        },
        "shape": {
            "en": "Head({head_size}) returned shape {got} for an input of shape {input}; expected {expected}.",
            "zh": "对形状为 {input} 的输入，Head({head_size}) 返回了形状 {got}；预期为 {expected}。",
        },
        "short.ok": {"en": "Sequences of {lengths} tokens (block_size {block_size}) work.",
                     "zh": "长度为 {lengths} 的序列（block_size 为 {block_size}）都能运行。"},
        "short.raised": {
            "en": "Head fails on a sequence of {tokens} {tokens:token/tokens} (block_size {block_size}): {error}. Slice the mask to "
                  "the sequence: self.tril[:T, :T].",
            "zh": "Head 在 {tokens} 个 Token（block_size 为 {block_size}）时出错：{error}。请把掩码裁剪到序列长度："
                  "self.tril[:T, :T]。",
        },
        "bug.unscaled": {"en": "The scores are not scaled: multiply them by head_size**-0.5.",
                         "zh": "分数没有缩放：请乘以 head_size**-0.5。"},
        "bug.scale_n_embd": {"en": "The scores are scaled by n_embd**-0.5; the scale is head_size**-0.5.",
                             "zh": "分数按 n_embd**-0.5 缩放了；应按 head_size**-0.5 缩放。"},
        "bug.scale_up": {
            "en": "The scores are multiplied by head_size**0.5: the exponent is -0.5 (divide by the square root).",
            "zh": "分数乘以了 head_size**0.5：指数应为 -0.5（除以平方根）。",
        },
        "bug.no_mask": {
            "en": "No mask is applied, so every token sees the later ones: "
                  "wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf')) before the softmax.",
            "zh": "没有应用掩码，每个 Token 都能看到之后的 Token：请在 softmax 之前写 "
                  "wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))。",
        },
        "bug.mask_after_softmax": {
            "en": "The mask is applied after the softmax: each row's softmax has already summed over the later "
                  "tokens' scores, so they still leak in and the weights no longer sum to 1. Mask with -inf before "
                  "the softmax.",
            "zh": "掩码在 softmax 之后才应用：每一行的 softmax 已经对之后 Token 的分数求和，它们仍会泄漏进来，"
                  "且权重之和不再为 1。请在 softmax 之前用 -inf 掩码。",
        },
        "bug.mask_after_softmax_inf": {
            "en": "The mask puts -inf into the weights after the softmax, and -inf times a value is infinite or NaN: "
                  "apply masked_fill(..., float('-inf')) to the scores before the softmax.",
            "zh": "掩码在 softmax 之后把 -inf 填进了权重，而 -inf 乘以数值会得到无穷大或 NaN：请在 softmax 之前对"
                  "分数使用 masked_fill(..., float('-inf'))。",
        },
        "bug.softmax_dim": {
            "en": "The softmax runs over the wrong dim: normalise each row of scores, F.softmax(wei, dim=-1).",
            "zh": "softmax 的维度不对：应对分数的每一行归一化，F.softmax(wei, dim=-1)。",
        },
        "bug.query_key_swapped": {
            "en": "Queries and keys are swapped: the scores are q @ k.transpose(-2, -1), query of row i against the "
                  "keys of the tokens it looks at.",
            "zh": "query 和 key 用反了：分数应为 q @ k.transpose(-2, -1)，第 i 行的 query 对它所关注的 Token 的 key。",
        },
        "bug.unknown": {"en": "Compare your forward with the lecture's Head step by step.",
                        "zh": "请将你的 forward 与课程中的 Head 逐步对照。"},
    },
)


# -- a model of the right computation and of the usual mistakes ----------------------------------------
def attend(x: torch.Tensor, roles: Roles, bug: str | None = None) -> torch.Tensor:
    """One causal head on x (B, T, n_embd) with the weights of `roles`, optionally with one named bug."""
    q, k, v = F.linear(x, roles.q, roles.q_b), F.linear(x, roles.k, roles.k_b), F.linear(x, roles.v, roles.v_b)
    head_size, n_embd, T = q.shape[-1], x.shape[-1], x.shape[1]
    if bug == "query_key_swapped":
        q, k = k, q
    scale = {"unscaled": 1.0, "scale_n_embd": n_embd**-0.5, "scale_up": head_size**0.5}.get(bug or "", head_size**-0.5)
    wei = q @ k.transpose(-2, -1) * scale
    future = torch.tril(torch.ones(T, T)) == 0
    if bug in ("mask_after_softmax", "mask_after_softmax_inf"):
        wei = F.softmax(wei, dim=-1).masked_fill(future, 0.0 if bug == "mask_after_softmax" else float("-inf"))
    else:
        if bug != "no_mask":
            wei = wei.masked_fill(future, float("-inf"))
        wei = F.softmax(wei, dim=-2 if bug == "softmax_dim" else -1)
    return wei @ v


def diagnose(x: torch.Tensor, roles: Roles, got: torch.Tensor) -> str:
    """The named bug whose model gives the student's output, else "unknown"."""
    for bug in BUGS:
        if close(got, attend(x, roles, bug), equal_nan=True):
            return bug
    return "unknown"


# -- building the student's head --------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    found: Obj  # what the page points at: the class, or the instance when the class could not be built
    module: Obj
    head_size: int
    n_embd: int
    block_size: int | None  # from the mask buffer's shape, when there is one
    own: bool = False  # the student's own instance: its weights are read, never overwritten


def _the_class(sb: SandboxClient, rng: torch.Generator) -> Obj:
    """The submission's class Head; where it has none, the one module class of its own that is a head by what
    the judge measures (`_by_shape`), noted."""
    found = [o for o in sb.inventory() if o.kind == "class" and o.cls == "Head" and o.info.get("is_module")]
    if found:
        return found[-1]
    cached = _FOUND.get(sb)
    if cached is None or cached[0] != sb.generation:
        cached = _FOUND[sb] = (sb.generation, _by_shape(sb, _found.derived(rng)))
    if cached[1] is None:
        raise NotFound("not_found.class", name="Head")
    found_as("Head", cached[1].cls)
    return cached[1]


_FOUND: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Obj | None]]" = weakref.WeakKeyDictionary()


def _by_shape(sb: SandboxClient, rng: torch.Generator) -> Obj | None:
    """The one module class of the submission's own (under no name of the book's or the lecture's:
    CausalAttention is the book's answer, MultiHeadAttention the lecture's next module) that the judge can build as
    the lecture builds a Head, with its head_size (`_fresh`: by the lecture's names, else Head(head_size)), and
    that maps a (B, T, n_embd) input to a (B, T, head_size) output that moves with it: its key, query and value
    of head_size outputs, whatever it computes with them (the checks judge that). None where none or several
    do: the judge never picks between two. The child's description of a class only chooses what to try."""
    others = _found.answers()
    classes = {o.cls: o for o in sb.inventory() if o.kind == "class" and o.info.get("is_module")
               and o.info.get("defined_here") and o.cls not in others}
    found = []
    try:
        for cls in list(classes.values())[:MAX_CANDIDATES]:
            params = [p for p in cls.info.get("params") or [] if isinstance(p, str)]
            try:
                built = _fresh(sb, cls, params)
                x = torch.randn(2, tokens(built), built.n_embd, generator=rng)
                out = sb.forward(built.module, x, label=f"{cls.cls}({built.head_size})", timeout=TRIAL_S)
            except (StudentError, BadReturn):
                continue
            if list(out.shape) == [2, x.shape[1], built.head_size] and not constant(out):
                found.append(cls)
    except (ProbeTimeout, ChildCrashed):  # a class that hangs or kills its process is no answer: none is found
        return None
    return found[0] if len(found) == 1 else None


def _weights(info: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in info.get("parameters", []) if len(p.get("shape", [])) == 2]


def _n_embd(info: dict[str, Any], head_size: int) -> int:
    """n_embd from a weight's shape: nn.Linear keeps (head_size, n_embd), a raw x @ W parameter the reverse."""
    for p in _weights(info):
        rows, cols = p["shape"]
        other = cols if rows == head_size else rows
        if head_size in (rows, cols) and 0 < other <= MAX_WIDTH:  # a width the judge can draw inputs of
            return int(other)
    raise BadReturn(f"Head({head_size})", "a module without key/query/value weights of head_size outputs")


def _block_size(info: dict[str, Any]) -> int | None:
    for t in [*info.get("buffers", []), *info.get("plain_tensors", [])]:
        shape = t.get("shape", [])
        if len(shape) == 2 and shape[0] == shape[1]:
            return int(shape[0])
    return None


def _instance(sb: SandboxClient, name: str = "Head") -> Obj | None:
    """A Head (an instance of the class `name`) the submission built: bound at the top level, else inside a
    module it bound (the lecture's MultiHeadAttention holds its heads)."""
    modules = [o for o in sb.inventory() if o.kind == "module"]
    for obj in reversed(modules):
        if obj.cls == name:
            return obj
    for obj in reversed(modules):
        for sub in obj.info.get("modules", []):
            if sub.get("class") == name and isinstance(sub.get("name"), str):
                return sb.submodule(obj, sub["name"])
    return None


def build(sb: SandboxClient, rng: torch.Generator) -> Built:
    """Head(head_size) as the lecture builds it, with a head_size that differs from the student's n_embd
    (otherwise scaling by n_embd**-0.5 could not be told from head_size**-0.5). A constructor that takes
    the lecture's other sizes too (`Head(n_embd, head_size)`) is called with each under the name it gave
    it (grader/checks/signatures.py), where the submission built no Head of its own to judge instead. When
    the class cannot be built (a parameter named otherwise, a global it reads is missing), a Head the
    submission built is judged; without one, the message names the parameters not understood."""
    cls = _the_class(sb, rng)
    params = [p for p in cls.info.get("params") or [] if isinstance(p, str)]
    by_name = bool(arguments(params, dict.fromkeys(KNOWN)).kwargs)  # not the lecture's signature
    instance = _instance(sb, cls.cls) if by_name else None
    if instance is None:
        try:
            return _fresh(sb, cls, params)
        except StudentError as error:
            instance = _instance(sb, cls.cls)
            verdict = _not_understood(cls, params, error) if instance is None else None
            if verdict is not None:
                raise verdict from error
            if instance is None:
                raise
    weights = _weights(instance.info)
    if not weights or not 0 < max(weights[0]["shape"]) <= MAX_WIDTH:
        raise BadReturn(instance.name, "a module without key/query/value weights")
    rows, cols = weights[0]["shape"]
    linear = weights[0]["name"].endswith(".weight")
    return Built(instance, instance, int(rows if linear else cols), int(cols if linear else rows),
                 _block_size(instance.info), own=True)


def _fresh(sb: SandboxClient, cls: Obj, params: list[str]) -> Built:
    """The class built by the judge, with the first of HEAD_SIZES that is not the head's n_embd."""
    for head_size in HEAD_SIZES:
        call = arguments(params, _known(sb, params, head_size), ("head_size",))
        module = sb.construct(cls, *call.args, **call.kwargs)
        n_embd = _n_embd(module.info, head_size)
        if n_embd != head_size:
            break
    return Built(cls, module, head_size, n_embd, _block_size(module.info))


def _known(sb: SandboxClient, params: list[str], head_size: int) -> dict[str, Any]:
    """The values a Head's constructor may ask for, by the lecture's names: the judge's head_size, and
    the notebook's own n_embd and block_size where the constructor takes them and the notebook has them
    (a class may use the parameter in one place and the global in another), else the lecture's."""
    asked = {canonical(p) for p in params} & {"n_embd", "d_in", "block_size", "context_length"}
    told = sb.variables(list(GLOBALS)) if asked else {}
    n_embd, block_size = (_size(told.get(name), default) for name, default in GLOBALS.items())
    return {"head_size": head_size, "d_out": head_size, "n_embd": n_embd, "d_in": n_embd,
            "block_size": block_size, "context_length": block_size, "dropout": 0.0}


def _size(value: Any, default: int) -> int:
    return value if type(value) is int and 0 < value <= MAX_WIDTH else default


def _not_understood(cls: Obj, params: list[str], error: StudentError) -> Verdict | None:
    """The parameters the grader did not understand, where a TypeError says the call did not fit them
    (None otherwise: the student's own error is the message)."""
    unknown = arguments(params, dict.fromkeys(KNOWN), ("head_size",)).not_understood
    if not unknown or error.detail.get("type") != "TypeError":
        return None
    message = f"TypeError: {error.detail.get('message', '')}"[:300].rstrip(".")
    return Verdict(with_object(failed("signature", params=", ".join(params), unknown=", ".join(unknown),
                                      error=message), cls))


def load_weights(sb: SandboxClient, built: Built, rng: torch.Generator) -> Roles | None:
    """The roles the head computes with: fresh ones written into a head the judge built (zero biases, if it
    has any), or the student's own instance's, read back; None when they cannot be matched."""
    params = built.module.info.get("parameters", [])
    state: dict[str, torch.Tensor] | None
    if built.own:
        state = sb.state(built.module)
        roles = roles_from_state(params, state)
        if roles is None:
            x = torch.randn(2, tokens(built), built.n_embd, generator=rng)
            found = find_layout(sb, built.module, [params], x, _reference, d_in=built.n_embd,
                                d_out=built.head_size, own=state)
            roles = roles_read(params, state, found, built.n_embd, built.head_size) if found else None
        if roles is None or degenerate(roles) or tuple(roles.q.shape) != (built.head_size, built.n_embd):
            return None
        return None if any(b is not None for b in (roles.q_b, roles.k_b, roles.v_b, roles.o)) else roles
    roles = random_roles(rng, built.n_embd, built.head_size)
    if any(len(p["shape"]) == 1 for p in params):
        zero = torch.zeros(built.head_size)
        roles = Roles(roles.q, roles.k, roles.v, q_b=zero, k_b=zero, v_b=zero)
    state = student_state(params, roles, built.n_embd, built.head_size)
    if state is None:
        x = torch.randn(2, tokens(built), built.n_embd, generator=rng)
        found = find_layout(sb, built.module, [params], x, _reference, d_in=built.n_embd, d_out=built.head_size,
                            rng=rng)
        state = student_state(params, roles, built.n_embd, built.head_size, layout=found) if found else None
    if state is None:
        return None
    sb.load_state(built.module, state)
    return Roles(roles.q, roles.k, roles.v)


def _reference(x: torch.Tensor, roles: list[Roles]) -> torch.Tensor:
    """The right head's output with these weights (find_layout's model)."""
    return attend(x, roles[0])


def tokens(built: Built) -> int:
    return min(LONGEST, built.block_size or LONGEST)


def forward(sb: SandboxClient, built: Built, x: torch.Tensor) -> torch.Tensor:
    out = sb.forward(built.module, x, label=f"Head({built.head_size}).forward (input {list(x.shape)})")
    expected = [*x.shape[:2], built.head_size]
    if list(out.shape) != expected:
        raise Verdict(with_object(failed("shape", head_size=built.head_size, got=list(out.shape),
                                         input=list(x.shape), expected=expected), built.found))
    return out


def bug_message(bug: str) -> Msg:
    return Msg(f"gpt.head.bug.{bug}")


# -- checks --------------------------------------------------------------------------------------------------
@EXERCISE.check("causal", points=2, title={"en": "No output depends on a later token",
                                           "zh": "输出不依赖之后的 Token"})
def causal(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    built = build(sb, rng)
    roles = load_weights(sb, built, rng)  # for the diagnosis; causality itself holds for any weights
    T = tokens(built)
    inputs = one_token_changed(rng, T, built.n_embd)
    out = forward(sb, built, inputs)
    if constant(out):
        return with_object(computes_nothing(f"Head({built.head_size})", out), built.found)
    base = out[0]
    diagnosis = bug_message(diagnose(inputs[:1], roles, out[:1]) if roles is not None else "unknown")
    bad = ~torch.isfinite(base)
    if bad.any():
        rows = sorted({int(r) for r in bad.nonzero()[:, 0]})
        return with_object(failed("causal.not_finite", {"rows": rows}, count=int(bad.sum()),
                                  rows=", ".join(map(str, rows)), diagnosis=diagnosis), built.found)
    matrix = [[int(bool((out[j + 1, i] - base[i]).abs().max() > CHANGED)) for j in range(T)] for i in range(T)]
    evidence = {"matrix": matrix, "class": "Head"}
    leaks = [(i, j) for i in range(T) for j in range(i + 1, T) if matrix[i][j]]
    if not leaks:
        return with_object(passed("causal.ok", evidence, tokens=T), built.found)
    i, j = leaks[0]
    return with_object(failed("causal.leak", evidence, i=i, j=j, count=len(leaks), total=T * (T - 1) // 2,
                              diagnosis=diagnosis), built.found)


@EXERCISE.check("reference", points=2, title={"en": "Equal to the reference, scaled by head_size**-0.5",
                                              "zh": "与参考实现一致，按 head_size**-0.5 缩放"})
def reference(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    built = build(sb, rng)
    roles = load_weights(sb, built, rng)
    if roles is None:
        names = ", ".join(p["name"] for p in built.module.info.get("parameters", [])) or "-"
        return with_object(failed("unmapped", names=names[:300]), built.found)
    T = tokens(built)
    x = torch.randn(2, T, built.n_embd, generator=rng)
    got = forward(sb, built, x)
    state = {"key.weight": roles.k, "query.weight": roles.q, "value.weight": roles.v,
             "tril": torch.tril(torch.ones(T, T))}
    expected = reference_output(gpt_attention.Head, (built.head_size, built.n_embd, T, 0.0), state, x)
    evidence = comparison(expected, got)
    args = {"head_size": built.head_size, "n_embd": built.n_embd}
    if close(got, expected):
        return with_object(passed("reference.ok", evidence, **args), built.found)
    bug = diagnose(x, roles, got)
    evidence["diagnosis"] = f"gpt.head.bug.{bug}"
    if bug in ("unscaled", "scale_n_embd"):  # told in a message of their own, with the reason for the scale
        return with_object(failed(f"reference.{bug}", evidence, **args), built.found)
    return with_object(failed("reference.mismatch", evidence, diff=max_diff(got, expected),
                              diagnosis=bug_message(bug), **args), built.found)


@EXERCISE.check("short", points=2, title={"en": "Sequences shorter than block_size work",
                                          "zh": "短于 block_size 的序列可用"})
def short(sb: SandboxClient, ref: object, rng: torch.Generator) -> Outcome:
    built = build(sb, rng)
    block = built.block_size or LONGEST
    lengths = [t for t in SHORT if t < block]
    for T in lengths or [block]:  # a head that takes no shorter sequence still has to compute something
        try:
            out = forward(sb, built, torch.randn(2, T, built.n_embd, generator=rng))
        except StudentError as exc:
            # Only a short-sequence problem if a full block runs.
            forward(sb, built, torch.randn(2, block, built.n_embd, generator=rng))
            error = f"{exc.detail.get('type')}: {exc.detail.get('message', '')}"
            return with_object(failed("short.raised", {"error": exc.detail}, tokens=T, block_size=block,
                                      error=error[:300].rstrip(".")), built.found)
    if constant(out):  # on the longest: one token alone may be all NaN for a mask bug charged elsewhere
        return with_object(computes_nothing(f"Head({built.head_size})", out), built.found)
    return with_object(passed("short.ok", lengths=", ".join(map(str, lengths)), block_size=block), built.found)
