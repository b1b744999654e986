"""Shared by gpt.batch: what each parameter of a learner's get_batch is, and the sizes it reads under other names.

The lecture's get_batch takes the split's name and reads the rest from the notebook; learners pass more
(`get_batch(split, batch_size, block_size)`, `get_batch(data, batch_size, block_size)`,
`get_batch(split, train_data, val_data, block_size, device, batch_size)`) and name it as they like. Each
parameter is given what it is: by what the function's own code does with it (a name compared with 'train' is
the split's name; one sliced or measured with len() is a tensor of ids; one in torch.randint's size is the
batch size; one a window's length is the block size), else by the lecture's name for it, else by its place
in the lecture's order (split, batch_size, block_size). The same reading finds the sizes the function takes
from the notebook under other names (`BATCH`, `ctx_len`). Read from the submission's text in the judge:
nothing runs, and what the judge then measures (where each row of the batch lies) is what gets judged.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable

SPLIT, DATA, TRAIN, VAL, BATCH, BLOCK, DEVICE = "split", "data", "train", "val", "batch_size", "block_size", "device"
ORDER = (SPLIT, BATCH, BLOCK)  # the lecture's get_batch(split), with the sizes after it where it takes them
NAMES = {  # lower-cased
    SPLIT: {"split", "mode", "split_name", "which", "kind", "partition", "phase", "stage", "subset", "part",
            "dataset_type", "data_type", "data_split", "set_name", "split_type", "name", "type", "s"},
    DATA: {"data", "source", "dataset", "tensor", "ids", "tokens", "data_tensor", "encoded", "arr", "array", "d",
           "seq", "sequence", "corpus", "src", "dat", "split_data", "text_data", "token_ids"},
    BATCH: {"batch_size", "bs", "batch", "b", "batchsize", "n_batch", "num_batch", "nbatch", "batch_sz",
            "num_samples", "n_samples", "num_sequences", "n_seq"},
    BLOCK: {"block_size", "context_length", "context_size", "ctx_len", "ctx", "block", "seq_len", "seq_length",
            "sequence_length", "t", "blocksize", "context", "context_len", "window", "window_size", "max_len",
            "block_len", "chunk_size", "ctx_size"},
    DEVICE: {"device", "dev"},
}
TRAIN_WORDS = ("train",)
VAL_WORDS = ("val", "valid", "test", "dev", "eval", "holdout", "heldout")
COUNTS = frozenset({"randint", "choice", "sample", "multinomial"})  # random draws that take a count


def by_name(name: str) -> str | None:
    """The role the lecture's name (or a learner's spelling of it) gives a parameter."""
    lowered = name.lower()
    for role, names in NAMES.items():
        if lowered in names:
            return role
    words = lowered.replace("-", "_").split("_")
    if any(w.startswith(TRAIN_WORDS) for w in words) and lowered not in NAMES[SPLIT]:
        return TRAIN
    if any(w in VAL_WORDS or w.startswith(("val", "valid")) for w in words) and "device" not in lowered:
        return VAL
    return None


def uses(node: ast.AST, names: Iterable[str]) -> dict[str, set[str]]:
    """The roles each of `names` plays in the function's code: SPLIT where it is compared with a string or
    used as a key (`splits[split]`), DATA where it is sliced or indexed or measured (`data[i:i+8]`,
    `len(data)`), BATCH where it is the count of a random draw (`torch.randint(n, (batch_size,))`), BLOCK
    where it bounds a window (`data[i:i+block_size]`, `len(data) - block_size`, `torch.arange(block_size)`)."""
    params = set(names)
    aliases = _aliases(node, params)  # `data = split`, `data = train_data if split == 'train' else val_data`
    wanted = params | set(aliases)
    found: dict[str, set[str]] = {n: set() for n in wanted}

    def mark(expr: ast.AST | None, role: str) -> None:
        for sub in ast.walk(expr) if expr is not None else ():
            if isinstance(sub, ast.Name) and sub.id in wanted:
                found[sub.id].add(role)

    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare):
            sides = [sub.left, *sub.comparators]
            if any(_strings(side) for side in sides):
                for side in sides:
                    if isinstance(side, ast.Name) and side.id in wanted:
                        found[side.id].add(SPLIT)
        elif isinstance(sub, ast.Subscript):
            if isinstance(sub.value, ast.Name) and sub.value.id in wanted:
                found[sub.value.id].add(DATA)
            if isinstance(sub.slice, ast.Name) and sub.slice.id in wanted and isinstance(sub.value, ast.Name) \
                    and sub.value.id not in wanted:
                found[sub.slice.id].add(SPLIT)  # a dict of the splits, looked up by the split's name
            if isinstance(sub.slice, ast.Slice):
                role = BATCH if _call_name(sub.value) == "randperm" else BLOCK
                mark(sub.slice.lower, role)
                mark(sub.slice.upper, role)
        elif isinstance(sub, ast.Call):
            name = _call_name(sub)
            if name == "len" and sub.args and isinstance(sub.args[0], ast.Name) and sub.args[0].id in wanted:
                found[sub.args[0].id].add(DATA)
            if name in COUNTS:  # randint(high, size) or randint(low, high, size); choice(a, size); sample(a, k)
                count = sub.args[-1] if name == "randint" and len(sub.args) >= 2 else \
                    sub.args[1] if name != "randint" and len(sub.args) >= 2 else None
                mark(count, BATCH)
                for kw in sub.keywords:
                    if kw.arg in ("size", "k", "num_samples"):
                        mark(kw.value, BATCH)
            if name == "arange":
                for arg in sub.args:
                    mark(arg, BLOCK)
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub) and _call_name(sub.left) == "len":
            mark(sub.right, BLOCK)
    for local, sources in aliases.items():
        for source in sources:
            found[source] |= found[local]
    return {n: found[n] for n in params}


def _aliases(node: ast.AST, params: set[str]) -> dict[str, set[str]]:
    """The function's own names bound to one of `params` as it is (`data = split`, `b, t = bs, ctx`), or to one
    of two (`data = train_data if split == 'train' else val_data`): what the code does with them, it does
    with the parameter."""
    found: dict[str, set[str]] = {}
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Assign):
            continue
        for target in sub.targets:
            pairs = list(zip(target.elts, sub.value.elts)) if isinstance(target, ast.Tuple) and isinstance(
                sub.value, ast.Tuple) and len(target.elts) == len(sub.value.elts) else [(target, sub.value)]
            for name, value in pairs:
                options = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
                sources = {o.id for o in options if isinstance(o, ast.Name) and o.id in params}
                if isinstance(name, ast.Name) and name.id not in params and sources:
                    found.setdefault(name.id, set()).update(sources)
    return found


def _strings(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return True
    return isinstance(expr, (ast.Tuple, ast.List, ast.Set)) and bool(expr.elts) and all(_strings(e) for e in expr.elts)


def _call_name(expr: ast.AST) -> str:
    if not isinstance(expr, ast.Call):
        return ""
    func = expr.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def role_of(name: str, played: set[str]) -> str | None:
    """A name's role: the one its code gives it (DATA over BLOCK: a tensor is sliced, and a size bounds the
    slice), else the one its name gives it where the code's roles include it or say nothing."""
    named = by_name(name)
    if DATA in played and named in (TRAIN, VAL):
        return named  # get_batch(split, train_data, val_data): the part itself
    roles = played - {BLOCK} if DATA in played else played
    if len(roles) == 1:
        return next(iter(roles))
    return named if named is not None and (not roles or named in roles) else None


