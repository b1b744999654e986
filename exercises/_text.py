"""Shared by the `gpt` exercises: the text the submission read, fresh text, and reading its variables.

The lecture reads `input.txt`; the grader ships a small public-domain one (data/input.txt) that the
judge copies beside the submission unless the student has their own (handed in, or beside a single
file, with the files its code names: `data/input.txt`). The checks judge against the text the
submission actually read (`source_text`): the judge reads its own copies of those files, never the
scratch folder, as Python read them for the submission (Windows line endings in text mode, a BOM, the
encoding its call named), and computes every expected value (the vocabulary, the encoded text) on its side.

The lecture keeps its answers in plain variables (`chars`, `data`, `train_data`, `batch_size`), which
the inventory of modules, classes and functions does not hold; the sandbox's `variables` probe sends
them as plain data (tensors as bytes, other objects as their repr), each the first time a check asks
for it (`Variables`). What comes back is a claim like any other: each check validates the types and
shapes it uses and confirms the values against what the judge computed itself. The parts of the split
are found by what they are, whatever the student called them (`split_parts`): names are read from the
submission's text in the judge, values through the probe.
"""
from __future__ import annotations

import ast
import codecs
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import torch

from grader.checks import Msg, Obj, ProbeFailure, SandboxClient, Sibling, Verdict, failed, found_as
from . import _found

TEXT_FILE = Path(__file__).resolve().parent / "data" / "input.txt"
TEXT_NAME = TEXT_FILE.name

# Messages of the helpers below (NotFound, Verdict); each gpt module merges them into its own.
MESSAGES = {
    "namespace.unreadable": {
        "en": "The grader could not read your variable {name}: it cannot be sent as plain data ({why}). "
              "Keep the lecture's values as tensors of numbers, lists or strings.",
        "zh": "评分器无法读取你的变量 {name}：它无法作为普通数据传出（{why}）。"
              "请让课程中的这些值保持为数值张量、列表或字符串。",
    },
}
CONFIRMED = 2**26  # ids offsets() compares at most to confirm candidates (a fraction of a second)

VOCABULARIES = ("chars", "vocab", "vocabulary")
# An encoding the code names: open(..., encoding='utf-8-sig'), read_text(encoding=...), raw.decode('latin-1').
ENCODING = re.compile(r"""(?:\bencoding\s*=\s*|\.decode\(\s*)["']([A-Za-z][\w.-]{0,39})["']""")
MAX_ENCODINGS = 4  # readings of each file the judge compares: a few, whatever the code names
# Codecs the judge does not decode a student's file with: punycode's decoder is quadratic (a crafted
# megabyte costs the judge minutes), idna's and 'undefined' refuse any real text.
UNREAD_ENCODINGS = frozenset({"punycode", "idna", "undefined"})
SHOWN_CHARS = 20  # characters a message lists
WHITESPACE = {" ": "chars.space", "\n": "chars.newline", "\t": "chars.tab"}

_UNBOUND = object()  # what Variables holds for a name the submission did not bind


class Variables:
    """The submission's top-level variables as the checks ask for them, each read by a probe of its own the
    first time it is asked for. One message carries one variable:
    `data`, `train_data` and `val_data` of a text as large as the sibling cap allows each fit the wire's
    payload cap, which the three together do not; a check waits only for what it reads; and an answer too
    large to carry costs the checks that read that variable, not every check of the set."""

    def __init__(self, sb: SandboxClient) -> None:
        self.sb = sb
        self.read: dict[str, Any] = {}

    def _value(self, name: str) -> Any:
        if name not in self.read:
            self.read[name] = self.sb.variables([name]).get(name, _UNBOUND)
        return self.read[name]

    def __contains__(self, name: str) -> bool:
        return self._value(name) is not _UNBOUND

    def __getitem__(self, name: str) -> Any:
        value = self._value(name)
        if value is _UNBOUND:
            raise KeyError(name)
        return value

    def get(self, name: str, default: Any = None) -> Any:
        value = self._value(name)
        return default if value is _UNBOUND else value


