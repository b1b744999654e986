"""The hostile corpus, round 4 (issue 39, sections 3 and 4): what the caps count and what the child reaches.

Each attack runs in full mode and without namespaces (GRADER_SANDBOX_WITHOUT=namespaces): no Unix socket
outside the sandbox is reached; nothing of a checkout the grader runs from is readable but its code; shared
memory of any kind is refused, since RLIMIT_DATA would not count it (where the judge found CUDA, whose driver
needs some, the judge's watch counts it against the cap); and no System V segment is left for the next grade
to read.
"""
from __future__ import annotations

import ctypes
import os
import socket
import tempfile
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import grade, select, statuses
from grader.judge.accelerator import DEVICE_OVERRIDE
from grader.judge.launcher import ZygoteLauncher
from grader.render import terminal
from grader.results import RunResult
from grader.sandbox.limits import Limits

from .test_attacks import ALL_31, Hostile, after, cell, hostile  # noqa: F401
from .test_sandbox_walls import printed, without  # noqa: F401

MODES = pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["all", "no-namespaces"])
MIB = 1 << 20


@pytest.fixture
def listeners() -> Iterator[tuple[Path, socket.socket, socket.socket]]:
    """A stream and a datagram Unix socket anyone may write, in a folder anyone may enter, as D-Bus's and
    journald's are: (the folder, the stream listener, the datagram one)."""
    folder = Path(tempfile.mkdtemp(prefix="grader-listener-"))
    folder.chmod(0o755)
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        for sock, name in ((stream, "stream"), (dgram, "dgram")):
            sock.bind(str(folder / name))
            os.chmod(folder / name, 0o777)
            sock.setblocking(False)
        stream.listen(4)
        yield folder, stream, dgram
    finally:
        for sock, name in ((stream, "stream"), (dgram, "dgram")):
            sock.close()
            (folder / name).unlink(missing_ok=True)
        folder.rmdir()


def heard(stream: socket.socket, dgram: socket.socket) -> list[bytes]:
    """What reached the listeners: each connection accepted and each datagram."""
    got: list[bytes] = []
    while True:
        try:
            conn, _ = stream.accept()
        except BlockingIOError:
            break
        conn.settimeout(1)
        got.append(b"connection: " + conn.recv(100))
        conn.close()
    while True:
        try:
            got.append(dgram.recv(100))
        except BlockingIOError:
            return got


@MODES
def test_no_unix_socket_outside_is_reached(hostile: Hostile, without: str,
                                           listeners: tuple[Path, socket.socket, socket.socket]) -> None:
    """A connect to a world-writable stream socket, a datagram sent to one by name, and the same through a
    datagram socket pair: the listener outside hears nothing, with or without namespaces."""
    folder, stream, dgram = listeners
    run = hostile.grade(after(hostile.attack("sandbox_unix_socket", stream=folder / "stream",
                                             dgram=folder / "dgram")), "3.1")
    assert heard(stream, dgram) == []
    assert not printed(run, "SENT"), run.output_tail
    assert len(printed(run, "REFUSED")) == 3, run.output_tail
    assert "seccomp" in run.protections
    assert statuses(run, "3.1") == ALL_31


@MODES
def test_nothing_of_the_checkout_but_the_grader_is_readable(hostile: Hostile, without: str) -> None:
    """The grader imported from its source tree (these tests run so): the tree's .git, tests, build copies
    and project files are neither readable nor listed; the grader's own code still runs the submission."""
    run = hostile.grade(after(hostile.attack("sandbox_checkout")), "3.1")
    assert not printed(run, "READ"), run.output_tail
    listed = printed(run, "LISTED")
    assert not listed or listed[0].split(None, 1)[1] in ("['grader']", "[]"), listed
    assert statuses(run, "3.1") == ALL_31


@pytest.fixture
def capped(launcher: ZygoteLauncher, tmp_path: Path) -> Hostile:
    """A Hostile whose grades run under a memory cap of 384 MiB, so that holding past it costs little."""
    limits = Limits(memory_bytes=384 * MIB)

    def run(path: Path, exercises: str, *, timeout: float = 60.0) -> RunResult:
        return grade(path, select(exercises), launcher, seed=0, timeout=timeout, limits=limits)

    return Hostile(run, tmp_path)


