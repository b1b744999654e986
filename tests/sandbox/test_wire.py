"""The wire format: the only thing that crosses from the sandboxed child into the judge.

The child runs untrusted code, so the judge must rebuild exactly what an honest child sends and
refuse, with wire.WireError and before allocating, anything malformed or oversized a hostile one
could send. A silent child must cost a Deadline, not a hang, and a dead one a PeerClosed. These
tests speak the raw frame format over a socketpair; no sandbox is involved.
"""
from __future__ import annotations

import ast
import json
import math
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch

from grader import wire

WIRE_SOURCE = Path(wire.__file__)


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def frame(header: Any, payload: bytes = b"") -> bytes:
    """A raw frame; `header` is JSON-encoded unless it is already bytes."""
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("!I", len(raw)) + raw + payload


def receive(pair: tuple[socket.socket, socket.socket], data: bytes, **kwargs: Any) -> Any:
    """Send raw bytes one way and read one frame the other (never waiting more than 2 s)."""
    a, b = pair
    a.sendall(data)
    return wire.recv(b, time.monotonic() + 2.0, **kwargs)


def spec(dtype: str = "float32", shape: Any = (2,), nbytes: Any = 8) -> dict[str, Any]:
    return {"dtype": dtype, "shape": list(shape) if isinstance(shape, tuple) else shape, "nbytes": nbytes}


def sample(dtype: torch.dtype, shape: tuple[int, ...]) -> torch.Tensor:
    n = math.prod(shape)
    values = torch.arange(n) % 2 if dtype == torch.bool else torch.arange(n) - n // 2 if dtype.is_signed else torch.arange(n)
    if dtype.is_floating_point:
        values = values * 0.75
    return values.to(dtype).reshape(shape)


