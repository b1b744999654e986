"""gpt.tokenizer: the lecture's character tokenizer, whose vocabulary is the sorted set of the text's characters.

The vocabulary is compared with the one the judge builds from its own copy of the text the submission
read (exercises/_text.py, `source_text`); encode and decode are run on fresh strings drawn from that
vocabulary, and their ids compared with the reference's. Under names of the student's own, the vocabulary
(exercises/_text.py, `vocabulary_part`) and the two functions (`by_behaviour`) are found by what they are and
do, and graded with a note.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

import torch

from grader.checks import (
    BadReturn, ChildCrashed, Exercise, Msg, NotFound, Obj, Outcome, ProbeTimeout, SandboxClient, StudentError,
    Verdict, comparison, describe_value, failed, found_as, passed, with_object,
)
from grader.solutions import gpt_data
from . import _found, _text

SHOWN = 24  # characters of a string quoted in a message
MAX_CANDIDATES = 8  # functions of the submission's own tried as its encode or decode under another name
TRIAL_S = 5.0  # seconds a function tried as encode or decode may take on one string
# The lecture's functions the other exercises call by name: never tried as a tokenizer's.
OTHER_FUNCTIONS = frozenset({"get_batch", "estimate_loss", "train", "main"})

EXERCISE = Exercise(
    id="gpt.tokenizer",
    title={"en": "A character-level tokenizer", "zh": "字符级分词器"},
    statement={
        "en": "Read input.txt into `text` and build the vocabulary `chars`, the sorted list of the distinct "
              "characters of the text, with `vocab_size = len(chars)`. Write `encode(s)`, which turns a string "
              "into the list of its characters' indices in `chars`, and `decode(ids)`, which turns such a "
              "list back into the string, so that decode(encode(s)) == s.",
        "zh": "把 input.txt 读入 text，构建词表 chars：文本中所有不同字符排序后的列表，并令 vocab_size = len(chars)。"
              "编写 encode(s)：把字符串变为其中每个字符在 chars 中的索引列表；以及 decode(ids)：把这样的列表变回"
              "字符串，使 decode(encode(s)) == s。",
    },
    reference=gpt_data,
    order=200,
    group="gpt",
    data=(_text.TEXT_FILE,),
    messages={
        **_text.MESSAGES,
        "not_found.vocab": {
            "en": "no vocabulary: the lecture keeps it in `chars = sorted(list(set(text)))`.",
            "zh": "没有词表：课程中用 chars = sorted(list(set(text))) 保存它。",
        },
        "not_found.tokenizer": {
            "en": "no `encode` and `decode` functions (lambdas are fine: encode = lambda s: [stoi[c] for c in s]).",
            "zh": "没有 encode 和 decode 函数（lambda 也可以：encode = lambda s: [stoi[c] for c in s]）。",
        },
        "vocab.ok": {
            "en": "chars holds the {size} distinct characters of {source} in sorted order.",
            "zh": "chars 按排序保存了 {source} 中的 {size} 个不同字符。",
        },
        "vocab.not_list": {
            "en": "{name} is {got}, not a list of single characters: build it with sorted(list(set(text))).",
            "zh": "{name} 是 {got}，不是由单个字符组成的列表：请用 sorted(list(set(text))) 构建。",
        },
        "vocab.not_sorted": {
            "en": "{name} holds the right {size} characters, but not in sorted order: it starts {got!r}, sorted "
                  "it starts {expected!r}. Sort them, chars = sorted(list(set(text))), so that every "
                  "character's id is its place in the sorted vocabulary.",
            "zh": "{name} 中的 {size} 个字符是对的，但没有排序：它以 {got!r} 开头，排序后应以 {expected!r} 开头。"
                  "请排序：chars = sorted(list(set(text)))，这样每个字符的编号就是它在排好序的词表中的位置。",
        },
        "vocab.wrong_set": {
            "en": "{name} has {got_size} characters, but {source} has {size} distinct ones (missing: {missing}; "
                  "not in the text: {extra}). Build it from the whole text: sorted(list(set(text))).",
            "zh": "{name} 有 {got_size} 个字符，但 {source} 中有 {size} 个不同字符（缺少：{missing}；文本中没有的："
                  "{extra}）。请用整个文本构建：sorted(list(set(text)))。",
        },
        "vocab.size": {
            "en": "vocab_size is {got}, but the vocabulary has {size} characters: set vocab_size = len(chars).",
            "zh": "vocab_size 是 {got}，但词表有 {size} 个字符：请设置 vocab_size = len(chars)。",
        },
        "roundtrip.ok": {
            "en": "decode(encode(s)) == s for {count} fresh strings drawn from the {size} characters of the vocabulary.",
            "zh": "对从词表 {size} 个字符中随机抽取的 {count} 个新字符串，decode(encode(s)) == s 均成立。",
        },
        "roundtrip.mismatch": {
            "en": "decode(encode(s)) is not s: at position {pos}, s has {want} but the round trip gives {got} "
                  "(s starts {s!r}). encode and decode must use the same numbering: stoi and itos built from "
                  "the same enumerate(chars).",
            "zh": "decode(encode(s)) 不等于 s：在位置 {pos}，s 是 {want}，往返后却是 {got}（s 以 {s!r} 开头）。"
                  "encode 与 decode 必须使用同一套编号：stoi 和 itos 都由同一个 enumerate(chars) 构建。",
        },
        "encode.type": {
            "en": "encode({s!r}) returned {got}: it should return a list of integer ids, one per character.",
            "zh": "encode({s!r}) 返回了 {got}：它应返回整数编号的列表，每个字符一个。",
        },
        "encode.too_long": {
            "en": "encode({s!r}) returned {got} ids for a string of {length} characters: it should return one id "
                  "per character, [stoi[c] for c in s].",
            "zh": "encode({s!r}) 对一个 {length} 个字符的字符串返回了 {got} 个编号：它应为每个字符返回一个编号，"
                  "即 [stoi[c] for c in s]。",
        },
        "decode.type": {
            "en": "decode returned {got}: it should return a string (''.join(...) of the characters).",
            "zh": "decode 返回了 {got}：它应返回字符串（用 ''.join(...) 拼接字符）。",
        },
        "ids.ok": {
            "en": "encode gives each character its index in the sorted vocabulary, and decode maps the indices back.",
            "zh": "encode 给出每个字符在排好序的词表中的索引，decode 能把索引映射回字符。",
        },
        "ids.encode_wrong": {
            "en": "encode({s!r}) gave {got}, but the characters' indices in the sorted vocabulary are {expected}: "
                  "stoi should map chars[i] to i.",
            "zh": "encode({s!r}) 得到 {got}，但这些字符在排好序的词表中的索引是 {expected}：stoi 应把 chars[i] 映射为 i。",
        },
        "ids.encode_shifted": {
            "en": "encode is off by {shift:+d}: encode({s!r}) gave {got} instead of {expected}. Number the "
                  "characters from 0: stoi = {{ch: i for i, ch in enumerate(chars)}}.",
            "zh": "encode 偏移了 {shift:+d}：encode({s!r}) 得到 {got}，应为 {expected}。请从 0 开始编号："
                  "stoi = {{ch: i for i, ch in enumerate(chars)}}。",
        },
        "ids.decode_wrong": {
            "en": "decode({ids}) gave {got}, but with the sorted vocabulary those ids spell {expected!r}: "
                  "itos should map i to chars[i].",
            "zh": "decode({ids}) 得到 {got}，但按排好序的词表，这些编号应拼出 {expected!r}：itos 应把 i 映射为 chars[i]。",
        },
        "ids.decode_shifted": {
            "en": "decode is off by one: decode({ids}) gave {got!r}, each character's neighbour {side} in the "
                  "vocabulary, instead of {expected!r}. itos must map i to chars[i]: "
                  "itos = {{i: ch for i, ch in enumerate(chars)}}.",
            "zh": "decode 差了一位：decode({ids}) 得到 {got!r}，每个字符都变成了它在词表中的{side_zh}一个字符，应为 {expected!r}。"
                  "itos 必须把 i 映射为 chars[i]：itos = {{i: ch for i, ch in enumerate(chars)}}。",
        },
    },
)


def short(s: str, n: int = SHOWN) -> str:
    return s if len(s) <= n else s[:n] + "…"


def tokenizer(sb: SandboxClient, rng: torch.Generator, chars: list[str]) -> tuple[Obj, Obj]:
    """The submission's encode and decode: by the lecture's names, else (for either or both) the one function
    of its own that does what it does (`by_behaviour`), noted; NotFound where either is missing."""
    encode = _text.function_named(sb, "encode")
    decode = _text.function_named(sb, "decode")
    if encode is None or decode is None:
        cached = _FOUND.get(sb)
        if cached is None or cached[0] != sb.generation:
            cached = _FOUND[sb] = (sb.generation, by_behaviour(sb, _found.derived(rng), chars, encode, decode))
        found = cached[1]
        if found is not None:
            (encoder, encode), (decoder, decode) = found  # the lecture's own keep their names: no note
            found_as("encode", encoder)
            found_as("decode", decoder)
    if encode is None or decode is None:
        raise NotFound("not_found.tokenizer")
    return encode, decode


_FOUND: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Any]]" = weakref.WeakKeyDictionary()
Named = tuple[str, Obj]  # a function and the name the submission bound it to


def by_behaviour(sb: SandboxClient, rng: torch.Generator, chars: list[str], encode: Obj | None,
                 decode: Obj | None) -> tuple[Named, Named] | None:
    """The encode and decode the submission holds under other names, by what the judge measures them to do on
    every character of the vocabulary once, in a fresh order: an encoder gives one integer id per character,
    a decoder turns those ids into a string. The one pair whose decode(encode(s)) is s; else, where exactly
    one function of each kind is left, those two (the checks then say what is wrong with them); else None.
    A function the lecture names (encode, decode) stays in its role; the others tried are the submission's
    own functions of one parameter, MAX_CANDIDATES of them (nothing they claim decides)."""
    if not chars:
        return None
    s = _text.shuffled(rng, chars)
    others = candidates(sb, {o.ref for o in (encode, decode) if o is not None})
    results: dict[tuple[int, str], Any] = {}

    def call(fn: Named, arg: Any, key: str) -> Any:
        if (fn[1].ref, key) not in results:
            try:
                results[fn[1].ref, key] = sb.call(fn[1], arg, label=f"{fn[0]}({short(str(arg), 40)})",
                                                  timeout=TRIAL_S)
            except (StudentError, BadReturn):
                results[fn[1].ref, key] = None
        return results[fn[1].ref, key]

    try:
        return _pair(s, encode, decode, others, call)
    except (ProbeTimeout, ChildCrashed):  # a function that hangs or kills its process: nothing is found
        return None


def _pair(s: str, encode: Obj | None, decode: Obj | None, others: list[Named],
          call: Callable[[Named, Any, str], Any]) -> tuple[Named, Named] | None:
    """The pair by_behaviour finds, with `call` the cached trial call of a function on an argument."""
    encoders: list[Named] = [("encode", encode)] if encode is not None else \
        [fn for fn in others if (ids := as_ids(call(fn, s, "s"))) is not None and len(ids) == len(s)]
    decoders: list[Named] = [("decode", decode)] if decode is not None else [fn for fn in others if fn not in encoders]
    shaped: list[tuple[Named, Named]] = []
    pairs: list[tuple[Named, Named]] = []
    for e in encoders:
        ids = as_ids(call(e, s, "s"))
        if ids is None or len(ids) != len(s):
            continue
        for d in decoders:
            got = call(d, ids, f"ids of {e[1].ref}")
            if isinstance(got, str) and len(got) == len(s):
                shaped.append((e, d))
                if got == s:
                    pairs.append((e, d))
    if len(pairs) == 1:
        return pairs[0]
    if not pairs and len(shaped) == 1:
        return shaped[0]
    return None


def candidates(sb: SandboxClient, taken: set[int]) -> list[Named]:
    """The submission's own functions (lambdas too) of one parameter, each under the last name it was bound
    to at the top level, oldest first: none the other exercises call by the lecture's names."""
    found = []
    others = _found.answers()
    for obj in sb.inventory():
        names = [b["name"] for b in obj.bindings if isinstance(b.get("name"), str) and type(b.get("cell")) is int]
        if (obj.kind != "function" or obj.ref in taken or not names or not obj.info.get("defined_here")
                or len(obj.info.get("params") or []) != 1 or names[-1] in OTHER_FUNCTIONS
                or names[-1] in others):
            continue
        found.append((str(names[-1])[:200], obj))
    return found[:MAX_CANDIDATES]


