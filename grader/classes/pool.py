"""Scheduling a class's grading: N judge workers, each answer handed back the moment it is final.

The pool only schedules: grader.classes.course records each answer in the gradebook and publishes the class.
The parent never grades, so a worker that dies (a grader bug, the OOM killer) costs one submission, which is
answered as an error and graded again on the next run.

Every budget is wall-clock, and a classmate's processes may take the machine within their limits; so a
verdict that ran out of time while another submission was graded beside it, on a machine where tasks
waited for a CPU (`_Pressure`), is not final: that submission is graded again once the others are done,
alone, and that verdict is the one recorded. An honest student's verdict is then the one it gets alone.

The workers are forks of this process, which must not have run a torch op; and the zygote their sandboxes
start from is started before this process imports torch with the exercises, so that the two imports run at
once. `Pool` takes both steps in that order, so no caller can swap them (tests/classes/test_pool_order.py).
"""
from __future__ import annotations

import os
import select
import selectors
import signal
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Callable, Sequence, TextIO

from grader.classes.jobs import Answer, Request
from grader.classes.worker import become
from grader.judge.grader import Grader
from grader.judge.launcher import ZygoteLauncher
from grader.messages.catalogue import Msg
from grader.results import SubmissionResult, Ungraded

if TYPE_CHECKING:  # importing it loads torch, which `grade export` and `grade merge` do without
    from grader.judge.exercise import Exercise

# A worker that has not answered this long after a submission's own budget ran out is lost.
WORKER_GRACE_S = 60.0
# A submission graded while, this share of the time, some task of the machine waited for a CPU, was graded
# on a saturated machine: if it ran out of time beside a classmate, it is graded again alone.
SATURATED = 0.5

OnAnswer = Callable[[Request, SubmissionResult], None]


class Pool:
    """The judges of one batch: their zygote, started first, then the exercises they grade with (whose import
    loads torch here), so that the zygote's import runs beside ours and the workers fork from a process that
    imported torch but never ran it. A context manager: a zygote it started ends with it; one its caller started
    (`grade batch` starts it earlier still, before it loads the class's modules) ends with the caller's."""

    def __init__(self, workers: int, spec: str, folders: Sequence[Path] = (), zygotes: Zygotes | None = None) -> None:
        self.workers = workers
        self._own = zygotes is None
        # before our own `import torch`, so that the two imports run at once
        self.zygotes = zygotes if zygotes is not None else Zygotes(workers)
        try:
            from grader.judge.exercise import discover, select  # imports torch

            self.exercises = select(spec, discover(folders=folders))
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._own:
            self.zygotes.close()

    def grade(self, requests: Sequence[Request], log: Path, on_answer: OnAnswer) -> None:
        """Grade every request, answering each through `on_answer` as it is final (workers.log at `log`). What this
        process has loaded by now (torch, the exercises, what the caller prepared for its judges) the workers inherit
        frozen (grader.sandbox.heap)."""
        from grader.sandbox import heap

        heap.loaded()
        run(requests, self.exercises, log, workers=self.workers, zygotes=self.zygotes, on_answer=on_answer)


class Zygotes:
    """One zygote for all the workers, started before this process imports torch so that its import and
    ours run at once, with a launcher (a socket of its own) for each worker, handed over when it is
    forked. One `import torch` per zygote is ~1.7 CPU-s, a tenth of a 200-student class on two cores.
    `Grader.zygotes` hides this process (it holds the exercises) from tracing, then starts them. A worker
    started later, in place of a lost one, gets a launcher from its own Grader, which hides it first."""

    def __init__(self, count: int) -> None:
        self.waiting = Grader.zygotes(count)

    def __enter__(self) -> Zygotes:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def take(self) -> ZygoteLauncher | None:
        return self.waiting.pop() if self.waiting else None

    def close(self) -> None:
        waiting, self.waiting = self.waiting, []
        for zygote in waiting:
            zygote.close()


