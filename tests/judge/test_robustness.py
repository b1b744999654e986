"""Long and broken submissions, and the launchers that run them: a long cell interrupted with its state
kept, a cell that raises, the single-use workers, a dead or killed zygote, one zygote shared by several
judges, and what keeps the zygote cheap to fork. Attacks (hangs, exits, crashes, memory and output
floods, processes left behind) are the hostile corpus's: tests/hostile.

After every test the session's zygote must have no child left: the judge kills each sandbox's process
group and reaps it.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import EXERCISES, SOLUTION, Grade, grade, statuses
from helpers import cell, notebook, problems
from processes import alive, assert_zygote_idle, children_of
from grader.judge.launcher import LaunchError, SpawnLauncher, ZygoteLauncher
from grader.load.submission import load
from grader.results import RunResult
from grader.judge.client import SandboxClient

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SOURCE = SOLUTION.read_text(encoding="utf-8")
ALL_31 = {"agree": "passed", "parameters": "passed", "classes": "passed"}


def timed(grade_file: Grade, *args: object, **kwargs: object) -> tuple[RunResult, float]:
    started = time.monotonic()
    run = grade_file(*args, **kwargs)
    return run, time.monotonic() - started


@pytest.fixture(autouse=True)
def no_children_left(zygote_pid: int | None) -> Iterator[None]:
    yield
    assert_zygote_idle(zygote_pid)


# -- long work ----------------------------------------------------------------------------------------
def test_a_long_cell_is_interrupted_keeping_its_state_and_later_cells_run(grade_file: Grade) -> None:
    """A training-loop cell stopped at its share keeps what it did (`steps` counted so far), and the
    answers in the cell after it are graded in full."""
    src = notebook("import torch\nsteps = 0", "while True:\n    steps += 1", SOURCE + "\nprint('steps', steps > 0)")
    run, elapsed = timed(grade_file, src, "3.1", suffix=".ipynb", timeout=8)  # the loop runs 2.4 s of it
    assert elapsed < 12, elapsed
    assert problems(run) == [(2, "interrupted")] and run.cell_counts == {"ok": 2, "interrupted": 1}
    assert "steps True" in run.output_tail
    assert statuses(run, "3.1") == ALL_31


def test_a_cell_that_finished_is_never_lost_in_a_replay(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """A replay late in the budget (the cells' window spent), on a machine that has become slow: the first
    cell, quick the first time, now takes 2 s. It keeps the share it had when it first ran, so `torch` is
    imported again and the cell after it still binds its answer; with only a late cell's 1 s it would be
    interrupted and every later cell would fail with a NameError."""
    slow_when_late = ("import os, time\n"
                      "if os.path.getmtime(__file__) < 1e6:  # the test's sign that this is the slow replay\n"
                      "    time.sleep(2)\n"
                      "import torch")
    path = tmp_path / "notebook.ipynb"
    path.write_text(notebook(slow_when_late, "answer = torch.ones(3)"), encoding="utf-8")
    sandbox = SandboxClient(load(path), launcher, budget_s=20)
    try:
        sandbox.start()
        assert [r.status for r in sandbox.cell_records()] == ["ok", "ok"]
        os.utime(sandbox.scratch.path / path.name, (1, 1))
        sandbox.deadline = time.monotonic() + 8  # 12 of the 20 s spent: a cell starting now gets 1 s
        sandbox._kill()
        assert sandbox.variables(["answer"])["answer"].tolist() == [1.0, 1.0, 1.0]
        assert [r.status for r in sandbox.cell_records()] == ["ok", "ok"]
    finally:
        sandbox.close()


# -- errors and processes ---------------------------------------------------------------------------------
def test_raise_in_a_cell_is_recorded_with_cell_type_message_and_line(grade_file: Grade) -> None:
    src = SOURCE + "\n# %% a later cell\nanswer = 42\nraise ValueError('boom: bad shapes')\n"
    line = src.splitlines().index("raise ValueError('boom: bad shapes')") + 1
    run = grade_file(src, "3.1")
    record = cell(run, 2)
    assert record.status == "raised"
    assert record.error is not None
    assert record.error["type"] == "ValueError"
    assert record.error["message"] == "boom: bad shapes"
    assert record.error["line"] == line  # the line in the student's file, not in the cell
    assert problems(run) == [(2, "raised")] and run.cell_counts == {"ok": 1, "raised": 1}
    assert statuses(run, "3.1") == ALL_31


def test_single_use_workers_grade_like_the_zygote(tmp_path: Path) -> None:
    """The fallback for platforms without a safe fork gives the same verdicts."""
    launcher = SpawnLauncher()
    try:
        run = grade(SOLUTION, [EXERCISES["3.1"], EXERCISES["mask"]], launcher, seed=1, timeout=60)
    finally:
        launcher.close()
    assert run.full_marks and run.score == run.max_score > 0
    assert [r.status for r in run.cells] == ["ok"]


def test_a_dead_zygote_is_a_launch_error_not_a_hang() -> None:
    launcher = ZygoteLauncher()
    launcher.zygote.proc.kill()
    try:
        with pytest.raises(LaunchError, match="the zygote exited with status -9"):
            launcher.launch({}, 0)
    finally:
        launcher.close()


def test_a_killed_zygote_is_replaced_for_the_next_submission() -> None:
    launcher = ZygoteLauncher.shared(1)[0]
    try:
        first = grade(SOLUTION, [EXERCISES["3.1"]], launcher, seed=1, timeout=60)
        launcher.zygote.proc.kill()
        launcher.zygote.proc.wait()
        second = grade(SOLUTION, [EXERCISES["3.1"]], launcher, seed=1, timeout=60)
    finally:
        launcher.close()
    assert first.full_marks and second.full_marks


def allocator(launcher: ZygoteLauncher) -> str:
    """What the zygote's environment asks Python to allocate its objects with ("" for Python's own)."""
    environ = Path(f"/proc/{launcher.zygote.proc.pid}/environ").read_bytes().split(b"\0")
    return next((v.partition(b"=")[2].decode() for v in environ if v.startswith(b"PYTHONMALLOC=")), "")


def test_every_zygote_keeps_pythons_own_allocator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's zygote and one file's alike hold Python's objects in Python's allocator, whatever the grader's own
    environment asks: in glibc's malloc (and so in huge pages) each sandbox's writes to the objects it inherits
    split huge pages, and the zygote imports torch more slowly (grader/judge/launcher.py, HUGE_PAGES)."""
    monkeypatch.setenv("PYTHONMALLOC", "malloc")
    batch, single = ZygoteLauncher.shared(1)[0], ZygoteLauncher()
    try:
        assert (allocator(batch), allocator(single)) == ("", "")
    finally:
        batch.close()
        single.close()


