"""Answers found by what they are, wherever and however the student wrote them: classes in the student's own
modules (any import form, or the class of an instance the file holds), and a correct class under a near name."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import CORPUS, SOLUTION, Grade, check, grade, select
from grader.judge.launcher import ZygoteLauncher
from grader.results import RunResult

OWN_MODULE = CORPUS / "own_module" / "MultiHeadAttention.py"

# The same answer, reached through the student's module in each way a learner's script does it.
IMPORTS = {
    "import-as": "import MultiHeadAttention as M\nmha = M.MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)\n",
    "import": "import MultiHeadAttention\n"
              "mha = MultiHeadAttention.MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)\n",
    "from-import": "from MultiHeadAttention import MultiHeadAttention\n"
                   "mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)\n",
    "instance-only": "import importlib\n"
                     "mha = importlib.import_module('MultiHeadAttention').MultiHeadAttention(768, 768, 1024, 0.0, 12)\n",
}


def beside_its_module(launcher: ZygoteLauncher, folder: Path, source: str, exercises: str) -> RunResult:
    """`grade EXERCISES main.py` with the student's module beside main.py, as the command line grades it."""
    shutil.copy(OWN_MODULE, folder / OWN_MODULE.name)
    (folder / "main.py").write_text(source, encoding="utf-8")
    return grade(folder / "main.py", select(exercises), launcher, seed=0, beside=True)


@pytest.mark.parametrize("way", sorted(IMPORTS))
def test_a_class_in_the_students_own_module_is_theirs(launcher: ZygoteLauncher, tmp_path: Path, way: str) -> None:
    source = "# Exercise 3.3 with my own module / 用我自己的模块\nimport torch\n" + IMPORTS[way]
    run = beside_its_module(launcher, tmp_path, source, "3.3,mask,device")
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    assert scores == {"3.3": (6, 6), "mask": (12, 12), "device": (4, 4)}, {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}
    registered = check(run, "device", "registered")
    assert "MultiHeadAttention" in registered.messages["en"] and "MultiHeadAttention" in registered.messages["zh"]


def test_an_installed_packages_class_is_not_the_students(grade_file: Grade) -> None:
    """torch's own MultiheadAttention held by the file is no answer of the student's."""
    source = "import torch\nmha = torch.nn.MultiheadAttention(768, 12)\n"
    c = check(grade_file(source, "mask"), "mask", "causal")
    assert (c.status, c.message_key) in {("failed", "check.not_found"), ("failed", "check.near_miss")}, c.message



def test_a_correct_class_under_a_near_name_is_graded_with_a_note(grade_file: Grade) -> None:
    """`CasualAttention`, the book's class with two letters swapped, and nothing called CausalAttention: the
    mask and device exercises grade it, and every message says it was graded as CausalAttention."""
    source = SOLUTION.read_text(encoding="utf-8").replace("CausalAttention", "CasualAttention")
    run = grade_file(source, "mask,device")
    assert {e.id: e.score for e in run.exercises} == {"mask": 12, "device": 4}, {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}
    for result in (check(run, "mask", "causal"), check(run, "device", "registered")):
        assert "(Graded as the exercise's names: CasualAttention → CausalAttention." in result.messages["en"]
        assert "（按练习中的名称评分：CasualAttention → CausalAttention。" in result.messages["zh"]


