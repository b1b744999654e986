"""Grading a class: N judge workers, each result committed to the gradebook the moment it is final.

The parent only dispatches, records and reports; it never grades, so a worker that dies (a grader bug,
the OOM killer) costs one submission, which is recorded as an error and graded again on the next run.
What a run has committed survives the run being killed, and the next run skips it: nothing finished is
graded twice, nothing is lost.

Every budget is wall-clock, and a classmate's processes may take the machine within their limits; so a
verdict that ran out of time while another submission was graded beside it, on a machine where tasks
waited for a CPU (`_Pressure`), is not final: that submission is graded again once the others are done,
alone, and that verdict is the one recorded. An honest student's verdict is then the one it gets alone.
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO

from grader import __version__
from grader.classes import similarity
from grader.classes.gradebook import Gradebook
from grader.classes.roster import Student
from grader.classes.worker import become
from grader.judge import seeds
from grader.judge.grader import Grader
from grader.judge.launcher import ZygoteLauncher
from grader.load.submission import fingerprint
from grader.messages.catalogue import Msg
from grader.render.atomic import write_atomic
from grader.render.pages import page_name
from grader.render.text import json_text
from grader.results import FILES, Entry, LeftOut, LookAlike, SubmissionResult, Ungraded, capped, outcome_from_json
from grader.results.release import Policy, withheld

if TYPE_CHECKING:  # importing it loads torch, which `grade export` and `grade merge` do without
    from grader.judge.exercise import Exercise

# A worker that has not answered this long after a submission's own budget ran out is lost.
WORKER_GRACE_S = 60.0
# A submission graded while, this share of the time, some task of the machine waited for a CPU, was graded
# on a saturated machine: if it ran out of time beside a classmate, it is graded again alone.
SATURATED = 0.5


@dataclass
class Tally:
    """What a run did, for the summary table and the exit code."""

    already: int = 0  # final results from an earlier run, not graded again
    graded: int = 0
    full: int = 0
    ungradable: int = 0
    errors: int = 0

    def add(self, entry: Entry) -> None:
        if entry.status == "graded":
            self.graded += 1
            self.full += bool(entry.run and entry.run.full_marks)
        elif entry.status == "ungradable":
            self.ungradable += 1
        else:
            self.errors += 1


@dataclass(frozen=True)
class Job:
    student: Student
    sha256: str
    seed: int


def exercise_set(ids: Sequence[str]) -> str:
    """The gradebook's name for what was graded: the exercise ids, in catalogue order."""
    return ",".join(ids)


@dataclass
class Pending:
    """What a run has to grade: the jobs, how many students already have a final result for these exact files
    and exercise definitions, and, per exercise whose definition changed, how many are graded again for it."""

    jobs: list[Job]
    already: int
    changed: dict[str, int]


def pending(book: Gradebook, students: Sequence[Student], ids: Sequence[str], definitions: dict[str, str],
            force: bool, seed: int | None) -> Pending:
    """The students to grade now."""
    found = Pending([], 0, {})
    for student in students:
        sha = fingerprint(student.files)
        done, changed = book.standing(student.name, exercise_set(ids), sha, __version__, definitions, student.lms_id)
        for exercise in changed:
            found.changed[exercise] = found.changed.get(exercise, 0) + 1
        if done and not force:
            found.already += 1
            continue
        found.jobs.append(Job(student, sha, _seed(seed, student.who)))
    return found


def keep_code(book: Gradebook, students: Sequence[Student]) -> None:
    """Keep what `grade similar` compares of each student, which may run where the submissions are not.
    Done after grading, not before: reading a class's files first made every student wait on the slowest
    file to read (a hand-in's cost is its own grade, never its classmates')."""
    for student in students:
        sha = fingerprint(student.files)
        if book.lacks_code(sha):
            book.keep_code(sha, similarity.code_of(student.files))


def _seed(seed: int | None, student: str) -> int:
    """Fresh hidden inputs every run; with --seed, the same inputs again for each student."""
    return seeds.fresh() if seed is None else seeds.derive(seed, student)


