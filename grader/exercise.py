"""What an exercise is: an id, bilingual text, and a registry of checks that return outcomes.

A check is `fn(sandbox, reference, rng) -> Outcome`. It never mutates global state and never sees
a verdict from the child: it asks the sandbox for values and compares them here, in the judge.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable

import torch

from grader import catalogue
from grader.catalogue import Texts
from grader.results import Status
from grader.session import Sandbox


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
    """The submission holds no answer for this check; `what` says what was looked for (message key)."""

    def __init__(self, what: str, **args: Any) -> None:
        super().__init__(what)
        self.what = what
        self.args_ = args


class Verdict(Exception):
    """Ends a check early with an outcome, from a helper shared by several checks."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.key)
        self.outcome = outcome


CheckFn = Callable[[Sandbox, ModuleType, torch.Generator], Outcome]


@dataclass(frozen=True)
class Check:
    id: str
    title: Texts
    points: float
    fn: CheckFn


@dataclass
class Exercise:
    id: str
    title: Texts
    statement: Texts
    reference: ModuleType
    messages: dict[str, Texts] = field(default_factory=dict)
    order: float = 100.0  # where `grade list` and `all` put it; ties go by id
    checks: list[Check] = field(default_factory=list)

    def __post_init__(self) -> None:
        catalogue.add_all(self.messages, prefix=f"{self.id}.")

    def check(self, id: str, points: float, title: Texts) -> Callable[[CheckFn], CheckFn]:
        """Register a check, in the order the page shows them."""

        def register(fn: CheckFn) -> CheckFn:
            self.checks.append(Check(id, title, points, fn))
            return fn

        return register

    @property
    def points(self) -> float:
        return sum(c.points for c in self.checks)

    def message_key(self, key: str) -> str:
        local = f"{self.id}.{key}"
        return local if catalogue.has(local) else key


def discover(package: str = "exercises") -> dict[str, Exercise]:
    """Every module of the package that defines EXERCISE, by id; modules starting with _ are helpers."""
    found: dict[str, Exercise] = {}
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        exercise = getattr(module, "EXERCISE", None)
        if isinstance(exercise, Exercise):
            found[exercise.id] = exercise
    return dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