_NAMESPACES: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Variables]]" = weakref.WeakKeyDictionary()
_PARSED: "weakref.WeakKeyDictionary[SandboxClient, list[ast.Module]]" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Text:
    """A text the submission may have read, and how a message names it: the file as its code opens it
    (`input.txt`, `data/input.txt`) or the variable holding it (`text`)."""

    name: str
    text: str


_TEXTS: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Text]]" = weakref.WeakKeyDictionary()


def source_text(sb: SandboxClient) -> Text:
    """The text the submission read. Of the texts it can have read (each file it names that the judge
    copied beside it, and the `input.txt` of its folder, read as Python reads them: readings(); its `text`
    string where that can be sent), the first that agrees with most of what the submission holds: its
    `text`, its vocabulary's characters, its `data`'s length; a file before the same text in `text`, so a
    message names the file. Where nothing agrees (no `text` that can be sent, a wrong vocabulary, no
    `data`), input.txt as open() reads it, as where the variables cannot be read at all: the check that
    needs them says why, the others keep their points. Read once per child."""
    cached = _TEXTS.get(sb)
    if cached is not None and cached[0] == sb.generation:
        return cached[1]
    files = copied_texts(sb)
    try:
        names = namespace(sb)
        own = names.get("text")  # up to 1 MiB: a longer one cannot be sent
        chars = claimed_vocabulary(names)
        data = names.get("data")
    except ProbeFailure:
        return files[-1][0]
    variable = [Text("`text`", own)] if isinstance(own, str) else []
    length = len(data) if is_ids(data) else None

    def agreement(candidate: Text) -> int:
        return (candidate.text == own) + (chars == set(candidate.text)) + (length == len(candidate.text))

    best = max([*(text for read in files for text in read), *variable], key=agreement)  # the first that agree most
    chosen = best if agreement(best) else files[-1][0]
    _TEXTS[sb] = (sb.generation, chosen)
    return chosen


def copied_texts(sb: SandboxClient) -> list[list[Text]]:
    """The files the judge copied that the submission may have opened as its text, each as the readings
    Python can have given the submission, read from the judge's own copies: those beside it that its code
    names, then, last, the `input.txt` of its folder (the student's, else the bundled one)."""
    copied = {item.name: item for item in sb.scratch.files}  # a later file of a name wins, as in the folder
    names = [name for name, item in copied.items() if isinstance(item, Sibling) and item.named and name != TEXT_NAME]
    encodings = named_encodings(sb)
    return [[Text(name, text) for text in readings(_read(copied.get(name, TEXT_FILE)), encodings)]
            for name in (*names, TEXT_NAME)]


def _read(item: Path | Sibling) -> bytes:
    """A copied file's bytes; one the student removed from their folder since it was copied reads as
    empty (the submission read it before; the judge cannot)."""
    try:
        return item.read_bytes()
    except OSError:
        return b""


def named_encodings(sb: SandboxClient) -> list[str]:
    """The text encodings the submission's code names (`open(..., encoding=...)`, `read_text(encoding=...)`,
    `.decode(...)`), read as text in the judge, then UTF-8 (what open() and read_text() use where the call
    names none: the child's locale is UTF-8, and its decoding never fails); at most MAX_ENCODINGS, each a
    text encoding Python knows that the judge can decode a large file with (not UNREAD_ENCODINGS)."""
    found: list[str] = []
    for cell in sb.submission.cells:
        for name in ENCODING.findall(cell.source):
            try:
                b"a".decode(name)  # LookupError for an unknown name or a bytes-to-bytes codec (base64)
                canonical = codecs.lookup(name).name  # one name for 'UTF8', 'utf_8' and 'utf-8'
            except (LookupError, UnicodeError):
                continue
            if canonical not in UNREAD_ENCODINGS:
                found.append(canonical)
    named = list(dict.fromkeys(found))[:MAX_ENCODINGS - 1]
    return named + ["utf-8"] * ("utf-8" not in named)