class Zygotes:
    """One zygote for all the workers, started before this process imports torch so that its import and
    ours run at once, with a launcher (a socket of its own) for each worker, handed over when it is
    forked. One `import torch` per zygote is ~1.7 CPU-s, a tenth of a 200-student class on two cores.
    `Grader.zygotes` hides this process (it holds the exercises) from tracing, then starts them. A worker
    started later, in place of a lost one, gets a launcher from its own Grader, which hides it first."""

    def __init__(self, count: int) -> None:
        self.waiting = Grader.zygotes(count)

    def take(self) -> ZygoteLauncher | None:
        return self.waiting.pop() if self.waiting else None

    def close(self) -> None:
        for zygote in self.waiting:
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
        self.job: Job | None = None
        self.deadline = 0.0
        self.beside_others = False  # whether another job was graded while this one was
        self.pressure = _Pressure()  # how long tasks waited for a CPU while this one was graded

    def send(self, job: Job, request: dict[str, Any], budget: float) -> None:
        self.job = job
        self.deadline = time.monotonic() + budget + WORKER_GRACE_S
        self.beside_others = False
        self.pressure = _Pressure()
        self.jobs.write((json_text(request) + "\n").encode())  # a file name that is not UTF-8 as an escape
        self.jobs.flush()

    def read(self) -> list[dict[str, Any]] | None:
        """The answers that arrived; None once the worker is gone."""
        chunk = os.read(self.answers, 1 << 20)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line]

    def wait(self, timeout: float | None = None) -> int | None:
        """Its exit code (negative: the signal that ended it), or None if it is still running at the timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG if deadline is not None else 0)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
            elif deadline is not None and time.monotonic() >= deadline:
                return None
            else:
                time.sleep(0.01)
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

    def close(self) -> None:
        """End of input: the worker finishes and exits; kill it if it does not."""
        try:
            self.jobs.close()
        except OSError:
            pass
        self.wait(timeout=10)
        self.kill()


def run(book: Gradebook, jobs: list[Job], exercises: Sequence[Exercise], outdir: Path, *, workers: int,
        timeout: float, lang: str, on_result: Callable[[Entry], None], zygotes: Zygotes,
        definitions: dict[str, str], shown: Policy) -> None:
    """Grade every job on up to `workers` workers, recording each result as it arrives; a result that ran
    out of time beside a classmate on a saturated machine is graded again at the end, alone. Each page shows
    what the release policy `shown` lets students see now (grader.results.release).

    This process must not have run a torch op: the workers are its forks.
    """
    ids = [exercise.id for exercise in exercises]
    queue = list(reversed(jobs))
    again: list[Job] = []  # to be graded alone, once every first try is done
    selector = selectors.DefaultSelector()
    log = open(outdir / "workers.log", "a", encoding="utf-8")
    pool: list[Worker] = []

    def start() -> Worker:
        worker = Worker(exercises, log, zygotes.take())
        pool.append(worker)
        selector.register(worker.answers, selectors.EVENT_READ, worker)
        return worker

    def feed(worker: Worker, job: Job) -> None:
        request = {"student": job.student.label, "files": [str(f) for f in job.student.files], "seed": job.seed,
                   "timeout": timeout, "lang": lang, "page": str(outdir / page_name(job.student.label)),
                   "shown": shown, "handed_in": job.student.shown, "outdir": str(outdir)}
        others = [w for w in pool if w.job is not None]
        try:
            worker.send(job, request, timeout)
        except OSError:  # it died between jobs; its read() reports that
            pass
        for busy in others:
            busy.beside_others = worker.beside_others = True

    def dispatch() -> None:
        """The next jobs to the idle workers; once every first try is done, the jobs to grade again, one at a
        time with nothing beside them; then the workers left without work are closed."""
        idle = [w for w in pool if w.job is None]
        while queue and idle:
            feed(idle.pop(), queue.pop())
        if queue or any(w.job is not None for w in pool):
            return  # an idle worker waits: a job in flight may yet have to be graded again
        if again:
            feed(idle.pop() if idle else start(), again.pop(0))
        for worker in idle:
            retire(worker)

    def retire(worker: Worker) -> None:
        selector.unregister(worker.answers)
        pool.remove(worker)
        worker.close()

    def settle(worker: Worker, answer: dict[str, Any]) -> None:
        job, worker.job = worker.job, None
        assert job is not None
        outcome = outcome_from_json(answer["result"])
        if worker.beside_others and worker.pressure.saturated() and _ran_out_of_time(outcome):
            again.append(job)
        else:
            on_result(_record(book, job, ids, definitions, outcome))

    def lose(worker: Worker, how: str) -> None:
        selector.unregister(worker.answers)
        pool.remove(worker)
        worker.kill()
        if worker.job is not None:
            lost = Ungraded("error", Msg("batch.worker_lost", {"how": how}))
            on_result(_record(book, worker.job, ids, definitions, lost))
        if queue and len(pool) < workers:
            start()

    try:
        for _ in range(min(workers, len(jobs))):
            start()
        dispatch()
        while pool:
            now = time.monotonic()
            for worker in [w for w in pool if w.job is not None and w.deadline < now]:
                lose(worker, f"no answer after {timeout + WORKER_GRACE_S:.0f} s")
            events = selector.select(timeout=1.0)
            for key, _ in events:
                worker = key.data
                answers = worker.read()
                if answers is None:
                    lose(worker, f"exit status {worker.wait()}")
                    continue
                for answer in answers:
                    if worker.job is not None:
                        settle(worker, answer)
            dispatch()
    finally:
        for worker in pool:
            worker.kill()
        selector.close()
        log.close()


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


def _record(book: Gradebook, job: Job, ids: Sequence[str], definitions: dict[str, str],
            outcome: SubmissionResult) -> Entry:
    """Commit a worker's answer, as bounded as a result is (docs/json.md): a student's
    10,000 files or a reason quoting a huge error cost a few lines in each output, not megabytes."""
    if isinstance(outcome, Ungraded):
        outcome = Ungraded(outcome.status, Msg(outcome.problem.key, capped(outcome.problem.args)))
    return book.record(Entry(student=job.student.name, exercise_set=exercise_set(ids), sha256=job.sha256,
                             grader_version=__version__, files=tuple(f.name for f in job.student.files[:FILES]),
                             result=outcome, definitions=definitions, lms_id=job.student.lms_id,
                             late=job.student.late))


def publish(outdir: Path, entries: Sequence[Entry], lang: str, *, rewrite_pages: bool, shown: Policy,
            left_out: Sequence[LeftOut], look_alike: LookAlike | None = None) -> Path:
    """Write the class's outputs from the gradebook alone (its entries, and the files its runs left out, which
    grades.csv, results.jsonl and the index list): grades.csv, results.jsonl, index.html and
    any feedback page that is missing (every page, with rewrite_pages), and every page with an adjusted grade
    (a worker that regraded it wrote the page without it). With look_alike (grade similar), the index lists
    the look-alike pairs too. Returns the index page. The pages, the students', show what the release policy
    `shown` lets them see (a keyword without a default, so no caller forgets it); the rest is the instructor's."""
    from grader.render import classbook, html

    for entry in entries:
        page = outdir / page_name(entry.label)
        if entry.run is not None and (rewrite_pages or not page.exists() or entry.run.adjusted):
            write_atomic(page, html.render(withheld(entry.run, shown)), outdir)
    write_atomic(outdir / "grades.csv", classbook.grades_csv(entries, left_out), outdir)
    write_atomic(outdir / "results.jsonl", classbook.results_jsonl(entries, left_out), outdir)
    write_atomic(outdir / "index.html", classbook.index_html(entries, lang, look_alike, left_out), outdir)
    return outdir / "index.html"
