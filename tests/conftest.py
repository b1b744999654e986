"""The end-to-end harness: one zygote for the session, and a fixture that grades a file or a source text."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from grader.exercise import discover
from grader.judge import grade
from grader.launcher import ZygoteLauncher, default_launcher
from grader.results import CheckResult, RunResult

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
SEEDS = ROOT / "tests" / "seeds"
SOLUTION = ROOT / "solutions" / "chapter3.py"
TEMPLATE = ROOT / "student_template"

sys.path.insert(0, str(CORPUS))
import mutations  # noqa: E402  (tests/corpus is data, not a package)

EXERCISES = discover()

Grade = Callable[..., RunResult]


@pytest.fixture(scope="session")
def launcher() -> Iterator[ZygoteLauncher]:
    launcher = default_launcher()
    yield launcher  # type: ignore[misc]
    launcher.close()


@pytest.fixture
def zygote_pid(launcher: ZygoteLauncher) -> int | None:
    """The session zygote's pid (None with the spawning launcher, whose children are not forks)."""
    zygote = getattr(launcher, "zygote", None)
    return None if zygote is None else int(zygote.proc.pid)


@pytest.fixture
def grade_file(launcher: ZygoteLauncher, tmp_path: Path) -> Grade:
    """grade_file(path_or_source, exercises="ch03", suffix=".py", seed=0, timeout=60) -> RunResult.

    `exercises` as on the command line: ids joined by commas, a set (`ch03`, `gpt`) or `all`."""

    def run(submission: Path | str, exercises: str = "ch03", *, suffix: str = ".py", seed: int = 0,
            timeout: float = 60.0, name: str = "submission") -> RunResult:
        if isinstance(submission, str):
            path = tmp_path / f"{name}{suffix}"
            path.write_text(submission, encoding="utf-8")
        else:
            path = submission
        return grade(path, select(exercises), launcher, seed=seed, timeout=timeout)

    return run


def select(spec: str) -> list:
    """The exercises a spec names, in list order."""
    names = spec.split(",")
    chosen = [e for e in EXERCISES.values() if "all" in names or e.group in names or e.id in names]
    assert chosen, f"no exercise is called {spec}"
    return chosen


def mutant(group: list[tuple[str, str, str]], bug: str) -> str:
    """The reference solution with one named bug (tests/corpus/mutations.py)."""
    for bug_id, old, new in group:
        if bug_id == bug:
            return mutations.apply(SOLUTION.read_text(encoding="utf-8"), old, new)
    raise KeyError(bug)


def check(run: RunResult, exercise: str, check_id: str) -> CheckResult:
    for ex in run.exercises:
        if ex.id == exercise:
            for c in ex.checks:
                if c.id == check_id:
                    return c
    raise KeyError(f"{exercise}/{check_id}")


def statuses(run: RunResult, exercise: str) -> dict[str, str]:
    return {c.id: c.status for ex in run.exercises if ex.id == exercise for c in ex.checks}
