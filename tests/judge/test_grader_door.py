"""One way to grade: every process that starts a launcher has hidden itself from tracing first, because
`Grader` (grader/judge/grader.py) starts them all, the batch's zygotes and a replacement worker's too.

Hidden means not dumpable (`PR_SET_DUMPABLE` 0): a process of the same user cannot read the judge's memory,
which holds the expected values. The first tests record, at the moment a launcher starts, whether the
process starting it could still be traced; the last shows the Jupyter judge, which grades through a Grader
too, answering with the result model rather than a shape of its own."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import SOLUTION
from grader.classes.pool import Worker
from grader.integrations.kernel_judge import answer
from grader.judge import launcher as launchers
from grader.judge.grader import Grader
from grader.results import REPORT_TYPE, RunResult, Ungraded, outcome_from_json
from helpers import _dumpable, dumpable_kept, grade_in_process, traceable

pytestmark = pytest.mark.e2e


def test_the_batch_hides_itself_before_it_starts_its_zygotes(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`grade batch`'s own process starts its workers' zygote, and holds the exercises they inherit."""
    seen: list[tuple[int, int]] = []  # (the count asked for, whether this process was dumpable then)
    shared = launchers.ZygoteLauncher.shared

    def spy(cls: type[launchers.ZygoteLauncher], count: int) -> list[launchers.ZygoteLauncher]:
        seen.append((count, _dumpable()))
        return shared(count)

    monkeypatch.setattr(launchers.ZygoteLauncher, "shared", classmethod(spy))
    (tmp_path / "class").mkdir()
    with traceable():
        result = grade_in_process("batch", tmp_path / "class", "-o", tmp_path / "out", "-j", "2", cwd=tmp_path)
    assert result.code == 0, result.stderr
    if launchers.zygotes_available():
        assert seen == [(2, 0)], "the batch started its zygotes while it could be traced"


class _Recorded:
    """A launcher that records whether the process that made it could be traced, in a file (a forked
    worker shares nothing else with this process), and starts nothing."""

    protections: list[str] = []

    def __init__(self, record: Path) -> None:
        record.write_text(str(_dumpable()), encoding="utf-8")

    def close(self) -> None:
        pass


def test_a_replacement_worker_starts_its_launcher_once_it_is_hidden(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch worker forked in place of a lost one gets no launcher from the parent: its Grader starts one
    after it has hidden the worker, never before."""
    record = tmp_path / "dumpable"
    fake: Any = lambda *args: _Recorded(record)  # noqa: E731
    monkeypatch.setattr(launchers, "ZygoteLauncher", fake)  # what `Grader` starts, whatever the platform
    monkeypatch.setattr(launchers, "SpawnLauncher", fake)
    with traceable(), open(tmp_path / "workers.log", "a", encoding="utf-8") as log:
        worker = Worker([], log, zygote=None)  # forks: the worker serves, and ends when its input does
        worker.close()
    assert worker.status == 0, (tmp_path / "workers.log").read_text(encoding="utf-8")
    assert record.read_text(encoding="utf-8") == "0", "the worker started its launcher while it could be traced"


def test_the_jupyter_judge_answers_with_the_result_model(launcher: launchers.Launcher, tmp_path: Path) -> None:
    """The kernel's judge answers what `grade --json` writes: a run, marked a self-check, or `Ungraded` and
    why, each read back by the result model's own reader (grader.integrations.jupyter does)."""
    with dumpable_kept(), Grader(launcher=launcher) as grader:
        unknown = answer({"spec": "9.9", "path": str(tmp_path / "answer.py"), "lang": "zh"}, grader)
        graded = answer({"spec": "3.1", "path": str(SOLUTION), "lang": "en", "seed": 0}, grader)
    assert unknown[REPORT_TYPE] == "Ungraded"
    outcome = outcome_from_json(unknown)
    assert isinstance(outcome, Ungraded) and outcome.status == "ungradable"
    assert (outcome.problem.key, outcome.problem.args["name"]) == ("cli.unknown_exercise", "9.9")
    assert graded[REPORT_TYPE] == "RunResult"
    run = outcome_from_json(graded)
    assert isinstance(run, RunResult) and run.self_check and run.full_marks and run.seed == 0
