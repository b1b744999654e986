"""The feedback page, read as markup (no browser: tests/end_to_end/test_browser.py loads it in Chromium).

Contract: the page is one self-contained file (no script, nothing fetched), every sentence is on it
in English and Chinese in elements carrying their `lang`, headings go h1 -> h2 per exercise -> h3 per
check, and a failed check teaches: the mask's visibility matrix with one marked square per measured
leak, an expected-vs-got table with the largest difference marked in text, the per-layer parameter
breakdown of 3.3, v1 and the expected output side by side for 3.1, and the student's own code around
the error. What the submission printed or raised is shown as text, never as markup or escapes.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from typing import Callable, Iterator

import pytest

from conftest import SOLUTION, Grade, check, mutant, mutations
from grader.load.submission import split_module
from grader.render import figures, html, source
from grader.results import CellRecord, RunResult, to_json

VOID = {"meta", "input", "br", "img", "link", "hr", "wbr", "source", "col", "area", "base", "embed", "track"}


# -- a small DOM from the stdlib parser ---------------------------------------------------------------
@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)
                and all(n.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())]

    def find(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, cls, **attrs)
        assert found, f"no <{tag} class={cls} {attrs}>"
        return found[0]

    def text(self, lang: str | None = None) -> str:
        """The text shown in one language (the other language's elements left out)."""
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif lang is None or child.attrs.get("lang", lang) == lang:
                parts.append(child.text(lang))
        return "".join(parts)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        assert tag not in VOID, tag
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Node:
    builder = _Builder()
    builder.feed(page)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements: " + " ".join(n.tag for n in builder.stack[1:])
    return builder.root


def check_node(dom: Node, exercise: str, check_id: str) -> Node:
    return dom.find("article", id=f"ex-{exercise}-{check_id}")


@pytest.fixture
def page_of(grade_file: Grade) -> Callable[..., tuple[RunResult, str, Node]]:
    def run(submission: object, exercises: str) -> tuple[RunResult, str, Node]:
        result = grade_file(submission, exercises)
        text = html.render(result)
        return result, text, parse(text)

    return run


# -- the pictures --------------------------------------------------------------------------------------
def test_the_matrix_marks_every_measured_leak(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.MASK_BUGS, "inverted_mask"), "mask")
    result = check(run, "mask", "causal")
    matrix = result.evidence["matrix"]
    leaks = sum(matrix[i][j] for i in range(len(matrix)) for j in range(i + 1, len(matrix)))
    assert leaks == 28
    svg = check_node(dom, "mask", "causal").find("svg", cls="visibility-matrix")
    assert svg.attrs["role"] == "img" and "28 leaking" in svg.attrs["aria-label"]
    drawn = svg.find_all("g", cls="leak")
    assert len(drawn) == leaks
    # a drawn cross, not colour alone, and not a typed glyph that needs a font
    assert all(g.find("path", cls="glyph").attrs["d"].count("M") == 2 and not g.find_all("text") for g in drawn)
    assert len(svg.find_all("rect")) == len(matrix) ** 2
    legend = check_node(dom, "mask", "causal").find("ul", cls="legend")
    assert "a leak" in legend.text("en") and "泄漏" in legend.text("zh")


def test_a_passing_mask_shows_its_matrix_without_leaks(page_of) -> None:
    run, _, dom = page_of(SOLUTION, "mask")
    result = check(run, "mask", "causal")
    assert result.status == "passed" and result.evidence["class"] == "MultiHeadAttention"
    assert result.evidence["matrix"] == [[int(j <= i) for j in range(8)] for i in range(8)]
    details = check_node(dom, "mask", "causal").find("details")
    svg = details.find("svg", cls="visibility-matrix")
    assert svg.find_all("g", cls="leak") == [] and len(svg.find_all("g", cls="seen")) == 36


def test_a_failed_comparison_has_an_expected_got_table(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.MASK_BUGS, "no_scaling"), "mask")
    evidence = check(run, "mask", "reference").evidence
    assert {"expected", "got", "expected_shape", "got_shape"} <= set(evidence)
    table = check_node(dom, "mask", "reference").find("table", cls="expected-got")
    largest = table.find_all("tr", cls="largest")
    assert len(largest) == 1
    assert "largest difference" in largest[0].text("en") and "最大差值" in largest[0].text("zh")
    gaps = [abs(e - g) for e, g in zip(evidence["expected"], evidence["got"])]
    cells = [td.text() for td in largest[0].find_all("td")]
    assert float(cells[2]) == pytest.approx(max(gaps), rel=1e-2)
    assert f"{tuple(evidence['got_shape'])}" in table.text()
    assert evidence["expected_dtype"] == evidence["got_dtype"] == "float32"
    assert "float32" in table.text() and "数据类型" in table.text("zh")


