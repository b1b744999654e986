"""Verdicts round 5 (issue 49, points 2, 6 and 7): code the exercises hand out earns nothing by itself, 3.1's
classes are found as every other answer is, and a notebook committed with a merge conflict says so.

3.1 hands out the book's SelfAttention_v1 and SelfAttention_v2 to transfer weights between: its `classes`
check (they still compute the book's attention) is worth 0 points, and its 3 points went to the transfer
itself (`agree` 4 -> 6, `parameters` 3 -> 4). `device` gives its points only where a class the student had to
write (CausalAttention, the multi-head classes) ran. So the untouched template scores 0 on every exercise.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTION, Grade, statuses
from grader.judge.launcher import ZygoteLauncher
from grader.messages import catalogue
from grader.results import RunResult
from helpers import chapter_notebook, grade_in_process, no_traceback

TEMPLATE = ROOT / "student_template"
GIVEN_ONLY = "import torch\nimport torch.nn as nn\n\n" + "\n".join(  # the two classes 3.1 hands out, nothing else
    block for block in re.split(r"\n(?=class |def )", SOLUTION.read_text(encoding="utf-8"))
    if block.startswith(("class SelfAttention_v1", "class SelfAttention_v2")))


def scores(run: RunResult) -> dict[str, float]:
    return {exercise.id: exercise.score for exercise in run.exercises}


@pytest.mark.parametrize("template", ["chapter3.py", "chapter3.ipynb"])
def test_the_untouched_template_scores_nothing(grade_file: Grade, template: str) -> None:
    run = grade_file(TEMPLATE / template, "ch03")
    assert scores(run) == {"3.1": 0, "3.2": 0, "3.3": 0, "mask": 0, "device": 0}, scores(run)
    assert statuses(run, "3.1")["classes"] == "passed"  # the given classes are intact: informative, 0 points
    registered = next(c for e in run.exercises if e.id == "device" for c in e.checks if c.id == "registered")
    assert registered.status == "failed" and "is not implemented yet" in registered.message, registered.message


def test_the_transfer_earns_3_1s_ten_points(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, "3.1")
    points = {c.id: (c.score, c.max_score) for e in run.exercises for c in e.checks}
    assert points == {"agree": (6, 6), "parameters": (4, 4), "classes": (0, 0)}, points


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_the_given_classes_alone_earn_no_device_points(grade_file: Grade, tmp_path: Path, lang: str) -> None:
    path = tmp_path / "given.py"
    path.write_text(GIVEN_ONLY, encoding="utf-8")
    run = grade_file(path, "device")
    registered = next(c for e in run.exercises for c in e.checks if c.id == "registered")
    assert registered.status == "failed" and registered.score == 0
    said = {"en": "only SelfAttention_v1, SelfAttention_v2 were found, which exercise 3.1 hands out",
            "zh": "只找到了 SelfAttention_v1, SelfAttention_v2，它们是练习 3.1 提供的类"}[lang]
    assert said in registered.messages[lang], registered.messages


def test_3_1_finds_its_classes_under_a_near_name(grade_file: Grade) -> None:
    """`SelfAttentionV1` / `SelfAttentionV2` (case and underscore only): graded as the exercise's names in
    every check of 3.1, `classes` included, which used to look for the exact names before the shared lookup."""
    source = SOLUTION.read_text(encoding="utf-8").replace("SelfAttention_v1", "SelfAttentionV1").replace(
        "SelfAttention_v2", "SelfAttentionV2")
    run = grade_file(source, "3.1")
    assert statuses(run, "3.1") == {"agree": "passed", "parameters": "passed", "classes": "passed"}
    classes = next(c for e in run.exercises for c in e.checks if c.id == "classes")
    assert "SelfAttentionV1" in classes.message and "Near miss" not in classes.message, classes.message


# As git leaves a notebook whose cell both branches changed: its markers inside the JSON text.
CONFLICTED = chapter_notebook("x = 1").replace(
    '    "x = 1"\n', '<<<<<<< HEAD\n    "x = 1"\n=======\n    "x = 2"\n>>>>>>> feature\n')


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_a_notebook_with_a_merge_conflict_says_so(tmp_path: Path, lang: str, launcher: ZygoteLauncher) -> None:
    notebook = tmp_path / "chapter3.ipynb"
    notebook.write_text(CONFLICTED, encoding="utf-8")
    line = CONFLICTED.splitlines().index("<<<<<<< HEAD") + 1
    result = grade_in_process("3.1", notebook, "--lang", lang, cwd=tmp_path, launcher=launcher)
    no_traceback(result)
    assert result.code == 2
    assert catalogue.text("cli.merge_conflict", lang, path=str(notebook), line=line) in result.stderr, result.stderr
