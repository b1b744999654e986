"""The only format that crosses the sandbox boundary: a length-prefixed JSON header plus raw tensor bytes.

Nothing here unpickles. The receiving side checks every size, dtype and shape before it allocates,
so a hostile child can at worst send a message the judge refuses (and the child is then killed).
Tensor bytes go from tensor memory straight to the socket and from the socket straight into the new
tensor, never through intermediate bytes objects: a dict of four 768x768 float32 tensors (9.4 MB)
went there and back over a socketpair in about 11 ms instead of 50 ms.

Frame: 4-byte big-endian header length, UTF-8 JSON header, then the tensors' bytes back to back.
The header's "tensors" list gives each tensor's dtype, shape and byte length; inside the JSON a
tensor appears as {"__tensor__": index}. The header nests at most MAX_DEPTH arrays and objects, checked
before it is parsed: whatever the judge does with an answer later (resolving its tensors, keeping it as
a check's evidence, writing it into a result) walks it recursively, and a header deep enough to exhaust
the recursion limit there would raise outside any check.
"""
from __future__ import annotations

import ctypes
import json
import math
import re
import socket
import struct
import time
from typing import Any

import torch

MAX_HEADER = 4 * 1024 * 1024
MAX_PAYLOAD = 512 * 1024 * 1024
MAX_DIMS = 8
MAX_DEPTH = 64  # arrays and objects inside one another; an honest answer nests about ten
_SMALL_FRAME = 64 * 1024  # tensor bytes below which send joins the frame into one buffer

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
_NAMES = {dtype: name for name, dtype in DTYPES.items()}


class WireError(Exception):
    """The peer sent something malformed or oversized."""


class TooLarge(WireError):
    """The peer's frame is larger than the receiver reads (`size` bytes of header or payload, `most` the cap):
    refused before it is read, and not malformed, so an honest answer that outgrew a cap is told apart
    from an attack."""

    def __init__(self, message: str, size: int, most: int) -> None:
        super().__init__(message)
        self.size = size
        self.most = most


class PeerClosed(WireError):
    """The peer closed the connection (for a child: it exited or was killed)."""


class Deadline(Exception):
    """The peer did not answer in time."""


def encode(value: Any) -> bytes:
    """Serialise a JSON-like value whose leaves may be CPU or device tensors."""
    head, tensors = _frame(value)
    return b"".join([head, *map(_memory, tensors)])


def header_size(message: bytes) -> int:
    """The JSON header's length of an encoded message (what MAX_HEADER caps)."""
    return int(struct.unpack("!I", message[:4])[0])


def send(sock: socket.socket, value: Any, timeout: float | None = None) -> None:
    """Send one frame; with `timeout`, a peer that stops reading raises Deadline instead of blocking."""
    sock.settimeout(timeout)
    deadline = None if timeout is None else time.monotonic() + timeout
    head, tensors = _frame(value)  # holds the tensors alive while their memory is sent
    payload = [_memory(t) for t in tensors]
    # Joining copies every tensor: worth it only for a small frame, where it saves syscalls.
    parts: list[bytes | memoryview] = [b"".join([head, *payload])] if sum(map(len, payload)) < _SMALL_FRAME else [head, *payload]
    try:
        for part in parts:
            _arm(sock, deadline)  # the timeout bounds the whole frame, not each part
            sock.sendall(part)
    except socket.timeout:
        raise Deadline() from None
    except OSError as exc:
        raise PeerClosed(str(exc)) from None


def recv(sock: socket.socket, deadline: float | None = None, max_payload: int = MAX_PAYLOAD) -> Any:
    """Read one frame; `deadline` is a time.monotonic() instant after which Deadline is raised."""
    (length,) = struct.unpack("!I", _read(sock, 4, deadline))
    if length > MAX_HEADER:
        raise TooLarge(f"header of {length} bytes exceeds {MAX_HEADER}", length, MAX_HEADER)
    raw = _read(sock, length, deadline)
    if _too_deep(raw):
        raise WireError(f"header nests deeper than {MAX_DEPTH}")
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError(f"header is not acceptable JSON: {type(exc).__name__}") from None
    if not isinstance(header, dict) or not isinstance(header.get("tensors"), list):
        raise WireError("header lacks its tensor list")
    specs = [_validate(spec) for spec in header["tensors"]]
    total = sum(nbytes for _, _, nbytes in specs)
    if total > max_payload:
        raise TooLarge(f"payload of {total} bytes exceeds {max_payload} bytes", total, max_payload)
    tensors = []
    for dtype, shape, nbytes in specs:  # each allocated only when due: a peer that stops early costs less
        tensor = torch.empty(shape, dtype=dtype)
        if nbytes:
            _fill(sock, _memory(tensor), deadline)
        tensors.append(tensor)
    if not _may_reference(raw):  # most replies describe modules: nothing in them to resolve
        return header.get("body")
    return _resolve(header.get("body"), tensors)