def test_the_parameter_breakdown_names_the_extra_biases(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.GPT2_BUGS, "qkv_bias"), "3.3")
    evidence = check(run, "3.3", "parameters").evidence
    assert sum(p["count"] for p in evidence["reference_parameters"]) == 2_360_064
    assert sum(p["count"] for p in evidence["parameters"]) == 2_362_368
    table = check_node(dom, "3.3", "parameters").find("table", cls="param-breakdown")
    extra = [row.find("th").text() for row in table.find_all("tr", cls="extra")]
    assert extra == ["W_query.bias", "W_key.bias", "W_value.bias"]
    assert all("not in the reference" in row.text("en") for row in table.find_all("tr", cls="extra"))
    assert "+2,304" in table.find("tfoot").text()


def test_v1_and_the_expected_output_side_by_side(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.SA_BUGS, "query_key_swapped"), "3.1")
    evidence = check(run, "3.1", "agree").evidence
    assert evidence["v1"] == evidence["got"] and evidence["input_shape"][0] in (1, 6, 9)
    figure = check_node(dom, "3.1", "agree").find("figure", cls="side-by-side")
    yours, expected = figure.find_all("table")
    assert len(yours.find_all("tr")) == len(evidence["v1_rows"])
    assert yours.find_all("td", cls="differs"), "the values that differ are marked"
    assert all("≠" in td.text() for td in yours.find_all("td", cls="differs"))


def test_a_raising_check_quotes_the_students_own_line(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.SA_BUGS, "missing_transpose"), "3.1")
    frames = check(run, "3.1", "agree").evidence["error"]["frames"]
    assert frames and all(f["file"] == "submission.py" for f in frames)
    node = check_node(dom, "3.1", "agree")
    marked = node.find("pre", cls="excerpt").find("span", cls="marked")
    assert marked.text().endswith("keys = x @ self.W_key") and f"→ {frames[-1]['line']}" in marked.text()
    assert "RuntimeError" in node.find("div", cls="error-box").text()
    assert "3.4.2" in node.find("p", cls="hint").text("en")


# -- languages, structure, no outside world ---------------------------------------------------------------
def test_every_sentence_is_there_in_both_languages(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.MASK_BUGS, "inverted_mask"), "3.1,mask")
    radios = {n.attrs["id"]: n for n in dom.find_all("input", type="radio")}
    assert set(radios) == {"lang-en", "lang-zh"} and "checked" in radios["lang-en"].attrs
    assert "checked" not in radios["lang-zh"].attrs
    shown = {lang: {n.text() for n in dom.find_all(lang=lang)} for lang in ("en", "zh")}
    for exercise in run.exercises:
        assert set(exercise.statements) == {"en", "zh"}
        assert {exercise.statements["en"], exercise.titles["en"]} <= shown["en"]
        assert {exercise.statements["zh"], exercise.titles["zh"]} <= shown["zh"]
        for c in exercise.checks:
            assert {c.titles["en"], c.messages["en"]} <= shown["en"], c.id
            assert {c.titles["zh"], c.messages["zh"]} <= shown["zh"], c.id
    assert "将 SelfAttention_v2 的权重转移到 SelfAttention_v1" in shown["zh"]
    assert "Transfer weights from SelfAttention_v2 to SelfAttention_v1" in shown["en"]
    # the mask's checks both pass and fail; every cell ran, so no list of failed cells
    assert {"passed", "failed"} <= shown["en"] and {"通过", "未通过"} <= shown["zh"]
    assert "Cells that failed to run" not in shown["en"]
    zh_page = parse(html.render(replace(run, lang="zh")))
    assert "checked" in zh_page.find("input", id="lang-zh").attrs
    assert zh_page.find("html").attrs["lang"] == "zh-CN"


def test_headings_go_h1_then_h2_per_exercise_then_h3_per_check(page_of) -> None:
    run, _, dom = page_of(mutant(mutations.MASK_BUGS, "inverted_mask"), "ch03")
    levels = [int(n.tag[1]) for n in dom.walk() if re.fullmatch(r"h[1-6]", n.tag)]
    assert levels[0] == 1 and levels.count(1) == 1
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:])), levels
    sections = [n for n in dom.find_all("section") if n.attrs["id"].startswith("ex-")]
    assert [s.attrs["id"] for s in sections] == [f"ex-{e.id}" for e in run.exercises]
    for section, exercise in zip(sections, run.exercises):
        assert len(section.find_all("h2")) == 1
        assert len(section.find_all("h3")) == len(exercise.checks)
        for h3, c in zip(section.find_all("h3"), exercise.checks):
            assert h3.find("svg", cls="mark").classes == {"mark", c.status}, "a drawn mark"
            assert h3.text("en").count({"passed": "passed", "failed": "failed", "error": "grader error",
                                        "skipped": "skipped"}[c.status]) >= 1, "and the status in words"


def test_the_page_is_self_contained(page_of) -> None:
    _, text, dom = page_of(mutant(mutations.MASK_BUGS, "inverted_mask"), "ch03")
    assert "http://" not in text and "https://" not in text and "@import" not in text
    assert not dom.find_all("script") and not dom.find_all("link") and not dom.find_all("img")
    for node in dom.walk():
        assert "src" not in node.attrs, node.tag
        assert node.attrs.get("href", "#").startswith("#"), node.attrs
        assert not any(name.startswith("on") for name in node.attrs), node.attrs
    style = dom.find("style").text()
    assert "color-scheme: light dark" in style and "prefers-color-scheme: dark" in style
    assert "@media print" in style and "details-content" in style


