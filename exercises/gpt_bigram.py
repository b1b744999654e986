"""gpt.bigram: the lecture's BigramLanguageModel, its logits, its loss and generate.

The judge builds the student's model for a fresh vocabulary size, writes its own embedding table into
it (when the model keeps exactly one (V, V) table), runs forward and generate in the sandbox, and
computes every expected value itself: the logits and loss of solutions/gpt_data.py with the same
table, and the cross-entropy of the logits the student's model returned. A model whose logits are the
same at every position (whatever the ids) computes nothing, and passes none of the checks. A model under a
name of the student's own is found by what it is (`model_class`, `by_shape`) and graded with a note, and its
methods are called by the lecture's parameter names or in the lecture's order (`call_method`).
"""
from __future__ import annotations

import math
import weakref
from typing import Any

import torch
from torch.nn import functional as F

from grader.checks import (
    BadReturn, ChildCrashed, Exercise, NotFound, Obj, Outcome, ProbeTimeout, SandboxClient, StudentError, Verdict,
    close, comparison, computes_nothing, constant, describe_value, failed, found_as, max_diff, passed, the_class,
    with_object,
)
from grader.solutions import gpt_data
from . import _found, _text

CLASS = "BigramLanguageModel"
# An nn.Embedding starts at N(0, 1), so each logit is a unit normal and the untrained loss is about
# ln(V) + 0.5 (the lecture's 4.87 for V = 65, ln 65 = 4.17); a zero table gives exactly ln(V). 1.5 either
# side leaves room for any init up to about 1.7x that scale and for the noise of 128 targets (~0.1),
# while an init ten times too large (loss ~20) or a loss without its log-softmax falls outside.
BAND = 1.5
CERTAIN = 30.0  # a logit margin that makes the next token certain: e^-30 per other token
MAX_VOCAB = 4096  # the largest vocab_size the judge draws a (V, V) table for; a character one is far smaller
MAX_CANDIDATES = 6  # classes of the submission's own built and run to find the model under another name
TRIAL_S = 5.0  # seconds a class tried as the model may take on 12 tokens