def readings(raw: bytes, encodings: Sequence[str]) -> list[str]:
    """What Python can have given the submission for these bytes, each once: for each encoding, the text
    mode of open() and read_text() (universal newlines: Windows' `\\r\\n` read as `\\n`; a BOM kept by
    'utf-8', dropped by 'utf-8-sig'), then the bytes decoded as they are (`newline=''`, `.decode()`).
    The text mode first: where nothing agrees, it is what the lecture's `open('input.txt')` reads."""
    found: list[str] = []
    for encoding in encodings:
        try:
            decoded = raw.decode(encoding, errors="replace")
        except UnicodeError:  # a codec that gives up on these bytes even with errors="replace"
            continue
        for text in (decoded.replace("\r\n", "\n").replace("\r", "\n"), decoded):
            if text not in found:
                found.append(text)
    return found


def claimed_vocabulary(names: Variables) -> set[str] | None:
    """The characters of the submission's vocabulary, where it is a string or a list of strings."""
    value = next((names[name] for name in VOCABULARIES if name in names), None)
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(c, str) for c in value)):
        return set(value)
    return None


def shown_char(char: str) -> Msg | str:
    """One character for a message: its repr, with whitespace named (a repr of it reads as blank quotes
    or as an escape few students know)."""
    if char in WHITESPACE:
        return Msg(WHITESPACE[char])
    return Msg("chars.whitespace", {"char": repr(char)}) if char.isspace() else repr(char)


def shown_chars(chars: Sequence[str]) -> Msg | str:
    """Characters for a message, each as shown_char, the first SHOWN_CHARS of them; `none`, never ''."""
    if not chars:
        return Msg("chars.none")
    items: list[Msg | str] = [shown_char(c) for c in chars[:SHOWN_CHARS]] + ["…"] * (len(chars) > SHOWN_CHARS)
    shown = items[-1]
    for item in reversed(items[:-1]):
        shown = Msg("chars.list", {"first": item, "rest": shown})
    return shown


def shown_string(text: str) -> Msg | str:
    """A string for a message: its repr, or `an empty string` rather than ''."""
    return repr(text) if text else Msg("chars.empty")


def vocabulary(text: str) -> list[str]:
    return sorted(set(text))


def code_points(text: str) -> torch.Tensor:
    """The text's characters as their code points (int32), converted in C: a large text, one character at a
    time in Python, costs the judge seconds."""
    raw = bytearray(text.encode("utf-32-le", "surrogatepass"))
    return torch.frombuffer(raw, dtype=torch.int32) if raw else torch.zeros(0, dtype=torch.int32)


def fresh_string(rng: torch.Generator, chars: list[str], length: int) -> str:
    """`length` characters drawn uniformly from `chars` with the check's generator."""
    picks = torch.randint(len(chars), (length,), generator=rng).tolist()
    return "".join(chars[i] for i in picks)


def shuffled(rng: torch.Generator, chars: list[str]) -> str:
    """Every character of `chars` once, in a fresh order."""
    return "".join(chars[i] for i in torch.randperm(len(chars), generator=rng).tolist())


def fresh_int(rng: torch.Generator, low: int, high: int) -> int:
    """An integer in [low, high] from the check's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng))


# -- finding answers ------------------------------------------------------------------------------
def functions_named(sb: SandboxClient, name: str) -> list[Obj]:
    """Every function (lambdas included) the submission bound to `name`, the latest binding last."""
    found = []
    for obj in sb.inventory():
        cells = [b["cell"] for b in obj.bindings if b.get("name") == name and type(b.get("cell")) is int]
        if obj.kind == "function" and cells:
            found.append((max(cells), obj))
    return [obj for _, obj in sorted(found, key=lambda item: item[0])]


def function_named(sb: SandboxClient, *names: str) -> Obj | None:
    """The function last bound to the first of `names` that the submission uses."""
    for name in names:
        found = functions_named(sb, name)
        if found:
            return found[-1]
    return None


def namespace(sb: SandboxClient) -> Variables:
    """The submission's variables, each read once per child."""
    cached = _NAMESPACES.get(sb)
    if cached is not None and cached[0] == sb.generation:
        return cached[1]
    names = Variables(sb)
    _NAMESPACES[sb] = (sb.generation, names)
    return names


