"""An answer not found, explained: the near miss a learner defined instead, or the cell that raised first.

The files imitate learners: a class spelled `Causal_Attention`, a wrapper spelled `...Wraper`, a class
cell that forgot `import torch.nn as nn`, an indentation error in the cell of the answer.
"""
from __future__ import annotations


from conftest import SOLUTION, check
from grader.load.submission import Cell
from grader.judge.near_miss import Binding, bindings, near
from helpers import chapter_notebook as notebook

ANSWERS = SOLUTION.read_text(encoding="utf-8")
NOT_FOUND = ("check.not_found", "check.near_miss", "check.not_run")


def defined(*names: str) -> list[Binding]:
    return [Binding(name, 1, 1, True) for name in names]


# -- which names are near misses ----------------------------------------------------------------------
def test_case_underscores_and_a_typo_are_near_misses() -> None:
    bound = defined("Causal_Attention", "MultiHeadAttentionWraper", "selfattention_v1", "Heads")
    assert near("CausalAttention", bound) == ["Causal_Attention"]
    assert near("MultiHeadAttentionWrapper", bound) == ["MultiHeadAttentionWraper"]
    assert near("SelfAttention_v1", bound) == ["selfattention_v1"]
    assert near("CausalAttention", defined("CasualAttention")) == ["CasualAttention"]
    assert near("Head", defined("Heads")) == ["Heads"]  # issue 49: one letter edit in a name of up to 7 letters


def test_other_answers_are_not_near_misses() -> None:
    """Names that differ in a digit, or that are another answer of the book, are never offered."""
    assert near("SelfAttention_v1", defined("SelfAttention_v2")) == []
    assert near("MultiHeadAttentionWrapper", defined("MultiHeadAttention")) == []
    assert near("xbow2", defined("xbow3", "xbow")) == []
    assert near("decode", defined("encode")) == []
    assert near("xb", defined("yb", "x_b2")) == []  # a name of two letters: only letter case and underscores
    assert near("CausalAttention", defined("CausalAttention")) == []  # the name itself is no near miss


def test_a_class_is_preferred_to_a_variable() -> None:
    bound = [Binding("causal_attention", 2, 9, False), Binding("Causal_Attention", 1, 3, True)]
    assert near("CausalAttention", bound) == ["Causal_Attention"]
    assert near("xbow2", [Binding("xbow_2", 3, 1, False)]) == ["xbow_2"]


def test_bindings_are_read_from_the_text_of_top_level_statements() -> None:
    source = ("class Causal_Attention(nn.Module):\n"
              "    head = 1\n"                     # inside a class: not top level
              "def build(:\n"                      # a syntax error still names what it defines
              "a, b = 1, 2\n"
              "n: int = 3\n"
              "x == 4\n"
              "else: y = 5\n")                     # a keyword is never a name
    found = bindings([Cell(number=3, source=source, filename="<cell 3>", first_line=10)])
    assert [(b.name, b.line, b.defines) for b in found] == [
        ("Causal_Attention", 10, True), ("build", 12, True), ("a", 13, False), ("b", 13, False), ("n", 14, False)]


def test_names_imported_from_another_module_are_bindings_of_their_class() -> None:
    source = ("from attention import MutliHeadAttentionWrapper as W, CausalAttention\n"
              "from models.gpt import (Head,\n"
              "import attention\n")
    found = bindings([Cell(number=2, source=source, filename="<cell 2>")])
    assert [(b.name, b.line, b.defines) for b in found] == [
        ("MutliHeadAttentionWrapper", 1, True), ("CausalAttention", 1, True), ("Head", 2, True)]
    assert near("MultiHeadAttentionWrapper", found) == ["MutliHeadAttentionWrapper"]


def test_a_dimension_suffix_left_out_is_a_near_miss() -> None:
    assert near("LayerNorm1d", defined("LayerNorm")) == ["LayerNorm"]
    assert near("LayerNorm1d", defined("layer_norm_1d")) == ["layer_norm_1d"]
    assert near("SelfAttention_v1", defined("SelfAttention_v1d")) == []  # a digit of the name itself differs


# -- the messages, graded end to end --------------------------------------------------------------------
NEAR_MISSES = (ANSWERS.replace("class CausalAttention", "class Causal_Attention")
               .replace("CausalAttention(", "Causal_Attention(")
               .replace("MultiHeadAttentionWrapper", "MultiHeadAttentionWraper")
               .replace("class MultiHeadAttention(", "class Multihead_Attention("))