def assert_same(got: Any, sent: Any) -> None:
    """Equal after the documented JSON conversions (tuples become lists, keys become strings)."""
    if isinstance(sent, torch.Tensor):
        assert isinstance(got, torch.Tensor)
        assert (got.dtype, got.shape) == (sent.dtype, sent.shape)
        assert torch.equal(got, sent.contiguous())
    elif isinstance(sent, dict):
        assert isinstance(got, dict) and list(got) == [str(k) for k in sent]
        for k, v in sent.items():
            assert_same(got[str(k)], v)
    elif isinstance(sent, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(sent)
        for g, s in zip(got, sent):
            assert_same(g, s)
    else:
        assert got == sent and type(got) is type(sent)


# -- round trips ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(wire.DTYPES))
@pytest.mark.parametrize("shape", [(2, 3), (0,), (4, 0, 2), ()], ids=["2x3", "empty", "empty-3d", "0-dim"])
def test_tensor_of_every_allowed_dtype_round_trips(pair, name: str, shape: tuple[int, ...]) -> None:
    t = sample(wire.DTYPES[name], shape)
    wire.send(pair[0], {"t": t}, timeout=2)
    assert_same(wire.recv(pair[1], time.monotonic() + 2), {"t": t})


def test_nested_value_round_trips(pair) -> None:
    value = {
        "op": "call",
        "args": [1, 2.5, None, True, "text \u6ce8\u610f", (3, [torch.ones(2, 2)])],
        "nested": {"deep": {"tensors": [torch.zeros(0, 3), torch.tensor(7, dtype=torch.int64)]}},
        "inf": float("inf"),
        7: "int key",
        "transposed": torch.arange(6.0).reshape(2, 3).T,  # not contiguous
        "same twice": [torch.tensor([1.0]), torch.tensor([1.0])],
    }
    wire.send(pair[0], value, timeout=2)
    assert_same(wire.recv(pair[1], time.monotonic() + 2), value)


def test_received_tensors_are_independent_and_writable(pair) -> None:
    wire.send(pair[0], [torch.ones(3), torch.ones(3)], timeout=2)
    first, second = wire.recv(pair[1], time.monotonic() + 2)
    first += 1
    assert torch.equal(second, torch.ones(3))


def test_payload_exactly_at_the_limit_is_accepted(pair) -> None:
    header = {"body": {"__tensor__": 0}, "tensors": [spec("float32", (4,), 16)]}
    got = receive(pair, frame(header, bytes(16)), max_payload=16)
    assert torch.equal(got, torch.zeros(4))


def test_encode_refuses_a_disallowed_dtype() -> None:
    with pytest.raises(wire.WireError):
        wire.encode({"z": torch.zeros(2, dtype=torch.complex64)})


# -- rejections --------------------------------------------------------------------------------------------
def test_header_over_max_header_is_refused_before_reading_it(pair) -> None:
    with pytest.raises(wire.WireError, match="header"):
        receive(pair, struct.pack("!I", wire.MAX_HEADER + 1))


BAD_SPECS = {
    "dtype-complex64": spec(dtype="complex64"),
    "dtype-object": spec(dtype="object"),
    "dtype-torch-name": spec(dtype="torch.float32"),
    "dtype-missing": {"shape": [2], "nbytes": 8},
    "shape-negative": spec(shape=[-1], nbytes=-4),
    "shape-negative-pair": spec(shape=[-2, -1], nbytes=8),
    "shape-float": spec(shape=[2.0]),
    "shape-string": spec(shape=["2"]),
    "shape-bool": spec(shape=[True, True], nbytes=4),
    "shape-huge-dim": spec(dtype="uint8", shape=[2**31], nbytes=2**31),
    "shape-too-many-dims": spec(shape=[1] * (wire.MAX_DIMS + 1), nbytes=4),
    "shape-not-list": spec(shape=2),
    "shape-missing": {"dtype": "float32", "nbytes": 8},
    "nbytes-too-small": spec(shape=(2, 2), nbytes=15),
    "nbytes-too-large": spec(shape=(2, 2), nbytes=17),
    "nbytes-string": spec(shape=(2,), nbytes="8"),
    "nbytes-float": spec(shape=(2,), nbytes=8.0),
    "nbytes-missing": {"dtype": "float32", "shape": [2]},
    "spec-not-object": [2],
}


@pytest.mark.parametrize("bad", list(BAD_SPECS.values()), ids=list(BAD_SPECS))
def test_bad_tensor_spec_is_refused(pair, bad: Any) -> None:
    with pytest.raises(wire.WireError):
        receive(pair, frame({"body": None, "tensors": [bad]}, bytes(64)))


def test_total_payload_over_the_limit_is_refused_before_reading_it(pair) -> None:
    header = {"body": None, "tensors": [spec("float32", (2,), 8), spec("float32", (2,), 8)]}
    with pytest.raises(wire.WireError, match="payload"):
        receive(pair, frame(header), max_payload=15)  # no payload sent: refusing must not wait for it


@pytest.mark.parametrize("header", [
    b"{not json",
    b"\xff\xfe\xfd",
    b"",
    b'{"body": 1, "tensors": []',
], ids=["not-json", "not-utf8", "empty", "truncated"])
def test_header_that_is_not_json_is_refused(pair, header: bytes) -> None:
    with pytest.raises(wire.WireError):
        receive(pair, frame(header))


@pytest.mark.parametrize("header", [
    {"body": 1},
    {"body": 1, "tensors": {}},
    {"body": 1, "tensors": None},
    [1, 2],
    "tensors",
    None,
], ids=["missing", "dict", "null", "list-header", "string-header", "null-header"])
def test_header_without_tensor_list_is_refused(pair, header: Any) -> None:
    with pytest.raises(wire.WireError):
        receive(pair, frame(header))


@pytest.mark.parametrize("ref", [99, 1, -1, "0", 0.0, True, None, [0]])
def test_bad_tensor_reference_is_refused(pair, ref: Any) -> None:
    header = {"body": {"x": {"__tensor__": ref}}, "tensors": [spec("float32", (1,), 4)]}
    with pytest.raises(wire.WireError):
        receive(pair, frame(header, bytes(4)))


def test_tensor_reference_with_no_tensors_is_refused(pair) -> None:
    with pytest.raises(wire.WireError):
        receive(pair, frame({"body": {"__tensor__": 0}, "tensors": []}))


@pytest.mark.parametrize("key", [b"\\u005f_tensor__", b"__tens\\u006fr__"], ids=["escaped-underscore", "escaped-o"])
def test_tensor_reference_spelled_with_escapes_is_resolved_like_any_other(pair, key: bytes) -> None:
    """recv skips resolving a header without the bytes __tensor__; an escaped spelling must not slip past."""
    specs = json.dumps([spec("float32", (1,), 4)]).encode()
    good = b'{"body": {"x": {"' + key + b'": 0}}, "tensors": ' + specs + b"}"
    assert torch.equal(receive(pair, frame(good, bytes(4)))["x"], torch.zeros(1))
    bad = b'{"body": {"x": {"' + key + b'": 5}}, "tensors": ' + specs + b"}"
    with pytest.raises(wire.WireError):
        receive(pair, frame(bad, bytes(4)))


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_deeply_nested_header_is_refused(pair, depth: int) -> None:
    """Well under MAX_HEADER, yet deep enough to exhaust the recursion limit while decoding."""
    header = b'{"tensors": [], "body": ' + b"[" * depth + b"]" * depth + b"}"
    assert len(header) <= wire.MAX_HEADER
    with pytest.raises(wire.WireError):
        receive(pair, frame(header))


# -- silent and closed peers ---------------------------------------------------------------------------
@pytest.mark.parametrize("sent", [b"", b"\x00\x00", frame({"body": 1, "tensors": []})[:-3],
                                  frame({"body": None, "tensors": [spec()]}, bytes(3))],
                         ids=["nothing", "half-length", "half-header", "half-payload"])
def test_silent_peer_hits_the_deadline(pair, sent: bytes) -> None:
    pair[0].sendall(sent)
    started = time.monotonic()
    with pytest.raises(wire.Deadline):
        wire.recv(pair[1], time.monotonic() + 0.2)
    assert time.monotonic() - started < 2.0


def test_deadline_already_past_raises_at_once(pair) -> None:
    with pytest.raises(wire.Deadline):
        wire.recv(pair[1], time.monotonic() - 1)


@pytest.mark.parametrize("sent", [b"", b"\x00\x00", frame({"body": None, "tensors": [spec()]}, bytes(3))],
                         ids=["nothing", "half-length", "half-payload"])
def test_closed_peer_raises_peer_closed(pair, sent: bytes) -> None:
    pair[0].sendall(sent)
    pair[0].close()
    with pytest.raises(wire.PeerClosed):
        wire.recv(pair[1], time.monotonic() + 2)


def test_sending_to_a_closed_peer_raises_peer_closed(pair) -> None:
    pair[1].close()
    with pytest.raises(wire.PeerClosed):
        wire.send(pair[0], {"x": torch.zeros(1000)}, timeout=2)


def test_peer_closed_is_a_wire_error_and_deadline_is_not() -> None:
    assert issubclass(wire.PeerClosed, wire.WireError)
    assert not issubclass(wire.Deadline, wire.WireError)


# -- large frames: sent from and read into tensor memory ----------------------------------------------------
def in_background(work: Any) -> threading.Thread:
    """Run `work` in a thread: a frame larger than the socket buffer needs a reader while it is sent."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def across(pair: tuple[socket.socket, socket.socket], value: Any) -> Any:
    """Send `value` one way while a thread reads one frame the other."""
    got: dict[str, Any] = {}

    def read() -> None:
        try:
            got["value"] = wire.recv(pair[1], time.monotonic() + 10)
        except BaseException as exc:  # re-raised below, in the test's own thread
            got["error"] = exc

    reader = in_background(read)
    wire.send(pair[0], value, timeout=10)
    reader.join(10)
    assert not reader.is_alive()
    if "error" in got:
        raise got["error"]
    return got["value"]


def assert_same_bits(got: torch.Tensor, sent: torch.Tensor) -> None:
    """Equal bit for bit, so NaN payloads and -0.0 count too."""
    assert (got.dtype, got.shape) == (sent.dtype, sent.shape)
    assert torch.equal(got.reshape(-1).view(torch.uint8), sent.contiguous().reshape(-1).view(torch.uint8))


def weights() -> dict[str, Any]:
    """A 9.4 MB weight dict with a few odd companions, far above the size send joins into one buffer."""
    g = torch.Generator().manual_seed(0)
    value: dict[str, Any] = {f"w{i}": torch.randn(768, 768, generator=g) for i in range(4)}
    value["w0"][0, :4] = torch.tensor([float("nan"), -0.0, float("inf"), -float("inf")])
    value["steps"] = torch.randint(-2**62, 2**62, (1000,), generator=g)
    value["mask"] = torch.rand(300, 7, generator=g) > 0.5
    value["nothing"] = torch.empty(0, 768)
    value["note"] = "x" * 300_000  # a header too large for one recv
    return value


def test_large_dict_round_trips_bit_for_bit(pair) -> None:
    sent = weights()
    got = across(pair, sent)
    assert list(got) == list(sent) and got["note"] == sent["note"]
    for name, tensor in sent.items():
        if isinstance(tensor, torch.Tensor):
            assert_same_bits(got[name], tensor)
    got["w1"] += 1  # the received tensors own writable memory
    assert torch.equal(got["w2"], sent["w2"])


@pytest.mark.parametrize("size", [4, 400], ids=["small-frame", "large-frame"])
def test_non_contiguous_and_half_precision_round_trip_exactly(pair, size: int) -> None:
    g = torch.Generator().manual_seed(1)
    base = torch.randn(size + 3, 2 * size, generator=g)
    sent = {
        "transposed": base.T,
        "strided": base[:, ::2],
        "offset": base[3:],  # contiguous, but not at the start of its storage
        "half": torch.randn(size, size, generator=g).half(),
        "half-transposed": torch.randn(size, size, generator=g).half().T,
        "bfloat16": torch.randn(size, size, generator=g).bfloat16(),
    }
    got = across(pair, sent)
    for name, tensor in sent.items():
        assert_same_bits(got[name], tensor)


@pytest.mark.parametrize("make", [lambda: {"x": torch.ones(3)}, weights], ids=["small-frame", "large-frame"])
def test_send_writes_exactly_what_encode_returns(pair, make: Any) -> None:
    """Both ways of sending (one joined buffer, or header then tensor memory) put the same bytes on the wire."""
    value = make()
    expected = wire.encode(value)
    received = bytearray()

    def read_all() -> None:
        while chunk := pair[1].recv(1 << 20):
            received.extend(chunk)

    reader = in_background(read_all)
    wire.send(pair[0], value, timeout=10)
    pair[0].shutdown(socket.SHUT_WR)
    reader.join(10)
    assert not reader.is_alive() and bytes(received) == expected


def test_peer_closing_half_way_through_the_tensor_bytes_raises_peer_closed(pair) -> None:
    data = wire.encode(weights())
    tensor_bytes_start = 4 + wire.header_size(data)

    def send_half_then_close() -> None:
        pair[0].sendall(data[: tensor_bytes_start + (len(data) - tensor_bytes_start) // 2])
        pair[0].close()

    sender = in_background(send_half_then_close)
    with pytest.raises(wire.PeerClosed):
        wire.recv(pair[1], time.monotonic() + 10)
    sender.join(10)


def test_deadline_passing_while_tensor_bytes_are_missing_raises_deadline(pair) -> None:
    data = wire.encode(weights())
    sender = in_background(lambda: pair[0].sendall(data[:-1000]))  # then stays silent, connection open
    started = time.monotonic()
    with pytest.raises(wire.Deadline):
        wire.recv(pair[1], time.monotonic() + 0.5)
    assert time.monotonic() - started < 3.0
    sender.join(10)
    assert not sender.is_alive()  # all it sent was read before the deadline struck


def test_reader_closing_during_a_large_send_raises_peer_closed(pair) -> None:
    def read_some_then_close() -> None:
        pair[1].recv(1 << 20)
        pair[1].close()

    reader = in_background(read_some_then_close)
    with pytest.raises(wire.PeerClosed):
        wire.send(pair[0], weights(), timeout=10)
    reader.join(10)


def test_send_timeout_bounds_the_whole_frame_not_each_tensor(pair) -> None:
    """A peer that keeps reading, but too slowly, must cost a Deadline after `timeout` in all, however
    many tensors the frame holds and although each one alone would go through in time."""
    value = [torch.zeros(64 * 1024) for _ in range(16)]  # 16 x 256 KiB at about 3 MB/s: over a second

    def read_slowly() -> None:
        while pair[1].recv(64 * 1024):
            time.sleep(0.02)

    reader = in_background(read_slowly)
    started = time.monotonic()
    with pytest.raises(wire.Deadline):
        wire.send(pair[0], value, timeout=0.3)
    assert time.monotonic() - started < 1.0
    pair[0].close()
    reader.join(10)


# -- nothing unpickles ----------------------------------------------------------------------------------
UNPICKLERS = {"pickle", "_pickle", "cPickle", "dill", "cloudpickle", "joblib", "marshal", "shelve"}


def test_wire_never_imports_pickle() -> None:
    tree = ast.parse(WIRE_SOURCE.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and not imported & UNPICKLERS
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not (names | attributes) & (UNPICKLERS | {"__import__", "import_module", "load"})
