"""gpt.batch: get_batch(split) gives (batch_size, block_size) windows of the right split, targets one id later.

The judge calls get_batch('train') and get_batch('val') in the sandbox, reads the submission's
batch_size, block_size and the two parts of its split (train_data and val_data, or the tensors that are
those parts under the student's own names: exercises/_text.py, `split_parts`), and finds every row of x
inside the split it came from: the check never trusts the batch, only where its rows can be found.
A get_batch that takes more than the split gets what each of its parameters is (`loader`,
exercises/_loader.py): the split's name or its tensor, the judge's own batch and block sizes, a device;
sizes it reads from the notebook under names of the student's own are found by what it does with them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from grader.checks import (
    Exercise, NotFound, Obj, Outcome, SandboxClient, StudentError, Verdict, comparison, describe_value, failed,
    found_as, passed, with_object,
)
from grader.solutions import gpt_data
from . import _found, _loader, _text

SPLITS = ("train", "val")  # what the judge asks get_batch for
VAL_DRAWS = 3  # a train row can occur in val_data by chance; three batches of them all doing so cannot
# The rows of a batch the judge looks for (the lecture's batches have 4 to 64): each is searched for in the
# whole split, so a batch of millions of rows would cost the judge's CPU past the submission's budget.
ROWS = 64
BATCHES, BLOCKS = (3, 6), (5, 10)  # the judge's sizes, where get_batch takes them, are drawn from these
LECTURE_SIZES = ("batch_size", "block_size", "context_length")

EXERCISE = Exercise(
    id="gpt.batch",
    title={"en": "Batches of context windows", "zh": "由上下文窗口组成的小批量"},
    statement={
        "en": "Write get_batch(split): it takes train_data when split is 'train' and val_data otherwise, "
              "draws batch_size random offsets i, and returns x, the windows data[i:i+block_size] stacked into "
              "a (batch_size, block_size) tensor, and y, the same windows one character later, "
              "data[i+1:i+block_size+1]: the target for each position is the character that follows it.",
        "zh": "编写 get_batch(split)：split 为 'train' 时取 train_data，否则取 val_data；随机抽取 batch_size 个"
              "起点 i，返回 x：把窗口 data[i:i+block_size] 堆叠成形状为 (batch_size, block_size) 的张量；以及 y："
              "向后错一个字符的同样窗口 data[i+1:i+block_size+1]，即每个位置的目标是紧随其后的字符。",
    },
    reference=gpt_data,
    order=202,
    group="gpt",
    data=(_text.TEXT_FILE,),
    messages={
        **_text.MESSAGES,
        "not_found.get_batch": {
            "en": "no get_batch(split) function.",
            "zh": "没有 get_batch(split) 函数。",
        },
        "not_found.sizes": {
            "en": "no `batch_size` and `block_size` integers (the lecture sets batch_size = 4 and block_size = 8).",
            "zh": "没有整数 batch_size 和 block_size（课程中设为 batch_size = 4、block_size = 8）。",
        },
        "not_found.splits": {
            "en": "no `train_data` and `val_data` tensors for get_batch to draw from.",
            "zh": "没有供 get_batch 抽取的 train_data 和 val_data 张量。",
        },
        "get_batch.not_pair": {
            "en": "{call} returned {got}: it should return the pair x, y of integer tensors.",
            "zh": "{call} 返回了 {got}：它应返回由整数张量组成的一对 x, y。",
        },
        "get_batch.dtype": {
            "en": "{call} gives {which} of dtype {dtype}: token ids must stay integers (torch.long), "
                  "as nn.Embedding needs.",
            "zh": "{call} 给出的 {which} 数据类型是 {dtype}：token 编号必须保持为整数（torch.long），"
                  "nn.Embedding 需要这样。",
        },
        "shape.ok": {
            "en": "{train_call} and {val_call} give x and y of shape ({batch_size}, {block_size}): "
                  "batch_size rows of block_size ids.",
            "zh": "{train_call} 和 {val_call} 给出的 x 和 y 形状都是 ({batch_size}, {block_size})："
                  "batch_size 行，每行 block_size 个编号。",
        },
        "shape.wrong": {
            "en": "{call} gives {which} of shape {got}, but batch_size = {batch_size} and "
                  "block_size = {block_size} call for ({batch_size}, {block_size}): one row per sequence, "
                  "block_size ids each (x = data[i:i+block_size], y = data[i+1:i+block_size+1]).",
            "zh": "{call} 给出的 {which} 形状是 {got}，但 batch_size = {batch_size}、block_size = "
                  "{block_size} 要求形状为 ({batch_size}, {block_size})：每个序列一行，每行 block_size 个编号"
                  "（x = data[i:i+block_size]，y = data[i+1:i+block_size+1]）。",
        },
        "split.ok": {
            "en": "Every row of x from {train_call} is a stretch of {train}, and every row from "
                  "{val_call} one of {val}.",
            "zh": "{train_call} 给出的 x 每一行都是 {train} 中连续的一段，{val_call} 的每一行都是 "
                  "{val} 中的一段。",
        },
        "split.wrong_split": {
            "en": "{call} drew a row from {other} instead of {wanted}: choose the data by the split "
                  "argument, data = {train} if split == 'train' else {val}.",
            "zh": "{call} 从 {other} 而不是 {wanted} 中抽取了一行：请根据 split 参数选择数据，"
                  "data = {train} if split == 'train' else {val}。",
        },
        "split.not_window": {
            "en": "row {row} of x from {call} ({ids}) is not a stretch of {wanted}: each row "
                  "should be {wanted}[i:i+block_size] for a random offset i.",
            "zh": "{call} 给出的 x 第 {row} 行（{ids}）不是 {wanted} 中连续的一段："
                  "每行应为 {wanted}[i:i+block_size]，i 为随机起点。",
        },
        "targets.ok": {
            "en": "y is x shifted by one: y[b, t] is the character that follows x[b, t] in the text.",
            "zh": "y 是 x 向后错一位的结果：y[b, t] 是文本中紧随 x[b, t] 的字符。",
        },
        "targets.shapes": {
            "en": "{call} gives x of shape {x} and y of shape {y}: y must have the shape of x, "
                  "the same windows one character later.",
            "zh": "{call} 给出的 x 形状为 {x}，y 形状为 {y}：y 必须与 x 形状相同，是向后错一个字符的同样窗口。",
        },
        "targets.not_shifted": {
            "en": "y is the same as x, but the targets are the next characters: y = data[i+1:i+block_size+1] "
                  "with the same offsets i as x.",
            "zh": "y 与 x 相同，但目标应是下一个字符：y = data[i+1:i+block_size+1]，使用与 x 相同的起点 i。",
        },
        "targets.wrong": {
            "en": "row {row} of {call}: y ({y}) is not x ({x}) shifted one character to the right. "
                  "Take y = data[i+1:i+block_size+1] with the same offsets i as x.",
            "zh": "{call} 的第 {row} 行：y（{y}）不是 x（{x}）向右错一个字符的结果。"
                  "请取 y = data[i+1:i+block_size+1]，使用与 x 相同的起点 i。",
        },
        "get_batch.not_understood": {
            "en": "get_batch({params}) cannot be called: the grader gives get_batch what each parameter is, the "
                  "split's name ('train' or 'val') or the split's tensor itself, batch_size and block_size (and "
                  "device), by the lecture's names or by what your code does with each, and has nothing to give "
                  "{unknown}. Name them as the lecture does: get_batch(split), or get_batch(split, batch_size, "
                  "block_size).",
            "zh": "无法调用 get_batch({params})：评分器按每个参数的含义传入：数据集的名称（'train' 或 'val'）或该数据集"
                  "张量本身、batch_size 和 block_size（以及 device），依据课程中的参数名或你的代码如何使用它，但没有可"
                  "传给 {unknown} 的值。请按课程的方式命名：get_batch(split)，或 get_batch(split, batch_size, "
                  "block_size)。",
        },
        "get_batch.by_place": {
            "en": "{call} raised {error}: the grader did not understand {guessed} and gave {count:it/them} a value by "
                  "{count:its/their} place in the lecture's get_batch(split, batch_size, block_size). Name the "
                  "parameters as the lecture does (split, batch_size, block_size, device), or as what they are, "
                  "so that each gets its value.",
            "zh": "{call} 抛出了 {error}：评分器无法理解参数名 {guessed}，因此按课程中 get_batch(split, batch_size, "
                  "block_size) 的参数位置传入了值。请按课程的方式（split、batch_size、block_size、device）或按其含义"
                  "命名参数，使每个参数得到它的值。",
        },
    },
)


def get_batch(sb: SandboxClient) -> Obj:
    fn = _text.function_named(sb, "get_batch")
    if fn is None:
        raise NotFound("not_found.get_batch")
    return fn


@dataclass(frozen=True)
class Loader:
    """The submission's get_batch and how the judge calls it: each parameter given what it is
    (exercises/_loader.py), the judge's own sizes where it takes them (`batch`, `block`: None where it reads
    the notebook's), the parts of the split where it takes them (`parts`, by split)."""

    fn: Obj
    params: tuple[_loader.Param, ...] | None  # None: as the lecture's, get_batch(split) positionally
    batch: int | None = None
    block: int | None = None
    parts: dict[str, tuple[str, torch.Tensor]] | None = None

    def arguments(self, split: str) -> tuple[list[Any], dict[str, Any], str]:
        """(args, kwargs, the call as a message shows it) for get_batch asked for `split`."""
        if self.params is None:
            return [split], {}, f"get_batch({split!r})"
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        shown: list[str] = []
        gap = False
        for p in self.params:
            if p.role is None or (not p.required and p.role in (_loader.BATCH, _loader.BLOCK, _loader.DEVICE)):
                gap = True  # its default stands; those after it are given by name
                continue
            value, text = self.value(p.role, split)
            if gap:
                kwargs[p.name] = value
                shown.append(f"{p.name}={text}")
            else:
                args.append(value)
                shown.append(text)
        return args, kwargs, f"get_batch({', '.join(shown)})"

    def value(self, role: str, split: str) -> tuple[Any, str]:
        if role == _loader.SPLIT:
            return split, repr(split)
        if role == _loader.BATCH:
            return self.batch, str(self.batch)
        if role == _loader.BLOCK:
            return self.block, str(self.block)
        if role == _loader.DEVICE:
            return "cpu", "'cpu'"
        assert self.parts is not None
        name, part = self.parts[{_loader.TRAIN: "train", _loader.VAL: "val"}.get(role, split)]
        return part, name


