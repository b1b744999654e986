"""What an exercise is: an id, bilingual text, and a registry of checks that return outcomes.

A check is `fn(sandbox, reference, rng) -> Outcome`. It never mutates global state and never sees
a verdict from the child: it asks the sandbox for values and compares them here, in the judge.
Grading runs exercises, so they are defined here; authors reach these names through grader.checks,
which imports the judge and is never imported by it.
"""
from __future__ import annotations

import difflib
import importlib
import importlib.util
import pkgutil
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

import torch

from grader.judge import old_names
from grader.judge.client import SandboxClient
from grader.judge.secrets import hide
from grader.messages import catalogue
from grader.messages.catalogue import Msg, Texts
from grader.messages.errors import GraderError
from grader.results import Status


@dataclass(frozen=True)
class Outcome:
    status: Status
    key: str
    args: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)


def passed(key: str, evidence: dict[str, Any] | None = None, **args: Any) -> Outcome:
    return Outcome("passed", key, args, evidence or {})


def failed(key: str, evidence: dict[str, Any] | None = None, **args: Any) -> Outcome:
    return Outcome("failed", key, args, evidence or {})


def skipped(key: str, evidence: dict[str, Any] | None = None, **args: Any) -> Outcome:
    """Not applicable here (no GPU, say): worth 0 of 0 points, so nobody loses marks for it."""
    return Outcome("skipped", key, args, evidence or {})


class NotFound(Exception):
    """The submission holds no answer for this check; `what` says what was looked for (message key).
    A `name` among the message's args is also the name the judge explains the miss of (grader.judge.near_miss)."""

    def __init__(self, what: str, **args: Any) -> None:
        super().__init__(what)
        self.what = what
        self.args_ = args

    @property
    def names(self) -> list[str]:
        """The names in `name` ("SelfAttention_v1 / SelfAttention_v2" holds two)."""
        return re.findall(r"[^\W\d]\w*", str(self.args_.get("name", "")))


def markdown_hint(sb: SandboxClient) -> Msg | str:
    """For a NotFound's message: in a notebook, an answer typed into a markdown cell is a common miss
    worth naming; a module has no markdown cells, so there the hint is nothing."""
    return Msg("check.markdown_hint") if sb.submission.kind == "ipynb" else ""


class Verdict(Exception):
    """Ends a check early with an outcome, from a helper shared by several checks."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.key)
        self.outcome = outcome


CheckFn = Callable[[SandboxClient, ModuleType, torch.Generator], Outcome]


@dataclass(frozen=True)
class Check:
    id: str
    title: Texts
    points: float
    fn: CheckFn
    accelerator: bool = False  # runs only on a GPU (skipped, 0 of 0, elsewhere): its points are extra


@dataclass
class Exercise:
    id: str
    title: Texts
    statement: Texts
    reference: ModuleType
    messages: dict[str, Texts] = field(default_factory=dict)
    order: float = 100.0  # where `grade list` and `all` put it; ties go by id
    checks: list[Check] = field(default_factory=list)
    group: str = "ch03"  # the set `grade GROUP FILE` grades (`ch03`, `gpt`)
    # Files the submission expects beside it (a lecture's input.txt), copied into the scratch directory
    # before its cells run; a file of the same name that the student handed in takes their place.
    data: tuple[Path, ...] = ()
    # Where a named mistake shows in the student's code: a diagnosis (a bug's message key, without the
    # exercise's prefix) and a pattern for the lines that make it (the mask's `triu`, the `softmax` call),
    # so the page quotes those lines of the class rather than its header.
    causes: dict[str, str] = field(default_factory=dict)
    # The file that defines it (set when discovered), whose content, with its reference's and data's, is
    # what the gradebook's fingerprint of the definition reads (grader.classes.definitions).
    origin: Path | None = None

    def __post_init__(self) -> None:
        """Every message in every language, said as the file that builds it loads. Building one writes nothing
        global (a test's Exercise, or one built twice, leaves the catalogue as it was): its messages and causes
        join the process's when it is discovered (`discover`), as one of the exercises it grades with."""
        for key, texts in self.messages.items():
            catalogue.complete(f"{self.id}.{key}", texts)

    def register(self) -> None:
        """Its messages into the catalogue and its causes beside every exercise's, under its id, for the
        checks' results (and another exercise's notes) to name."""
        catalogue.add_all(self.messages, prefix=f"{self.id}.")
        CAUSES.update((f"{self.id}.{key}", pattern) for key, pattern in self.causes.items())

    def check(self, id: str, points: float, title: Texts,
              accelerator: bool = False) -> Callable[[CheckFn], CheckFn]:
        """Register a check, in the order the page shows them; `accelerator`: one that needs a GPU."""

        def register(fn: CheckFn) -> CheckFn:
            self.checks.append(Check(id, title, points, fn, accelerator))
            return fn

        return register

    @property
    def points(self) -> float:
        """The points on any machine: what a run without a GPU grades out of (its max_score)."""
        return sum(c.points for c in self.checks if not c.accelerator)

    @property
    def gpu_points(self) -> float:
        """The points a GPU adds (the checks a machine without one skips)."""
        return sum(c.points for c in self.checks if c.accelerator)

    def message_key(self, key: str) -> str:
        local = f"{self.id}.{key}"
        return local if catalogue.has(local) else key


CAUSES: dict[str, str] = {}  # every exercise's causes, by the diagnosis's full message key


def cause_of(diagnosis: Any, exercise_id: str) -> str | None:
    """The pattern of the code lines behind a diagnosis: a full message key (another exercise's bug, as
    3.3's notes name the mask's), or one of this exercise's own."""
    if not isinstance(diagnosis, str):
        return None
    return CAUSES.get(diagnosis) or CAUSES.get(f"{exercise_id}.{diagnosis}")


def discover(package: str = "grader.exercises", folders: Sequence[Path] = ()) -> dict[str, Exercise]:
    """Every module of the package that defines EXERCISE, then every file of each instructor's folder
    that does, by id; modules and files starting with _ are helpers. A folder's files are the judge's
    secrets like the package's: no sandbox may read them."""
    found: dict[str, Exercise] = {}
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        if not info.name.startswith("_"):
            _register(importlib.import_module(f"{package}.{info.name}"), found)
    for folder in folders:
        for module in _load_folder(Path(folder)):
            _register(module, found, replace=False)
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))


