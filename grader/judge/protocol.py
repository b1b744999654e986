"""The schema of the child's answers: what each probe's reply must look like before a check reads it.

The child is the submission's own process, so student code can rewrite what it sends (grader.wire,
grader.sandbox.child and grader.sandbox.inventory are importable there). The wire refuses malformed
frames and tensors; this module refuses well-framed answers of the wrong shape: an int where a mapping
is due, strings or negative numbers for sizes, missing keys, absurd sizes. A check then indexes into an
answer knowing its types, and an answer that does not fit is the submission's failure: the session turns
`Invalid` into ProtocolViolation (`check.protocol`), never a grader error.

The shapes below are what grader.sandbox.inventory and grader.sandbox.child produce for an honest child.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

import torch

MAX_TEXT = 1000  # a name or a class name; an honest one is far shorter
MAX_DIMS = 64  # torch itself allows fewer
MAX_SIZE = 2**31 - 1  # one dim, as grader.wire allows
MAX_NUMEL = 2**40  # no tensor in memory holds more

Validator = Callable[[Any, str], Any]


class Invalid(ValueError):
    """An answer that does not fit the protocol; the message says where in it."""


# -- leaves --------------------------------------------------------------------------------------------
def text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise Invalid(f"{where}: not a name")
    return value


def flag(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise Invalid(f"{where}: not true or false")
    return value


def count(value: Any, where: str) -> int:
    """A size or an index: a plain int (not a bool) from 0 to MAX_SIZE."""
    if type(value) is not int or not 0 <= value <= MAX_SIZE:
        raise Invalid(f"{where}: not a size")
    return value


def shape(value: Any, where: str) -> list[int]:
    sizes = [count(d, f"{where}[{i}]") for i, d in enumerate(listed(value, where, MAX_DIMS))]
    numel = 1
    for d in sizes:
        numel *= d
    if numel > MAX_NUMEL:
        raise Invalid(f"{where}: more elements than any tensor holds")
    return sizes


def listed(value: Any, where: str, most: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (most is not None and len(value) > most):
        raise Invalid(f"{where}: not a list")
    return value


def mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{where}: not a mapping")
    return value


# -- records ---------------------------------------------------------------------------------------------
def record(fields: dict[str, Validator], optional: Iterable[str] = ()) -> Validator:
    """A mapping holding every field (but those `optional`), each of its own type; other keys are ignored."""
    maybe = set(optional)

    def check(value: Any, where: str = "answer") -> dict[str, Any]:
        found = mapping(value, where)
        for key, validate in fields.items():
            if key in found:
                validate(found[key], f"{where}.{key}")
            elif key not in maybe:
                raise Invalid(f"{where}: no {key}")
        return found

    return check


def each(validate: Validator) -> Validator:
    def check(value: Any, where: str = "answer") -> list[Any]:
        return [validate(v, f"{where}[{i}]") for i, v in enumerate(listed(value, where))]

    return check


PARAMETER = record({"name": text, "shape": shape, "dtype": text, "requires_grad": flag})
BUFFER = record({"name": text, "shape": shape, "dtype": text, "persistent": flag})
PLAIN_TENSOR = record({"name": text, "shape": shape})
SUBMODULE = record({"name": text, "class": text})
BINDING = record({"cell": count, "name": text})

KINDS: dict[str, Validator] = {
    "module": record({"class": text, "training": flag, "parameters": each(PARAMETER), "buffers": each(BUFFER),
                      "plain_tensors": each(PLAIN_TENSOR), "modules": each(SUBMODULE), "defined_here": flag},
                     optional=("defined_here",)),  # a module a call returned is described without it
    "class": record({"class": text, "is_module": flag, "params": each(text), "defined_here": flag}),
    "function": record({"class": text, "params": each(text), "defined_here": flag}),
    "object": record({"class": text, "defined_here": flag}),
}


# -- answers -------------------------------------------------------------------------------------------------
def description(value: Any, where: str = "description") -> dict[str, Any]:
    """What grader.sandbox.inventory.describe says of one object, by its kind."""
    info = mapping(value, where)
    validate = KINDS.get(info.get("kind"))  # type: ignore[arg-type]
    if validate is None:
        raise Invalid(f"{where}.kind: not a kind of object")
    return validate(info, where)  # type: ignore[no-any-return]


def inventory_entry(value: Any, where: str = "entry") -> dict[str, Any]:
    """One object the submission bound: its handle, every (cell, name) that held it, and its description."""
    entry = record({"ref": count, "bindings": each(BINDING)})(value, where)
    return description(entry, where)


def handle(value: Any, where: str = "handle") -> tuple[int, dict[str, Any]]:
    """(ref, description) of an object the child kept and described (what construct and call return)."""
    found = record({"__ref__": count, "info": description})(value, where)
    return found["__ref__"], found["info"]


def tensors(value: Any, where: str = "tensors") -> dict[str, torch.Tensor]:
    """A module's tensors by name (the `state` probe)."""
    found = mapping(value, where)
    for name, t in found.items():
        if not isinstance(t, torch.Tensor):
            raise Invalid(f"{where}.{name[:100]}: not a tensor")
    return found


def values(value: Any, names: Iterable[str], where: str = "variables") -> dict[str, Any]:
    """The submission's values of the names asked for (each one a claim the check validates itself)."""
    found = mapping(value, where)
    asked = set(names)
    extra = [k for k in found if k not in asked]
    if extra:
        raise Invalid(f"{where}: {extra[0][:100]!r} was not asked for")
    return found


def name_list(value: Any, where: str = "names") -> list[str]:
    return each(text)(value, where)  # type: ignore[no-any-return]
