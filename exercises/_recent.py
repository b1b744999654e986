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
    every tensor's dtype, shape and device), the last `per_shape` of them, the least recently used shapes dropped
    first past `most_bytes` of tensors held (arguments and results). A ch03 grade asks for about twenty, of a dozen
    shapes, about 30 MB in all (3.3's weights and its 1024-token input), between one student's 3.3 reference and
    the next's; the bound keeps a judge's memory to that whatever shapes a class's answers bring."""

    def __init__(self, most_bytes: int = 64 << 20, per_shape: int = 2) -> None:
        self._most_bytes = most_bytes
        self._per_shape = per_shape
        self._entries: OrderedDict[Hashable, deque[tuple[list[Any], Any, int]]] = OrderedDict()
        self._bytes = 0

    def get(self, compute: Callable[..., T], *args: Any) -> T:
        """compute(*args), or a copy of what it gave on equal arguments before."""
        key, leaves = _split((compute, args))
        entries = self._entries.get(key, deque())
        if key in self._entries:
            self._entries.move_to_end(key)
        for stored, result, _ in entries:
            if all(_equal(a, b) for a, b in zip(stored, leaves)):
                return _copy(result)
        result = compute(*args)
        size = _nbytes(leaves) + _nbytes(_split(result)[1])
        if size <= self._most_bytes:
            if len(entries) == self._per_shape:
                self._bytes -= entries.popleft()[2]
            entries.append((_copy(leaves), _copy(result), size))
            self._entries[key] = entries
            self._entries.move_to_end(key)
            self._bytes += size
            while self._bytes > self._most_bytes:
                _, oldest = self._entries.popitem(last=False)
                self._bytes -= sum(entry[2] for entry in oldest)
        return result


def _split(value: Any) -> tuple[Hashable, list[Any]]:
    """A value as what two equal ones have in common, cheap to compare (its types and structure, each tensor's
    dtype, shape and device, every value that can be hashed), and the rest in order: the tensors, and the values
    that cannot be hashed, which equal values hold equal too. Two values are equal when both parts are."""
    leaves: list[Any] = []

    def shape(value: Any) -> Hashable:
        if isinstance(value, torch.Tensor):
            leaves.append(value)
            return (torch.Tensor, value.dtype, tuple(value.shape), str(value.device))
        if isinstance(value, (tuple, list)):
            return (type(value), tuple(shape(v) for v in value))
        if isinstance(value, dict):
            return (dict, tuple((k, shape(v)) for k, v in value.items()))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return (type(value), tuple(shape(getattr(value, f.name)) for f in dataclasses.fields(value)))
        try:
            hash(value)
        except TypeError:
            leaves.append(value)
            return (type(value), None)
        return (type(value), value)

    return shape(value), leaves


def _equal(a: Any, b: Any) -> bool:
    """Two leaves of values of one shape (_split): tensors equal in every number (a NaN never is), others by ==."""
    return torch.equal(a, b) if isinstance(a, torch.Tensor) else bool(a == b)


def _nbytes(leaves: list[Any]) -> int:
    return sum(leaf.element_size() * leaf.nelement() for leaf in leaves if isinstance(leaf, torch.Tensor))


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
