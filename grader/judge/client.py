"""The judge's handle on one submission's sandbox: probes with deadlines, and restarts after a kill.

Checks talk to the submission only through `SandboxClient`. A probe that hangs, crashes the child or
breaks the protocol kills the child's whole process group and raises; the next probe starts a
fresh child that replays the cells (skipping any that hung or crashed), so one bad forward costs
one check, not the exercises after it.
"""
from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

from grader import wire
from grader.judge import budget, protocol, seeds
from grader.judge.accelerator import driver_kind, judge_accelerator
from grader.judge.asking import Asking
from grader.judge.launcher import Launcher, LaunchError
from grader.judge.probes import (AnswerTooLarge, BudgetExhausted, ChildCrashed, Obj, ProbeTimeout, ProtocolViolation,
                                  StudentError, clean_error)
from grader.judge.memory import MemoryCap
from grader.judge.scratch import Copied, Scratch
from grader.judge.secrets import hidden_paths, without_grader_code
from grader.load.submission import Cell, Submission
from grader.results import CellRecord, CellStatus
from grader.sandbox.limits import Limits

T = TypeVar("T")

WITHOUT_VAR = "GRADER_SANDBOX_WITHOUT"
OUTPUT_TAIL = 8192
WATCH_S = 0.1  # how often the judge measures what no wall of the child caps (_watch)


# Seconds one probe (a call, a forward, a look at a variable) may take before it counts as hanging; the
# sandbox's start may take three times as long. Read when a sandbox starts, so a test can shorten it.
PROBE_S = 10.0

@dataclass
class _Child:
    pid: int
    sock: socket.socket


