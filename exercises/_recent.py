"""The judge's own computations on inputs it has just seen, found again instead of computed again.

Within one `grade batch`, every student of the class is graded on one draw of hidden inputs and weights
(docs/security.md, "One draw for a class"), so the reference's output on them, 3.3's attention over 1024
tokens above all (about 120 ms of the judge's CPU in each ch03 grade), is the same for every student whose
answer the judge maps the same way. A judge grades its students one after another, so the last few results
suffice.

A result is found again only for arguments equal to the stored ones, tensors compared value by value with
`torch.equal` (shape, dtype and every number): never by a hash, a seed or a position in the draw, so a hit
is the same computation whatever the student's answer made the check draw. The arguments are stored as
copies, and a hit hands out a copy, so a caller that changes a tensor in place changes neither.
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict, deque
from typing import Any, Callable, Hashable, TypeVar

import torch

T = TypeVar("T")


class Recent:
    """The last results of the computations given to `get`: for each shape of arguments (the function, and
    every tensor's dtype and shape), the last `per_shape` of them, the least recently used shapes dropped first
    past `most_bytes` of tensors held (arguments and results). A ch03 grade asks for about twenty, of a dozen
    shapes, about 30 MB in all (3.3's weights and its 1024-token input), between one student's 3.3 reference and
    the next's; the bound keeps a judge's memory to that whatever shapes a class's answers bring."""

    def __init__(self, most_bytes: int = 64 << 20, per_shape: int = 2) -> None:
        self._most_bytes = most_bytes
        self._per_shape = per_shape
        self._entries: OrderedDict[Hashable, deque[tuple[Any, Any, int]]] = OrderedDict()
        self._bytes = 0

    def get(self, compute: Callable[..., T], *args: Any) -> T:
        """compute(*args), or a copy of what it gave on equal arguments before."""
        key = _shape((compute, args))
        entries = self._entries.setdefault(key, deque())
        self._entries.move_to_end(key)
        for stored, result, _ in entries:
            if same(stored, (compute, args)):
                return _copy(result)
        result = compute(*args)
        size = _nbytes(args) + _nbytes(result)
        if size <= self._most_bytes:
            if len(entries) == self._per_shape:
                self._bytes -= entries.popleft()[2]
            entries.append(((compute, _copy(args)), _copy(result), size))
            self._bytes += size
            while self._bytes > self._most_bytes:
                _, oldest = self._entries.popitem(last=False)
                self._bytes -= sum(entry[2] for entry in oldest)
        return result


def _nbytes(value: Any) -> int:
    """The bytes of the tensors a value holds."""
    if isinstance(value, torch.Tensor):
        return value.element_size() * value.nelement()
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(_nbytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0


def _shape(value: Any) -> Hashable:
    """What two equal arguments have in common, cheap to compare: the same types, tensors of the same dtype
    and shape, the same other values where they can be hashed."""
    if isinstance(value, torch.Tensor):
        return ("tensor", value.dtype, tuple(value.shape), value.device.type)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_shape(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((k, _shape(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value), tuple(_shape(getattr(value, f.name)) for f in dataclasses.fields(value)))
    try:
        hash(value)
    except TypeError:
        return (type(value), None)  # told apart by `same` alone
    return (type(value), value)


def same(a: Any, b: Any) -> bool:
    """Whether two arguments are equal, through tuples, lists, dicts and dataclasses down to tensors, which
    are equal only with the same dtype, shape and values (a NaN in either never is)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        return a.dtype == b.dtype and a.device == b.device and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return bool(a == b)


def _copy(value: T) -> T:
    if isinstance(value, torch.Tensor):
        return value.clone()  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)  # type: ignore[return-value]
    if isinstance(value, list):
        return [_copy(v) for v in value]  # type: ignore[return-value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _copy(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value