@dataclass(frozen=True)
class Param:
    name: str
    role: str | None  # None: the judge has no value for it (given only where it has a default)
    by_place: bool = False  # its role guessed from its place in the lecture's order (named otherwise)
    required: bool = True  # no default, or a default of None that the caller is meant to replace


def parameters(node: ast.AST, names: tuple[str, ...], required: int, none_default: frozenset[str]) -> list[Param]:
    """Each parameter of get_batch and what the judge gives it."""
    played = uses(node, names)
    params = []
    for i, name in enumerate(names):
        params.append(Param(name, role_of(name, played[name]), required=i < required or name in none_default))
    taken = {p.role for p in params if p.role is not None}
    for i, p in enumerate(params):
        if p.role is None and p.required and i < len(ORDER) and ORDER[i] not in taken:
            params[i] = Param(p.name, ORDER[i], by_place=True)
            taken.add(ORDER[i])
    return params


def global_sizes(node: ast.AST, reads: Iterable[str]) -> dict[str, str]:
    """The notebook's names get_batch reads as its sizes (role -> name), where one name plays each role."""
    played = uses(node, reads)
    found: dict[str, list[str]] = {}
    for name, roles in played.items():
        role = role_of(name, roles)
        if role in (BATCH, BLOCK):
            found.setdefault(role, []).append(name)
    return {role: names[0] for role, names in found.items() if len(names) == 1}