class Worker:
    """One judge (grader.classes.worker, forked from this process) and the job it is grading."""

    def __init__(self, exercises: Sequence[Exercise], log: TextIO, zygote: ZygoteLauncher | None) -> None:
        jobs_in, jobs_out = os.pipe()
        answers_in, answers_out = os.pipe()
        for stream in (sys.stdout, sys.stderr, log):  # or the child would hold a copy of what is unwritten
            stream.flush()
        self.pid = os.fork()
        if self.pid == 0:
            become(exercises, zygote, jobs_in, answers_out, log.fileno())
        os.close(jobs_in)
        os.close(answers_out)
        self.zygote = zygote
        if zygote is not None:
            zygote.hand_over()
        self.jobs = os.fdopen(jobs_out, "wb")
        self.answers = answers_in
        self.status: int | None = None
        self.buffer = b""
        self.job: Request | None = None
        self.deadline = 0.0
        self.beside_others = False  # whether another job was graded while this one was
        self.pressure = _Pressure()  # how long tasks waited for a CPU while this one was graded

    def send(self, request: Request) -> None:
        self.job = request
        self.deadline = time.monotonic() + request.timeout + WORKER_GRACE_S
        self.beside_others = False
        self.pressure = _Pressure()
        self.jobs.write(request.line())
        self.jobs.flush()

    def read(self) -> list[Answer] | None:
        """The answers that arrived; None once the worker is gone."""
        chunk = os.read(self.answers, 1 << 20)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [Answer.read(line) for line in lines if line]

    def wait(self, timeout: float | None = None) -> int | None:
        """Its exit code (negative: the signal that ended it), or None if it is still running at the timeout."""
        if timeout is None or self.status is not None:
            return self._reaped(0)
        deadline = time.monotonic() + timeout
        with _Exit(self.pid) as exited:
            while self._reaped(os.WNOHANG) is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                exited.wait(remaining)
        return self.status

    def _reaped(self, flags: int) -> int | None:
        if self.status is None:
            pid, status = os.waitpid(self.pid, flags)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def kill(self) -> None:
        if self.status is None:
            for kill in (os.killpg, os.kill):  # the group, or the worker alone if it has not made one yet
                try:
                    kill(self.pid, signal.SIGKILL)
                    break
                except OSError:
                    pass
            self.wait()
        if self.zygote is not None:  # it ended with the worker; it is ours to reap
            self.zygote.close()
            self.zygote = None
        for close in (self.jobs.close, lambda: os.close(self.answers)):
            try:
                close()
            except OSError:
                pass

    def finish(self) -> None:
        """End of input: the worker finishes and exits."""
        try:
            self.jobs.close()
        except OSError:
            pass

    def close(self) -> None:
        """Wait for the worker told to finish to exit; kill it if it does not."""
        self.finish()
        self.wait(timeout=10)
        self.kill()


class _Exit:
    """The moment a child exits, without polling for it: its process descriptor turns readable then (Linux 5.3+;
    where the kernel or the platform has none, a wait is a short sleep)."""

    def __init__(self, pid: int) -> None:
        try:
            self.handle: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.handle = None

    def __enter__(self) -> _Exit:
        return self

    def __exit__(self, *_: object) -> None:
        if self.handle is not None:
            os.close(self.handle)

    def wait(self, timeout: float) -> None:
        if self.handle is None:
            time.sleep(min(timeout, 0.01))
        else:
            select.select([self.handle], [], [], timeout)


def run(requests: Sequence[Request], exercises: Sequence[Exercise], log: Path, *, workers: int, zygotes: Zygotes,
        on_answer: OnAnswer) -> None:
    """Grade every request on up to `workers` workers, answering each as it arrives; one that ran out of time
    beside a classmate on a saturated machine is graded again at the end, alone."""
    with open(log, "a", encoding="utf-8") as written:
        _Schedule(requests, exercises, written, workers, zygotes, on_answer).run()


