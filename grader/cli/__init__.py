"""The `grade` command line (its group and commands: grader.cli.group and one module a command).

`grade EXERCISE FILE` spends most of its time in two imports of torch that run at once on two cores, the judge's
and its zygote's, and the submission's first cell waits for the zygote's. So where the command line grades a file,
`main` starts the zygote first thing, before the command line is parsed: before click and the group (~70 ms),
which the judge then imports while the zygote imports torch. This module therefore imports only the command
names at its top; `cli` and the exit codes are loaded on first use (PEP 562).

Exit codes: 0 every graded exercise has full marks; 1 graded, not full marks; 2 could not grade (bad file,
notebook, exercise or option, or the grader itself failed), with one line on stderr; 130 `grade batch`
interrupted.
"""
from __future__ import annotations

import sys
from typing import Any

from grader.cli.commands import loads_exercises, names_an_exercise

__all__ = ["cli", "main", "EXIT_FULL", "EXIT_PARTIAL", "EXIT_CANNOT_GRADE", "EXIT_INTERRUPTED"]


def main() -> None:
    """Console entry point (grader.cli.group.run): one line and exit 2 for anything unexpected, never a
    traceback. A command line that grades a file starts its zygote first (start_early); one that loads torch and
    the exercises loads them with the collector off (grader.sandbox.heap)."""
    args = sys.argv[1:]
    if names_an_exercise(args) or args[:1] == ["exercise"]:
        from grader.judge.launcher import start_early

        start_early()
    if loads_exercises(args):
        from grader.sandbox import heap

        heap.loading()
    from grader.cli.group import run

    run()


_LAZY = {"cli": "grader.cli.group", **{name: "grader.messages.errors" for name in __all__ if name.startswith("EXIT_")}}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'grader.cli' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