def loader(sb: SandboxClient, rng: torch.Generator) -> Loader:
    """get_batch and the arguments its signature asks for, as its text defines it: the lecture's
    get_batch(split) is called as before; one that takes more gets the split's name or the split's tensor,
    the judge's own batch and block sizes (fresh from `rng`) and 'cpu' for a device, by name where it names
    them as the lecture does and by what its code does with each otherwise (exercises/_loader.py). A
    parameter without a default that nothing fits is named (`get_batch.not_understood`)."""
    fn = get_batch(sb)
    node = _text.function_def(sb, "get_batch")
    if node is None:
        return Loader(fn, None)
    signature = _found.signature_of(node)
    if signature.names == ("split",) or not signature.names:
        return Loader(fn, None)
    params = tuple(_loader.parameters(node, signature.names, signature.required, signature.none_default))
    unknown = [p.name for p in params if p.role is None and p.required]
    if unknown:
        raise Verdict(with_object(failed("get_batch.not_understood", params=", ".join(signature.names),
                                         unknown=", ".join(unknown)), fn))
    given = {p.role for p in params if p.required or p.role not in (_loader.BATCH, _loader.BLOCK, _loader.DEVICE)}
    parts = split_tensors(sb) if given & {_loader.DATA, _loader.TRAIN, _loader.VAL} else None
    shortest = min((len(t) for _, t in parts.values()), default=64) if parts else 64
    block = _text.fresh_int(rng, 5, max(5, min(BLOCKS[1], shortest - 2))) if _loader.BLOCK in given else None
    batch = _text.fresh_int(rng, *BATCHES) if _loader.BATCH in given else None
    return Loader(fn, params, batch, block, parts)