class _Schedule:
    """One batch's scheduling: the requests still to send, those to grade again alone, and the live workers."""

    def __init__(self, requests: Sequence[Request], exercises: Sequence[Exercise], log: TextIO, workers: int,
                 zygotes: Zygotes, on_answer: OnAnswer) -> None:
        self.queue = list(reversed(requests))
        self.again: list[Request] = []  # to be graded alone, once every first try is done
        self.settled: list[tuple[Request, SubmissionResult]] = []  # final answers not yet passed to on_answer
        self.exercises, self.log, self.workers, self.zygotes = exercises, log, workers, zygotes
        self.on_answer = on_answer
        self.selector = selectors.DefaultSelector()
        self.pool: list[Worker] = []

    def run(self) -> None:
        try:
            for _ in range(min(self.workers, len(self.queue))):
                self.start()
            self.dispatch()
            while self.pool:
                now = time.monotonic()
                for worker, late in [(w, w.job) for w in self.pool if w.job is not None and w.deadline < now]:
                    self.lose(worker, f"no answer after {late.timeout + WORKER_GRACE_S:.0f} s")
                for key, _ in self.selector.select(timeout=1.0):
                    self.receive(key.data)
                self.dispatch()  # the next jobs first: the judges grade them while the answers are recorded
                while self.settled:
                    self.on_answer(*self.settled.pop(0))
        finally:
            for worker in self.pool:
                worker.kill()
            self.selector.close()

    def start(self) -> Worker:
        worker = Worker(self.exercises, self.log, self.zygotes.take())
        self.pool.append(worker)
        self.selector.register(worker.answers, selectors.EVENT_READ, worker)
        return worker

    def feed(self, worker: Worker, request: Request) -> None:
        others = [w for w in self.pool if w.job is not None]
        try:
            worker.send(request)
        except OSError:  # it died between jobs; its read() reports that
            pass
        for busy in others:
            busy.beside_others = worker.beside_others = True

    def dispatch(self) -> None:
        """The next requests to the idle workers; once every first try is done, the requests to grade again, one
        at a time with nothing beside them; then the workers left without work are closed."""
        idle = [w for w in self.pool if w.job is None]
        while self.queue and idle:
            self.feed(idle.pop(), self.queue.pop())
        if self.queue or any(w.job is not None for w in self.pool):
            return  # an idle worker waits: a job in flight may yet have to be graded again
        if self.again:
            self.feed(idle.pop() if idle else self.start(), self.again.pop(0))
        for worker in idle:  # all told first, so that they exit side by side
            worker.finish()
        for worker in idle:
            self.retire(worker)

    def receive(self, worker: Worker) -> None:
        answers = worker.read()
        if answers is None:
            self.lose(worker, f"exit status {worker.wait()}")
            return
        for answer in answers:
            if worker.job is not None:
                self.settle(worker, answer.result)

    def retire(self, worker: Worker) -> None:
        self.selector.unregister(worker.answers)
        self.pool.remove(worker)
        worker.close()

    def settle(self, worker: Worker, outcome: SubmissionResult) -> None:
        request, worker.job = worker.job, None
        assert request is not None
        if worker.beside_others and worker.pressure.saturated() and _ran_out_of_time(outcome):
            self.again.append(request)
        else:
            self.settled.append((request, outcome))

    def lose(self, worker: Worker, how: str) -> None:
        self.selector.unregister(worker.answers)
        self.pool.remove(worker)
        worker.kill()
        if worker.job is not None:
            self.on_answer(worker.job, Ungraded("error", Msg("batch.worker_lost", {"how": how})))
        if self.queue and len(self.pool) < self.workers:
            self.start()


class _Pressure:
    """How long, since it was made, some task of the machine (or of its container) waited for a CPU: Linux's
    pressure stall information. Where the kernel keeps none, the machine counts as saturated throughout."""

    PATH = Path("/proc/pressure/cpu")

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.waited = self._waited_us()

    @classmethod
    def _waited_us(cls) -> int | None:
        try:
            some = cls.PATH.read_text().splitlines()[0]  # "some avg10=... avg60=... avg300=... total=US"
            return int(some.rpartition("total=")[2])
        except (OSError, IndexError, ValueError):
            return None

    def saturated(self) -> bool:
        now = self._waited_us()
        if now is None or self.waited is None:
            return True
        return now - self.waited >= SATURATED * (time.monotonic() - self.started) * 1e6


def _ran_out_of_time(run: SubmissionResult) -> bool:
    """Whether a verdict depends on the time it was given: a cell interrupted or stopped at its share, a probe
    past its deadline, the budget spent. Nothing else is changed by a machine that others keep busy."""
    if isinstance(run, Ungraded):
        return False
    return (any(cell.status in ("interrupted", "timeout") for cell in run.cells)
            or any(check.message_key in ("check.timeout", "check.deadline")
                   for exercise in run.exercises for check in exercise.checks))
