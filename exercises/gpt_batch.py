"""gpt.batch: get_batch(split) gives (batch_size, block_size) windows of the right split, targets one id later.

The judge calls get_batch('train') and get_batch('val') in the sandbox, reads the submission's
batch_size, block_size and the two parts of its split (train_data and val_data, or the tensors that are
those parts under the student's own names: exercises/_text.py, `split_parts`), and finds every row of x
inside the split it came from: the check never trusts the batch, only where its rows can be found.
"""
from __future__ import annotations

from typing import Any

import torch

from exercises import _text
from grader.checks import (
    Exercise, NotFound, Obj, Outcome, SandboxClient, Verdict, comparison, describe_value, failed, passed,
    with_object,
)
from solutions import gpt_data

SPLITS = ("train", "val")  # what the judge asks get_batch for
VAL_DRAWS = 3  # a train row can occur in val_data by chance; three batches of them all doing so cannot
# The rows of a batch the judge looks for (the lecture's batches have 4 to 64): each is searched for in the
# whole split, so a batch of millions of rows would cost the judge's CPU past the submission's budget.
ROWS = 64

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
            "en": "get_batch('{split}') returned {got}: it should return the pair x, y of integer tensors.",
            "zh": "get_batch('{split}') 返回了 {got}：它应返回由整数张量组成的一对 x, y。",
        },
        "get_batch.dtype": {
            "en": "get_batch('{split}') gives {which} of dtype {dtype}: token ids must stay integers (torch.long), "
                  "as nn.Embedding needs.",
            "zh": "get_batch('{split}') 给出的 {which} 数据类型是 {dtype}：token 编号必须保持为整数（torch.long），"
                  "nn.Embedding 需要这样。",
        },
        "shape.ok": {
            "en": "get_batch('train') and get_batch('val') give x and y of shape ({batch_size}, {block_size}): "
                  "batch_size rows of block_size ids.",
            "zh": "get_batch('train') 和 get_batch('val') 给出的 x 和 y 形状都是 ({batch_size}, {block_size})："
                  "batch_size 行，每行 block_size 个编号。",
        },
        "shape.wrong": {
            "en": "get_batch('{split}') gives {which} of shape {got}, but batch_size = {batch_size} and "
                  "block_size = {block_size} call for ({batch_size}, {block_size}): one row per sequence, "
                  "block_size ids each (x = data[i:i+block_size], y = data[i+1:i+block_size+1]).",
            "zh": "get_batch('{split}') 给出的 {which} 形状是 {got}，但 batch_size = {batch_size}、block_size = "
                  "{block_size} 要求形状为 ({batch_size}, {block_size})：每个序列一行，每行 block_size 个编号"
                  "（x = data[i:i+block_size]，y = data[i+1:i+block_size+1]）。",
        },
        "split.ok": {
            "en": "Every row of x from get_batch('train') is a stretch of {train}, and every row from "
                  "get_batch('val') one of {val}.",
            "zh": "get_batch('train') 给出的 x 每一行都是 {train} 中连续的一段，get_batch('val') 的每一行都是 "
                  "{val} 中的一段。",
        },
        "split.wrong_split": {
            "en": "get_batch('{split}') drew a row from {other} instead of {wanted}: choose the data by the split "
                  "argument, data = {train} if split == 'train' else {val}.",
            "zh": "get_batch('{split}') 从 {other} 而不是 {wanted} 中抽取了一行：请根据 split 参数选择数据，"
                  "data = {train} if split == 'train' else {val}。",
        },
        "split.not_window": {
            "en": "row {row} of x from get_batch('{split}') ({ids}) is not a stretch of {wanted}: each row "
                  "should be {wanted}[i:i+block_size] for a random offset i.",
            "zh": "get_batch('{split}') 给出的 x 第 {row} 行（{ids}）不是 {wanted} 中连续的一段："
                  "每行应为 {wanted}[i:i+block_size]，i 为随机起点。",
        },
        "targets.ok": {
            "en": "y is x shifted by one: y[b, t] is the character that follows x[b, t] in the text.",
            "zh": "y 是 x 向后错一位的结果：y[b, t] 是文本中紧随 x[b, t] 的字符。",
        },
        "targets.shapes": {
            "en": "get_batch('{split}') gives x of shape {x} and y of shape {y}: y must have the shape of x, "
                  "the same windows one character later.",
            "zh": "get_batch('{split}') 给出的 x 形状为 {x}，y 形状为 {y}：y 必须与 x 形状相同，是向后错一个字符的同样窗口。",
        },
        "targets.not_shifted": {
            "en": "y is the same as x, but the targets are the next characters: y = data[i+1:i+block_size+1] "
                  "with the same offsets i as x.",
            "zh": "y 与 x 相同，但目标应是下一个字符：y = data[i+1:i+block_size+1]，使用与 x 相同的起点 i。",
        },
        "targets.wrong": {
            "en": "row {row} of get_batch('{split}'): y ({y}) is not x ({x}) shifted one character to the right. "
                  "Take y = data[i+1:i+block_size+1] with the same offsets i as x.",
            "zh": "get_batch('{split}') 的第 {row} 行：y（{y}）不是 x（{x}）向右错一个字符的结果。"
                  "请取 y = data[i+1:i+block_size+1]，使用与 x 相同的起点 i。",
        },
    },
)


