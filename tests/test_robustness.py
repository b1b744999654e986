"""Hostile and broken submissions: hangs, exits, crashes, memory and output floods.

Each case asserts the verdict and its message, and that grading ends within the budget it was
given (wall time measured here). After every test the session's zygote must have no child left:
the judge kills each sandbox's process group and reaps it.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Iterator

import nbformat
import pytest

from conftest import EXERCISES, SOLUTION, Grade, check, statuses
from processes import alive, assert_zygote_idle, children_of, survivors
from grader.judge import grade
from grader.launcher import LaunchError, SpawnLauncher, ZygoteLauncher
from grader.loading import load
from grader.results import RunResult
from grader.session import Sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SOURCE = SOLUTION.read_text(encoding="utf-8")
ALL_31 = {"agree": "passed", "parameters": "passed", "classes": "passed"}


# -- helpers -----------------------------------------------------------------------------------------
def notebook(*cells: str) -> str:
    """A notebook of code cells; a cell starting with 'md:' is a markdown cell."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(c[3:]) if c.startswith("md:") else nbformat.v4.new_code_cell(c)
                for c in cells]
    return nbformat.writes(nb)


def timed(grade_file: Grade, *args: object, **kwargs: object) -> tuple[RunResult, float]:
    started = time.monotonic()
    run = grade_file(*args, **kwargs)
    return run, time.monotonic() - started


def problems(run: RunResult) -> list[tuple[int, str]]:
    """The cells that did not run fine (a result counts the others, it does not list them)."""
    return [(r.cell, r.status) for r in run.cells if r.status != "ok"]


def cell(run: RunResult, number: int):  # type: ignore[no-untyped-def]
    records = {r.cell: r for r in run.cells}
    assert number in records, f"cell {number} not recorded: {run.cells}"
    return records[number]


def no_grader_errors(run: RunResult) -> None:
    errors = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status == "error"]
    assert not errors, errors


@pytest.fixture(autouse=True)
def no_children_left(zygote_pid: int | None) -> Iterator[None]:
    yield
    assert_zygote_idle(zygote_pid)


# -- hangs ---------------------------------------------------------------------------------------------
# A loop that will not stop: it swallows the interrupt, as Jupyter's Stop button could not stop it either.
STUBBORN = "while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\n"


def test_infinite_loop_at_import_is_interrupted_and_recorded(grade_file: Grade) -> None:
    """Past its share of the budget (a tenth of 30% of 10 s here: 3 s) the loop is interrupted in place;
    the cell is recorded with the line it stopped at, and the checks say what is missing."""
    run, elapsed = timed(grade_file, "while True:\n    pass\n", timeout=10)
    assert elapsed < 10, elapsed
    record = cell(run, 1)
    assert record.status == "interrupted" and record.error is not None, record
    assert record.error["seconds"] == 3.0 and record.error["line"] in (1, 2), record.error
    assert run.score == 0 and not run.full_marks
    no_grader_errors(run)
    failed = [c for e in run.exercises for c in e.checks if c.status == "failed"]
    assert failed and all(c.message_key == "check.not_found" for c in failed)


def test_hang_that_spends_the_whole_budget_is_still_recorded(grade_file: Grade) -> None:
    """A cell that does not stop when interrupted, past the submission's whole budget, is a hung cell:
    the page must say which."""
    run, elapsed = timed(grade_file, SOURCE + "\n# %%\n" + STUBBORN, "3.1", timeout=2)
    assert elapsed < 8, elapsed
    assert all(c.status == "failed" and c.message_key == "check.deadline"
               for e in run.exercises for c in e.checks)
    assert cell(run, 2).status == "timeout"


def test_a_long_cell_is_interrupted_keeping_its_state_and_later_cells_run(grade_file: Grade) -> None:
    """A training-loop cell stopped at its share keeps what it did (`steps` counted so far), and the
    answers in the cell after it are graded in full."""
    src = notebook("import torch\nsteps = 0", "while True:\n    steps += 1", SOURCE + "\nprint('steps', steps > 0)")
    run, elapsed = timed(grade_file, src, "3.1", suffix=".ipynb", timeout=12)
    assert elapsed < 12, elapsed
    assert problems(run) == [(2, "interrupted")] and run.cell_counts == {"ok": 2, "interrupted": 1}
    assert "steps True" in run.output_tail
    assert statuses(run, "3.1") == ALL_31


