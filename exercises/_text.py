"""Shared by the `gpt` exercises: the shipped text, fresh text, and reading a submission's variables.

The lecture reads `input.txt`; the grader ships a small public-domain one (data/input.txt) that the
judge copies beside the submission, unless the student handed in their own. The judge reads the same
file here, so every expected value (the vocabulary, the encoded text) is computed on its side.

The lecture keeps its answers in plain variables (`chars`, `data`, `train_data`, `batch_size`), which
the inventory of modules, classes and functions does not hold; the sandbox's `variables` probe sends
the ones named in VARIABLES as plain data (tensors as bytes, other objects as their repr). What comes
back is a claim like any other: each check validates the types and shapes it uses and confirms the
values against what the judge computed itself.
"""
from __future__ import annotations

import re
import weakref
from pathlib import Path
from typing import Any, Iterable

import torch

from grader.exercise import Verdict, failed
from grader.session import Obj, Sandbox

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
# The lecture's variables the checks read (the names it uses, and the variants students write).
VARIABLES = ("chars", "vocab", "vocabulary", "vocab_size", "data", "train_data", "train_ids", "val_data",
             "valid_data", "validation_data", "val_ids", "batch_size", "block_size", "context_length")

_NAMESPACES: "weakref.WeakKeyDictionary[Sandbox, tuple[int, dict[str, Any]]]" = weakref.WeakKeyDictionary()


def input_text(sb: Sandbox) -> str:
    """The text the submission's `open('input.txt')` read: the student's own copy if they handed one in."""
    own = [p for p in sb.submission.files if p.name == TEXT_NAME]
    path = own[-1] if own else TEXT_FILE
    return path.read_text(encoding="utf-8", errors="replace")


def vocabulary(text: str) -> list[str]:
    return sorted(set(text))


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
def functions_named(sb: Sandbox, name: str) -> list[Obj]:
    """Every function (lambdas included) the submission bound to `name`, the latest binding last."""
    found = []
    for obj in sb.inventory():
        cells = [b["cell"] for b in obj.bindings if b.get("name") == name and type(b.get("cell")) is int]
        if obj.kind == "function" and cells:
            found.append((max(cells), obj))
    return [obj for _, obj in sorted(found, key=lambda item: item[0])]


def function_named(sb: Sandbox, *names: str) -> Obj | None:
    """The function last bound to the first of `names` that the submission uses."""
    for name in names:
        found = functions_named(sb, name)
        if found:
            return found[-1]
    return None


def namespace(sb: Sandbox) -> dict[str, Any]:
    """The lecture's variables (VARIABLES) as the submission bound them, read once per child."""
    cached = _NAMESPACES.get(sb)
    if cached is not None and cached[0] == sb.generation:
        return cached[1]
    names = sb.variables(list(VARIABLES))
    _NAMESPACES[sb] = (sb.generation, names)
    return names


def lookup(names: dict[str, Any], candidates: Iterable[str]) -> tuple[str, Any] | None:
    """(name, value) of the first candidate the namespace holds; a value that could not be sent is
    the student's to fix, named (a skip would let them hide a wrong split behind it)."""
    for name in candidates:
        if name in names:
            value = names[name]
            if isinstance(value, dict) and "__unreadable__" in value:
                raise Verdict(failed("namespace.unreadable", name=name, why=str(value["__unreadable__"])[:200]))
            return name, value
    return None


def positive_int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def is_ids(value: Any) -> bool:
    """A 1-D tensor of integer ids."""
    return isinstance(value, torch.Tensor) and value.dim() == 1 and not value.is_floating_point() \
        and not value.is_complex() and value.dtype != torch.bool


def binding_cell(sb: Sandbox, name: str) -> dict[str, Any]:
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
    """Offsets where `needle` occurs as a contiguous stretch of `haystack` (both 1-D), up to `limit`."""
    n, m = len(haystack), len(needle)
    if m == 0 or m > n:
        return []
    hay, pin = haystack.long(), needle.long()
    found = (hay[: n - m + 1] == pin[0]).nonzero().flatten()
    for k in range(1, min(m, 32)):  # narrow the candidates on the first ids, then confirm each
        found = found[hay[found + k] == pin[k]]
        if not len(found):
            return []
    return [int(i) for i in found[:4096] if torch.equal(hay[i:i + m], pin)][:limit]


def sub_multiset(part: torch.Tensor, whole: torch.Tensor) -> bool:
    """Every id of `part` occurs in `whole` at least as often (a reordering of some of its ids)."""
    if not len(part) or not len(whole) or int(part.min()) < 0 or int(whole.min()) < 0:
        return False
    size = max(int(part.max()), int(whole.max())) + 1
    if size > 10_000_000:
        return False
    return bool((torch.bincount(part.long(), minlength=size) <= torch.bincount(whole.long(), minlength=size)).all())
