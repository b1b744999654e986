"""A graded class as one library object: its output folder, its gradebook, what its students are shown, and the
outputs published from them.

Every class command is a short call on it, as sqlite-utils' commands are calls on its `Database`: `grade batch`
grades into it, `grade export`, `merge`, `adjust`, `release` and `similar` read or change its gradebook, and each
publishes through it. Publishing lives here alone, so every output reads the release policy from the one
gradebook that keeps it, and a student's page is redacted in one place (grader.classes.pages); the pool only
schedules the judges, the comparison only finds the pairs.

    with Course(outdir, "en", new=True) as course:
        graded = course.grade([Path("class.zip")], "ch03", workers=2, timeout=60)
        index = course.publish()
"""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from grader import __version__
from grader.classes import adjustments, release, roster, similarity
from grader.classes.gradebook import FILENAME, Gradebook
from grader.classes.jobs import Request
from grader.classes.pages import write_page
from grader.classes.roster import Student
from grader.judge import seeds
from grader.load.submission import fingerprint, prepare_notebooks
from grader.messages.catalogue import Msg
from grader.messages.errors import GraderError
from grader.outputs.names import page_name
from grader.outputs.paths import write_atomic
from grader.outputs.safe_text import json_text
from grader.results import FILES, Entry, LeftOut, LookAlike, SubmissionResult, Ungraded, capped
from grader.results.release import Policy, for_students

if TYPE_CHECKING:  # importing it loads the judges' modules, which `grade export` and the like do without
    from grader.classes.pool import Zygotes


class Watcher(Protocol):
    """What watches a batch: told how many submissions it grades, then of each as it is recorded."""

    def start(self, total: int) -> None: ...

    def step(self) -> None: ...

    def finish(self) -> None: ...


@dataclass
class Graded:
    """What a batch did, for the summary table and the exit code."""

    students: int = 0
    already: int = 0  # final results from an earlier run, not graded again
    to_grade: int = 0
    graded: int = 0
    full: int = 0
    ungradable: int = 0
    errors: int = 0
    left_out: int = 0  # hand-ins the pattern did not match, or that could not be read
    seconds: float = 0.0
    interrupted: bool = False

    def add(self, entry: Entry) -> None:
        if entry.status == "graded":
            self.graded += 1
            self.full += bool(entry.run and entry.run.full_marks)
        elif entry.status == "ungradable":
            self.ungradable += 1
        else:
            self.errors += 1


@dataclass(frozen=True)
class Compared:
    """A class compared: the look-alike pairs, the code they were found in, and how many students the gradebook
    kept no code of (so were not compared)."""

    found: LookAlike
    codes: dict[str, str] = field(repr=False)
    missing: int