def lookup(names: Variables, candidates: Iterable[str]) -> tuple[str, Any] | None:
    """(name, value) of the first candidate the namespace holds; a value that could not be sent is
    the student's to fix, named (a skip would let them hide a wrong split behind it)."""
    for name in candidates:
        if name in names:
            value = names[name]
            if isinstance(value, dict) and "__unreadable__" in value:
                raise Verdict(failed("namespace.unreadable", name=name, why=str(value["__unreadable__"])[:200]))
            return name, value
    return None


# -- the split, by what each part is ------------------------------------------------------------------
TRAIN = ("train_data", "train_ids")
HELD_OUT = ("val_data", "valid_data", "validation_data", "val_ids")
# A name that says held-out, lower-cased: val, x_test, valData, test_ids, dev_set (not device, values, interval).
HELD_OUT_WORD = re.compile(r"(?:^|_)(?:val|valid|validation|test|dev|eval|heldout|holdout)(?:$|_|\d|data|set|ids)")
MAX_SCANNED = 16  # other names read, each by a probe of its own, to find a part of the split by what it is
Part = tuple[str, Any]  # (the name the student gave it, its value as sent)


def split_parts(sb: SandboxClient, names: Variables) -> tuple[Part | None, Part | None]:
    """The training part and the held-out part of the split, each None where none is found. By the
    lecture's names first; else by what each part is, whatever the student called it: a tensor named as a
    training set, else the one tensor sliced from `data` that is its start (`tr = data[:n]`); for the
    held-out part, what get_batch reads for its non-train split, the rest of `data` after the training part,
    a tensor named as a held-out set (`test_data`, `valid`). What comes back is a claim: the checks judge
    each part's value."""
    reads = global_reads(sb, "get_batch")
    assigned = top_level_assignments(sb)
    whole_part = data_part(sb, names)
    whole_name, whole = whole_part if whole_part is not None else ("data", None)
    whole_ids: Any = whole if is_ids(whole) else None
    from_data = [name for name, value in assigned.items() if name not in {"data", whole_name}
                 and any(isinstance(n, ast.Name) and n.id == whole_name for n in ast.walk(value))]
    train = lookup(names, TRAIN) or _first_ids(names, [n for n in [*reads, *assigned] if "train" in n.lower()]) \
        or _start_of(names, whole_ids, [n for n in from_data if not HELD_OUT_WORD.search(n.lower())])
    held = lookup(names, HELD_OUT)
    if held is not None:
        return train, held
    taken = {"data", whole_name, *TRAIN, *([train[0]] if train else [])}
    held = _first_ids(names, [n for n in reads if n not in taken])  # what get_batch draws from besides train
    if held is None and whole_ids is not None and train is not None and is_ids(train[1]) \
            and len(whole_ids) > len(train[1]):
        rest = [name for name in from_data if name not in taken]
        held = _first_ids(names, rest, equal_to=whole_ids[len(train[1]):])  # the rest after the training part
    if held is None:
        held = _first_ids(names, [n for n in assigned if n not in taken and HELD_OUT_WORD.search(n.lower())])
    return train, held


def _start_of(names: Variables, whole: Any, candidates: Sequence[str]) -> Part | None:
    """The one of `candidates` (names assigned from data) that holds data's start, data[:k] for 0 < k <
    len(data): the training part under a name that says nothing (`tr, va = data[:n], data[n:]`). None where
    none does, or several: the judge never picks between two."""
    if not is_ids(whole):
        return None
    found = []
    for name in list(dict.fromkeys(candidates))[:MAX_SCANNED]:
        value = names.get(name)
        if is_ids(value) and 0 < len(value) < len(whole) and torch.equal(value.long(), whole[:len(value)].long()):
            found.append((name, value))
    return found[0] if len(found) == 1 else None


# -- the lecture's values under other names, by what they are --------------------------------------------------
DATA = ("data",)
# Calls that make the encoded text a tensor: torch.tensor(encode(text)), torch.LongTensor(...), .long()
TENSOR_CALLS = frozenset({"tensor", "as_tensor", "LongTensor", "IntTensor", "from_numpy", "long", "int"})
SET_CALLS = frozenset({"set", "sorted", "unique", "fromkeys", "Counter"})  # what a vocabulary is built with
_DATA: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Part | None]]" = weakref.WeakKeyDictionary()
_VOCAB: "weakref.WeakKeyDictionary[SandboxClient, tuple[int, Part | None]]" = weakref.WeakKeyDictionary()