def test_a_near_named_class_in_the_students_own_module_is_graded(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """The near miss is imported from the student's module: it is theirs, and graded as the exercise's."""
    module = SOLUTION.read_text(encoding="utf-8").replace("MultiHeadAttentionWrapper", "MutliHeadAttentionWrapper")
    (tmp_path / "attention.py").write_text(module, encoding="utf-8")
    (tmp_path / "main.py").write_text("from attention import MutliHeadAttentionWrapper\n"
                                      "mha_2d = MutliHeadAttentionWrapper(3, 1, 6, 0.0, num_heads=2)\n", encoding="utf-8")
    run = grade(tmp_path / "main.py", select("3.2"), launcher, seed=0, beside=True)
    assert [(c.id, c.status) for c in run.exercises[0].checks] == [("answer", "passed"), ("concat", "passed")], [
        c.message for c in run.exercises[0].checks]
    assert "MutliHeadAttentionWrapper → MultiHeadAttentionWrapper" in check(run, "3.2", "concat").messages["zh"]


def test_a_script_of_a_package_runs_as_the_packages_module(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """`from .causal_attention import CausalAttention` in a file handed in with its package's __init__.py and
    modules: it runs as `python -m homework.main` runs it, and its answers are graded."""
    package = tmp_path / "homework"
    package.mkdir()
    (package / "__init__.py").write_text("# chapter 3 homework / 第三章作业\n", encoding="utf-8")
    (package / "causal_attention.py").write_text(OWN_MODULE.read_text(encoding="utf-8"), encoding="utf-8")
    (package / "main.py").write_text(
        "import torch\n"
        "from .causal_attention import CausalAttention, MultiHeadAttention\n"
        "from homework.causal_attention import CausalAttention as SameClass\n\n"
        "assert SameClass is CausalAttention\n"
        "mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)\n", encoding="utf-8")
    run = grade(package / "main.py", select("3.3,mask"), launcher, seed=0, beside=True)
    assert [r for r in run.cells if r.status != "ok"] == []
    assert {e.id: e.score for e in run.exercises} == {"3.3": 6, "mask": 12}, {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}


def test_the_lectures_layernorm_under_the_name_layernorm_is_graded(grade_file: Grade) -> None:
    """The lecture calls it LayerNorm1d; a learner's own correct `LayerNorm` (the 1d left out) is graded as it,
    with the note in both languages."""
    from exercise.test_gpt_attention import LAYERNORM_LECTURE, NORM

    run = grade_file(LAYERNORM_LECTURE.replace("LayerNorm1d", "LayerNorm"), NORM)
    results = {c.id: c for c in run.exercises[0].checks}
    assert {c.status for c in results.values()} == {"passed"}, [c.message for c in results.values()]
    assert "LayerNorm → LayerNorm1d" in results["normalised"].messages["en"]
    assert "按练习中的名称评分：LayerNorm → LayerNorm1d" in results["normalised"].messages["zh"]


# The book's classes with their constructor's parameters in another order, under the book's names (or the
# lecture's block_size): built by name, each value where the student's constructor asks for it.
REORDERED = (SOLUTION.read_text(encoding="utf-8")
             .replace("def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):",
                      "def __init__(self, d_in, d_out, num_heads, block_size, dropout=0.0, qkv_bias=False):\n"
                      "        context_length = block_size")
             .replace("def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):",
                      "def __init__(self, d_in, d_out, dropout, context_length, qkv_bias=False):")
             .replace("CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)",
                      "CausalAttention(d_in, d_out, dropout, context_length, qkv_bias)")
             .replace("MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)",
                      "MultiHeadAttentionWrapper(d_in, 1, 2, context_length, dropout)")
             .replace("MultiHeadAttention(768, 768, 1024, dropout, num_heads=12)",
                      "MultiHeadAttention(768, 768, 12, 1024, dropout)"))


def test_book_classes_with_their_parameters_in_another_order_are_built_by_name(grade_file: Grade) -> None:
    assert REORDERED.count("num_heads, block_size, dropout=0.0") == 2
    run = grade_file(REORDERED, "ch03")
    assert {e.id: e.score for e in run.exercises} == {e.id: e.max_score for e in run.exercises}, {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}


def test_the_books_call_is_given_by_name_only_where_every_name_is_understood() -> None:
    from grader.checks.signatures import Arguments, like_reference
    from grader.solutions.chapter3 import MultiHeadAttention

    book = (5, 8, 8, 0.0, 2)
    assert like_reference(MultiHeadAttention, ["d_in", "d_out", "num_heads", "block_size", "dropout", "qkv_bias"],
                          book) == Arguments(kwargs={"d_in": 5, "d_out": 8, "num_heads": 2, "block_size": 8,
                                                     "dropout": 0.0, "qkv_bias": False})
    # a name it does not understand: positionally, as the book calls it (as before)
    assert like_reference(MultiHeadAttention, ["d_in", "d_out", "ctx", "p", "heads"], book) == Arguments(
        book, not_understood=("ctx", "p", "heads"))
    assert like_reference(MultiHeadAttention, ["args", "kwargs"], book).args == book


def test_a_constructor_that_cannot_be_built_is_told_which_names_were_not_understood(grade_file: Grade) -> None:
    source = (SOLUTION.read_text(encoding="utf-8")
              .replace("def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):",
                       "def __init__(self, d_in, d_out, ctx, p, use_bias):\n"
                       "        context_length, dropout, qkv_bias = ctx, p, use_bias")
              .replace("CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)",
                       "CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)"))
    c = check(grade_file(source, "mask"), "mask", "causal")
    assert (c.status, c.message_key) == ("failed", "check.not_understood"), c.message
    assert c.messages["en"].startswith("CausalAttention(5, 4, 8, 0.0) raised TypeError: ")
    assert "and did not understand ctx, p, use_bias. Name them as the book does" in c.messages["en"]
    assert "但它无法理解 ctx, p, use_bias。" in c.messages["zh"]