def get_batch(sb: SandboxClient) -> Obj:
    fn = _text.function_named(sb, "get_batch")
    if fn is None:
        raise NotFound("not_found.get_batch")
    return fn


def draw(sb: SandboxClient, fn: Obj, split: str) -> tuple[torch.Tensor, torch.Tensor]:
    """x, y from the submission's get_batch(split), both integer tensors, or a Verdict saying why not."""
    got = sb.call(fn, split, label=f"get_batch({split!r})")
    if not (isinstance(got, list) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got)):
        raise Verdict(with_object(failed("get_batch.not_pair", split=split, got=describe_value(got)), fn))
    for which, t in zip("xy", got):
        if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            raise Verdict(with_object(failed("get_batch.dtype", split=split, which=which,
                                             dtype=str(t.dtype).removeprefix("torch.")), fn))
    return got[0].long(), got[1].long()


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
    fn = get_batch(sb)
    names = _text.namespace(sb)
    batch_size = _text.positive_int(names.get("batch_size"))
    block_size = _text.positive_int(names.get("block_size", names.get("context_length")))
    if batch_size is None or block_size is None:
        raise NotFound("not_found.sizes")
    for name in SPLITS:
        for which, t in zip("xy", draw(sb, fn, name)):
            if list(t.shape) != [batch_size, block_size]:
                return with_object(failed("shape.wrong", split=name, which=which, got=tuple(t.shape),
                                          batch_size=batch_size, block_size=block_size), fn)
    return with_object(passed("shape.ok", batch_size=batch_size, block_size=block_size), fn)


@EXERCISE.check("split", points=2, title={"en": "Rows come from the split asked for",
                                          "zh": "每行来自所要求的数据集"})
def split(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    fn = get_batch(sb)
    tensors = split_tensors(sb)
    for name, draws in (("train", 1), ("val", VAL_DRAWS)):
        wanted, source = tensors[name]
        other, other_source = tensors["val" if name == "train" else "train"]
        for _ in range(draws):
            x, _y = draw(sb, fn, name)
            for b, row in enumerate(rows(x)[:ROWS]):
                if _text.offsets(source, row, limit=1):
                    continue
                if _text.offsets(other_source, row, limit=1):
                    return with_object(failed("split.wrong_split", split=name, wanted=wanted, other=other,
                                              train=tensors["train"][0], val=tensors["val"][0]), fn)
                return with_object(failed("split.not_window", row=b, split=name, ids=show(row), wanted=wanted), fn)
    return with_object(passed("split.ok", train=tensors["train"][0], val=tensors["val"][0]), fn)


def rows(x: torch.Tensor) -> torch.Tensor:
    """x as a stack of rows along its last dim (whatever its shape: that is the shape check's business)."""
    return x.reshape(-1, x.shape[-1]) if x.dim() and x.shape[-1] else x.reshape(1, -1)


@EXERCISE.check("targets", points=2, title={"en": "y is x shifted by one", "zh": "y 是 x 错一位的结果"})
def targets(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    fn = get_batch(sb)
    tensors = split_tensors(sb)
    full = _text.namespace(sb).get("data")
    for name in SPLITS:
        x, y = draw(sb, fn, name)
        if x.shape != y.shape or x.dim() != 2 or not x.numel():
            return with_object(failed("targets.shapes", split=name, x=tuple(x.shape), y=tuple(y.shape)), fn)
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
            return with_object(failed("targets.wrong", evidence, row=b, split=name, x=show(x[b]), y=show(y[b])), fn)
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