def _calls(value: ast.expr, wanted: frozenset[str]) -> bool:
    """Whether the expression calls a function or method of one of those names (or is a set comprehension)."""
    for node in ast.walk(value):
        if isinstance(node, ast.SetComp):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in wanted:
                return True
    return False


def data_part(sb: SandboxClient, names: Variables) -> Part | None:
    """(name, value) of the submission's encoded text: `data`, else the one top-level tensor of its own, made
    by a tensor call (torch.tensor(encode(text))), that holds one integer id per character of the text it read
    (`encoded`, `ids`, `full_data`), noted as `data`. What comes back is a claim: the checks judge its values
    (`data` as sent, also where it could not be: the checks that read it say so, with `lookup`)."""
    if "data" in names:
        return "data", names["data"]
    cached = _DATA.get(sb)
    if cached is None or cached[0] != sb.generation:
        length = len(source_text(sb).text)
        skip = {*DATA, *TRAIN, *HELD_OUT, *VOCABULARIES, "text"}
        candidates = [n for n, value in top_level_assignments(sb).items()
                      if n not in skip and _calls(value, TENSOR_CALLS)]
        values = [(n, names.get(n)) for n in candidates[:MAX_SCANNED]]
        shaped = [(n, v) for n, v in values if is_ids(v) and len(v) == length]
        cached = _DATA[sb] = (sb.generation, shaped[0] if len(shaped) == 1 else None)
    if cached[1] is not None:
        found_as("data", cached[1][0])
    return cached[1]


def vocabulary_part(sb: SandboxClient, names: Variables) -> Part | None:
    """(name, value) of the submission's vocabulary: one of VOCABULARIES, else the one top-level variable of
    its own, built with set() or sorted(), that holds the distinct characters of the text it read, each once
    (a string or a list of single characters, in any order: `vocab_list`, `letters`), noted as `chars`."""
    found = lookup(names, VOCABULARIES)
    if found is not None:
        return found
    cached = _VOCAB.get(sb)
    if cached is None or cached[0] != sb.generation:
        wanted = set(source_text(sb).text)
        candidates = [n for n, value in top_level_assignments(sb).items()
                      if n not in (*VOCABULARIES, "text") and _calls(value, SET_CALLS)]
        shaped = []
        for name in candidates[:MAX_SCANNED]:
            value = names.get(name)
            items = list(value) if isinstance(value, (str, list)) else []
            if (len(items) > 1 and all(isinstance(c, str) and len(c) == 1 for c in items)
                    and len(set(items)) == len(items) and set(items) == wanted):
                shaped.append((name, value))
        cached = _VOCAB[sb] = (sb.generation, shaped[0] if len(shaped) == 1 else None)
    if cached[1] is not None:
        found_as("chars", cached[1][0])
    return cached[1]


def _first_ids(names: Variables, candidates: Iterable[str], equal_to: torch.Tensor | None = None) -> Part | None:
    """(name, value) of the first candidate holding a 1-D tensor of ids (equal to `equal_to`, where given);
    a value that cannot be sent is passed over: nothing says it is a part of the split."""
    for name in list(dict.fromkeys(candidates))[:MAX_SCANNED]:
        value = names.get(name)
        if is_ids(value) and (equal_to is None or torch.equal(value.long(), equal_to.long())):
            return name, value
    return None


