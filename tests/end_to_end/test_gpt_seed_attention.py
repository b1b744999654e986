"""The seed notebook (a Chinese rendering of "Let's build GPT") graded with gpt.trick, gpt.head and
gpt.layernorm: what it gets right passes, and what it lacks fails with the message that says so.

Cell 14 computes the three aggregation versions from an x that cell 16 rebinds (to LayerNorm1d's
input), and a head inline, unscaled, with no Head class; cell 16 is the lecture's LayerNorm1d. Its cells
2-12 fail without input.txt beside it, which these three exercises do not need.
"""
from __future__ import annotations

import pytest

from conftest import SEEDS, check, statuses
from grader.results import RunResult

GPT_NB = SEEDS / "GPT_Pytorch.ipynb"
EXERCISES = "gpt.trick,gpt.head,gpt.layernorm"


@pytest.fixture(scope="module")
def run(launcher) -> RunResult:  # type: ignore[no-untyped-def]
    from conftest import grade, select

    return grade(GPT_NB, select(EXERCISES), launcher, seed=0)


def test_no_check_is_a_grader_error(run: RunResult) -> None:
    assert [e.id for e in run.exercises] == EXERCISES.split(",")
    assert not any(c.status == "error" for e in run.exercises for c in e.checks)
    failed = {r.cell for r in run.cells if r.status != "ok"}
    assert failed.isdisjoint({13, 14, 16}) and not run.unlisted_problems


def test_the_three_versions_pass_from_the_x_that_cell_16_rebinds(run: RunResult) -> None:
    assert statuses(run, "gpt.trick") == {"loop": "passed", "matrix": "passed", "softmax": "passed"}
    for check_id, name in (("loop", "xbow"), ("matrix", "xbow2"), ("softmax", "xbow3")):
        c = check(run, "gpt.trick", check_id)
        assert c.message_key == "gpt.trick.ok" and "from your x of cell 14" in c.message
        assert c.evidence["object"] == {"name": name, "cell": 14}


def test_layernorm_as_written_passes(run: RunResult) -> None:
    assert statuses(run, "gpt.layernorm") == {"normalised": "passed", "eps": "passed", "affine": "passed"}
    assert "unbiased variance x.var(1)" in check(run, "gpt.layernorm", "normalised").message


def test_the_inline_head_is_not_a_head_class(run: RunResult) -> None:
    for check_id in ("causal", "reference", "short"):
        c = check(run, "gpt.head", check_id)
        assert (c.status, c.message_key) == ("failed", "check.not_found")
        assert "no class Head (an nn.Module)" in c.message
        assert "inline" in c.message and "Head(head_size)" in c.messages["zh"]
    assert run.exercises[1].checks[0].max_score == 2


def test_a_plain_class_is_graded_never_skipped(run: RunResult) -> None:
    """LayerNorm1d is a plain class, not an nn.Module: the sandbox holds it like any object, so its checks
    are graded ("skipped" is for missing hardware only)."""
    for c in next(e for e in run.exercises if e.id == "gpt.layernorm").checks:
        assert c.status == "passed" and c.score == c.max_score > 0, (c.id, c.status, c.message_key)
