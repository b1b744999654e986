"""A batch's end: the parent tells its idle workers that the input is over and waits for each to exit, woken by the
exit itself (a process descriptor) where the kernel has them, by a short sleep elsewhere; a worker still running
at the wait's end is reported as such (None), and a finished one by its exit code."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from grader.classes.pool import Worker
from grader.judge import launcher as launchers

pytestmark = pytest.mark.e2e


class _Idle:
    """A launcher that starts nothing: the worker below serves no job."""

    protections: list[str] = []

    def close(self) -> None:
        pass


@pytest.mark.parametrize("descriptors", [True, False], ids=["pidfd", "sleeping"])
def test_a_worker_told_to_finish_exits_and_one_still_serving_is_left_running(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, descriptors: bool) -> None:
    fake: Any = lambda *args: _Idle()  # noqa: E731
    monkeypatch.setattr(launchers, "ZygoteLauncher", fake)  # what the worker's Grader starts, whatever the platform
    monkeypatch.setattr(launchers, "SpawnLauncher", fake)
    if not descriptors:
        monkeypatch.delattr(os, "pidfd_open")
    with open(tmp_path / "workers.log", "a", encoding="utf-8") as log:
        worker = Worker([], log, zygote=None)
        try:
            assert worker.wait(timeout=0.3) is None, "a worker whose input is open stays, serving"
            worker.finish()
            assert worker.wait(timeout=60) == 0, (tmp_path / "workers.log").read_text(encoding="utf-8")
            assert worker.wait(timeout=0) == 0, "a worker reaped is answered from what was read"
        finally:
            worker.kill()
