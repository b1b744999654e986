"""Looking at processes through /proc, for the tests that assert nothing of a submission outlives it."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Iterable


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


def descendants(ancestor: int) -> list[int]:
    """Every live process below `ancestor`: its children, theirs, and so on."""
    found, level = [], [ancestor]
    while level:
        level = [child for parent in level for child in children_of(parent) if alive(child)]
        found += level
    return found


def marked(markers: Iterable[bytes]) -> list[int]:
    """Live processes with one of the marker arguments on their command line (e.g. `sleep 987654`)."""
    wanted = set(markers)
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if wanted & set(cmdline.split(b"\0")) and alive(int(entry)):
                found.append(int(entry))
    return found


def named(name: str) -> list[int]:
    """Live processes whose name (/proc/PID/comm, what ps and top show) is `name`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                comm = Path(f"/proc/{entry}/comm").read_text().strip()
            except OSError:
                continue
            if comm == name and alive(int(entry)):
                found.append(int(entry))
    return found


def survivors(markers: Iterable[bytes], wait: float = 5.0) -> list[int]:
    """The marked processes still alive after `wait` s (an orphan takes a moment to be reaped)."""
    markers = tuple(markers)
    deadline = time.monotonic() + wait
    while (left := marked(markers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def assert_zygote_idle(zygote_pid: int | None) -> None:
    """After grading: the session zygote is alive and has no child left (None: no zygote in use)."""
    if zygote_pid is None:
        return
    assert alive(zygote_pid), "the session's zygote died"
    left = [pid for pid in children_of(zygote_pid) if alive(pid)]
    assert not left, f"sandbox children still running after grading: {left}"
