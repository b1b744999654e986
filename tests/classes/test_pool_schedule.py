"""How a batch's parent keeps its judges busy: a judge that answers is sent its next job before the answer is
recorded (the gradebook, the student's code), and at the end the parent tells its idle judges that the input is over,
then waits for each to exit, woken by the exit itself (a process descriptor) where the kernel has them, by a short
sleep elsewhere. The judges here are real forks that serve real jobs; their submissions are files that do not
exist, so each answer is "could not grade" at once, and no sandbox is started."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from grader.classes.jobs import Request
from grader.classes.pool import Worker, run
from grader.judge import launcher as launchers
from grader.judge.launcher import ZygoteLauncher
from grader.results import SubmissionResult

pytestmark = pytest.mark.e2e


class _Idle:
    """A launcher that starts nothing: the judges below never start a sandbox."""

    protections: list[str] = []

    def close(self) -> None:
        pass


class _NoZygotes:
    """The batch's shared zygote, absent: each judge's Grader starts its own launcher (the idle one above)."""

    def take(self) -> ZygoteLauncher | None:
        return None


@pytest.fixture(autouse=True)
def idle_launchers(monkeypatch: pytest.MonkeyPatch) -> None:
    fake: Any = lambda *args: _Idle()  # noqa: E731
    monkeypatch.setattr(launchers, "ZygoteLauncher", fake)  # what a judge's Grader starts, whatever the platform
    monkeypatch.setattr(launchers, "SpawnLauncher", fake)


def test_a_judge_is_sent_its_next_job_before_its_answer_is_recorded(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, str]] = []
    send = Worker.send

    def sent(worker: Worker, request: Request) -> None:
        events.append(("sent", request.label))
        send(worker, request)

    def recorded(request: Request, outcome: SubmissionResult) -> None:
        events.append(("recorded", request.label))

    monkeypatch.setattr(Worker, "send", sent)
    requests = [Request(label=name, files=(str(tmp_path / f"{name}.py"),), handed_in=f"{name}.py", seed=0,
                        class_seed=0, timeout=30.0, lang="en", shown="everything", outdir=str(tmp_path))
                for name in ("a", "b", "c")]
    zygotes: Any = _NoZygotes()
    run(requests, [], tmp_path / "workers.log", workers=1, zygotes=zygotes, on_answer=recorded)
    assert events == [("sent", "a"), ("sent", "b"), ("recorded", "a"), ("sent", "c"), ("recorded", "b"),
                      ("recorded", "c")], (tmp_path / "workers.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("descriptors", [True, False], ids=["pidfd", "sleeping"])
def test_a_worker_told_to_finish_exits_and_one_still_serving_is_left_running(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, descriptors: bool) -> None:
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