def _validate(spec: Any) -> tuple[torch.dtype, list[int], int]:
    if not isinstance(spec, dict):
        raise WireError("tensor spec is not an object")
    dtype = DTYPES.get(spec.get("dtype"))  # type: ignore[arg-type]
    if dtype is None:
        raise WireError(f"dtype {spec.get('dtype')!r} is not allowed")
    shape = spec.get("shape")
    if (
        not isinstance(shape, list)
        or len(shape) > MAX_DIMS
        or not all(type(d) is int and 0 <= d < 2**31 for d in shape)
    ):
        raise WireError(f"bad shape {shape!r}")
    nbytes = spec.get("nbytes")
    expected = math.prod(shape) * dtype.itemsize
    if type(nbytes) is not int or nbytes != expected:
        raise WireError(f"byte length {nbytes!r} does not match shape {shape} of {dtype}")
    return dtype, shape, nbytes


def _frame(value: Any) -> tuple[bytes, list[torch.Tensor]]:
    """The length prefix and JSON header, and the contiguous CPU tensors whose bytes follow it (the
    empty ones, which carry none, left out). The JSON encoder walks the value in C and hands only the
    tensors back here: a module's description crosses in most probes, and walking it in Python, here and
    again in recv, cost ~8% of a submission's CPU."""
    tensors: list[torch.Tensor] = []

    def tensor_ref(v: Any) -> dict[str, int]:
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"{type(v).__name__} cannot cross the boundary")
        tensors.append(v.detach().cpu().contiguous())
        return {"__tensor__": len(tensors) - 1}

    body = json.dumps(value, allow_nan=True, default=tensor_ref)
    specs = []
    for t in tensors:
        if t.dtype not in _NAMES:
            raise WireError(f"dtype {t.dtype} cannot cross the boundary")
        specs.append({"dtype": _NAMES[t.dtype], "shape": list(t.shape), "nbytes": t.nbytes})
    header = f'{{"body": {body}, "tensors": {json.dumps(specs)}}}'.encode()
    return struct.pack("!I", len(header)) + header, [t for t in tensors if t.nbytes]


def _memory(tensor: torch.Tensor) -> memoryview:
    """A writable byte view of a non-empty contiguous CPU tensor's memory, without a copy. It does not
    keep the tensor alive: the caller must, for as long as the view is used."""
    return memoryview((ctypes.c_char * tensor.nbytes).from_address(tensor.data_ptr())).cast("B")


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string: it may hold brackets
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")  # an opening bracket one level in, a closing one out


def _too_deep(raw: bytearray) -> bool:
    """Whether the header's arrays and objects nest deeper than MAX_DEPTH anywhere, found without parsing
    it: json.loads recurses once per level, and so would a parser written here. With the strings dropped
    (they may hold brackets), each bracket is a step in or out, and the deepest point is the largest
    running sum, summed in C: a 4 MiB header costs at most about a tenth of a second. Brackets that do not pair
    are json.loads's to refuse; it never nests deeper than that sum before it does."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:  # most replies: too few brackets to nest deeper
        return False
    steps = bytearray(_STRING.sub(b"", raw).translate(_STEPS, _NOT_BRACKETS))
    depth = torch.frombuffer(steps, dtype=torch.int8).cumsum(0, dtype=torch.int32).max() if steps else 0
    return int(depth) > MAX_DEPTH


def _may_reference(raw: bytearray) -> bool:
    """Whether a header could hold a tensor reference: JSON can spell "__tensor__" otherwise only with
    \\u escapes, so a header with neither holds none."""
    return b"__tensor__" in raw or b"\\u" in raw


def _resolve(value: Any, tensors: list[torch.Tensor]) -> Any:
    kind = type(value)  # what json.loads makes: exactly dict and list, never a subclass
    if kind is dict:
        if len(value) == 1 and "__tensor__" in value:
            index = value["__tensor__"]
            if type(index) is not int or not 0 <= index < len(tensors):
                raise WireError(f"bad tensor reference {index!r}")
            return tensors[index]
        return {k: _resolve(v, tensors) for k, v in value.items()}
    if kind is list:
        return [_resolve(v, tensors) for v in value]
    return value


def _read(sock: socket.socket, n: int, deadline: float | None) -> bytearray:
    buf = bytearray(n)
    _fill(sock, memoryview(buf), deadline)
    return buf


def _fill(sock: socket.socket, view: memoryview, deadline: float | None) -> None:
    """Read exactly len(view) bytes into `view`, in place."""
    pos = 0
    while pos < len(view):
        _arm(sock, deadline)
        try:
            got = sock.recv_into(view[pos:])
        except socket.timeout:
            raise Deadline() from None
        except OSError as exc:
            raise PeerClosed(str(exc)) from None
        if not got:
            raise PeerClosed("connection closed")
        pos += got


def _arm(sock: socket.socket, deadline: float | None) -> None:
    """Give the next socket call only the time left before `deadline` (None: leave the socket as it is)."""
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Deadline()
        sock.settimeout(remaining)
