"""The seed notebook (tests/seeds/GPT_Pytorch.ipynb, a Chinese rendering of "Let's build GPT") graded
with the `gpt` set's first four exercises: its `!wget` is commented out and it opens input.txt, which
the grader ships, so every cell runs offline; what it gets right passes, and its split
(`val_data = data[:n]`) fails with the message about the leak."""
from __future__ import annotations

import pytest

from conftest import SEEDS, Grade, check, grade, select, statuses
from grader.judge.launcher import Launcher
from grader.results import RunResult

GPT_NB = SEEDS / "GPT_Pytorch.ipynb"
EXERCISES = "gpt.tokenizer,gpt.split,gpt.batch,gpt.bigram"


@pytest.fixture(scope="module")
def run(launcher: Launcher) -> RunResult:
    """Graded once for the module's tests."""
    return grade(GPT_NB, select(EXERCISES), launcher, seed=0)


def test_every_cell_runs_with_the_shipped_text(run: RunResult) -> None:
    assert [(r.cell, r.error) for r in run.cells if r.status != "ok"] == []
    assert run.cell_counts == {"ok": 15}  # each code cell: the commented !wget, open('input.txt') ...


def test_what_the_seed_gets_right_passes(run: RunResult) -> None:
    for exercise in ("gpt.tokenizer", "gpt.batch", "gpt.bigram"):
        assert set(statuses(run, exercise).values()) == {"passed"}, exercise
    assert statuses(run, "gpt.split") == {"data": "passed", "train": "passed", "val": "failed"}
    assert run.score == run.max_score - 2


def test_the_split_leak_fails_with_its_message(run: RunResult) -> None:
    c = check(run, "gpt.split", "val")
    assert (c.status, c.message_key) == ("failed", "gpt.split.val.leak")
    assert "val_data is the same slice as train_data (data[:n])" in c.messages["en"]
    assert "validated on text it trained on" in c.messages["en"] and "leak" in c.messages["en"]
    assert "数据泄漏" in c.messages["zh"]
    assert c.evidence["object"] == {"name": "val_data", "cell": 6}  # the seed's split cell


@pytest.mark.parametrize("seed", [3, 11])
def test_other_seeds_agree(grade_file: Grade, seed: int) -> None:
    other = grade_file(GPT_NB, EXERCISES, seed=seed)
    assert [c.status for e in other.exercises for c in e.checks].count("failed") == 1
    assert check(other, "gpt.split", "val").message_key == "gpt.split.val.leak"