def test_one_zygote_serves_several_judges_and_ends_what_a_lost_one_was_grading(tmp_path: Path) -> None:
    """The workers of a batch share one zygote, each through a socket of its own. A worker that dies
    takes the submission it was grading with it; the other goes on grading."""
    submission = tmp_path / "answer.py"
    submission.write_text(SOURCE, encoding="utf-8")
    first, second = ZygoteLauncher.shared(2)
    assert first.zygote is second.zygote
    lost = SandboxClient(load(submission), first, budget_s=60, seed=1)
    try:
        lost.start()
        child = lost._child.pid  # type: ignore[union-attr]
        assert child in children_of(first.zygote.proc.pid)
        first.ctl.close()  # what the kernel does for a worker that dies
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child)
        run = grade(submission, [EXERCISES["3.1"]], second, seed=1, timeout=60)
        assert run.full_marks
        assert second.zygote.proc.poll() is None
    finally:
        lost.close()
        first.close()
        second.close()
    assert first.zygote.proc.poll() is not None  # the last launcher closed reaps it


def test_the_zygote_is_frozen_and_preloaded(grade_file: Grade) -> None:
    """What keeps a sandbox cheap to fork and run: torch's objects frozen out of the collector (a
    student's gc.collect() would otherwise copy the inherited heap), and what printing a tensor imports
    already imported."""
    probe = ("\nimport gc, sys\nprint('frozen', gc.get_freeze_count())\n"
             "print('preloaded', 'torch._subclasses.schema_check_mode' in sys.modules)\n")
    run = grade_file(SOURCE + probe, "3.1")
    assert statuses(run, "3.1") == ALL_31
    printed = dict(line.split() for line in run.output_tail.splitlines() if line.startswith(("frozen", "preloaded")))
    assert int(printed["frozen"]) > 100_000  # torch's import leaves several hundred thousand objects
    assert printed["preloaded"] == "True"


THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def test_the_zygote_heap_is_in_huge_pages(zygote_pid: int | None) -> None:
    """What keeps a sandbox cheap to end: the zygote's heap in transparent huge pages, where the kernel
    offers them (grader/judge/launcher.py, HUGE_PAGES)."""
    if zygote_pid is None:
        pytest.skip("the spawning launcher has no zygote")
    if not THP.exists() or "[never]" in THP.read_text():
        pytest.skip(f"the kernel offers no transparent huge pages ({THP}: "
                    f"{THP.read_text().strip() if THP.exists() else 'missing'})")
    deadline = time.monotonic() + 60  # the session's zygote may still be importing torch: its heap grows till then
    while (huge_kb := huge_pages_kb(zygote_pid)) < 64 * 1024 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert huge_kb >= 64 * 1024  # most of the ~145 MB that `import torch` leaves


def huge_pages_kb(pid: int) -> int:
    smaps = Path(f"/proc/{pid}/smaps").read_text().splitlines()
    return sum(int(line.split()[1]) for line in smaps if line.startswith("AnonHugePages"))