def test_a_cell_that_will_not_stop_is_killed_and_later_cells_run(grade_file: Grade) -> None:
    src = notebook("import torch", STUBBORN, SOURCE)
    run, elapsed = timed(grade_file, src, "3.1", suffix=".ipynb", timeout=12)
    assert elapsed < 12 + 3, elapsed
    assert problems(run) == [(2, "timeout")] and run.cell_counts == {"ok": 2, "timeout": 1}
    assert statuses(run, "3.1") == ALL_31


def test_infinite_loop_in_forward_costs_only_those_checks(grade_file: Grade) -> None:
    """MultiHeadAttention.forward hangs: the first probe of it spends its 10 s deadline, every later
    probe of the same code fails at once, and the exercises around it keep all their points."""
    src = SOURCE + (
        "\n\ndef _hang(self, x):\n    while True:\n        pass\n\n\n"
        "MultiHeadAttention.forward = _hang\ndel _hang\n"
    )
    run, elapsed = timed(grade_file, src, "3.3,3.1,mask,device", timeout=60)
    assert elapsed < 30, elapsed  # one 10 s deadline and a few restarts, not one per check
    assert [r.status for r in run.cells] == ["ok"]
    no_grader_errors(run)

    assert check(run, "3.3", "parameters").status == "passed"  # counted, never run
    for check_id in ("heads", "context"):
        result = check(run, "3.3", check_id)
        assert (result.status, result.message_key) == ("failed", "check.timeout"), result
        assert "MultiHeadAttention.forward" in result.message and "did not finish" in result.message

    assert statuses(run, "3.1") == ALL_31  # after a restart
    assert next(e for e in run.exercises if e.id == "3.1").score == 10

    mask = {c.id: c for e in run.exercises if e.id == "mask" for c in e.checks}
    for result in mask.values():
        assert (result.status, result.message_key) == ("failed", "check.timeout"), result
        assert "MultiHeadAttention.forward" in result.message
    assert check(run, "device", "registered").status == "passed"  # construction and listing never hang


# -- exits and crashes -----------------------------------------------------------------------------------
def test_sys_exit_in_a_cell_is_a_cell_error(grade_file: Grade) -> None:
    src = notebook("import sys\nsys.exit(0)\nprint('unreachable')", SOURCE)
    run, elapsed = timed(grade_file, src, "3.1", suffix=".ipynb", timeout=30)
    assert elapsed < 30
    first = cell(run, 1)
    assert first.status == "error"
    assert first.error is not None and first.error["type"] == "SystemExit" and first.error["line"] == 2
    assert problems(run) == [(1, "error")] and run.cell_counts == {"ok": 1, "error": 1}
    assert statuses(run, "3.1") == ALL_31


def test_os_exit_in_a_cell_crashes_only_that_cell(grade_file: Grade) -> None:
    src = notebook(SOURCE, "md:Some notes", "import os\nos._exit(0)", "after = 1")
    run, elapsed = timed(grade_file, src, "3.1", suffix=".ipynb", timeout=30)
    assert elapsed < 30
    assert problems(run) == [(3, "crashed")] and run.cell_counts == {"ok": 2, "crashed": 1}
    assert statuses(run, "3.1") == ALL_31
    assert run.full_marks


def test_crash_inside_a_probe_costs_only_that_check(grade_file: Grade) -> None:
    src = SOURCE + (
        "\n\nimport os\n\n\ndef _crash(self, x):\n    os._exit(3)\n\n\n"
        "MultiHeadAttention.forward = _crash\ndel _crash\n"
    )
    run, elapsed = timed(grade_file, src, "3.3,3.1", timeout=60)
    assert elapsed < 30, elapsed
    no_grader_errors(run)
    assert check(run, "3.3", "parameters").status == "passed"
    for check_id in ("heads", "context"):
        result = check(run, "3.3", check_id)
        assert (result.status, result.message_key) == ("failed", "check.exited"), result
        assert "status 3" in result.message and "MultiHeadAttention.forward" in result.message
    assert statuses(run, "3.1") == ALL_31


