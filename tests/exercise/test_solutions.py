"""The references and the untouched templates, graded as any submission would be."""
from __future__ import annotations

from conftest import SOLUTION, TEMPLATE, Grade, statuses
from helpers import accelerator


def test_solutions_get_full_marks(grade_file: Grade) -> None:
    run = grade_file(SOLUTION)
    assert run.full_marks, [(c.id, c.message) for e in run.exercises for c in e.checks if c.status != "passed"]
    assert run.score == run.max_score > 0


def test_template_module_reports_not_implemented(grade_file: Grade) -> None:
    run = grade_file(TEMPLATE / "chapter3.py")
    assert not run.full_marks
    failures = [c for e in run.exercises for c in e.checks if c.status == "failed"]
    assert failures and all(c.message_key == "check.not_implemented" for c in failures)
    assert not any(c.status == "error" for e in run.exercises for c in e.checks)
    assert all(r.status == "ok" for r in run.cells)


def test_template_notebook_reports_not_implemented(grade_file: Grade) -> None:
    run = grade_file(TEMPLATE / "chapter3.ipynb")
    failures = [c for e in run.exercises for c in e.checks if c.status == "failed"]
    assert failures and all(c.message_key == "check.not_implemented" for c in failures)
    assert all(r.status == "ok" for r in run.cells)
    # The template gives the book's SelfAttention_v1 and v2 (the other classes raise NotImplementedError):
    # on an accelerator they give the CPU's outputs; without one the comparison is skipped.
    assert statuses(run, "device")["accelerator"] == ("passed" if accelerator() else "skipped")