EXERCISE = Exercise(
    id="gpt.bigram",
    title={"en": "The bigram language model", "zh": "二元（Bigram）语言模型"},
    statement={
        "en": "Write BigramLanguageModel(vocab_size), an nn.Module whose nn.Embedding(vocab_size, vocab_size) "
              "table holds, in the row of each token, the logits of the next one. forward(idx, targets=None) "
              "returns (logits, loss): logits of shape (B, T, vocab_size) and loss None without targets; with "
              "targets, the logits reshaped to (B*T, vocab_size) and their cross-entropy with the targets. "
              "generate(idx, max_new_tokens) samples one token at a time from the softmax of the last "
              "position's logits and returns idx with the new tokens appended, of shape (B, T + max_new_tokens).",
        "zh": "编写 BigramLanguageModel(vocab_size)：一个 nn.Module，其 nn.Embedding(vocab_size, vocab_size) 表中"
              "每个 token 的那一行就是下一个 token 的 logits。forward(idx, targets=None) 返回 (logits, loss)："
              "没有 targets 时 logits 形状为 (B, T, vocab_size)，loss 为 None；有 targets 时把 logits 变形为 "
              "(B*T, vocab_size)，并计算它与 targets 的交叉熵。generate(idx, max_new_tokens) 每次从最后一个位置"
              "logits 的 softmax 中采样一个 token，返回追加了新 token 的 idx，形状为 (B, T + max_new_tokens)。",
    },
    reference=gpt_data,
    order=203,
    group="gpt",
    data=(_text.TEXT_FILE,),
    messages={
        **_text.MESSAGES,
        "not_found.class": {"en": "no class {name}.", "zh": "没有类 {name}。"},
        "not_found.vocab_size": {
            "en": "no `vocab_size` for BigramLanguageModel(), which takes no vocabulary size of its own.",
            "zh": "没有 vocab_size：BigramLanguageModel() 自身不接收词表大小参数。",
        },
        "vocab_size.too_large": {
            "en": "vocab_size is {got}: the grader builds BigramLanguageModel() with it and draws a (vocab_size, "
                  "vocab_size) table, which it does only up to {most}. A character vocabulary is a few hundred: "
                  "vocab_size = len(chars).",
            "zh": "vocab_size 是 {got}：评分器用它构建 BigramLanguageModel() 并生成 (vocab_size, vocab_size) 的表，"
                  "但最多只支持 {most}。字符级词表只有几百个字符：vocab_size = len(chars)。",
        },
        "forward.not_pair": {
            "en": "{call} returned {got}: forward should return the pair (logits, loss), with logits a float tensor.",
            "zh": "{call} 返回了 {got}：forward 应返回 (logits, loss) 这一对，其中 logits 是浮点张量。",
        },
        "forward.ok": {
            "en": "Without targets, logits have shape ({B}, {T}, {V}) and are the rows of the embedding table for idx.",
            "zh": "没有 targets 时，logits 形状为 ({B}, {T}, {V})，正是 idx 对应的嵌入表各行。",
        },
        "forward.ok_shape": {
            "en": "Without targets, logits have shape ({B}, {T}, {V}). (Your model does not keep a single "
                  "({V}, {V}) table, so only the shape was compared.)",
            "zh": "没有 targets 时，logits 形状为 ({B}, {T}, {V})。（你的模型没有单独一个 ({V}, {V}) 的表，"
                  "因此只比较了形状。）",
        },
        "forward.shape": {
            "en": "For idx of shape ({B}, {T}) and vocab_size {V}, forward(idx) gives logits of shape {got}; "
                  "expected ({B}, {T}, {V}): a row of vocab_size logits for every position.",
            "zh": "当 idx 形状为 ({B}, {T})、vocab_size 为 {V} 时，forward(idx) 给出的 logits 形状是 {got}；"
                  "应为 ({B}, {T}, {V})：每个位置一行 vocab_size 个 logits。",
        },
        "forward.values": {
            "en": "With the grader's embedding table loaded, the logits differ from the table's rows for idx "
                  "(largest difference {diff:.3g}): the logits for a token are its row, "
                  "self.token_embedding_table(idx).",
            "zh": "载入评分器的嵌入表后，logits 与表中 idx 对应的行不同（最大差值 {diff:.3g}）：一个 token 的 "
                  "logits 就是它那一行，self.token_embedding_table(idx)。",
        },
        "loss.ok": {
            "en": "With targets, the loss is one number, the cross-entropy of the logits ({loss:.4f}), as the "
                  "reference gives with the same table.",
            "zh": "有 targets 时，loss 是一个数，即 logits 的交叉熵（{loss:.4f}），与参考实现用同一张表得到的一致。",
        },
        "loss.none": {
            "en": "{call} returned loss None: when targets are given, compute "
                  "loss = F.cross_entropy(logits, targets) on the reshaped logits and targets.",
            "zh": "{call} 返回的 loss 是 None：给出 targets 时，应在变形后的 logits 和 targets 上计算 "
                  "loss = F.cross_entropy(logits, targets)。",
        },
        "loss.not_scalar": {
            "en": "The loss has shape {shape}: it should be one number, the mean cross-entropy over all B*T "
                  "positions (F.cross_entropy averages over them by default).",
            "zh": "loss 的形状是 {shape}：它应是一个数，即全部 B*T 个位置上交叉熵的平均值（F.cross_entropy 默认求平均）。",
        },
        "loss.not_reshaped": {
            "en": "{call} raised {error}: F.cross_entropy takes logits of shape (N, C) and targets of shape (N,), "
                  "so reshape them first: logits.view(B*T, C) and targets.view(B*T).",
            "zh": "{call} 抛出了 {error}：F.cross_entropy 要求 logits 形状为 (N, C)、targets 形状为 (N,)，"
                  "请先变形：logits.view(B*T, C) 和 targets.view(B*T)。",
        },
        "loss.logits_shape": {
            "en": "With targets, the logits have shape {got}, which cannot be read as ({BT}, {V}) "
                  "(one row per position), so the loss cannot be checked.",
            "zh": "有 targets 时 logits 的形状是 {got}，无法看作 ({BT}, {V})（每个位置一行），因此无法检查 loss。",
        },
        "loss.sum": {
            "en": "The loss is {got:.4f}, the sum over the {BT} positions; the cross-entropy averages them "
                  "({expected:.4f}). Use F.cross_entropy(logits, targets) with its default reduction='mean'.",
            "zh": "loss 是 {got:.4f}，是 {BT} 个位置的总和；交叉熵应取平均（{expected:.4f}）。"
                  "请使用默认 reduction='mean' 的 F.cross_entropy(logits, targets)。",
        },
        "loss.mismatch": {
            "en": "The loss is {got:.4f}, but the cross-entropy of your logits against the targets is {expected:.4f}: "
                  "compute it with F.cross_entropy(logits.view(B*T, C), targets.view(B*T)), which takes the "
                  "softmax over the vocabulary (the last dim).",
            "zh": "loss 是 {got:.4f}，但你的 logits 与 targets 的交叉熵是 {expected:.4f}：请用 "
                  "F.cross_entropy(logits.view(B*T, C), targets.view(B*T)) 计算，它在词表维度（最后一维）上做 softmax。",
        },
        "loss.reference": {
            "en": "The loss is {got:.4f}; with the same embedding table the reference model's loss is {expected:.4f}.",
            "zh": "loss 是 {got:.4f}；使用同一张嵌入表时，参考模型的 loss 是 {expected:.4f}。",
        },
        "init.ok": {
            "en": "Untrained, the loss is {loss:.3f}, near ln({V}) = {expected:.3f}: at first every next token "
                  "is about equally likely.",
            "zh": "未训练时 loss 为 {loss:.3f}，接近 ln({V}) = {expected:.3f}：一开始每个下一个 token 的可能性大致相同。",
        },
        "init.far": {
            "en": "Untrained, the loss is {loss:.3f}, far from ln({V}) = {expected:.3f} (within {band} is expected): "
                  "a fresh model should find every next token about equally likely. Keep nn.Embedding's own "
                  "initialisation and compute the loss with F.cross_entropy.",
            "zh": "未训练时 loss 为 {loss:.3f}，与 ln({V}) = {expected:.3f} 相差太远（应在 {band} 以内）："
                  "新模型应认为每个下一个 token 的可能性大致相同。请保留 nn.Embedding 默认的初始化，并用 "
                  "F.cross_entropy 计算 loss。",
        },
        "init.no_loss": {
            "en": "{call} gave no loss to check ({got}): with targets, forward should return (logits, loss).",
            "zh": "{call} 没有给出可检查的 loss（{got}）：有 targets 时 forward 应返回 (logits, loss)。",
        },
        "generate.ok": {
            "en": "generate(idx, {k}) returns shape ({B}, {T} + {k}), starts with idx, every id is in [0, {V}), "
                  "and each new token follows the last position's prediction.",
            "zh": "generate(idx, {k}) 返回形状 ({B}, {T} + {k})，以 idx 开头，所有编号都在 [0, {V}) 内，"
                  "且每个新 token 都由最后一个位置的预测决定。",
        },
        "generate.ok_shape": {
            "en": "generate(idx, {k}) returns shape ({B}, {T} + {k}), starts with idx, and every id is in [0, {V}). "
                  "(Your model does not keep a single ({V}, {V}) table, so the new tokens themselves were not "
                  "predicted.)",
            "zh": "generate(idx, {k}) 返回形状 ({B}, {T} + {k})，以 idx 开头，所有编号都在 [0, {V}) 内。"
                  "（你的模型没有单独一个 ({V}, {V}) 的表，因此没有预测新 token 本身。）",
        },
        "generate.not_tensor": {
            "en": "{call} returned {got}: generate should return a tensor of token ids.",
            "zh": "{call} 返回了 {got}：generate 应返回由 token 编号组成的张量。",
        },
        "generate.dtype": {
            "en": "{call} returned ids of dtype {dtype}: they must be integers (torch.long), as "
                  "torch.multinomial gives them.",
            "zh": "{call} 返回的编号数据类型是 {dtype}：它们必须是整数（torch.long），就像 torch.multinomial 给出的那样。",
        },
        "generate.only_new": {
            "en": "{call} returned shape {got}, only the {k} new tokens: return the whole sequence, idx with the "
                  "new tokens appended (idx = torch.cat((idx, idx_next), dim=1)), of shape ({B}, {T} + {k}).",
            "zh": "{call} 返回的形状是 {got}，只有 {k} 个新 token：请返回整个序列，即追加了新 token 的 idx"
                  "（idx = torch.cat((idx, idx_next), dim=1)），形状为 ({B}, {T} + {k})。",
        },
        "generate.shape": {
            "en": "{call} returned shape {got}; for idx of shape ({B}, {T}) it should be ({B}, {T} + {k}): "
                  "idx with one new token appended per step.",
            "zh": "{call} 返回的形状是 {got}；idx 形状为 ({B}, {T}) 时应为 ({B}, {T} + {k})：每一步在 idx 后追加一个新 token。",
        },
        "generate.range": {
            "en": "{call} produced the id {bad}, outside [0, {V}): with a vocabulary of {V} characters every "
                  "token is an index below {V}. Size the embedding table by the vocab_size argument, "
                  "nn.Embedding(vocab_size, vocab_size), and sample from its logits.",
            "zh": "{call} 生成了编号 {bad}，超出了 [0, {V})：词表有 {V} 个字符时，每个 token 都是小于 {V} 的索引。"
                  "请按参数 vocab_size 设置嵌入表大小，nn.Embedding(vocab_size, vocab_size)，并从它的 logits 中采样。",
        },
        "generate.prefix": {
            "en": "{call} does not start with idx: keep the context and append the new tokens after it.",
            "zh": "{call} 的结果没有以 idx 开头：请保留上下文，把新 token 追加在它后面。",
        },
        "generate.not_last": {
            "en": "With a table that makes every next token certain, {call} generated {got} instead of {expected}: "
                  "each new token should follow from the last position, logits[:, -1, :].",
            "zh": "使用一张让下一个 token 确定无疑的表时，{call} 生成了 {got} 而不是 {expected}："
                  "每个新 token 都应由最后一个位置决定，即 logits[:, -1, :]。",
        },
        "call.not_understood": {
            "en": "{call} raised {error}: the grader calls {method} with the lecture's arguments ({lecture}), by the "
                  "lecture's parameter names or, where yours are named otherwise, in that order, and did not "
                  "understand {unknown}. Take the lecture's arguments: {signature}.",
            "zh": "{call} 抛出了 {error}：评分器用课程中的参数（{lecture}）调用 {method}：按课程中的参数名传入，"
                  "参数名不同时按这个顺序传入，但它无法理解 {unknown}。请接收课程中的参数：{signature}。",
        },
    },
)


