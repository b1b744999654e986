"""Real student notebooks (tests/seeds/): whatever breaks in them (markdown-only answers, lost
indentation, a missing data file) is the student's, recorded per cell or reported as a missing
answer, and never surfaces as a grader "error"."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SEEDS, Grade, check, statuses
from grader.results import RunResult

SOLUTIONS_NB = SEEDS / "ch03-exercise-solutions.ipynb"
MHA_NB = SEEDS / "ch03-3.6-multihead-attention.ipynb"
GPT_NB = SEEDS / "GPT_Pytorch.ipynb"


def failing_cells(run: RunResult) -> dict[int, str]:
    """Cell number (1-based over all of the notebook's cells) -> error type, for cells that raised."""
    return {r.cell: (r.error or {}).get("type", "") for r in run.cells if r.status == "raised"}


@pytest.mark.parametrize("seed", [SOLUTIONS_NB, MHA_NB, GPT_NB], ids=lambda p: p.name)
def test_no_check_is_a_grader_error(grade_file: Grade, seed: Path) -> None:
    run = grade_file(seed)
    errors = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status == "error"]
    assert not errors and not run.grader_fault


def test_exercise_solutions_notebook(grade_file: Grade) -> None:
    run = grade_file(SOLUTIONS_NB, "3.1,3.2,3.3")
    assert set(statuses(run, "3.1").values()) == {"passed"}
    # the 3.2 and 3.3 answers are only in markdown cells, which are never run
    for ex in ("3.2", "3.3"):
        for check_id in statuses(run, ex):
            c = check(run, ex, check_id)
            assert (c.status, c.message_key) == ("failed", "check.not_found"), (ex, check_id)
    assert "markdown cell is not run" in check(run, "3.2", "answer").message
    assert "markdown cell is not run" in check(run, "3.3", "parameters").message


def test_multihead_notebook_records_broken_cells(grade_file: Grade) -> None:
    run = grade_file(MHA_NB)
    failed = failing_cells(run)
    assert failed[2] == failed[7] == "IndentationError"  # the two class cells lost their indentation
    # everything after them that needs torch, nn or `a` fails by name
    assert {n: t for n, t in failed.items() if n not in (2, 7)} == {
        4: "NameError", 9: "NameError", 11: "NameError", 14: "NameError", 17: "NameError"}
    assert not any(c.status == "error" for e in run.exercises for c in e.checks)


def test_gpt_notebook_records_each_failing_cell(grade_file: Grade) -> None:
    # Graded on chapter 3 alone, the lecture's input.txt is not placed beside it (the gpt set brings it:
    # tests/end_to_end/test_gpt_seed.py), so each cell that needs the text fails, recorded with its error.
    run = grade_file(GPT_NB, "ch03")
    failed = failing_cells(run)
    assert failed.pop(2) == "FileNotFoundError"
    assert "input.txt" in next(r for r in run.cells if r.cell == 2).error["message"]
    assert failed == {n: "NameError" for n in (3, 4, 5, 6, 7, 8, 9, 11, 12)}
    assert run.cell_counts == {"ok": 5, "raised": 10}  # so cells 1, 10, 13, 14 and 16 ran
    assert not any(c.status == "error" for e in run.exercises for c in e.checks)
    # Its stray nn.Linear objects are the library's, not attention classes of the student's own.
    assert check(run, "device", "registered").message_key == "check.not_found"