class Course:
    """The class graded into `outdir`. `new`: grade a class there (the folder and its gradebook are made);
    otherwise the gradebook must exist. `tell` hears what an instructor should know while the course works (a
    hand-in left out, an exercise whose definition changed, an adjusted grade the grader's score drifted from)."""

    def __init__(self, outdir: Path, lang: str, *, new: bool = False, tell: Callable[[Msg], None] = lambda _: None,
                 ) -> None:
        if not new and not (outdir / FILENAME).is_file():
            raise GraderError("batch.no_gradebook", path=str(outdir))
        if new:
            outdir.mkdir(parents=True, exist_ok=True)
        self.outdir, self.lang, self.tell = outdir, lang, tell
        self.exercise_set: str | None = None  # what a batch of this run graded; None: every set in the gradebook
        self._pages_stale = False  # the pages were written under another release policy than now's

    def __enter__(self) -> Course:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if "book" in self.__dict__:
            self.book.close()

    @cached_property
    def book(self) -> Gradebook:
        """Opened at its first use: a batch whose class cannot be read (two hand-ins that would share a sandbox)
        is refused before a gradebook is made."""
        return Gradebook(self.outdir / FILENAME)

    @property
    def shown(self) -> Policy:
        """What students are shown now (grader.classes.release)."""
        return release.read(self.book).shown

    def entries(self) -> list[Entry]:
        return self.book.latest(self.exercise_set)

    def left_out(self) -> list[LeftOut]:
        return self.book.left_out()

    def grade(self, sources: Sequence[Path], spec: str, *, folders: Sequence[Path] = (), pattern: str | None = None,
              part: tuple[int, int] | None = None, workers: int = 1, timeout: float = 60.0, seed: int | None = None,
              force: bool = False, before_release: Policy | None = None, progress: Watcher | None = None,
              zygotes: Zygotes | None = None) -> Graded:
        """Grade the class SOURCES hold (folders, zips) in the exercises `spec` names, each result committed to the
        gradebook when it is final; what already has a final result is not graded again. Ctrl-C stops it with what
        was recorded kept (`interrupted`). Publishes nothing: `publish` does, after. `zygotes`: the judges' zygote,
        started by the caller for `workers` judges as early as it could (grader.classes.pool.Zygotes)."""
        from grader.classes.definitions import fingerprints
        from grader.classes.pool import Pool
        from grader.judge.secrets import hidden_paths

        graded = Graded()
        with Pool(workers, spec, folders, zygotes) as pool:  # the zygote first, then the exercises' `import torch`
            from grader.render import html  # after: the zygote's import of torch is the longest, so it starts first
            self.exercise_set = exercise_set([exercise.id for exercise in pool.exercises])
            workdir = self.outdir / ".sources"
            shutil.rmtree(workdir, ignore_errors=True)
            workdir.mkdir(parents=True)
            try:
                students, skipped = roster.collect(sources, workdir, pattern)
                if part:
                    students = [s for s in students if roster.in_shard(s.who, part)]
                for item in skipped:
                    self.tell(item.reason)
                graded.students, graded.left_out = len(students), sum(item.hand_in for item in skipped)
                definitions = fingerprints(pool.exercises)
                self._pages_stale = release.choose(self.book, before_release)[1]
                self.book.leave_out(skipped)
                class_seed = seeds.fresh() if seed is None else seed
                hashed = [(student, fingerprint(student.files)) for student in students]  # each file read once
                jobs = self._pending(hashed, definitions, force, class_seed)
                graded.already, graded.to_grade = len(students) - len(jobs), len(jobs)
                shown = self.shown
                requests = {Request(label=s.label, files=tuple(str(f) for f in s.files), handed_in=s.shown,
                                    seed=job_seed, class_seed=class_seed, timeout=timeout, lang=self.lang, shown=shown,
                                    outdir=str(self.outdir)): (s, sha) for s, sha, job_seed in jobs}

                def answered(request: Request, outcome: SubmissionResult) -> None:
                    graded.add(self._record(*requests[request], definitions, outcome))
                    self._keep_code(*requests[request])  # while the judges grade the others
                    if progress is not None:
                        progress.step()

                if progress is not None:
                    progress.start(len(requests))
                html.prepare()  # once, here: every judge forked from this process inherits the compiled templates
                prepare_notebooks()  # and what reading a notebook takes
                hidden_paths()  # and the paths each sandbox hides, found (a checkout listed) once for them all
                started = time.monotonic()
                try:
                    pool.grade(list(requests), self.outdir / "workers.log", answered)
                except KeyboardInterrupt:  # what was recorded stays; the same command carries on from there
                    graded.interrupted = True
                graded.seconds = time.monotonic() - started
                if progress is not None:
                    progress.finish()
                if not graded.interrupted:  # those not graded now, whose code an earlier (older) grader did not keep
                    queued = {id(student) for student, _, _ in jobs}
                    for student, sha in hashed:
                        if id(student) not in queued:
                            self._keep_code(student, sha)
                if adjustments.in_force(self.book.db):  # else no grade is a person's: no entry read for nothing
                    for drift in adjustments.drifted(self.entries()):  # a person's grade over a score that changed
                        self.tell(drift)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
        return graded

    def _pending(self, hashed: Sequence[tuple[Student, str]], definitions: dict[str, str], force: bool,
                 class_seed: int) -> list[tuple[Student, str, int]]:
        """The students to grade now (of `hashed`: each student with their files' sha256), each with that sha256 and
        the seed of its own hidden inputs, drawn from the class's (fresh every run, or the one `--seed` gives: then
        the same inputs again for each student). Tells, per exercise whose definition changed, how many are graded
        again for it."""
        assert self.exercise_set is not None
        todo: list[tuple[Student, str, int]] = []
        changed: dict[str, int] = {}
        for student, sha in hashed:
            done, differs = self.book.standing(student.name, self.exercise_set, sha, __version__, definitions,
                                               student.lms_id)
            for exercise in differs:
                changed[exercise] = changed.get(exercise, 0) + 1
            if not done or force:
                todo.append((student, sha, seeds.derive(class_seed, student.who)))
        for exercise, count in changed.items():
            self.tell(Msg("batch.definition_changed", {"exercise": exercise, "count": count}))
        return todo

    def _record(self, student: Student, sha: str, definitions: dict[str, str], outcome: SubmissionResult) -> Entry:
        """Commit a judge's answer, as bounded as a result is (docs/json.md): a student's 10,000 files or a
        reason quoting a huge error cost a few lines in each output, not megabytes."""
        assert self.exercise_set is not None
        if isinstance(outcome, Ungraded):
            outcome = Ungraded(outcome.status, Msg(outcome.problem.key, capped(outcome.problem.args)))
        return self.book.record(Entry(student=student.name, exercise_set=self.exercise_set,
                                      sha256=sha, grader_version=__version__,
                                      files=tuple(f.name for f in student.files[:FILES]), result=outcome,
                                      definitions=definitions, lms_id=student.lms_id, late=student.late))

    def _keep_code(self, student: Student, sha: str) -> None:
        """Keep what `grade similar` compares of a student (whose files' fingerprint is `sha`), which may run where
        the submissions are not. Done once the student is graded, not before: reading a class's files first made
        every student wait on the slowest file to read (a hand-in's cost is its own grade, never its classmates')."""
        if self.book.lacks_code(sha):
            self.book.keep_code(sha, similarity.code_of(student.files))

    def compare(self, boilerplate: Sequence[Path], threshold: float) -> Compared:
        """The look-alike pairs of the class (grader.classes.similarity), from the code its gradebook kept: so a
        merged class whose shards graded on other machines is compared too."""
        entries = self.entries()
        kept = self.book.code(entry.sha256 for entry in entries)
        codes = {entry.label: kept[entry.sha256] for entry in entries if entry.sha256 in kept}
        found = LookAlike(tuple(similarity.look_alikes(codes, similarity.given(boilerplate), threshold)), threshold,
                          len(codes))
        return Compared(found, codes, len({entry.label for entry in entries} - set(codes)))

    def publish(self, *, rewrite_pages: bool = False, compared: Compared | None = None,
                into: Path | None = None) -> Path:
        """Write the class's outputs from the gradebook alone (its entries, and the hand-ins its runs left out):
        grades.csv, results.jsonl, index.html, any feedback page that is missing (every page with
        `rewrite_pages`, or when the release policy changed) and every page with an adjusted grade (a judge that
        regraded it wrote the page without it); with `compared`, each look-alike pair's page, and the index lists
        the pairs. Into OUTDIR, or the folder `into`. Returns the index page."""
        from grader.render import classbook, similar

        folder = into or self.outdir
        entries, left_out, shown = self.entries(), self.left_out(), self.shown
        rewrite = rewrite_pages or self._pages_stale or into is not None
        for entry in entries:
            page = folder / page_name(entry.label)
            if entry.run is not None and (rewrite or not page.exists() or entry.run.adjusted):
                write_page(folder, entry.label, entry.run, shown)
        found = compared.found if compared else None
        if compared is not None:
            for pair in compared.found.pairs:
                write_atomic(folder / similar.pair_page(pair),
                             similar.pair_html(pair, compared.codes, compared.found.threshold, self.lang), folder)
        write_atomic(folder / "grades.csv", classbook.grades_csv(entries, left_out), folder)
        write_atomic(folder / "results.jsonl", classbook.results_jsonl(entries, left_out, self.book.json_of),
                     folder)
        write_atomic(folder / "index.html", classbook.index_html(entries, self.lang, found, left_out), folder)
        self._pages_stale = False
        return folder / "index.html"

    def adjust(self, student: str, exercise: str, points: float, by: str, why: str) -> Msg:
        """Set the score of one student's exercise by hand (grader.classes.adjustments) and publish it; returns
        the line that says what changed."""
        change = adjustments.adjust(self.book.db, self.entries(), student, exercise, points, by, why)
        self.publish(rewrite_pages=True)
        return change

    def take_back(self, student: str, exercise: str, by: str, why: str) -> Msg:
        """Take the adjustment in force back, so the grader's own score counts again, and publish it."""
        change = adjustments.take_back(self.book.db, self.entries(), student, exercise, by, why)
        self.publish(rewrite_pages=True)
        return change

    def release(self) -> int:
        """Release the class's feedback: every page written again in full. Returns how many pages there are."""
        release.release(self.book)
        self.publish(rewrite_pages=True)
        return sum(entry.run is not None for entry in self.entries())

    def merge(self, shards: Sequence[Path]) -> int:
        """Add the gradebooks of `grade batch --shard` runs (their output folders), the release settings combined
        so that nothing is shown that one of them withholds, and publish. Returns the rows added."""
        check_shards(shards)
        added = sum(self.book.merge(shard / FILENAME) for shard in shards)
        release.adopt(self.book, [shard / FILENAME for shard in shards])
        self.publish(rewrite_pages=True)
        return added

    def gradescope_files(self, folder: Path) -> int:
        """A Gradescope results.json per student in `folder`, what students see before `grade release` as
        Gradescope's visibility. Returns how many."""
        from grader.render import gradescope

        entries, shown = self.entries(), self.shown
        for entry in entries:
            name = Path(page_name(entry.label)).with_suffix(".json").name
            data = gradescope.results(for_students(entry.result, shown), self.lang)
            write_atomic(folder / name, json_text(data, indent=2) + "\n", folder)
        return len(entries)


def check_shards(shards: Sequence[Path]) -> None:
    """Each of `grade merge`'s shards holds a gradebook: checked before the merged one is made."""
    for shard in shards:
        if not (shard / FILENAME).is_file():
            raise GraderError("batch.no_gradebook", path=str(shard))


def exercise_set(ids: Sequence[str]) -> str:
    """The gradebook's name for what was graded: the exercise ids, in catalogue order."""
    return ",".join(ids)