# -- resources ------------------------------------------------------------------------------------------
def test_memory_bomb_at_import_is_stopped(grade_file: Grade) -> None:
    """8 GB in 256 MB blocks: the memory cap (6 GB) stops it with MemoryError, or the child dies."""
    src = "blocks = []\nfor _ in range(32):\n    blocks.append(bytearray(256 * 1024 * 1024))\n"
    run, elapsed = timed(grade_file, src, "3.1", timeout=120)
    # Touching 6 GB takes ~15 s on a slow VM; well under the 60 s this budget gives the cell.
    assert elapsed < 45, elapsed
    record = cell(run, 2)  # the loop: `blocks = []` is a statement of its own
    assert record.status in ("error", "crashed"), record
    if record.status == "error":
        assert record.error is not None and record.error["type"] == "MemoryError" and record.error["line"] == 3
    no_grader_errors(run)
    assert run.score == 0
    assert all(c.message_key == "check.not_found" for e in run.exercises for c in e.checks)


def test_print_flood_is_capped_and_answers_still_pass(grade_file: Grade) -> None:
    src = SOURCE + "\n# %%\nline = 'x' * (1 << 20)\nfor _ in range(200):\n    print(line)\n"
    run, elapsed = timed(grade_file, src, "3.1", timeout=60)
    assert elapsed < 30, elapsed
    assert len(run.output_tail.encode("utf-8")) <= 8192
    assert problems(run) in ([], [(2, "error")])  # a capped write may raise; it must not crash
    assert sum(run.cell_counts.values()) == 2
    assert statuses(run, "3.1") == ALL_31


# -- errors and processes ---------------------------------------------------------------------------------
def test_raise_in_a_cell_is_recorded_with_cell_type_message_and_line(grade_file: Grade) -> None:
    src = SOURCE + "\n# %% a later cell\nanswer = 42\nraise ValueError('boom: bad shapes')\n"
    line = src.splitlines().index("raise ValueError('boom: bad shapes')") + 1
    run = grade_file(src, "3.1")
    record = cell(run, 2)
    assert record.status == "error"
    assert record.error is not None
    assert record.error["type"] == "ValueError"
    assert record.error["message"] == "boom: bad shapes"
    assert record.error["line"] == line  # the line in the student's file, not in the cell
    assert problems(run) == [(2, "error")] and run.cell_counts == {"ok": 1, "error": 1}
    assert statuses(run, "3.1") == ALL_31


def test_no_process_survives_grading(grade_file: Grade, zygote_pid: int | None) -> None:
    """A submission that starts a long-lived subprocess, one in a new session too: both end with it."""
    src = SOURCE + (
        "\nimport subprocess\n"
        "_sleeper = subprocess.Popen(['sleep', '987651'])\n"
        "_orphan = subprocess.Popen(['sleep', '987652'], start_new_session=True)\n"
    )
    run = grade_file(src, "3.1")
    assert statuses(run, "3.1") == ALL_31
    assert not survivors([b"987651", b"987652"]), "the submission's subprocesses outlived grading"
    if zygote_pid is not None:
        assert not [pid for pid in children_of(zygote_pid) if alive(pid)]


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
    launcher = ZygoteLauncher()
    try:
        first = grade(SOLUTION, [EXERCISES["3.1"]], launcher, seed=1, timeout=60)
        launcher.zygote.proc.kill()
        launcher.zygote.proc.wait()
        second = grade(SOLUTION, [EXERCISES["3.1"]], launcher, seed=1, timeout=60)
    finally:
        launcher.close()
    assert first.full_marks and second.full_marks


def test_one_zygote_serves_several_judges_and_ends_what_a_lost_one_was_grading(tmp_path: Path) -> None:
    """The workers of a batch share one zygote, each through a socket of its own. A worker that dies
    takes the submission it was grading with it; the other goes on grading."""
    submission = tmp_path / "answer.py"
    submission.write_text(SOURCE, encoding="utf-8")
    first, second = ZygoteLauncher.shared(2)
    assert first.zygote is second.zygote
    lost = Sandbox(load(submission), first, budget_s=60, seed=1)
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
    offers them (grader/launcher.py, ZYGOTE_MEMORY)."""
    if zygote_pid is None:
        pytest.skip("the spawning launcher has no zygote")
    if not THP.exists() or "[never]" in THP.read_text():
        pytest.skip(f"the kernel offers no transparent huge pages ({THP}: "
                    f"{THP.read_text().strip() if THP.exists() else 'missing'})")
    smaps = Path(f"/proc/{zygote_pid}/smaps").read_text().splitlines()
    huge_kb = sum(int(line.split()[1]) for line in smaps if line.startswith("AnonHugePages"))
    assert huge_kb >= 64 * 1024  # most of the ~145 MB that `import torch` leaves