def _trees(sb: SandboxClient) -> list[ast.Module]:
    """Each cell of the submission parsed, read as text in the judge (nothing runs), once per submission;
    one that does not parse (a magic, a syntax error the run recorded) is left out."""
    cached = _PARSED.get(sb)
    if cached is not None:
        return cached
    trees = []
    for cell in sb.submission.cells:
        try:
            trees.append(ast.parse(cell.source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    _PARSED[sb] = trees
    return trees


def top_level_assignments(sb: SandboxClient) -> dict[str, ast.expr]:
    """Each name the cells assign at the top level and the expression last assigned to it, in the order
    the names are first bound (`a, b = x[:n], x[n:]` pairs each name with its own expression)."""
    found: dict[str, ast.expr] = {}
    for tree in _trees(sb):
        for node in tree.body:
            if isinstance(node, ast.Assign):
                pairs = [pair for target in node.targets for pair in _pairs(target, node.value)]
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                pairs = _pairs(node.target, node.value)
            else:
                continue
            found.update(pairs)
    return found


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            else [value] * len(target.elts)
        return [pair for t, v in zip(target.elts, values) for pair in _pairs(t, v)]
    return []


def function_def(sb: SandboxClient, function: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The submission's last top-level `def <function>`, as its text has it (None where it has none)."""
    defs = [node for tree in _trees(sb) for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function]
    return defs[-1] if defs else None


def global_reads(sb: SandboxClient, function: str) -> list[str]:
    """The names the submission's last top-level `def <function>` reads from the notebook, in the order
    they appear in it: not its parameters, nor the names it binds itself (get_batch's local `data`)."""
    fn = function_def(sb, function)
    if fn is None:
        return []
    args = fn.args
    own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    used = [n for n in ast.walk(fn) if isinstance(n, ast.Name)]
    own |= {n.id for n in used if not isinstance(n.ctx, ast.Load)}
    ordered = sorted((n for n in used if isinstance(n.ctx, ast.Load) and n.id not in own),
                     key=lambda n: (n.lineno, n.col_offset))
    return list(dict.fromkeys(n.id for n in ordered))


def positive_int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def is_ids(value: Any) -> bool:
    """A 1-D tensor of integer ids."""
    return isinstance(value, torch.Tensor) and value.dim() == 1 and not value.is_floating_point() \
        and not value.is_complex() and value.dtype != torch.bool


def binding_cell(sb: SandboxClient, name: str) -> dict[str, Any]:
    """Evidence naming the last cell whose source assigns `name` at the top level (read as text in the
    judge: variables are not in the inventory, so the page can still quote the cell at fault; an
    assignment inside a function, such as get_batch's local `data`, is not the variable); {} when none does."""
    pattern = re.compile(r"^([A-Za-z_(\[][\w ,()\[\]]*?)\s*=(?!=)", re.MULTILINE)
    for cell in reversed(sb.submission.cells):
        for match in pattern.finditer(cell.source):
            if name in re.findall(r"\w+", match.group(1)):
                return {"object": {"name": name, "cell": cell.number}}
    return {}


# -- where ids sit in a longer sequence -----------------------------------------------------------
def offsets(haystack: torch.Tensor, needle: torch.Tensor, limit: int = 64) -> list[int]:
    """Offsets where `needle` occurs as a contiguous stretch of `haystack` (both 1-D), up to `limit`, of
    the first candidates whose confirming costs at most CONFIRMED ids compared: in a text that repeats
    itself (or a submission's zeros), a long needle matches its first ids almost everywhere."""
    n, m = len(haystack), len(needle)
    if m == 0 or m > n:
        return []
    hay, pin = haystack.long(), needle.long()
    found = (hay[: n - m + 1] == pin[0]).nonzero().flatten()
    for k in range(1, min(m, 32)):  # narrow the candidates on the first ids, then confirm each
        found = found[hay[found + k] == pin[k]]
        if not len(found):
            return []
    candidates = found[:max(1, min(4096, CONFIRMED // m))]
    return [int(i) for i in candidates if torch.equal(hay[i:i + m], pin)][:limit]


def sub_multiset(part: torch.Tensor, whole: torch.Tensor) -> bool:
    """Every id of `part` occurs in `whole` at least as often (a reordering of some of its ids)."""
    if not len(part) or not len(whole) or int(part.min()) < 0 or int(whole.min()) < 0:
        return False
    size = max(int(part.max()), int(whole.max())) + 1
    if size > 10_000_000:
        return False
    return bool((torch.bincount(part.long(), minlength=size) <= torch.bincount(whole.long(), minlength=size)).all())