def build(sb: SandboxClient, rng: torch.Generator, low: int, high: int) -> tuple[Obj, Obj, int, str]:
    """(class, model, V, label): the student's model for a fresh vocabulary size V in [low, high], or for
    their own vocab_size when the class takes no argument (as the lecture's later gpt.py does)."""
    cls = model_class(sb, rng)
    name = own_name(cls)
    if cls.info.get("params"):
        size = _text.fresh_int(rng, low, high)
        label = f"{name}({size})"
        return cls, sb.construct(cls, size, label=label), size, label
    size = own_vocab_size(sb, cls)
    return cls, sb.construct(cls, label=f"{name}()"), size, f"{name}()"


def own_vocab_size(sb: SandboxClient, cls: Obj) -> int:
    """The notebook's vocab_size, for a class that takes none (NotFound, or a Verdict where it is too large)."""
    told = _text.positive_int(_text.namespace(sb).get("vocab_size"))
    if told is None:
        raise NotFound("not_found.vocab_size")
    if told > MAX_VOCAB:
        raise Verdict(with_object(failed("vocab_size.too_large", got=told, most=MAX_VOCAB), cls))
    return told


def own_name(cls: Obj) -> str:
    """The name the submission gave its class (a class graded under a near name carries the exercise's)."""
    names = [b.get("name") for b in cls.bindings if isinstance(b.get("name"), str)]
    return str(names[-1])[:200] if names else cls.cls