def test_the_one_near_miss_of_each_name_is_graded_with_a_note(grade_file) -> None:
    """Each answer is there under one near name: each is graded as the exercise's class, and every message
    says which class was graded as which, in both languages."""
    run = grade_file(NEAR_MISSES, "mask,3.2")
    causal = check(run, "mask", "causal")
    assert (causal.status, causal.message_key) == ("passed", "mask.causal.ok"), causal.message
    assert "Causal_Attention → CausalAttention" in causal.messages["en"]
    assert "Multihead_Attention → MultiHeadAttention" in causal.messages["en"]
    assert causal.messages["en"].endswith("rename yours to the name after the arrow.)")
    assert "按练习中的名称评分：" in causal.messages["zh"] and "Causal_Attention → CausalAttention" in causal.messages["zh"]
    assert causal.evidence["graded_as"]["CausalAttention"] == "Causal_Attention"
    concat = check(run, "3.2", "concat")
    assert concat.status == "passed" and "MultiHeadAttentionWraper → MultiHeadAttentionWrapper" in concat.message
    assert {e.id: e.score for e in run.exercises} == {e.id: e.max_score for e in run.exercises}


def test_two_near_misses_are_never_picked_between(grade_file) -> None:
    """Two classes named close to CausalAttention: neither is graded, and the message names both."""
    causal_only = ANSWERS[ANSWERS.index("class CausalAttention"):ANSWERS.index("class MultiHeadAttentionWrapper")]
    both = ("import torch\nimport torch.nn as nn\n\n" + causal_only.replace("CausalAttention", "Causal_Attention")
            + causal_only.replace("CausalAttention", "CasualAttention"))
    causal = check(grade_file(both, "mask"), "mask", "causal")
    assert causal.message_key == "check.near_miss", causal.message
    for text in causal.messages.values():
        assert "Causal_Attention / CasualAttention → CausalAttention" in text
    assert "未找到答案" in causal.messages["zh"] and "名称相近" in causal.messages["zh"]


def test_a_gpt_class_in_another_case_is_named(grade_file) -> None:
    run = grade_file("import torch.nn as nn\nclass head(nn.Module):\n    pass\n", "gpt.head")
    result = next(c for e in run.exercises for c in e.checks)
    assert result.message_key == "check.near_miss" and "head → Head" in result.message


def test_the_cell_that_raised_before_binding_the_answer_is_named(grade_file) -> None:
    """The learner's class cell uses nn before any cell imports it: the message points at that cell and
    line with its error, not at a missing answer, and the page can quote the line."""
    broken = ANSWERS.replace("import torch.nn as nn\n", "").replace("from torch import nn\n", "")
    assert "nn.Module" in broken and "import torch.nn as nn" not in broken
    source = notebook("import torch\nprint('setup')", "x = torch.ones(3)", broken)
    run = grade_file(source, "mask", suffix=".ipynb")
    causal = check(run, "mask", "causal")
    line = next(i for i, text in enumerate(broken.splitlines(), start=1) if text.startswith("class CausalAttention"))
    assert causal.message_key == "check.not_run"
    assert causal.message.startswith(f"CausalAttention is defined in cell 4, line {line}, but the code there raised "
                                     f"NameError: name 'nn' is not defined")
    assert "单元格 4" in causal.messages["zh"]
    assert causal.evidence["error"]["type"] == "NameError"
    assert any(c.cell == 4 and c.status == "raised" for c in run.cells)


def test_a_syntax_error_in_the_answers_cell_is_named(grade_file) -> None:
    source = notebook("import torch\nimport torch.nn as nn",
                      "class SelfAttention_v1(nn.Module):\n  def __init__(self, d_in, d_out):\n"
                      "    super().__init__()\n     self.d_out = d_out\n")
    run = grade_file(source, "3.1", suffix=".ipynb")
    result = check(run, "3.1", "classes")
    assert result.message_key == "check.not_run"
    assert "SelfAttention_v1 is defined in cell 3, line 1," in result.message and "IndentationError" in result.message


def test_a_cell_that_raised_after_binding_is_not_blamed(grade_file) -> None:
    """The class ran (it is just not an nn.Module) and the cell raised later: the class is there, so the
    cell is not why the answer is missing."""
    source = "import torch\n# %%\nclass Head:\n    pass\nraise ValueError('later')\n"
    run = grade_file(source, "gpt.head")
    result = next(c for e in run.exercises for c in e.checks)
    assert result.message_key == "check.not_found"


def test_a_found_answer_is_judged_as_before(grade_file) -> None:
    run = grade_file(ANSWERS, "mask")
    assert all(c.message_key not in NOT_FOUND for e in run.exercises for c in e.checks)


def test_an_answer_after_long_work_in_its_cell_is_named_with_the_interrupt(grade_file) -> None:
    """A training loop, then the class, in one notebook cell: the loop is interrupted at its share of the
    time, so the class is never defined; the message says so and where, not "no answer found"."""
    cell = "steps = 0\nwhile True:\n    steps += 1\n\nclass SelfAttention_v1:\n    pass\n"
    run = grade_file(notebook("import torch", cell), "3.1", suffix=".ipynb", timeout=10)
    result = check(run, "3.1", "classes")
    assert result.message_key == "check.not_run_interrupted", result.message
    assert result.message.startswith("SelfAttention_v1 is defined in cell 3, line 5, but the code there was "
                                     "interrupted after 3 s")
    assert "时间份额" in result.messages["zh"]