HOSTILE = """\
import torch

print("<script>alert(1)</script>")


class CausalAttention(torch.nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = torch.nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        raise ValueError("<img src=x onerror=alert(1)> \\x1b[31mred")

# %%
raise RuntimeError("<img src=x onerror=alert(1)> \\x1b[31m<script>alert(1)</script>")
"""


def test_a_hostile_submission_is_shown_as_text(page_of) -> None:
    run, text, dom = page_of(HOSTILE, "mask")
    assert any("\x1b" in c.message for e in run.exercises for c in e.checks), "the escape reached the result"
    assert "<script>alert" not in text and "<img src=x" not in text
    assert "\x1b" not in text
    assert "&lt;img src=x onerror=alert(1)&gt; red" in text  # the colour code gone, the words kept
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # printed, and in the failing cell
    assert "&lt;img src=x onerror=alert(1)&gt;" in text  # raised by forward, and by the cell
    assert not dom.find_all("script") and not dom.find_all("img")
    problems = dom.find("section", id="cells")
    assert "submission.py, line " in problems.text("en") and "RuntimeError" in problems.text("en")
    assert problems.find("pre", cls="excerpt").find("span", cls="marked").text().startswith("→ 15")
    assert "<script>alert(1)</script>" in dom.find("section", id="output").find("pre").text()


# -- the JSON carries what the page needs ------------------------------------------------------------
def test_json_holds_every_language_and_the_cells_source(grade_file: Grade) -> None:
    run = grade_file(mutant(mutations.SA_BUGS, "query_key_swapped"), "3.1")
    data = json.loads(json.dumps(to_json(run)))
    for exercise, graded in zip(data["exercises"], run.exercises):
        assert set(exercise["titles"]) == set(exercise["statements"]) == {"en", "zh"}
        assert graded.title == exercise["titles"]["en"]
        for c, checked in zip(exercise["checks"], graded.checks):
            assert set(c["messages"]) == set(c["titles"]) == {"en", "zh"}
            assert checked.message == c["messages"]["en"] and c["messages"]["zh"] != c["messages"]["en"]
    agree = data["exercises"][0]["checks"][0]
    # the statement that defines the answer, quoted with its own source and the line it starts on
    statement = next(c for c in split_module(mutant(mutations.SA_BUGS, "query_key_swapped"), "submission.py")
                     if c.source.startswith("def transfer_weights"))
    assert agree["evidence"]["object"] == {"name": "transfer_weights", "cell": statement.number}
    quoted = next(c for c in data["cells"] if c["cell"] == statement.number)
    assert (quoted["source"], quoted["first_line"]) == (statement.source, statement.first_line)


def test_not_found_is_rendered_in_every_language(grade_file: Grade) -> None:
    result = check(grade_file("x = 1\n", "3.3"), "3.3", "parameters")
    assert result.message_key == "check.not_found"
    assert "no build_gpt2_small_attention() function" in result.messages["en"]
    assert "没有 build_gpt2_small_attention() 函数" in result.messages["zh"]


# -- the arithmetic behind the pictures (no sandbox) -----------------------------------------------------
def test_the_largest_gap_is_marked_once_and_nan_counts_as_largest() -> None:
    shown = figures.comparison({"expected": [1.0, 2.0, 3.0], "got": [1.0, float("nan"), 9.0], "at": [4, 2]})
    assert shown is not None
    assert [r.index for r in shown.rows] == [2, 3, 4]
    assert [r.largest for r in shown.rows] == [False, True, False]
    agreeing = figures.comparison({"expected": [1.0], "got": [1.0]})
    assert agreeing is not None and not any(r.largest for r in agreeing.rows)
    assert figures.comparison({"expected": 2_360_064, "got": [1.0]}) is None  # a count, not values


def test_visibility_squares() -> None:
    grid = figures.visibility({"matrix": [[1, 1], [0, 1]]})
    assert grid is not None and grid.leaks == 1
    assert [s.kind for s in grid.squares] == ["seen", "leak", "blind", "seen"]
    assert figures.visibility({"matrix": [[1, 0]]}) is None


def test_excerpts_find_the_cell_of_a_frame_and_skip_docstrings() -> None:
    cells = [CellRecord(1, "ok", source="import torch\n", first_line=1),
             CellRecord(2, "ok", source='# %%\ndef f():\n    """Doc\n    string."""\n\n    return 1\n',
                        first_line=2)]
    assert source.cell_at(cells, "sub.py", 4) is cells[1]
    assert source.cell_at(cells, "<cell 1>", 1) is cells[0]
    quote = source.for_check(cells, {"object": {"name": "f", "cell": 2}})
    assert quote is not None and quote.name == "f"
    assert [(line.number, line.text.strip()) for line in quote.lines] == [(3, "def f():"), (7, "return 1")]
    assert source.book_reference("Transpose it (book section 3.4.2).") == ("section", ["3.4.2"])
