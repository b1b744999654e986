"""gpt.split: the encoded text as `data`, split in order into the first 90% for training and the rest for validation.

The judge encodes its own copy of the text the submission read (exercises/_text.py, `source_text`),
reads the submission's `data` and the two parts of its split (`train_data` and `val_data`, or the parts
found by what they are under the student's own names: exercises/_text.py, `split_parts`), and locates
each part inside `data` itself, so it can say what went wrong: a validation set that overlaps the
training set (the seed notebook's `val_data = data[:n]`), another fraction, or a shuffled split.
"""
from __future__ import annotations

from typing import Any

import torch

from grader.checks import (
    Exercise, NotFound, Outcome, SandboxClient, Verdict, comparison, describe_value, failed, passed,
)
from grader.solutions import gpt_data
from . import _found, _text

DATA = _text.DATA
ID_DTYPES = (torch.int64, torch.int32)  # what nn.Embedding takes

EXERCISE = Exercise(
    id="gpt.split",
    title={"en": "A 90/10 split of the encoded text", "zh": "按 90/10 划分编码后的文本"},
    statement={
        "en": "Encode the whole text into one tensor, data = torch.tensor(encode(text), dtype=torch.long), and "
              "split it in order: with n = int(0.9 * len(data)), train_data = data[:n] is for training and "
              "val_data = data[n:] for validation, so the model is validated on text it never trained on.",
        "zh": "把整个文本编码为一个张量 data = torch.tensor(encode(text), dtype=torch.long)，再按顺序划分："
              "令 n = int(0.9 * len(data))，train_data = data[:n] 用于训练，val_data = data[n:] 用于验证，"
              "使模型在从未训练过的文本上验证。",
    },
    reference=gpt_data,
    order=201,
    group="gpt",
    data=(_text.TEXT_FILE,),
    messages={
        **_text.MESSAGES,
        "not_found.data": {
            "en": "no `data` tensor: data = torch.tensor(encode(text), dtype=torch.long).",
            "zh": "没有 data 张量：data = torch.tensor(encode(text), dtype=torch.long)。",
        },
        "not_found.split": {
            "en": "no `train_data` and `val_data`: n = int(0.9 * len(data)); train_data = data[:n]; "
                  "val_data = data[n:].",
            "zh": "没有 train_data 和 val_data：n = int(0.9 * len(data))；train_data = data[:n]；val_data = data[n:]。",
        },
        "data.ok": {
            "en": "data holds the {length} ids of {source}, in order, as a 1-D integer tensor.",
            "zh": "data 以一维整数张量按顺序保存了 {source} 的 {length} 个编号。",
        },
        "data.not_tensor": {
            "en": "data is {got}, not a tensor: data = torch.tensor(encode(text), dtype=torch.long).",
            "zh": "data 是 {got}，不是张量：data = torch.tensor(encode(text), dtype=torch.long)。",
        },
        "data.dtype": {
            "en": "data has dtype {dtype}: token ids are integers, and nn.Embedding needs them as "
                  "torch.long: data = torch.tensor(encode(text), dtype=torch.long).",
            "zh": "data 的数据类型是 {dtype}：token 编号是整数，nn.Embedding 需要 torch.long："
                  "data = torch.tensor(encode(text), dtype=torch.long)。",
        },
        "data.shape": {
            "en": "data has shape {shape}: it should be one 1-D tensor of {length} ids, one per character of "
                  "{source}.",
            "zh": "data 的形状是 {shape}：它应是一维张量，包含 {length} 个编号，{source} 的每个字符一个。",
        },
        "data.mismatch": {
            "en": "data is not {source} encoded: its {got_len} ids first differ from the encoding of the text "
                  "({length} characters) at position {pos}. Encode the whole text with the sorted vocabulary: "
                  "data = torch.tensor(encode(text), dtype=torch.long).",
            "zh": "data 不是 {source} 的编码：它的 {got_len} 个编号与文本（{length} 个字符）的编码在位置 {pos} "
                  "第一次不同。请用排好序的词表编码整个文本：data = torch.tensor(encode(text), dtype=torch.long)。",
        },
        "split.no_data": {
            "en": "the split is checked against your `data`, which is not a 1-D tensor of ids (see the first "
                  "check of this exercise).",
            "zh": "划分是根据你的 data 检查的，但它不是由编号组成的一维张量（见本练习的第一项检查）。",
        },
        "split.not_tensor": {
            "en": "{name} is {got}, not a 1-D tensor of ids: slice it from data, e.g. data[:n].",
            "zh": "{name} 是 {got}，不是由编号组成的一维张量：请从 data 切片得到，例如 data[:n]。",
        },
        "train.ok": {
            "en": "{train} is data[:n], the first 90% of data (n = int(0.9 * {total}) = {n}).",
            "zh": "{train} 是 data[:n]，即 data 的前 90%（n = int(0.9 * {total}) = {n}）。",
        },
        "train.fraction": {
            "en": "{train} holds the first {pct}% of data ({got} of {total} ids); the lecture trains on the "
                  "first 90%: n = int(0.9 * len(data)), {train} = data[:n].",
            "zh": "{train} 是 data 的前 {pct}%（{total} 个编号中的 {got} 个）；课程用前 90% 训练："
                  "n = int(0.9 * len(data))，{train} = data[:n]。",
        },
        "train.wrong": {
            "en": "{train} is data[{start}:{end}], not the first 90% of data: {train} = data[:n] with "
                  "n = int(0.9 * len(data)) = {n}.",
            "zh": "{train} 是 data[{start}:{end}]，不是 data 的前 90%：应为 {train} = data[:n]，"
                  "其中 n = int(0.9 * len(data)) = {n}。",
        },
        "train.shuffled": {
            "en": "{train} is not a stretch of data in order: it looks shuffled. A language model learns which "
                  "character follows which, so keep the text in order: {train} = data[:n].",
            "zh": "{train} 不是 data 中按顺序的一段：它看起来被打乱了。语言模型要学习哪个字符后面跟着哪个字符，"
                  "所以请保持文本顺序：{train} = data[:n]。",
        },
        "train.not_slice": {
            "en": "{train} is not part of data: slice it from the encoded text, {train} = data[:n] with "
                  "n = int(0.9 * len(data)) = {n}.",
            "zh": "{train} 不是 data 的一部分：请从编码后的文本切片，{train} = data[:n]，"
                  "其中 n = int(0.9 * len(data)) = {n}。",
        },
        "val.ok": {
            "en": "{val} is data[n:], the last {count} ids, and shares no position with {train}.",
            "zh": "{val} 是 data[n:]，即最后 {count} 个编号，与 {train} 没有重叠。",
        },
        "val.leak": {
            "en": "Nearly there: {val} is the same slice as {train} ({slice}), so the model would be "
                  "validated on text it trained on and its validation loss would look better than it really is "
                  "(a leak). Use {val} = data[n:] for validation.",
            "zh": "就差一步：{val} 与 {train} 是同一段（{slice}），模型会在训练过的文本上验证，"
                  "验证损失会显得比实际更好（数据泄漏）。验证集请用 {val} = data[n:]。",
        },
        "val.overlap": {
            "en": "Nearly there: {val} (data[{start}:{end}]) overlaps {train} ({slice}) on {count} {count:position/positions}, "
                  "so those characters are used for training and for validation, a leak that makes the "
                  "validation loss look better than it really is. Use {val} = data[n:] for validation.",
            "zh": "就差一步：{val}（data[{start}:{end}]）与 {train}（{slice}）有 {count} 个位置重叠，"
                  "这些字符既用于训练又用于验证，这种数据泄漏会让验证损失显得比实际更好。验证集请用 {val} = data[n:]。",
        },
        "val.fraction": {
            "en": "{val} holds the last {pct}% of data ({got} of {total} ids); the lecture keeps the last "
                  "10% for validation: {val} = data[n:] with n = int(0.9 * len(data)).",
            "zh": "{val} 是 data 的后 {pct}%（{total} 个编号中的 {got} 个）；课程保留最后 10% 用于验证："
                  "{val} = data[n:]，其中 n = int(0.9 * len(data))。",
        },
        "val.wrong": {
            "en": "{val} is data[{start}:{end}], not the last 10% of data: {val} = data[n:] with "
                  "n = int(0.9 * len(data)) = {n}.",
            "zh": "{val} 是 data[{start}:{end}]，不是 data 的最后 10%：应为 {val} = data[n:]，"
                  "其中 n = int(0.9 * len(data)) = {n}。",
        },
        "val.shuffled": {
            "en": "{val} is not a stretch of data in order: it looks shuffled. Validate on text the model "
                  "never saw, in order: {val} = data[n:].",
            "zh": "{val} 不是 data 中按顺序的一段：它看起来被打乱了。请按顺序在模型从未见过的文本上验证："
                  "{val} = data[n:]。",
        },
        "val.not_slice": {
            "en": "{val} is not part of data: slice it from the encoded text, {val} = data[n:] with "
                  "n = int(0.9 * len(data)) = {n}.",
            "zh": "{val} 不是 data 的一部分：请从编码后的文本切片，{val} = data[n:]，"
                  "其中 n = int(0.9 * len(data)) = {n}。",
        },
    },
)


