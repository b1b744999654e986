"""The class view speaks in titles (issue 50, point 7): each mistake by its title in the page's language, the
unnamed failures of an exercise in one row, the most common first, counts as a person writes them."""
from __future__ import annotations

from grader.render import classbook
from grader.render.mistakes import common_mistakes
from render.test_mistakes import graded  # noqa: F401  (the class the mistakes are planted in)
from render.test_page import parse


def rows(entries: list, lang: str) -> list:
    dom = parse(classbook.index_html(entries, lang))
    return dom.find("section", id="mistakes").find("tbody").find_all("tr")


def test_a_named_mistake_is_shown_by_its_title_in_each_language(graded) -> None:  # noqa: F811
    _, entries = graded
    shown = {row.attrs["data-mistake"]: row.find("th") for row in rows(entries, "en")}
    softmax = shown["mask.bug.softmax_wrong_dim"]
    assert softmax.text("en").startswith("mask · The softmax") and softmax.text("zh").startswith("mask · ")
    assert softmax.text("en") != softmax.text("zh") and "mask.bug" not in softmax.text("en")
    for row in shown.values():  # no raw key anywhere a person reads
        assert not row.find_all("code"), row.text("en")
    # a message with values filled in is titled as its first student was told it, kept with the result
    transpose = shown["3.1.diag.missing_transpose"].text("en")
    assert transpose.startswith("3.1 · W_query holds sa_v2.W_query.weight without .T"), transpose


def test_the_export_says_what_the_batch_said(graded) -> None:  # noqa: F811
    """The titles come from the results (the judge keeps each diagnosis's title beside its key), so an index
    rendered again without the exercises (grade export) says what the batch's said."""
    _, entries = graded
    mistakes = common_mistakes(entries)
    named = next(m for m in mistakes if m.key == "mask.bug.softmax_wrong_dim")
    assert named.titles["en"] == "The softmax runs over the wrong dim" and named.titles["zh"]


def test_unnamed_failures_are_one_row_per_exercise_and_counts_read_as_words(graded) -> None:  # noqa: F811
    _, entries = graded
    shown = rows(entries, "en")
    others = [row for row in shown if row.attrs["data-mistake"] == "other"]
    assert len(others) == len({row.attrs["data-exercise"] for row in others}) >= 1
    assert all("Other failures: the code raised, hung or had no answer" in row.find("th").text("en") for row in others)
    assert [int(r.attrs["data-count"]) for r in shown] == sorted((int(r.attrs["data-count"]) for r in shown), reverse=True)
    text = parse(classbook.index_html(entries, "en")).find("section", id="mistakes").text("en")
    assert "1 student" in text and "1 students" not in text
    assert len(common_mistakes(entries)) == len(shown)