def select(spec: str, exercises: dict[str, Exercise]) -> list[Exercise]:
    """Exercises by id, by set (`ch03`, `gpt`) or `all`, joined by commas, each once, in list order: what
    `grade EXERCISE`, `grade batch -e`, `grade ci`'s configuration and `%grade EXERCISE` take. Each name in any
    case (`Mask` is `mask`); an unknown one close to a real one (`maks`) says which it may have meant."""
    groups = {exercise.group for exercise in exercises.values()}
    names = [*exercises, *sorted(groups), "all"]
    folded = {name.lower(): name for name in reversed(names)}  # the first spelling of a name, where two fold alike
    chosen: dict[str, Exercise] = {}
    for asked in spec.split(","):
        name = asked if asked in names else folded.get(asked.lower(), asked)
        if name == "all" or name in groups:
            chosen.update((k, e) for k, e in exercises.items() if name in ("all", e.group))
        elif name in exercises:
            chosen[name] = exercises[name]
        else:
            near = difflib.get_close_matches(name.lower(), list(folded), n=1)
            raise UnknownExercise("cli.unknown_exercise_near" if near else "cli.unknown_exercise", name=name,
                                  choices=", ".join(names), **({"near": folded[near[0]]} if near else {}))
    return sorted(chosen.values(), key=list(exercises.values()).index)


class UnknownExercise(GraderError):
    """An exercise id or set that no exercise has."""


def _register(module: ModuleType, found: dict[str, Exercise], replace: bool = True) -> None:
    exercise = getattr(module, "EXERCISE", None)
    if isinstance(exercise, Exercise):
        if not replace and exercise.id in found:  # an instructor's file may not silently replace another's
            raise ExerciseFolderError("cli.duplicate_exercise", id=exercise.id, path=str(module.__file__))
        exercise.origin = Path(module.__file__) if module.__file__ else None
        exercise.register()
        found[exercise.id] = exercise


def _load_folder(folder: Path) -> list[ModuleType]:
    """Import each exercise file of an instructor's folder under a name of its own (two folders may
    both hold `week1.py`); the folder is on the import path while they load, for their helpers, and so are the
    grader's checks and references by their old names (grader.judge.old_names)."""
    if not folder.is_dir():
        raise ExerciseFolderError("cli.no_exercise_folder", path=str(folder))
    root = folder.resolve()
    hide(str(root))
    prefix = f"grader_exercises_{abs(hash(str(root))):x}"
    modules = []
    before = set(sys.modules)
    sys.path.insert(0, str(root))
    aliases = old_names.alias()
    try:
        for path in sorted(root.glob("*.py")):
            if path.name.startswith("_"):
                continue
            spec = importlib.util.spec_from_file_location(f"{prefix}.{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:  # the instructor's file: say which and why, in one line
                raise ExerciseFolderError("cli.bad_exercise_file", path=str(path),
                                          error=f"{type(exc).__name__}: {exc}") from None
            modules.append(module)
    finally:
        old_names.drop(aliases)
        sys.path.remove(str(root))
        # Its helpers (`import _helpers`) leave with it, so another folder's helper of that name loads.
        for name in set(sys.modules) - before:
            if Path(getattr(sys.modules[name], "__file__", None) or "/").parent == root:
                del sys.modules[name]
    return modules


class ExerciseFolderError(GraderError):
    """An instructor's exercise folder cannot be loaded."""
