"""`Grader`: the library's one way to grade, used by every command, the batch worker and the Jupyter judge.

Grading safely takes steps that are easy to forget one caller at a time: the judge hides its memory
from tracing before any child exists (it holds the expected values), the launcher starts before the
judge's own `import torch` so that both imports run at once, an instructor's exercise folders join
the secrets no child may read as they load, every run gets a fresh secret seed unless one is asked
for, and a launcher that fails is the machine's fault, never the submission's. A `Grader` takes them
all, in that order, so no caller can skip one.

    with Grader(folders) as grader:
        run = grader.grade(path, grader.select("ch03"), lang="en", timeout=60)
"""
from __future__ import annotations

from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Sequence

from grader.judge.launcher import Launcher, LaunchError, default_launcher
from grader.messages.errors import SandboxFailed
from grader.sandbox.confine import hide_from_tracing

if TYPE_CHECKING:
    from grader.checks.exercise import Exercise
    from grader.load.submission import Submission
    from grader.results import RunResult, SubmissionResult


class Grader:
    """A context manager owning the launcher (unless it was given one), the exercises and the seeds.

    `launcher`: one to use and leave open (a batch worker's, or a test run's shared zygote)."""

    def __init__(self, folders: Sequence[Path] = (), *, launcher: Launcher | None = None) -> None:
        self.folders = tuple(folders)
        self._given = launcher
        self._launcher: Launcher | None = None

    def __enter__(self) -> Grader:
        hide_from_tracing()  # the judge holds the expected values: no child may read its memory
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

    @cached_property
    def exercises(self) -> dict[str, Exercise]:
        """The package's exercises and those of every folder (raises ExerciseFolderError)."""
        from grader.checks.exercise import discover

        return discover(folders=self.folders)

    def select(self, spec: str) -> list[Exercise]:
        """Exercises by id, by set (`ch03`, `gpt`) or `all`, joined by commas (raises UnknownExercise)."""
        from grader.checks.exercise import select

        return select(spec, self.exercises)

    def grade(self, source: Path | Sequence[Path] | Submission, exercises: Sequence[Exercise], *,
              lang: str, timeout: float, seed: int | None = None, beside: bool = False) -> RunResult:
        """Grade one file (`beside`: with the files beside it), one student's files together, or what a
        kernel ran. Raises LoadError when the submission cannot be graded, SandboxFailed when the
        machine cannot start a sandbox."""
        from grader.judge import seeds
        from grader.judge.grading import grade

        try:
            return grade(source, exercises, self.launcher, seed=seeds.fresh() if seed is None else seed,
                         lang=lang, timeout=timeout, beside=beside)
        except LaunchError as exc:
            raise SandboxFailed(exc) from None

    def outcome(self, source: Path | Sequence[Path] | Submission, exercises: Sequence[Exercise], *,
                lang: str, timeout: float, seed: int | None = None) -> SubmissionResult:
        """As `grade`, with "could not grade" as a result: `Ungraded("ungradable")` for the student's
        files, `Ungraded("error")` when the sandbox could not start."""
        from grader.load.submission import LoadError
        from grader.results import Ungraded

        try:
            return self.grade(source, exercises, lang=lang, timeout=timeout, seed=seed)
        except LoadError as exc:
            return Ungraded("ungradable", exc.msg)
        except SandboxFailed as exc:
            return Ungraded("error", exc.msg)