# -- the model under another name, found by what it is ------------------------------------------------------------
_FOUND: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Obj | None]]" = weakref.WeakKeyDictionary()


def model_class(sb: SandboxClient, rng: torch.Generator) -> Obj:
    """The submission's BigramLanguageModel (or the class of a near name: grader.checks.the_class); where it has
    none, the one class of its own that is a bigram model by what the judge measures (`by_shape`), noted."""
    try:
        return the_class(sb, CLASS)
    except NotFound:
        cached = _FOUND.get(sb)
        if cached is None or cached[0] != sb.generation:
            cached = _FOUND[sb] = (sb.generation, by_shape(sb, _found.derived(rng)))
        if cached[1] is None:
            raise
        found_as(CLASS, cached[1].cls)
        return cached[1]


def by_shape(sb: SandboxClient, rng: torch.Generator) -> Obj | None:
    """The one module class of the submission's own (under no name of the book's or the lecture's) that has the
    lecture's model's shape: a constructor taking the vocabulary size or nothing, forward(idx, targets) and
    generate(idx, max_new_tokens) as its text defines them, and, built by the judge, logits of shape
    (B, T, vocab_size) that move with idx. Where several do, the one whose logits for a token are the same
    wherever it stands (a bigram's table lookup: the lecture's later models look at the context); None where
    none or several are left. The judge builds and runs each; nothing the child says decides."""
    others = _found.answers()
    latest = {o.cls: o for o in sb.inventory() if o.kind == "class" and o.info.get("is_module")
              and o.info.get("defined_here") and o.cls not in others}
    shaped = [o for o in latest.values() if has_shape(sb, o)][:MAX_CANDIDATES]
    try:
        measured = [(o, kind) for o in shaped if (kind := measure(sb, o, rng)) is not None]
    except (ProbeTimeout, ChildCrashed):  # a class that hangs or kills its process is no answer: none is found
        return None
    for wanted in (None, "table"):
        found = [o for o, kind in measured if wanted is None or kind == wanted]
        if len(found) == 1:
            return found[0]
    return None