def draw(sb: SandboxClient, load: Loader, split: str) -> tuple[torch.Tensor, torch.Tensor, str]:
    """x, y from the submission's get_batch asked for `split`, both integer tensors, and the call as shown; or
    a Verdict saying why not."""
    args, kwargs, call = load.arguments(split)
    fn = load.fn
    try:
        got = sb.call(fn, *args, label=call, **kwargs)
    except StudentError as exc:
        guessed = [p.name for p in load.params or () if p.by_place]
        detail = exc.detail if isinstance(exc.detail, dict) else {}
        if not guessed or detail.get("type") != "TypeError":
            raise
        error = f"TypeError: {detail.get('message', '')}"[:300].rstrip(".")
        raise Verdict(with_object(failed("get_batch.by_place", {"error": detail}, call=call, error=error,
                                         guessed=", ".join(guessed), count=len(guessed)), fn)) from None
    if not (isinstance(got, list) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got)):
        raise Verdict(with_object(failed("get_batch.not_pair", call=call, got=describe_value(got)), fn))
    for which, t in zip("xy", got):
        if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            raise Verdict(with_object(failed("get_batch.dtype", call=call, which=which,
                                             dtype=str(t.dtype).removeprefix("torch.")), fn))
    return got[0].long(), got[1].long(), call


