"""The keeper of a judge's scratch folders: a process that removes those still there once the judge is gone.

The judge registers each folder it makes and forgets each it removed, on a pipe to the keeper; when the pipe
closes (the judge exited, or was killed with -9, or died with the Jupyter kernel that started it), the keeper
removes what is still registered, trying again for KEEPER_WAIT_S while the zygote ends the processes that may
still write there. Started by exec in a session of its own, so nothing that ends the judge (a kernel's Stop, a
process-group kill) ends it first; one per process, started with the first folder (a forked batch worker starts
its own, as it closes what it inherited).

This file, run as a script without `site` (`python -S .../keeper.py`), is that process: each of a batch's
judges starts one as it grades its first student, when every CPU is busy grading. So it starts on what the
interpreter has loaded anyway (os, sys, io, time), not as `-m` a module of the grader's package (runpy, the
package's import hook, typing: ~40 ms more CPU); grader.sandbox.folders is imported only where a judge left
folders behind (its import path is the grader's root, python_env's PYTHONPATH).
"""
from __future__ import annotations

import io
import os
import sys
import time

KEEPER_WAIT_S = 10.0  # how long the keeper retries a folder that processes of a dead judge still write in


class Keeper:
    """This process's keeper (`mine`), told of each folder made (`keep`) and removed (`forget`)."""

    _mine: "Keeper | None" = None
    SCRIPT = os.path.abspath(__file__)

    def __init__(self) -> None:
        import subprocess

        from grader.judge.launcher import python_env

        self.owner = os.getpid()
        self.proc: subprocess.Popen[bytes] | None = None  # none: grading goes on, the judge removes its folders
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-S", self.SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, env=python_env())
        except OSError:
            pass

    @classmethod
    def mine(cls) -> "Keeper":
        if cls._mine is None or cls._mine.owner != os.getpid():
            cls._mine = cls()
        return cls._mine

    def keep(self, path: os.PathLike[str]) -> None:
        self._say(b"+", path)

    def forget(self, path: os.PathLike[str]) -> None:
        self._say(b"-", path)

    def _say(self, what: bytes, path: os.PathLike[str]) -> None:
        """One message, NUL-terminated (no path holds a NUL), in one write of the pipe."""
        if self.proc is None or self.proc.stdin is None:
            return
        try:
            self.proc.stdin.write(what + os.fsencode(path) + b"\0")
            self.proc.stdin.flush()
        except OSError:  # the keeper was killed: the folders are the judge's alone to remove
            pass


def keep_until_closed(messages: io.BufferedIOBase) -> None:
    """The keeper's life: follow the judge's messages until its end of the pipe closes, then remove what
    it left, until every folder is gone or KEEPER_WAIT_S has passed."""
    left: set[bytes] = set()
    pending = b""
    while chunk := messages.read1(1 << 16):
        *complete, pending = (pending + chunk).split(b"\0")
        for message in complete:
            (left.add if message[:1] == b"+" else left.discard)(message[1:])
    if not left:
        return
    from pathlib import Path

    from grader.sandbox.folders import remove

    deadline = time.monotonic() + KEEPER_WAIT_S
    while left and time.monotonic() < deadline:
        for path in list(left):
            remove(Path(os.fsdecode(path)))
            if not os.path.lexists(path):
                left.discard(path)
        time.sleep(0.1)


if __name__ == "__main__":
    keep_until_closed(sys.stdin.buffer)  # type: ignore[arg-type]  # a BufferedReader, typed as BinaryIO