def has_shape(sb: SandboxClient, cls: Obj) -> bool:
    """The lecture's model's signatures, read from the submission's text: forward takes idx (and targets),
    generate takes idx and max_new_tokens, the constructor at most the vocabulary size."""
    forward, generate = (_found.method_signature(sb, cls.cls, m) for m in ("forward", "generate"))
    init = _found.method_signature(sb, cls.cls, "__init__")
    takes = init.required if init is not None else len(cls.info.get("params") or [])
    return (forward is not None and forward.takes(1) and forward.takes(2) and generate is not None
            and generate.takes(2) and takes <= 1)


def measure(sb: SandboxClient, cls: Obj, rng: torch.Generator) -> str | None:
    """What the class computes, built by the judge: "table" where its logits for a token are the same at every
    position it stands at, "context" where they are (B, T, V) logits that move with idx otherwise; None where it
    cannot be built or run so, or returns anything else."""
    try:
        if cls.info.get("params"):
            size = _text.fresh_int(rng, 12, 40)
            model = sb.construct(cls, size, label=f"{cls.cls}({size})")
        else:
            size = _text.positive_int(_text.namespace(sb).get("vocab_size")) or 0
            if not 0 < size <= MAX_VOCAB:
                return None
            model = sb.construct(cls, label=f"{cls.cls}()")
        tokens = torch.randperm(size, generator=rng)[:3]  # each at least once, most more than once
        picks = torch.cat([torch.arange(3), torch.randint(3, (9,), generator=rng)])
        idx = tokens[picks[torch.randperm(12, generator=rng)]].reshape(2, 6)
        out = sb.call(model, idx, label=f"{cls.cls}(idx)", timeout=TRIAL_S)
    except (StudentError, BadReturn):
        return None
    logits = out[0] if isinstance(out, list) and out else out
    if not (isinstance(logits, torch.Tensor) and logits.is_floating_point() and list(logits.shape) == [2, 6, size]):
        return None
    if ignores_idx(logits, idx.numel()) or not bool(torch.isfinite(logits).all()):
        return None
    rows, ids = logits.reshape(-1, size), idx.reshape(-1)
    same = all(close(rows[i], rows[j]) for i in range(len(ids)) for j in range(i) if ids[i] == ids[j])
    return "table" if same else "context"