def sizes(sb: SandboxClient, load: Loader) -> tuple[int, int]:
    """(batch_size, block_size) the batch must have: the judge's where get_batch takes them; else the notebook's,
    by the lecture's names, or under the one name of its own that get_batch uses as each (`BATCH`, `ctx_len`:
    exercises/_loader.py, `global_sizes`), noted; NotFound where either is missing."""
    names = _text.namespace(sb)
    batch, block = load.batch, load.block
    node = _text.function_def(sb, "get_batch")
    reads = [n for n in _text.global_reads(sb, "get_batch") if n not in LECTURE_SIZES] if node is not None else []
    own = _loader.global_sizes(node, reads) if node is not None else {}
    for role, lecture in ((_loader.BATCH, ("batch_size",)), (_loader.BLOCK, ("block_size", "context_length"))):
        if (batch if role == _loader.BATCH else block) is not None:
            continue
        bound = next((n for n in lecture if n in names), None)
        name = bound or own.get(role)
        value = _text.positive_int(names.get(name)) if name is not None else None
        if value is not None and bound is None:
            found_as(lecture[0], str(name))
        if role == _loader.BATCH:
            batch = value
        else:
            block = value
    if batch is None or block is None:
        raise NotFound("not_found.sizes")
    return batch, block


def split_tensors(sb: SandboxClient) -> dict[str, tuple[str, torch.Tensor]]:
    """The parts get_batch draws from, by the split asked for, each as (the student's name, ids): found by
    the lecture's names or by what they are (exercises/_text.py, `split_parts`)."""
    train, held = _text.split_parts(sb, _text.namespace(sb))
    if train is None or held is None or not _text.is_ids(train[1]) or not _text.is_ids(held[1]):
        raise NotFound("not_found.splits")
    return {"train": (train[0], train[1].long()), "val": (held[0], held[1].long())}


def show(row: torch.Tensor) -> str:
    ids = row.tolist()
    return str(ids if len(ids) <= 12 else ids[:12] + ["…"]).replace("'…'", "…")


@EXERCISE.check("shape", points=2, title={"en": "x and y are (batch_size, block_size)",
                                          "zh": "x 和 y 的形状是 (batch_size, block_size)"})