def as_ids(value: Any) -> list[int] | None:
    """A list of ints, or a 1-D integer tensor, as a list; None for anything else."""
    if _text.is_ids(value):
        return [int(v) for v in value.tolist()]
    if isinstance(value, list) and all(type(v) is int and abs(v) < 2**62 for v in value):
        return value
    return None


def run_encode(sb: SandboxClient, encode: Obj, s: str) -> list[int]:
    """encode(s)'s ids. More ids than s has characters are refused by their count before any is read: the
    judge's work on an answer (here a list of Python ints, and the ids a message quotes) is bounded by what
    it asked, not by what came back."""
    got = sb.call(encode, s, label=f"encode({short(s)!r})")
    if (isinstance(got, list) or _text.is_ids(got)) and len(got) > len(s):
        raise Verdict(with_object(failed("encode.too_long", s=short(s), got=len(got), length=len(s)), encode))
    ids = as_ids(got)
    if ids is None:
        raise Verdict(with_object(failed("encode.type", s=short(s), got=describe_value(got)), encode))
    return ids


def run_decode(sb: SandboxClient, decode: Obj, ids: list[int]) -> str:
    got = sb.call(decode, ids, label=f"decode({short(str(ids), 40)})")
    if not isinstance(got, str):
        raise Verdict(with_object(failed("decode.type", got=describe_value(got)), decode))
    return got


