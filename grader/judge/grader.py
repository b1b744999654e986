"""`Grader`: the library's one way to grade, used by every command, the batch worker and the Jupyter judge.

Grading safely takes steps that are easy to forget one caller at a time: the judge hides its memory
from tracing before any child exists (it holds the expected values), the launcher starts before the
judge's own `import torch` so that both imports run at once, an instructor's exercise folders join
the secrets no child may read as they load, every run gets a fresh secret seed unless one is asked
for, and a launcher that fails is the machine's fault, never the submission's. A `Grader` takes them
all, in that order, so no caller can skip one. Launchers are started here and nowhere else: a batch's
parent, which forks its judges instead of grading, takes its workers' zygotes from `Grader.zygotes`.

    with Grader(folders) as grader:
        run = grader.grade(path, grader.select("ch03"), lang="en", timeout=60)
"""
from __future__ import annotations

from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Sequence

from grader.judge.launcher import Launcher, LaunchError, ZygoteLauncher, default_launcher, zygotes_available
from grader.messages.errors import SandboxFailed
from grader.sandbox.confine import hide_from_tracing
from grader.sandbox.limits import Limits

if TYPE_CHECKING:
    from grader.judge.exercise import Exercise
    from grader.load.submission import Submission
    from grader.results import RunResult, SubmissionResult


class Grader:
    """A context manager owning the launcher (unless it was given one), the exercises and the seeds.

    `launcher`: one to use and leave open (a batch worker's, or a test run's shared zygote); without one,
    the Grader starts its own once it has hidden this process, and closes it."""

    def __init__(self, folders: Sequence[Path] = (), *, launcher: Launcher | None = None) -> None:
        self.folders = tuple(folders)
        self._given = launcher
        self._launcher: Launcher | None = None
        self._classmates_apart = False  # whether its last sandbox kept classmates apart (seeds.shareable)

    def __enter__(self) -> Grader:
        # The judge holds the expected values: no child may read its memory. For the process's life, never
        # undone on exit: what it computed stays in its memory (the references stay imported).
        hide_from_tracing()
        self._launcher = self._given or default_launcher()  # before the judge's own `import torch`
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._launcher is not None and self._given is None:
            self._launcher.close()
        self._launcher = None

    @property
    def launcher(self) -> Launcher:
        if self._launcher is None:
            raise RuntimeError("a Grader grades inside its `with` block")
        return self._launcher

    @staticmethod
    def zygotes(count: int) -> list[ZygoteLauncher]:
        """`count` launchers on one zygote, each with a socket of its own, for the judges a batch's parent
        forks (none where forking is unsafe: each judge's Grader then starts its own). The parent holds the
        exercises its judges inherit, so it is hidden from tracing first, as `with Grader` hides a judge;
        call it before the parent's own `import torch`, so that the zygote's import runs beside it."""
        hide_from_tracing()
        return ZygoteLauncher.shared(count) if zygotes_available() and count else []

    @cached_property
    def exercises(self) -> dict[str, Exercise]:
        """The package's exercises and those of every folder (raises ExerciseFolderError); with them, this process's
        start-up is loaded (grader.sandbox.heap)."""
        from grader.judge.exercise import discover
        from grader.sandbox import heap

        found = discover(folders=self.folders)
        heap.loaded()
        return found

    def select(self, spec: str) -> list[Exercise]:
        """Exercises by id, by set (`ch03`, `gpt`) or `all`, joined by commas (raises UnknownExercise)."""
        from grader.judge.exercise import select

        return select(spec, self.exercises)

    def grade(self, source: Path | Sequence[Path] | Submission, exercises: Sequence[Exercise], *,
              lang: str, timeout: float, seed: int | None = None, class_seed: int | None = None,
              beside: bool = False, limits: Limits = Limits()) -> RunResult:
        """Grade one file (`beside`: with the files beside it), one student's files together, or what a
        kernel ran, under the sandbox's `limits` (its defaults unless given). Raises LoadError when the
        submission cannot be graded, SandboxFailed when the machine cannot start a sandbox. `class_seed`: a
        batch's one draw for its class, taken once this Grader's sandboxes have shown they keep classmates
        apart (its first student of a batch is graded on `seed`, the student's own, as everyone is elsewhere)."""
        from grader.judge import seeds
        from grader.judge.grading import grade

        try:
            run = grade(source, exercises, self.launcher, seed=seeds.fresh() if seed is None else seed,
                        class_seed=class_seed if self._classmates_apart else None, lang=lang, timeout=timeout,
                        beside=beside, limits=limits)
        except LaunchError as exc:
            raise SandboxFailed(exc) from None
        self._classmates_apart = seeds.shareable(run.protections)
        return run

    def outcome(self, source: Path | Sequence[Path] | Submission, exercises: Sequence[Exercise], *,
                lang: str, timeout: float, seed: int | None = None, class_seed: int | None = None,
                beside: bool = False) -> SubmissionResult:
        """As `grade`, with "could not grade" as a result: `Ungraded("ungradable")` for the student's
        files, `Ungraded("error")` when the sandbox could not start."""
        from grader.load.submission import LoadError
        from grader.results import Ungraded

        try:
            return self.grade(source, exercises, lang=lang, timeout=timeout, seed=seed, class_seed=class_seed,
                              beside=beside)
        except LoadError as exc:
            return Ungraded("ungradable", exc.msg)
        except SandboxFailed as exc:
            return Ungraded("error", exc.msg)
