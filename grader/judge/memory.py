"""The memory cap of a whole submission: what all of its processes add together, not what one process holds.

RLIMIT_DATA (grader.sandbox.limits) caps each process of a submission; a submission that forks would hold the
cap in every process. So the judge bounds their sum, by one of two means:

- A memory cgroup, where this machine lets the judge make one below its own (`memory-cgroup`): the kernel
  charges each page to the cgroup of the process that first touches it, so the pages the child inherits from
  the zygote stay charged where they were, and what the submission adds, in any process, in any kind of
  mapping (private, shared, a stack, tmpfs), is held to the cap as it is touched. cgroup v2's `memory.max` where
  the judge's cgroup delegates the memory controller, else v1's `memory.limit_in_bytes` where the v1 memory
  hierarchy is writable (a root-run judge in most containers); the kernel's OOM killer ends a process past it,
  and the judge then ends the rest and says the cap was reached.
- Otherwise the judge's watch (`memory-watch`), every WATCH_S while the child works (grader.judge.client): the
  sum over the sandbox's processes of what each holds resident in anonymous and shared memory (RssAnon,
  RssShmem: the shared memory a CUDA driver's walls let through too; and its swap) beyond what the child held
  when it started, which is what every process of it
  inherits from the zygote (140-700 MB of torch's import). A process forked from one that had added memory
  counts that memory again although the two share it until written: that errs towards the cap, and honest
  code does not fork big processes. Read from /proc/PID/status, a few counters, not smaps' page walk (~10 ms
  a process). A polling watch cannot see between two readings: docs/security.md says how far past the cap
  that lets a submission go.
"""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from grader.judge.scratch import sandbox_processes
from grader.sandbox.limits import status_bytes

_V2_ROOT = Path("/sys/fs/cgroup")
_HELD = (b"RssAnon", b"RssShmem", b"VmSwap")  # memory a process holds that no file can give back
_REMOVE_S = 2.0  # how long the judge waits for a cgroup's last processes to go before it leaves it behind


@dataclass
class Cgroup:
    """One submission's memory cgroup, made by the judge below its own and removed after the child."""

    path: Path
    version: int  # 1 or 2: the file names differ

    @classmethod
    def make(cls, cap_bytes: int, name: str) -> Cgroup | None:
        """A cgroup capped at `cap_bytes`, or None where this machine does not let the judge make one."""
        for version, parent in ((2, _own_v2()), (1, _own_v1())):
            if parent is None:
                continue
            cgroup = cls(parent / name, version)
            try:
                cgroup.path.mkdir()
            except OSError:
                continue
            try:
                cgroup._limit(cap_bytes)
                return cgroup
            except OSError:
                cgroup.remove()
        return None

    def _limit(self, cap_bytes: int) -> None:
        if self.version == 2:
            (self.path / "memory.max").write_text(str(cap_bytes))
            (self.path / "memory.oom.group").write_text("1")  # past the cap, every process of it ends
            swap = self.path / "memory.swap.max"  # where swap is kept apart: none of it
            if swap.exists():
                swap.write_text("0")
        else:
            (self.path / "memory.limit_in_bytes").write_text(str(cap_bytes))
            swap = self.path / "memory.memsw.limit_in_bytes"  # memory and swap together, where it is kept
            if swap.exists():
                swap.write_text(str(cap_bytes))

    def enter(self, pids: set[int]) -> bool:
        """Move these processes (the sandbox's, before any submission code runs) into the cgroup; what they
        start later is born in it. False where one cannot be moved (the cap then does not hold); one that is
        gone meanwhile holds nothing."""
        try:
            for pid in sorted(pids):
                try:
                    (self.path / "cgroup.procs").write_text(str(pid))
                except ProcessLookupError:
                    continue
        except OSError:
            return False
        return True

    def holds(self) -> set[int]:
        """The processes in it now."""
        return set(_procs(self.path))

    def reached(self) -> bool:
        """Whether the kernel killed a process of it for memory."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            lines = (self.path / name).read_text().splitlines()
        except OSError:
            return False
        counts = dict(line.split()[:2] for line in lines if len(line.split()) >= 2)
        return counts.get("oom_kill", "0") != "0"

    def peak(self) -> int:
        """The most memory it held at once (0 where the kernel does not say)."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return 0

    def remove(self) -> None:
        """Kill what is left in it (an orphan of the submission's) and remove it; one a process still holds
        past _REMOVE_S is left, empty of memory but its name, to the machine's next reboot."""
        deadline = time.monotonic() + _REMOVE_S
        while True:
            for pid in _procs(self.path):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.01)