def call_method(sb: SandboxClient, cls: Obj, model: Obj, method: str | None, values: list[tuple[str, Any]],
                label: str) -> Any:
    """model.method (its forward, for None) called with the lecture's values: by the lecture's parameter names
    where the student's method names them so in another order, else positionally (exercises/_found.py,
    `lecture_call`). Where the call fails on its arguments and some parameter was not understood, the
    message names it."""
    signature = _found.method_signature(sb, own_name(cls), method or "forward")
    call = _found.lecture_call(signature, values)
    try:
        return sb.call(model, *call.args, method=method, label=label, **call.kwargs)
    except StudentError as exc:
        detail = exc.detail if isinstance(exc.detail, dict) else {}
        if not call.not_understood or detail.get("type") != "TypeError":
            raise
        error = f"TypeError: {detail.get('message', '')}"[:300].rstrip(".")
        lecture = ", ".join(name for name, _ in values)
        name = method or "forward"
        raise Verdict(with_object(failed("call.not_understood", {"error": detail}, call=label, error=error,
                                         method=name, lecture=lecture, unknown=", ".join(call.not_understood),
                                         signature=SIGNATURES[name]), cls)) from None


SIGNATURES = {"forward": "forward(self, idx, targets=None)", "generate": "generate(self, idx, max_new_tokens)"}


def table(model: Obj, size: int) -> str | None:
    """The name of the model's embedding table when it holds exactly one parameter, of shape (V, V)."""
    params = model.info.get("parameters", [])
    if len(params) == 1 and list(params[0].get("shape", [])) == [size, size]:
        return str(params[0]["name"])
    return None


def load_table(sb: SandboxClient, model: Obj, size: int, weights: torch.Tensor) -> bool:
    name = table(model, size)
    if name is None:
        return False
    sb.load_state(model, {name: weights})
    return True


def reference(size: int, weights: torch.Tensor) -> gpt_data.BigramLanguageModel:
    model = gpt_data.BigramLanguageModel(size).eval()
    with torch.no_grad():
        model.token_embedding_table.weight.copy_(weights)
    return model


def run_forward(sb: SandboxClient, cls: Obj, model: Obj, call: str, *args: torch.Tensor) -> tuple[torch.Tensor, Any]:
    """(logits, loss) from the model, or a Verdict when it returns anything else, or when the loss
    could not take the logits as they are (cross_entropy on unreshaped (B, T, C) logits)."""
    try:
        out = call_method(sb, cls, model, None, list(zip(("idx", "targets"), args)), call)
    except StudentError as exc:
        error = exc.detail or {}
        if len(args) == 2 and "Expected target size" in str(error.get("message", "")):
            shown = f"{error.get('type')}: {error.get('message')}"
            raise Verdict(with_object(failed("loss.not_reshaped", {"error": error}, call=call, error=shown), cls))
        raise
    if not (isinstance(out, list) and len(out) == 2 and isinstance(out[0], torch.Tensor)
            and out[0].is_floating_point()):
        raise Verdict(with_object(failed("forward.not_pair", call=call, got=describe_value(out)), cls))
    return out[0], out[1]


