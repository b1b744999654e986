"""What a student reads when an answer is missing or wrong: said once, where it applies, in both languages.

Each test grades a small submission (or renders a message) and reads the sentence a student gets.
"""
from __future__ import annotations

import re

import nbformat
import pytest

from conftest import SOLUTION, Grade, check, mutant, mutations
from grader.messages import catalogue
from grader.render import github, html
from grader.render.text import cell_problems


def _notebook(*cells: str) -> str:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]))


@pytest.mark.parametrize("suffix", [".py", ".ipynb"])
def test_the_markdown_hint_is_for_notebooks_only(grade_file: Grade, suffix: str) -> None:
    source = "x = 1\n" if suffix == ".py" else _notebook("x = 1")
    run = grade_file(source, "3.2,3.3", suffix=suffix)
    for exercise, check_id in (("3.2", "answer"), ("3.3", "parameters")):
        found = check(run, exercise, check_id)
        assert found.message_key == "check.not_found"
        for lang, hint in (("en", "markdown cell"), ("zh", "Markdown")):
            assert (hint in found.messages[lang]) == (suffix == ".ipynb"), found.messages[lang]


def test_a_nan_from_the_mask_is_named_in_3_3_and_counts_take_their_plural(grade_file: Grade) -> None:
    """Two mask bugs at once (the diagonal masked, no scaling): no single named bug, so 3.3 cannot pass
    with a note; its heads check says where the NaN is and that it comes from the mask."""
    source = mutant(mutations.MASK_BUGS, "diagonal_zero")
    old, new = next((o, n) for bug, o, n in mutations.MASK_BUGS if bug == "no_scaling")
    run = grade_file(mutations.apply(source, old, new), "3.3,mask")
    heads = check(run, "3.3", "heads")
    assert (heads.status, heads.message_key) == ("failed", "3.3.heads.nan")
    assert "largest difference nan" not in heads.message
    assert "NaN at token position 0," in heads.messages["en"] and "mask" in heads.messages["en"]
    assert "NaN" in heads.messages["zh"] and "掩码" in heads.messages["zh"]
    reference = check(run, "mask", "reference")  # on a 1-token sequence, the first that differs
    assert "the output for 1 token differs" in reference.messages["en"]


def test_a_nan_made_by_the_wrapper_is_named_in_3_2(grade_file: Grade) -> None:
    source = SOLUTION.read_text(encoding="utf-8").replace(
        "return torch.cat([head(x) for head in self.heads], dim=-1)",
        "out = torch.cat([head(x) for head in self.heads], dim=-1)\n"
        "        return out * torch.where(torch.arange(x.shape[1]) == 2, float('nan'), 1.0)[:, None]")
    assert "float('nan')" in source
    concat = check(grade_file(source, "3.2"), "3.2", "concat")
    assert (concat.status, concat.message_key) == ("failed", "3.2.concat.nan")
    assert "NaN at token position 2," in concat.messages["en"] and "largest difference" not in concat.message


@pytest.mark.parametrize("count, en", [(1, "1 more cell that failed"), (3, "3 more cells that failed")])
def test_counts_take_their_plural(count: int, en: str) -> None:
    assert en in catalogue.text("cell.unlisted", "en", count=count)
    assert f"{count} 个" in catalogue.text("cell.unlisted", "zh", count=count)


@pytest.mark.parametrize("suffix", [".ipynb", ".py"])
def test_an_early_failure_is_told_once_and_every_check_points_at_its_line(grade_file: Grade, suffix: str) -> None:
    """The import cell stops at its line 2: `nn` is never bound, so the class cell and the cell using the
    class raise NameError, and no check finds an answer. Said once, on the import cell's line; each
    check points there instead of at the cells that only tripped over it."""
    cells = ["import torch\nimport tiktokenn\nimport torch.nn as nn\n",
             "class CausalAttention(nn.Module):\n    pass\n",
             "ca = CausalAttention(3, 2, 6, 0.0)\n"]
    source = _notebook(*cells) if suffix == ".ipynb" else "".join("# %%\n" + c for c in cells)
    run = grade_file(source, "mask", suffix=suffix)
    where = "cell 1, line 2" if suffix == ".ipynb" else "submission.py, line 3"
    for lang in catalogue.LANGS:
        problems = cell_problems(run, lang)
        assert len(problems) == 1, problems
        assert "tiktokenn" in problems[0] and "nn" in problems[0]
    assert "Nothing after that line ran, so 2 later cells" in cell_problems(run, "en")[0]
    # the page and the CI annotations list the cells as the text outputs do: the early failure, once
    listed = re.findall(r'<li id="cell-(\d+)">', html.render(run))
    assert listed == ["1"], listed
    cells = [line for line in github.annotations(run, "en") if "did not run" in line or "Nothing after" in line]
    assert len(cells) == 1 and "Nothing after that line ran" in cells[0], cells
    for c in run.exercises[0].checks:
        assert c.message_key == "check.after_failure", c.message
        assert where in c.messages["en"] and "No module named 'tiktokenn'" in c.message
        assert "is defined in" not in c.message  # not the class cell, which only tripped over it