class SandboxClient(Asking):
    """One submission's sandbox: its cells run once, then each check's probes (grader.judge.asking)."""

    def __init__(self, submission: Submission, launcher: Launcher, budget_s: float = 60.0,
                 limits: Limits = Limits(), probe_timeout: float | None = None, seed: int = 0,
                 data: Sequence[Copied] = ()) -> None:
        self.submission = submission
        self.seed = seed  # the run's secret: the child's own RNGs start from a seed derived from it (grader.judge.seeds)
        self.launcher = launcher
        self.budget_s = budget_s
        self.limits = limits
        self.probe_timeout = PROBE_S if probe_timeout is None else probe_timeout
        self.deadline = time.monotonic() + budget_s
        self.scratch = Scratch((*data, *submission.files))  # the student's own copy of a data file wins
        self.package = self.scratch.package(submission.path)
        self.output = _output_file()
        self.generation = 0
        self.protections: list[str] = []
        self.accelerator: str | None = None  # the driver kind the child's walls were made for (_spawn)
        self.records: dict[int, CellRecord] = {}
        self.shares: dict[int, float] = {}  # cell -> the share it ran to its end within, the first time
        self.hung: dict[str, float] = {}  # code that hung -> the deadline it ran past
        self._child: _Child | None = None
        self._memo: dict[str, Any] = {}
        self.memory: MemoryCap | None = None  # the live child's whole-submission memory cap
        self.shipped: dict[str, str] = {}  # classes and functions of the grader's own it listed: name -> module

    # -- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Run the cells once (recording each), so failures at load time are known before any check."""
        self._ensure_child()

    def close(self) -> None:
        self._kill()
        self.scratch.remove()
        os.close(self.output)

    def cell_records(self) -> tuple[CellRecord, ...]:
        return tuple(self.records[c.number] for c in self.submission.cells if c.number in self.records)

    def output_tail(self) -> str:
        """The end of what the submission printed, read through the judge's own descriptor."""
        size = os.fstat(self.output).st_size
        return os.pread(self.output, OUTPUT_TAIL, max(0, size - OUTPUT_TAIL)).decode("utf-8", errors="replace")

    def _ensure_child(self) -> _Child:
        """A live child with every cell replayed; cells that hung or crashed one are left out."""
        while self._child is None:
            self._spawn()
            for cell in self.submission.cells:
                if not self._run_cell(cell):
                    break
        return self._child

    def _spawn(self) -> None:
        self._remaining("the sandbox start")
        self.accelerator = driver_kind(judge_accelerator())
        without = [w for w in os.environ.get(WITHOUT_VAR, "").split(",") if w]
        config = {
            "scratch": str(self.scratch.path),
            "submission": str(self.scratch.path / self.submission.path.name),
            "limits": self.limits.to_json(),
            "seed": seeds.derive(self.seed, "sandbox"),
            "hidden": hidden_paths(),
            # what the judge found, never the child: its rules then let the GPU's driver start
            "accelerator": self.accelerator,
            "package": self.package,
            # Tests of the degraded modes turn protections off here (namespaces, landlock, seccomp).
            "without": without,
        }
        pid, sock = self.launcher.launch(config, self.output)
        self._child = _Child(pid, sock)
        self.memory = MemoryCap.start(self.limits.memory_bytes, pid, "cgroup" in without)  # while the child starts
        self.generation += 1
        self._memo = {}
        hello = self._exchange(None, "the sandbox start", self.probe_timeout * 3)
        try:
            self.memory.started()
        except OSError as exc:
            self._kill()
            raise LaunchError(str(exc)) from None
        # Sent by the bootstrap before any submission code runs: what it reports did take effect.
        reported = [p for p in (hello.get("protections", []) if isinstance(hello, dict) else []) if isinstance(p, str)]
        watch = ["disk-watch"] if "disk-quota" not in reported else []  # _watch takes the tmpfs's place
        self.protections = reported + self.launcher.protections + watch + [self.memory.kind,
            "deadlines",
            "process-group-kill",
            "scratch-copy",
            "output-capture",
        ]

    def _run_cell(self, cell: Cell) -> bool:
        """Run one cell and record it the first time; False when it took the child down."""
        previous = self.records.get(cell.number)
        if previous is not None and previous.status in ("timeout", "crashed"):
            return True
        interrupted = previous is not None and previous.status == "interrupted"
        elapsed = self.budget_s - (self.deadline - time.monotonic())
        share = budget.replay_share(self.shares.get(cell.number), interrupted, self.budget_s, elapsed)
        args = {
            "number": cell.number,
            "source": cell.source,
            "filename": cell.filename,
            "first_line": cell.first_line,
            "writefile": list(cell.writefile) if cell.writefile else None,
            "share": share,
        }
        record = _record(cell, "ok")
        try:
            answer = self._exchange({"op": "run_cell", "args": args}, f"cell {cell.number}", budget.kill_after(share))
            stopped = answer.get("interrupted") if isinstance(answer, dict) else None
            if stopped is not None:
                record = _record(cell, "interrupted", {**clean_error(stopped), "seconds": round(share, 1)})
        except StudentError as exc:
            record = _record(cell, "raised", exc.detail)
        except ProbeTimeout as exc:
            record = _record(cell, "timeout", {"seconds": exc.detail})
        except BudgetExhausted as exc:
            self.records[cell.number] = _record(cell, "timeout", {"seconds": exc.detail})
            raise
        except (ChildCrashed, ProtocolViolation) as exc:
            record = _record(cell, "crashed", {"how": exc.detail})
        if previous is None or record.status in ("timeout", "crashed"):
            self.records[cell.number] = record
        if previous is None and record.status in ("ok", "raised"):
            self.shares[cell.number] = share
        return self._child is not None

    def _kill(self, grace: float = 0.0) -> dict[str, int]:
        """End the child's whole process group; `grace` lets a child that is already exiting finish,
        so its own exit status is what the message reports."""
        child, self._child = self._child, None
        if child is None:
            return {}
        child.sock.close()
        try:
            how = self.launcher.reap(child.pid, grace)
        except LaunchError:  # the zygote itself is gone: kill the group from here
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)
            how = {}
        memory, self.memory = self.memory, None
        return (memory.end() if memory is not None else {}) or how  # the kernel's kill past the cap, if it was

    # -- probes -------------------------------------------------------------------------------------
    def _remaining(self, label: str) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise BudgetExhausted(label, self.budget_s)
        return remaining

    def _probe(self, op: str, label: str, timeout: float | None = None, hangs: str | None = None, *,
               most: int = wire.MAX_PAYLOAD, **args: Any) -> Any:
        """One request and its answer, of at most `most` tensor bytes. `hangs` names the code it runs
        ("MultiHeadAttention.forward"): once that code has hung, later probes of it fail at once instead of
        spending the budget again."""
        if hangs in self.hung:
            raise ProbeTimeout(label, self.hung[hangs])
        self._ensure_child()
        try:
            return self._exchange({"op": op, "args": args}, label, timeout or self.probe_timeout, most)
        except ProbeTimeout as exc:
            if hangs:
                self.hung[hangs] = exc.detail
            raise

    def _exchange(self, request: dict[str, Any] | None, label: str, timeout: float,
                  most: int = wire.MAX_PAYLOAD) -> Any:
        child = self._child
        assert child is not None
        limit = min(timeout, self._remaining(label))
        deadline = time.monotonic() + limit
        try:
            if request is not None:
                wire.send(child.sock, request, timeout=limit)
            self._watch(child, deadline, label)
            reply = wire.recv(child.sock, deadline, most)
        except wire.TooLarge as exc:  # refused before its bytes were read: they are still on the way
            self._kill()
            raise AnswerTooLarge(label, {"mib": _mib(exc.size), "most_mib": _mib(exc.most)}) from None
        except wire.Deadline:
            self._kill()
            if time.monotonic() >= self.deadline:
                raise BudgetExhausted(label, self.budget_s) from None
            raise ProbeTimeout(label, round(limit, 1)) from None
        except wire.PeerClosed:
            raise ChildCrashed(label, self._kill(grace=1.0)) from None
        except wire.WireError as exc:
            self._kill()
            raise ProtocolViolation(label, str(exc)) from None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self._kill()
            raise ProtocolViolation(label, "reply is not an answer")
        if not reply["ok"]:
            raise StudentError(label, clean_error(reply.get("error")))
        return reply.get("value")

    def _watch(self, child: _Child, deadline: float, label: str) -> None:
        """While the child works, measure what no wall of its own caps: where no tmpfs caps the scratch folder,
        the folder and the files its processes hold without a name; and the memory all of its processes hold
        together (grader.judge.memory). A child past either is stopped like one that crashed; its cell or check
        says why."""
        disk = "disk-quota" not in self.protections
        while not select.select([child.sock], [], [], max(0.0, min(WATCH_S, deadline - time.monotonic())))[0]:
            if time.monotonic() >= deadline:
                return
            if disk and self.scratch.over(self.limits.disk_bytes, child.pid):
                self._kill()
                self.scratch.reset()
                raise ChildCrashed(label, {"disk_bytes": self.limits.disk_bytes})
            full = self.memory.over() if self.memory is not None else {}
            if full:
                self._kill()
                raise ChildCrashed(label, full)

    def inventory(self) -> list[Obj]:
        """Every module, class and function the submission bound, oldest binding first; none the grader's own
        package defines, which earns nothing however it was imported (`shipped` says which)."""
        return self.memo("inventory", self._list_objects)

    def _list_objects(self) -> list[Obj]:
        label = "listing the submission's objects"
        entries = self._valid(label, protocol.each(protocol.inventory_entry), self._probe("inventory", label),
                              "inventory")
        kept, self.shipped = without_grader_code([Obj(e["ref"], e, self.generation, list(e["bindings"])) for e in entries])
        return kept

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """What `build()` gave for `key` in this child, built once: the inventory, or the module a
        submission's builder returns, which all the checks of an exercise share.
        A restarted child starts empty; a build that raises is tried again by the next caller."""
        self._ensure_child()  # a child killed since the last call is replaced, and its memo emptied
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]


def _output_file() -> int:
    """Where a child's stdout and stderr go: a file of the judge's, outside the scratch folder and
    unlinked at once, so no path the submission can touch leads to it (grader.sandbox.limits)."""
    handle, path = tempfile.mkstemp(prefix="grader-output-")
    os.unlink(path)
    return handle


def _mib(size: int) -> float:
    return round(size / 2**20, 1)


def _record(cell: Cell, status: CellStatus, error: dict[str, Any] | None = None) -> CellRecord:
    return CellRecord(cell.number, status, error, cell.skipped_magics, cell.source, cell.first_line, cell.filename)


