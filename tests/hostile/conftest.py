"""Fixtures for the hostile-submission corpus: the `destructive` marker, and what must be true after
every attack (the session zygote has no child left; no process an attack started survives).

tests/hostile is a package (it has __init__.py), so this file is `hostile.conftest` and the root
tests/conftest.py stays importable as `conftest`.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

# Every process an attack starts ends as `sleep N` with one of these N (fork_bomb, orphan_setsid,
# orphan_double_fork): a command line holding one is the attack's.
MARKERS = (b"987652", b"987654", b"987655")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "destructive: an attack that, in an unconfined sandbox, could kill the test runner or the machine's "
        "processes; it runs in every suite run, since the sandbox confines it (deselect with -m 'not destructive')",
    )


# -- processes -----------------------------------------------------------------------------------------
def _stat(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process, None when it is gone. comm may hold spaces: split after the last ')'."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def children_of(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and stat[1] == parent:
                found.append(int(entry))
    return found


def marked_processes() -> list[int]:
    """Live processes whose command line holds a marker argument (zombies have an empty cmdline)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if any(arg in MARKERS for arg in cmdline.split(b"\0")) and alive(int(entry)):
                found.append(int(entry))
    return found


def survivors(wait: float = 5.0) -> list[int]:
    """The marked processes still alive after `wait` s (an orphan takes a moment to be reaped)."""
    deadline = time.monotonic() + wait
    while (left := marked_processes()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def kill_marked() -> None:
    """Cleanup after a failed test: the marked sleeps were started by our own attacks; kill them by id."""
    for pid in marked_processes():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# -- fixtures -----------------------------------------------------------------------------------------
@pytest.fixture
def zygote_pid(launcher) -> int | None:  # type: ignore[no-untyped-def]
    """The session zygote's pid (None with the spawning launcher, whose children are not forks)."""
    proc = getattr(launcher, "proc", None)
    return None if proc is None else int(proc.pid)


@pytest.fixture(autouse=True)
def nothing_left(zygote_pid: int | None) -> Iterator[None]:
    """After every attack: no marked process anywhere, and the session zygote alive and childless."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    yield
    try:
        left = survivors()
        assert not left, f"processes started by the attack outlived grading: {left}"
        if zygote_pid is not None:
            assert alive(zygote_pid), "the session's zygote died"
            strays = [p for p in children_of(zygote_pid) if alive(p)]
            assert not strays, f"sandbox children still running after grading: {strays}"
    finally:
        kill_marked()