def shape(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    load = loader(sb, rng)
    fn = load.fn
    batch_size, block_size = sizes(sb, load)
    calls: dict[str, Any] = {}
    for name in SPLITS:
        x, y, call = draw(sb, load, name)
        calls[f"{name}_call"] = call
        for which, t in zip("xy", (x, y)):
            if list(t.shape) != [batch_size, block_size]:
                return with_object(failed("shape.wrong", call=call, split=name, which=which, got=tuple(t.shape),
                                          batch_size=batch_size, block_size=block_size), fn)
    return with_object(passed("shape.ok", batch_size=batch_size, block_size=block_size, **calls), fn)


@EXERCISE.check("split", points=2, title={"en": "Rows come from the split asked for",
                                          "zh": "每行来自所要求的数据集"})
def split(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    load = loader(sb, rng)
    fn = load.fn
    tensors = split_tensors(sb)
    calls: dict[str, Any] = {}
    for name, draws in (("train", 1), ("val", VAL_DRAWS)):
        wanted, source = tensors[name]
        other, other_source = tensors["val" if name == "train" else "train"]
        for _ in range(draws):
            x, _y, call = draw(sb, load, name)
            calls[f"{name}_call"] = call
            for b, row in enumerate(rows(x)[:ROWS]):
                if _text.offsets(source, row, limit=1):
                    continue
                if _text.offsets(other_source, row, limit=1):
                    return with_object(failed("split.wrong_split", call=call, split=name, wanted=wanted, other=other,
                                              train=tensors["train"][0], val=tensors["val"][0]), fn)
                return with_object(failed("split.not_window", call=call, row=b, split=name, ids=show(row),
                                          wanted=wanted), fn)
    return with_object(passed("split.ok", train=tensors["train"][0], val=tensors["val"][0], **calls), fn)


def rows(x: torch.Tensor) -> torch.Tensor:
    """x as a stack of rows along its last dim (whatever its shape: that is the shape check's business)."""
    return x.reshape(-1, x.shape[-1]) if x.dim() and x.shape[-1] else x.reshape(1, -1)


@EXERCISE.check("targets", points=2, title={"en": "y is x shifted by one", "zh": "y 是 x 错一位的结果"})
def targets(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    load = loader(sb, rng)
    fn = load.fn
    tensors = split_tensors(sb)
    whole = _text.data_part(sb, _text.namespace(sb))
    full: Any = whole[1] if whole is not None else None
    for name in SPLITS:
        x, y, call = draw(sb, load, name)
        if x.shape != y.shape or x.dim() != 2 or not x.numel():
            return with_object(failed("targets.shapes", call=call, split=name, x=tuple(x.shape), y=tuple(y.shape)), fn)
        x, y = x[:ROWS], y[:ROWS]
        # a row of y must continue its row of x in the text: in the split, or anywhere in data
        # (drawing from the wrong split is the other check's finding, not this one's)
        sources = [tensors[name][1], *([full.long()] if _text.is_ids(full) else []),
                   *(t for _, t in tensors.values())]
        for b in range(x.shape[0]):
            window = torch.cat([x[b], y[b, -1:]])
            if torch.equal(y[b, :-1], x[b, 1:]) and any(_text.offsets(s, window, limit=1) for s in sources):
                continue
            evidence = comparison(next_ids(x, y, sources), y)
            if torch.equal(y, x):
                return with_object(failed("targets.not_shifted", evidence), fn)
            return with_object(failed("targets.wrong", evidence, call=call, row=b, split=name, x=show(x[b]),
                                      y=show(y[b])), fn)
    return with_object(passed("targets.ok"), fn)


def next_ids(x: torch.Tensor, y: torch.Tensor, sources: list[torch.Tensor]) -> torch.Tensor:
    """What y should be: for each row of x found in the text, the ids one position later (else y's row)."""
    expected = y.clone()
    width = x.shape[1]
    for b in range(x.shape[0]):
        for source in sources:
            found = [i for i in _text.offsets(source, x[b]) if i + width < len(source)]
            if found:
                expected[b] = source[found[0] + 1:found[0] + 1 + width]
                break
    return expected