def ignores_idx(logits: torch.Tensor, positions: int) -> bool:
    """Whether the model gave all `positions` (whose ids differ) the same logits: it computes nothing from idx."""
    return logits.numel() % positions == 0 and constant(logits.reshape(positions, -1))


def inert(cls: Obj, label: str, logits: torch.Tensor) -> Outcome:
    """The failure of a model whose logits ignore idx: the check's premise, logits computed from the ids."""
    return with_object(computes_nothing(label, logits), cls)


def ids(rng: torch.Generator, size: int, *shape: int) -> torch.Tensor:
    return torch.randint(size, shape, generator=rng)


@EXERCISE.check("forward", points=2, title={"en": "Logits of shape (B, T, vocab_size)",
                                            "zh": "logits 的形状为 (B, T, vocab_size)"})
def forward(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    cls, model, size, label = build(sb, rng, 12, 40)
    weights = torch.randn(size, size, generator=rng)
    mapped = load_table(sb, model, size, weights)
    B, T = 2, _text.fresh_int(rng, 3, 6)
    idx = ids(rng, size, B, T)
    logits, _ = run_forward(sb, cls, model, f"{label}(idx)", idx)
    if list(logits.shape) != [B, T, size]:
        return with_object(failed("forward.shape", B=B, T=T, V=size, got=tuple(logits.shape)), cls)
    if ignores_idx(logits, B * T):
        return inert(cls, label, logits)
    if not mapped:
        return with_object(passed("forward.ok_shape", B=B, T=T, V=size), cls)
    with torch.no_grad():
        expected, _ = reference(size, weights)(idx)
    if not close(logits, expected):
        return with_object(failed("forward.values", comparison(expected, logits),
                                  diff=max_diff(logits, expected)), cls)
    return with_object(passed("forward.ok", B=B, T=T, V=size), cls)


@EXERCISE.check("loss", points=2, title={"en": "The loss is the cross-entropy of the logits",
                                         "zh": "loss 是 logits 的交叉熵"})
def loss(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    cls, model, size, label = build(sb, rng, 12, 40)
    weights = torch.randn(size, size, generator=rng)
    mapped = load_table(sb, model, size, weights)
    B, T = 3, _text.fresh_int(rng, 3, 6)
    idx, targets = ids(rng, size, B, T), ids(rng, size, B, T)
    call = f"{label}(idx, targets)"
    logits, got = run_forward(sb, cls, model, call, idx, targets)
    if got is None:
        return with_object(failed("loss.none", call=call), cls)
    if not isinstance(got, torch.Tensor) or not got.is_floating_point() or got.numel() != 1:
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else describe_value(got)
        return with_object(failed("loss.not_scalar", shape=shape), cls)
    if logits.numel() != B * T * size:
        return with_object(failed("loss.logits_shape", got=tuple(logits.shape), BT=B * T, V=size), cls)
    if ignores_idx(logits, B * T):
        return inert(cls, label, logits)
    got = got.reshape(())
    with torch.no_grad():
        expected = F.cross_entropy(logits.reshape(B * T, size).float(), targets.reshape(B * T))
    if not close(got, expected):
        evidence = comparison(expected, got)
        if close(got, expected * B * T):
            return with_object(failed("loss.sum", evidence, got=float(got), expected=float(expected), BT=B * T), cls)
        return with_object(failed("loss.mismatch", evidence, got=float(got), expected=float(expected)), cls)
    if mapped:
        with torch.no_grad():
            _, reference_loss = reference(size, weights)(idx, targets)
        if not close(got, reference_loss):
            return with_object(failed("loss.reference", comparison(reference_loss, got), got=float(got),
                                      expected=float(reference_loss)), cls)
    return with_object(passed("loss.ok", loss=float(got)), cls)


@EXERCISE.check("init", points=2, title={"en": "The untrained loss is near ln(vocab_size)",
                                         "zh": "未训练时 loss 接近 ln(vocab_size)"})
def init(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    cls, model, size, label = build(sb, rng, 20, 80)  # the model's own initialisation: no table loaded
    idx, targets = ids(rng, size, 4, 32), ids(rng, size, 4, 32)
    call = f"{label}(idx, targets)"
    logits, got = run_forward(sb, cls, model, call, idx, targets)
    if not isinstance(got, torch.Tensor) or not got.is_floating_point() or got.numel() != 1:
        return with_object(failed("init.no_loss", call=call, got=describe_value(got)), cls)
    if ignores_idx(logits, idx.numel()):  # a model of constant logits starts at ln(V) without being one
        return inert(cls, label, logits)
    value, expected = float(got), math.log(size)
    if not abs(value - expected) <= BAND:
        return with_object(failed("init.far", loss=value, V=size, expected=expected, band=BAND), cls)
    return with_object(passed("init.ok", loss=value, V=size, expected=expected), cls)


@EXERCISE.check("generate", points=2, title={"en": "generate returns (B, T + new) valid ids",
                                             "zh": "generate 返回 (B, T + new) 个有效编号"})
def generate(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    cls, model, size, label = build(sb, rng, 10, 40)
    # a table whose every row makes one successor certain, so the new tokens can be predicted
    successor = torch.randperm(size, generator=rng)
    weights = torch.zeros(size, size)
    weights[torch.arange(size), successor] = CERTAIN
    mapped = load_table(sb, model, size, weights)
    B, T, k = 3, 2, _text.fresh_int(rng, 16, 24)
    idx = ids(rng, size, B, T)
    call = f"{label}.generate(idx, {k})"
    out = call_method(sb, cls, model, "generate", [("idx", idx), ("max_new_tokens", k)], call)
    if not isinstance(out, torch.Tensor):
        return with_object(failed("generate.not_tensor", call=call, got=describe_value(out)), cls)
    if out.is_floating_point() or out.is_complex() or out.dtype == torch.bool:
        return with_object(failed("generate.dtype", call=call, dtype=str(out.dtype).removeprefix("torch.")), cls)
    shape: dict[str, Any] = {"call": call, "got": tuple(out.shape), "B": B, "T": T, "k": k}
    if list(out.shape) == [B, k]:
        return with_object(failed("generate.only_new", **shape), cls)
    if list(out.shape) != [B, T + k]:
        return with_object(failed("generate.shape", **shape), cls)
    bad = out[(out < 0) | (out >= size)]
    if len(bad):
        return with_object(failed("generate.range", call=call, bad=int(bad[0]), V=size), cls)
    if not torch.equal(out[:, :T].long(), idx):
        return with_object(failed("generate.prefix", comparison(idx, out[:, :T]), call=call), cls)
    if not mapped:  # the new tokens cannot be predicted: at least the logits they come from must move
        logits, _ = run_forward(sb, cls, model, f"{label}(idx)", idx)
        if ignores_idx(logits, idx.numel()):
            return inert(cls, label, logits)
    if mapped:
        expected = [idx[:, -1]]
        for _ in range(k):
            expected.append(successor[expected[-1]])
        chain = torch.stack(expected[1:], dim=1)
        wrong = [b for b in range(B) if not torch.equal(out[b, T:].long(), chain[b])]
        if wrong:
            b = wrong[0]
            return with_object(failed("generate.not_last", comparison(chain, out[:, T:]), call=call,
                                      got=out[b, T:T + 6].tolist(), expected=chain[b, :6].tolist()), cls)
    return with_object(passed("generate.ok" if mapped else "generate.ok_shape", B=B, T=T, k=k, V=size), cls)