@MODES
def test_shared_memory_is_counted_or_refused(capped: Hostile, without: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """512 MiB under a cap of 384 MiB, in memory RLIMIT_DATA does not count (a shared anonymous mapping, a
    memfd, /dev/zero mapped shared), where the judge found no CUDA device (on a GPU machine too, told so):
    none of it is held, and the answers keep their points."""
    monkeypatch.setenv(DEVICE_OVERRIDE, "cpu")
    run = capped.grade(after(capped.attack("sandbox_shared_memory", mib=512)), "3.1")
    assert not printed(run, "HELD"), run.output_tail
    assert len(printed(run, "REFUSED")) == 3, run.output_tail
    assert statuses(run, "3.1") == ALL_31


ALLOCATE = """import torch
for mib in (320, 400):
    try:
        block = torch.ones(mib << 18)  # mib MiB of float32, every page touched
        print("GOT", mib)
        del block
    except (MemoryError, RuntimeError):
        print("REFUSED", mib)
"""


@MODES
def test_the_memory_cap_is_what_the_submission_adds(capped: Hostile, without: str) -> None:
    """Under a cap of 384 MiB, 320 MiB of tensors fit and 400 do not, whichever build of torch the machine has:
    the child starts holding what torch's import left (~140 MB for a CPU build, ~700 MB for a CUDA one), which
    RLIMIT_DATA counts, so the cap is set above it."""
    run = capped.grade(after(ALLOCATE), "3.1")
    assert printed(run, "GOT") == ["GOT 320"] and printed(run, "REFUSED") == ["REFUSED 400"], run.output_tail
    assert statuses(run, "3.1") == ALL_31

HOLD_SHARED = """import mmap, time
HELD = mmap.mmap(-1, 512 << 20)
for at in range(0, len(HELD), mmap.PAGESIZE):
    HELD[at] = 1
print("HELD")
time.sleep(3)
print("KEPT")
"""


@MODES
def test_on_a_cuda_machine_shared_memory_counts_against_the_cap(capped: Hostile, without: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the judge found a CUDA device the filter lets shared anonymous memory through (the driver maps
    some when it starts): 512 MiB of it held under a cap of 384 MiB stops the cell, which says so, and the
    answers keep their points."""
    monkeypatch.setenv(DEVICE_OVERRIDE, "cuda")
    run = capped.grade(after(HOLD_SHARED), "3.1")
    assert {"memory-cgroup", "memory-watch"} & set(run.protections)  # the whole submission's cap (round 5)
    assert not printed(run, "KEPT"), run.output_tail
    record = cell(run, 2)
    # the whole submission's cap (round 5) may stop it first, saying what it held: the same cap, the same message
    assert record.status == "crashed" and record.error["how"]["memory_bytes"] == 384 * MIB, record  # type: ignore[index]
    shown = terminal.render(run, None, color=False)
    assert ": held more than 384 MiB of memory (all its processes together), was stopped and skipped" in shown, shown
    assert statuses(run, "3.1") == ALL_31


def segments(key: int) -> list[dict[str, Any]]:
    """The System V shared-memory segments of the machine (this IPC namespace) under `key`."""
    rows = Path("/proc/sysvipc/shm").read_text().splitlines()
    names = rows[0].split()
    found = [dict(zip(names, row.split())) for row in rows[1:]]
    return [row for row in found if int(row["key"]) == key]


@pytest.fixture
def shm_key() -> Iterator[int]:
    key = uuid.uuid4().int & 0x3FFFFFFF
    yield key
    for row in segments(key):  # what a grade without the wall leaves: removed, not left on the machine
        ctypes.CDLL(None).shmctl(int(row["shmid"]), 0, None)  # IPC_RMID


@MODES
def test_no_system_v_segment_outlives_its_grade(hostile: Hostile, without: str, shm_key: int) -> None:
    """A segment under a fixed key, made by one grade and looked for by the next: there is none to find
    (an IPC namespace of its own, or System V IPC refused), and none is left on the machine."""
    source = after(hostile.attack("sandbox_sysv_shm", key=shm_key))
    first = hostile.grade(source, "3.1")
    second = hostile.grade(source, "3.1")
    assert not printed(second, "FOUND"), second.output_tail
    assert segments(shm_key) == []
    assert printed(first, "REFUSED"), first.output_tail  # seccomp refuses System V IPC in both modes
    assert statuses(first, "3.1") == statuses(second, "3.1") == ALL_31


@MODES
def test_files_without_a_name_count_against_the_disk_quota(hostile: Hostile, without: str) -> None:
    """Up to 1 GiB in files held open with no name (unlinked, O_TMPFILE), which a walk of the folder never
    meets: the tmpfs runs out (the write fails), or the judge's watch counts what the sandbox's processes
    hold and stops the child, as for named files; the answers keep their points."""
    quota = Limits().disk_bytes
    run = hostile.grade(after(hostile.attack("sandbox_unlinked_files")), "3.1", timeout=60)
    held = [int(line.split()[1]) for line in printed(run, "HELD")]
    if not without:
        assert printed(run, "STOPPED") and cell(run, 2).status == "ok", run.output_tail
        assert max(held, default=0) * MIB <= quota, held
    else:
        record = cell(run, 2)
        assert record.status == "crashed" and record.error == {"how": {"disk_bytes": quota}}, (record, held)
        assert max(held, default=0) * MIB < 4 * quota, held  # stopped within a few files of the quota
    assert statuses(run, "3.1") == ALL_31
