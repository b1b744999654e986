"""What a failed check shows: each picture once a page, and the lines of code that make the mistake.

Contract: when two checks of a page measured the same thing (the mask's who-sees-whom matrix for "no
later token" and "the first token"), the picture is drawn once, under the first failed check, and the
other check points to it in every language. The excerpt beside a diagnosed mistake marks the lines
that make it (the mask's `triu`, the `softmax` call), not the class header.
"""
from __future__ import annotations

from typing import Callable

import pytest

from conftest import mutant, mutations
from grader.render import figures, source
from grader.results import CellRecord
from render.test_page import Node, page_of  # noqa: F401  (page_of is a fixture)

PageOf = Callable[..., tuple[object, str, Node]]


def test_a_picture_is_drawn_once_and_the_other_check_points_to_it(page_of: PageOf) -> None:
    _, _, dom = page_of(mutant(mutations.MASK_BUGS, "softmax_wrong_dim"), "mask")
    assert len(dom.find_all("svg", cls="visibility-matrix")) == 1
    causal, first = dom.find("article", id="ex-mask-causal"), dom.find("article", id="ex-mask-first_token")
    assert causal.find_all("svg", cls="visibility-matrix") and not first.find_all("svg", cls="visibility-matrix")
    pointer = first.find("p", cls="same-figure").find("a")
    assert pointer.attrs["href"] == "#ex-mask-causal"
    assert "The same who-sees-whom matrix is drawn under “No output depends on a later token”" in pointer.text("en")
    assert "同一张“谁能看到谁”矩阵图见" in pointer.text("zh")


@pytest.mark.parametrize("bug, marked", [
    ("diagonal_zero", "diagonal=0)"),
    ("inverted_mask", "torch.tril(torch.ones(context_length, context_length), diagonal=-1)"),
    ("mask_not_applied", "attn_scores.masked_fill(mask_bool, -torch.inf)"),
    ("softmax_wrong_dim", "dim=-2)"),
    ("no_scaling", "torch.softmax(attn_scores, dim=-1)"),
    ("no_merge_transpose", "context_vec.contiguous().view("),
    ("query_key_swapped", "attn_scores = keys @ queries.transpose("),
])
def test_the_excerpt_marks_the_line_that_makes_the_mistake(page_of: PageOf, bug: str, marked: str) -> None:
    _, _, dom = page_of(mutant(mutations.MASK_BUGS, bug), "mask")
    lines = [line.text() for line in dom.find_all("span", cls="marked")]
    assert any(marked in line for line in lines), lines
    assert not any(line.split(maxsplit=1)[-1].startswith("class ") for line in lines), lines


def test_without_a_line_that_makes_it_the_definition_is_quoted_from_its_start() -> None:
    record = CellRecord(cell=3, status="ok", source="x = 1\n\nclass Head(nn.Module):\n    def forward(self, x):\n"
                        "        return self.attend(x)\n", file="<cell 3>")
    evidence = {"object": {"name": "Head", "cell": 3}, "cause": r"softmax"}
    quoted = source.for_check([record], evidence)
    assert quoted is not None and quoted.line == 3 and quoted.lines[0].marked
    evidence["cause"] = r"self\.attend"
    quoted = source.for_check([record], evidence)
    assert quoted is not None and quoted.line == 5
    assert [(line.number, line.marked) for line in quoted.lines] == [(3, False), (4, False), (5, True)]


def test_a_picture_goes_with_the_failed_check_even_when_a_passed_one_comes_first() -> None:
    evidence = {"class": "CausalAttention", "matrix": [[1, 0], [1, 1]]}
    placed = figures.place_figures([("mask", "a", "passed", evidence), ("mask", "b", "failed", evidence),
                                    ("mask", "c", "failed", evidence), ("mask", "d", "failed", {"matrix": [[1]]})])
    assert placed[("mask", "b")].drawn == {"matrix": figures.visibility(evidence)}
    assert not placed[("mask", "b")].elsewhere
    assert placed[("mask", "a")].elsewhere == placed[("mask", "c")].elsewhere == {"matrix": ("mask", "b")}
    assert placed[("mask", "d")].drawn == {"matrix": figures.visibility({"matrix": [[1]]})}  # another: drawn there
    assert placed[("mask", "a")].drawn == placed[("mask", "c")].drawn == {}