def student_data(sb: SandboxClient, names: _text.Variables) -> tuple[str, Any]:
    """(name, value) of the submission's encoded text: `data` (a value that cannot be sent is named), else the
    one tensor that is the text's ids under another name (exercises/_text.py, `data_part`)."""
    found = _text.lookup(names, DATA) or _text.data_part(sb, names)
    if found is None:
        raise NotFound("not_found.data")
    return found


@EXERCISE.check("data", points=2, title={"en": "data is the encoded text", "zh": "data 是编码后的文本"})
def data(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    source = _text.source_text(sb)
    text = source.text
    names = _text.namespace(sb)
    name, value = student_data(sb, names)
    evidence = _text.binding_cell(sb, name)
    if not isinstance(value, torch.Tensor):
        return failed("data.not_tensor", evidence, got=describe_value(value))
    if value.dtype not in ID_DTYPES:
        return failed("data.dtype", evidence, dtype=str(value.dtype).removeprefix("torch."))
    if value.dim() != 1:
        return failed("data.shape", evidence, shape=list(value.shape), length=len(text), source=source.name)
    expected = gpt_data.encode_text(text)
    if torch.equal(value.long(), expected) or own_numbering(sb, names, value, text):
        return passed("data.ok", evidence, length=len(text), source=source.name)
    return failed("data.mismatch", {**evidence, **comparison(expected, value)},
                  got_len=len(value), length=len(text), pos=first_difference(value, expected), source=source.name)


def first_difference(a: torch.Tensor, b: torch.Tensor) -> int:
    """Where two 1-D tensors of ids first differ (the shorter one's length where it starts the other)."""
    k = min(len(a), len(b))
    differ = (a[:k] != b[:k]).nonzero()
    return int(differ[0]) if len(differ) else k


def own_numbering(sb: SandboxClient, names: _text.Variables, value: torch.Tensor, text: str) -> bool:
    """data is the text under the submission's own vocabulary: an unsorted vocabulary is the tokenizer
    exercise's fault, not this one's, so it is not charged twice. Decoded by code point in C: the ids
    of a large text, one by one in Python, cost the judge seconds."""
    found = _text.vocabulary_part(sb, names)
    chars = list(found[1]) if found and isinstance(found[1], (str, list)) else []
    if len(value) != len(text) or not chars or not all(isinstance(c, str) and len(c) == 1 for c in chars):
        return False
    ids = value.long()
    if len(ids) and not (int(ids.min()) >= 0 and int(ids.max()) < len(chars)):
        return False
    return torch.equal(torch.tensor([ord(c) for c in chars], dtype=torch.int32)[ids], _text.code_points(text))


def parts(sb: SandboxClient) -> tuple[torch.Tensor, tuple[str, torch.Tensor], tuple[str, torch.Tensor]]:
    """(data, (name, train), (name, val)), each a 1-D tensor of ids, or a Verdict saying which is not."""
    names = _text.namespace(sb)
    name, value = student_data(sb, names)
    if not _text.is_ids(value):
        raise Verdict(failed("split.no_data", _text.binding_cell(sb, name)))
    train, val = _text.split_parts(sb, names)
    if train is None or val is None:
        raise NotFound("not_found.split")
    for name, part in (train, val):
        if not _text.is_ids(part):
            raise Verdict(failed("split.not_tensor", _text.binding_cell(sb, name), name=name,
                                 got=describe_value(part)))
    return value.long(), (train[0], train[1].long()), (val[0], val[1].long())


def span(data: torch.Tensor, part: torch.Tensor, prefer: int) -> tuple[int, int] | None:
    """Where `part` sits in data as data[start:end]: at `prefer` when it occurs there, else where it first
    does (of the places offsets() confirms)."""
    if len(part) and prefer >= 0 and torch.equal(data[prefer:prefer + len(part)], part):
        return prefer, prefer + len(part)
    found = _text.offsets(data, part, limit=1)
    return (found[0], found[0] + len(part)) if found else None


def shown(where: tuple[int, int], total: int, n: int) -> str:
    start, end = where
    first = "" if start == 0 else ("n" if start == n else str(start))
    last = "" if end == total else ("n" if end == n else str(end))
    return f"data[{first}:{last}]"


@EXERCISE.check("train", points=2, title={"en": "train_data is the first 90%", "zh": "train_data 是前 90%"})
def train(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    data, (name, part), (val_name, _) = parts(sb)
    called = {"train": name, "val": val_name}  # each message names the parts as the student did
    total = len(data)
    n = gpt_data.split_point(total)
    evidence = _text.binding_cell(sb, name)
    if torch.equal(part, data[:n]):
        return passed("train.ok", evidence, n=n, total=total, **called)
    evidence.update(comparison(data[:n], part))
    where = span(data, part, prefer=0)
    if where is not None and where[0] == 0:
        return failed("train.fraction", evidence, pct=round(100 * len(part) / total), got=len(part), total=total,
                      **called)
    if where is not None:
        return failed("train.wrong", evidence, start=where[0], end=where[1], n=n, **called)
    if _text.sub_multiset(part, data):
        return failed("train.shuffled", evidence, **called)
    return failed("train.not_slice", evidence, n=n, **called)


@EXERCISE.check("val", points=2, title={"en": "val_data is the last 10%, apart from train_data",
                                        "zh": "val_data 是最后 10%，且与 train_data 不重叠"})
def val(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    data, (train_name, train_part), (name, part) = parts(sb)
    called = {"train": train_name, "val": name}
    total = len(data)
    n = gpt_data.split_point(total)
    evidence = _text.binding_cell(sb, name)
    if torch.equal(part, data[n:]):
        return passed("val.ok", evidence, count=total - n, **called)
    evidence.update(comparison(data[n:], part))
    train_at = span(data, train_part, prefer=0)
    train_shown = shown(train_at, total, n) if train_at else train_name
    if torch.equal(part, train_part):
        return failed("val.leak", evidence, slice=train_shown, **called)
    where = span(data, part, prefer=total - len(part))
    if where is None:
        return failed("val.shuffled" if _text.sub_multiset(part, data) else "val.not_slice", evidence, n=n, **called)
    start, end = where
    if train_at is not None:
        overlap = min(end, train_at[1]) - max(start, train_at[0])
        if overlap > 0:
            return failed("val.overlap", evidence, start=start, end=end, slice=train_shown, count=overlap, **called)
        if end == total and train_at == (0, start):
            return failed("val.fraction", evidence, pct=round(100 * len(part) / total), got=len(part), total=total,
                          **called)
    return failed("val.wrong", evidence, start=start, end=end, n=n, **called)