@EXERCISE.check("vocab", points=2, title={"en": "The vocabulary is the sorted set of characters",
                                          "zh": "词表是排好序的字符集合"})
def vocab(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    source = _text.source_text(sb)
    expected = _text.vocabulary(source.text)
    names = _text.namespace(sb)
    found = _text.vocabulary_part(sb, names)
    if found is None:
        raise NotFound("not_found.vocab")
    name, chars = found
    evidence = _text.binding_cell(sb, name)
    if isinstance(chars, str):
        chars = list(chars)
    if not (isinstance(chars, list) and all(isinstance(c, str) and len(c) == 1 for c in chars)):
        return failed("vocab.not_list", evidence, name=name, got=describe_value(chars))
    size = len(expected)
    if chars != expected:
        if sorted(chars) == expected:
            return failed("vocab.not_sorted", evidence, name=name, size=size,
                          got="".join(chars[:12]), expected="".join(expected[:12]))
        missing = sorted(set(expected) - set(chars))
        extra = sorted(set(chars) - set(expected))
        return failed("vocab.wrong_set", evidence, name=name, got_size=len(chars), size=size, source=source.name,
                      missing=_text.shown_chars(missing), extra=_text.shown_chars(extra))
    claimed = _text.lookup(names, ("vocab_size",))
    if claimed is not None and claimed[1] != size:
        got = claimed[1] if type(claimed[1]) is int else describe_value(claimed[1])
        return failed("vocab.size", _text.binding_cell(sb, "vocab_size"), got=got, size=size)
    return passed("vocab.ok", evidence, size=size, source=source.name)


@EXERCISE.check("roundtrip", points=2, title={"en": "decode(encode(s)) gives s back",
                                              "zh": "decode(encode(s)) 还原出 s"})
def roundtrip(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    chars = _text.vocabulary(_text.source_text(sb).text)  # first: reading the text may restart the child
    encode, decode = tokenizer(sb, rng, chars)
    # every character once (so a missing one shows), then a fresh stretch of random text
    strings = [_text.shuffled(rng, chars), _text.fresh_string(rng, chars, 120)]
    for s in strings:
        got = run_decode(sb, decode, run_encode(sb, encode, s))
        if got != s:
            pos = next((i for i, (a, b) in enumerate(zip(s, got)) if a != b), min(len(s), len(got)))
            want, shown = (_text.shown_char(t[pos]) if pos < len(t) else Msg("chars.end") for t in (s, got))
            return with_object(failed("roundtrip.mismatch", pos=pos, want=want, got=shown, s=short(s)), decode)
    return passed("roundtrip.ok", count=len(strings), size=len(chars))


@EXERCISE.check("ids", points=2, title={"en": "A character's id is its index in the sorted vocabulary",
                                        "zh": "字符的编号就是它在排好序的词表中的索引"})
def ids(sb: SandboxClient, ref: Any, rng: torch.Generator) -> Outcome:
    reference = gpt_data.CharTokenizer(_text.source_text(sb).text)  # before the handles, as in roundtrip
    chars = reference.chars
    encode, decode = tokenizer(sb, rng, chars)
    s = _text.fresh_string(rng, chars, 16)
    expected, got = reference.encode(s), run_encode(sb, encode, s)
    if got != expected:
        evidence = comparison(torch.tensor(expected), torch.tensor(got)) if got else {}
        shifts = {b - a for a, b in zip(expected, got)}
        if len(got) == len(expected) and len(shifts) == 1 and shifts != {0}:
            outcome = failed("ids.encode_shifted", evidence, shift=shifts.pop(), s=short(s),
                             got=got, expected=expected)
        else:
            outcome = failed("ids.encode_wrong", evidence, s=short(s), got=got, expected=expected)
        return with_object(outcome, encode)
    # decode on ids away from both ends of the vocabulary, so an off-by-one shows as a neighbour
    inner = chars[1:-1] if len(chars) > 2 else chars
    s = _text.fresh_string(rng, inner, 16)
    wanted = reference.encode(s)
    got_text = run_decode(sb, decode, wanted)
    if got_text != s:
        for shift, side, side_zh in ((-1, "before", "前"), (1, "after", "后")):
            neighbours = reference.decode([i + shift for i in wanted]) if len(chars) > 2 else None
            if got_text == neighbours:
                return with_object(failed("ids.decode_shifted", ids=wanted, got=got_text, expected=s,
                                          side=side, side_zh=side_zh), decode)
        return with_object(failed("ids.decode_wrong", ids=wanted, got=_text.shown_string(short(got_text, 40)),
                                  expected=s), decode)
    return passed("ids.ok")
