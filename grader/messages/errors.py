"""The errors a user is told about: one catalogue message, and the exit code the command ends with.

Library code raises them where it finds the problem; the `grade` group (grader.cli) is the one place
that turns one into a line on stderr and an exit status (click's habit), so no command catches and
fails on its own and every command fails the same way.

Exit codes: 0 every graded exercise has full marks; 1 graded, not full marks; 2 could not grade (bad
file, notebook, exercise or option, or the grader itself failed); 130 `grade batch` was interrupted.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from grader.messages.catalogue import Msg

EXIT_FULL, EXIT_PARTIAL, EXIT_CANNOT_GRADE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C during `grade batch`: the shell's code for SIGINT


class GraderError(Exception):
    """A failure told to the user as one catalogue message: `key` names it, `args_` fill it."""

    exit_code = EXIT_CANNOT_GRADE

    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key)
        self.key = key
        self.args_ = args

    @property
    def msg(self) -> Msg:
        return Msg(self.key, self.args_)


class Unwritable(GraderError):
    """An output (a page, a JSON file, the gradebook) cannot be written."""

    def __init__(self, error: object) -> None:
        super().__init__("cli.unwritable", error=str(error))


class SandboxFailed(GraderError):
    """The sandbox could not be started: the machine's fault, never the submission's."""

    def __init__(self, error: object) -> None:
        super().__init__("cli.sandbox_failed", error=str(error))


class Interrupted(GraderError):
    """Ctrl-C: what was recorded stays, and the same command carries on from there."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("batch.interrupted")


@contextmanager
def writing() -> Iterator[None]:
    """Outputs written in this block that cannot be written end the command with `cli.unwritable`."""
    try:
        yield
    except OSError as exc:
        raise Unwritable(exc) from None