@dataclass
class MemoryCap:
    """One child's whole-submission memory cap: its cgroup, or the watch's baseline."""

    cap_bytes: int
    child: int
    cgroup: Cgroup | None = None
    baseline: int | None = None  # for the watch: what the child held when it had started

    @classmethod
    def start(cls, cap_bytes: int, child: int, watch_only: bool) -> MemoryCap:
        """Set as soon as the child is forked, while it starts: a cgroup where the judge may make one (not where a
        test of the degraded modes says `watch_only`), with the child's processes moved in now, else the watch.
        Under cgroup v1 a move waits ~10 ms for the kernel (a grace period), which the child's start then hides
        instead of adding to it. `started` completes the cap before any submission code runs."""
        if not watch_only:
            cgroup = Cgroup.make(cap_bytes, f"grader-{os.getpid()}-{child}")
            if cgroup is not None and cgroup.enter(sandbox_processes(child)):
                return cls(cap_bytes, child, cgroup)
            if cgroup is not None:
                cgroup.remove()
        return cls(cap_bytes, child)

    def started(self) -> None:
        """Once the child says it has started, before any submission code runs: a process it forked before its
        move is moved too (one forked after was born in the cgroup), or the watch takes what the child holds
        now as its baseline. Raises OSError where a process cannot be moved: the cap would not hold for it."""
        if self.cgroup is None:
            self.baseline = resident(self.child)
        elif not self.cgroup.enter(sandbox_processes(self.child) - self.cgroup.holds()):
            raise OSError(f"a process of sandbox {self.child} cannot join its memory cgroup")

    @property
    def kind(self) -> str:
        """The protection's name, as results list it."""
        return "memory-cgroup" if self.cgroup is not None else "memory-watch"

    def over(self) -> dict[str, int]:
        """Where the submission's processes together went past the cap (the kernel killed one of them for it,
        or the watch measures more), the evidence: the cap and the most they held; else {}. The judge then ends
        every process of the submission."""
        if self.cgroup is not None:
            return self._full(self.cgroup.peak()) if self.cgroup.reached() else {}
        if self.baseline is None:  # the child has not started: all it holds is the zygote's
            return {}
        now = held(self.child, self.baseline)
        return self._full(now) if now > self.cap_bytes else {}

    def end(self) -> dict[str, int]:
        """Once the child is killed: the evidence where the kernel killed a process of it past the cap (else
        {}), and its cgroup removed."""
        if self.cgroup is None:
            return {}
        full = self._full(self.cgroup.peak()) if self.cgroup.reached() else {}
        self.cgroup.remove()
        return full

    def _full(self, held_bytes: int) -> dict[str, int]:
        return {"memory_bytes": self.cap_bytes, "held_bytes": held_bytes}


def held(child: int, baseline: int) -> int:
    """The watch's measure of what the sandbox of `child` holds beyond what it started with (the module's
    docstring says what is counted)."""
    total = 0
    for pid in sandbox_processes(child):
        try:
            total += max(0, resident(pid) - baseline)
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
    return total


def resident(pid: int) -> int:
    """What one process holds in anonymous and shared memory and swap (OSError where it is gone)."""
    return sum(status_bytes(pid, field) for field in _HELD)


def _own_v2() -> Path | None:
    """Where the judge may make a cgroup v2 with the memory controller: in its own cgroup, where that one hands
    the controller down (the root of a container's cgroup namespace), or beside it, where the judge was
    started in a leaf of a delegated cgroup that hands it down (docs/security.md: how to delegate)."""
    path = _own("")
    if path is None:
        return None
    own = _V2_ROOT / path.lstrip("/")
    for folder in (own, own.parent):
        try:
            if "memory" in (folder / "cgroup.subtree_control").read_text().split():
                return folder
        except OSError:
            continue
    return None


def _own_v1() -> Path | None:
    """The judge's own cgroup in a cgroup v1 memory hierarchy."""
    path, mount = _own("memory"), _v1_mount()
    if path is None or mount is None:
        return None
    folder = mount / path.lstrip("/")
    return folder if (folder / "memory.limit_in_bytes").exists() else None


def _own(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of `controller` ("" for the v2 one), from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers.split(",") == [controller] or (controller and controller in controllers.split(",")):
            return path
    return None


def _v1_mount() -> Path | None:
    """Where the cgroup v1 memory hierarchy is mounted (/proc/self/mountinfo), None where it is not."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields, _, tail = line.partition(" - ")
        kind, _, options = (tail.split() + ["", "", ""])[:3]
        if kind == "cgroup" and "memory" in options.split(","):
            return Path(fields.split()[4])
    return None


def _procs(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []
