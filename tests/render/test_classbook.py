"""The class views of a gradebook (grader.render.classbook), read back as data.

Contract: grades.csv has one row per student and one column per exercise, and no cell a spreadsheet
would run as a formula; results.jsonl holds every entry in full, each run round-tripping through
grader.results; index.html is self-contained and bilingual like the feedback page, and its histogram,
pass rates, list of ungradable submissions and roster say what the entries say. Student names are
text everywhere, never markup.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
import statistics
from fractions import Fraction

import pytest

from conftest import EXERCISES, SOLUTION, grade, mutant, mutations
from grader.messages import catalogue
from grader.messages.catalogue import Msg
from grader.classes.gradebook import Gradebook
from grader.judge.launcher import ZygoteLauncher
from grader.render import classbook
from grader.outputs.names import page_name
from grader.outputs.safe_text import FORMULA_STARTS, inert
from grader.results import Entry, Ungraded, from_json, to_json
from helpers import accelerator
from render.test_page import Node, parse

EXERCISE_SET = "3.1,3.2,device"
INJECTION = "=cmd|' /C calc'!A0"
CHINESE = "张伟"
SCRIPT = "<script>alert(1)</script>"
SUBMISSIONS = {
    "ann": SOLUTION.read_text(encoding="utf-8"),
    INJECTION: mutant(mutations.SA_BUGS, "missing_transpose"),
    CHINESE: mutant(mutations.WRAPPER_BUGS, "four_dim"),
    SCRIPT: mutant(mutations.WRAPPER_BUGS, "changed_num_heads"),
}
BAD_NOTEBOOK = Msg("cli.bad_notebook", {"path": "bob.ipynb", "error": "Unterminated string starting at line 3"})
SANDBOX_FAILED = Msg("cli.sandbox_failed", {"error": "fork: Resource temporarily unavailable"})
# The GPU comparison: 2 more points for everyone on a machine with an accelerator, skipped without one.
GPU = 2 if accelerator() else 0


@pytest.fixture(scope="module")
def entries(launcher: ZygoteLauncher, tmp_path_factory: pytest.TempPathFactory) -> list[Entry]:
    """A small class, recorded in a real gradebook and read back as `grade batch` reads it."""
    folder = tmp_path_factory.mktemp("class")
    chosen = [EXERCISES[e] for e in EXERCISE_SET.split(",")]
    with Gradebook(folder / "gradebook.sqlite") as book:
        for n, (student, source) in enumerate(SUBMISSIONS.items()):
            path = folder / f"submission{n}.py"
            path.write_text(source, encoding="utf-8")
            run = grade(path, chosen, launcher, seed=n, timeout=60)
            book.record(Entry(student, EXERCISE_SET, run.submission.sha256, run.grader_version, (path.name,), run))
        book.record(Entry("bob", EXERCISE_SET, "0" * 64, "0.1.0", ("bob.ipynb",), Ungraded("ungradable", BAD_NOTEBOOK)))
        book.record(Entry("carol", EXERCISE_SET, "1" * 64, "0.1.0", ("carol.py", "=extra.py"),
                          Ungraded("error", SANDBOX_FAILED)))
        return book.latest()


def by_student(entries: list[Entry]) -> dict[str, Entry]:
    return {entry.student: entry for entry in entries}


def percent(entry: Entry) -> Fraction:
    return Fraction(entry.score) / Fraction(entry.max_score) * 100


def graded(entries: list[Entry]) -> list[Entry]:
    return [entry for entry in entries if entry.status == "graded"]


def test_the_class_is_what_the_tests_below_assume(entries: list[Entry]) -> None:
    """Differing pass rates, a tie, a skipped check (without an accelerator) and scores on a bin's lower edge."""
    scores = {entry.student: entry.score for entry in graded(entries)}
    # the missing transpose scores 10 of 20 since 3.1's given classes earn nothing (issue 49; 13 before)
    assert scores == {"ann": 20 + GPU, INJECTION: 10 + GPU, CHINESE: 16 + GPU, SCRIPT: 16 + GPU}
    assert all(entry.max_score == 20 + GPU for entry in graded(entries))
    device = by_student(entries)["ann"].run.exercises[2]  # type: ignore[union-attr]
    assert [c.status for c in device.checks] == ["passed", "passed" if GPU else "skipped"]


# -- grades.csv ------------------------------------------------------------------------------------------
def test_the_spreadsheet_has_each_students_score_per_exercise(entries: list[Entry]) -> None:
    text = classbook.grades_csv(entries)
    assert "\r" not in text and text.endswith("\n")
    reader = csv.DictReader(io.StringIO(text))
    assert reader.fieldnames == ["student", "3.1", "3.2", "device", "total", "max_score", "status", "adjusted", "late"]
    rows = {row["student"]: row for row in reader}
    assert rows["ann"] == {"student": "ann", "3.1": "10", "3.2": "6", "device": str(4 + GPU), "total": str(20 + GPU),
                           "max_score": str(20 + GPU), "status": "graded", "adjusted": "", "late": "no"}
    for entry in graded(entries):
        row = rows["'" + entry.student if entry.student == INJECTION else entry.student]
        assert entry.run is not None
        assert {e.id: float(row[e.id]) for e in entry.run.exercises} == {e.id: e.score for e in entry.run.exercises}
        assert float(row["total"]) == entry.score == sum(float(row[i]) for i in ("3.1", "3.2", "device"))
    assert rows["bob"] == {"student": "bob", "3.1": "", "3.2": "", "device": "", "total": "0", "max_score": "0",
                           "status": "ungradable", "adjusted": "", "late": "no"}
    assert rows["carol"]["status"] == "error" and rows["carol"]["total"] == "0"
    assert rows[CHINESE]["3.2"] == "2" and rows[SCRIPT]["3.2"] == "2"


def test_the_spreadsheet_runs_no_formula(entries: list[Entry]) -> None:
    rows = list(csv.reader(io.StringIO(classbook.grades_csv(entries))))
    assert ["'" + INJECTION] == [row[0] for row in rows if INJECTION in row[0]]
    assert not any(cell.startswith(FORMULA_STARTS) for row in rows for cell in row)
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert inert(start + "1+1") == "'" + start + "1+1"
    assert inert("ann =1") == "ann =1" and inert(CHINESE) == CHINESE


def test_scores_are_short_decimals() -> None:
    assert [classbook.decimal(v) for v in (10.0, 7.5, 0.0, 2.125, 1 / 3)] == ["10", "7.5", "0", "2.125", "0.333333"]


# -- results.jsonl ---------------------------------------------------------------------------------------
def test_every_entry_is_one_json_line_in_full(entries: list[Entry]) -> None:
    text = classbook.results_jsonl(entries)
    assert CHINESE in text, "not ascii-escaped"
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["student"] for line in lines] == [entry.student for entry in entries]
    for line, entry in zip(lines, entries):
        assert set(line) == {"student", "exercise_set", "status", "score", "max_score", "sha256", "grader_version",
                             "files", "graded_at", "page", "problem", "result"}
        assert (line["exercise_set"], line["status"], line["score"], line["max_score"], line["sha256"]) == (
            entry.exercise_set, entry.status, entry.score, entry.max_score, entry.sha256)
        assert line["files"] == list(entry.files) and line["graded_at"] == entry.graded_at != ""
        assert line["page"] == page_name(entry.student)
        if entry.run is None:
            assert line["result"] is None
        else:
            assert line["problem"] is None
            assert to_json(from_json(line["result"])) == to_json(entry.run)
            assert from_json(line["result"]) == entry.run


def test_a_problem_carries_its_message_in_every_language(entries: list[Entry]) -> None:
    lines = {line["student"]: line for line in map(json.loads, classbook.results_jsonl(entries).splitlines())}
    problem = lines["bob"]["problem"]
    assert (problem["key"], problem["args"]) == (BAD_NOTEBOOK.key, BAD_NOTEBOOK.args)
    assert problem["messages"] == {
        "en": "cannot grade: bob.ipynb is not a valid Jupyter notebook: Unterminated string starting at line 3",
        "zh": "无法评分：bob.ipynb 不是有效的 Jupyter 笔记本：Unterminated string starting at line 3",
    }
    assert lines["carol"]["problem"]["messages"]["zh"] == catalogue.text("cli.sandbox_failed", "zh",
                                                                        **SANDBOX_FAILED.args)


def test_a_reason_this_grader_does_not_know_is_still_shown() -> None:
    messages = classbook.problem_messages(Msg("some.future_reason", {"seconds": 5}))
    assert set(messages) == set(catalogue.LANGS)
    assert all('some.future_reason {"seconds": 5}' in text for text in messages.values())


# -- index.html ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page(entries: list[Entry]) -> tuple[str, Node]:
    text = classbook.index_html(entries, "en")
    return text, parse(text)


def texts(node: Node, lang: str) -> str:
    return " ".join(node.text(lang).split())


def test_the_summary_counts_the_class(entries: list[Entry], page: tuple[str, Node]) -> None:
    _, dom = page
    summary = dom.find("dl", cls="class-summary")
    terms = [dt.text("en") for dt in summary.find_all("dt")]
    values = dict(zip(terms, (dd.text() for dd in summary.find_all("dd"))))
    scores = [percent(entry) for entry in graded(entries)]
    assert values == {"Students": "6", "Graded": "4", "Full marks": "1", "Could not be graded": "1",
                      "Grader errors": "1", "Mean score": f"{round(float(statistics.mean(scores)), 1):g}%",
                      "Median score": f"{round(float(statistics.median(scores)), 1):g}%", "Exercises": EXERCISE_SET,
                      "Grader version": "0.1.0"}
    # of 100, 50, 80, 80 (of 100, 54.5, 81.8, 81.8 with the GPU comparison's 2 points)
    assert (values["Mean score"], values["Median score"]) == (("79.5%", "81.8%") if GPU else ("77.5%", "80%"))
    assert [dt.text("zh") for dt in summary.find_all("dt")][:2] == ["学生人数", "已评分"]


def test_the_histogram_puts_each_graded_student_in_their_bin(entries: list[Entry], page: tuple[str, Node]) -> None:
    _, dom = page
    svg = dom.find("svg", cls="histogram")
    bars = svg.find_all("rect")
    counts = [int(bar.attrs["data-count"]) for bar in bars]
    assert len(bars) == 10 and sum(counts) == len(graded(entries)) == 4
    expected = [0] * 10
    for entry in graded(entries):
        expected[min(9, math.floor(percent(entry) / 10))] += 1
    assert counts == expected == [0, 0, 0, 0, 0, 1, 0, 0, 2, 1]  # 50, 80, 80 (lower edges); 100 (the top)
    assert [(bar.attrs["data-low"], bar.attrs["data-high"]) for bar in bars][-1] == ("90", "100")
    written = [g.find("text", cls="count").text() for g in svg.find_all("g", cls="bin")]
    assert written == [str(c) for c in counts], "each count is written on its bar, not only drawn"
    tallest = max(float(bar.attrs["height"]) for bar in bars)
    assert [float(bar.attrs["height"]) for bar in bars] == [tallest * c / 2 for c in counts]
    assert {"score (%)", "students"} <= {t.text() for t in svg.find_all("text", lang="en")}
    assert {"得分率（%）", "学生人数"} <= {t.text() for t in svg.find_all("text", lang="zh")}


def test_the_histogram_has_a_text_alternative_in_both_languages(page: tuple[str, Node]) -> None:
    _, dom = page
    svg = dom.find("svg", cls="histogram")
    assert svg.attrs["role"] == "img"
    caption = dom.find(id=svg.attrs["aria-labelledby"])
    assert "4 graded students" in texts(caption, "en") and "80–90%: 2" in texts(caption, "en")
    assert "4 名已评分学生" in texts(caption, "zh") and "80–90%：2 人" in texts(caption, "zh")


def expected_rates(entries: list[Entry]) -> list[tuple[str, str, int, int]]:
    """(exercise, check, passed, attempted), hardest first, from the runs alone."""
    tally: dict[tuple[str, str], list[int]] = {}
    for entry in graded(entries):
        assert entry.run is not None
        for exercise in entry.run.exercises:
            for c in exercise.checks:
                counts = tally.setdefault((exercise.id, c.id), [0, 0])
                counts[0] += c.status == "passed"
                counts[1] += c.status in ("passed", "failed")
    order = list(tally)  # every run lists the exercises and checks in the same order
    return sorted(((e, c, p, a) for (e, c), (p, a) in tally.items()),
                  key=lambda r: (r[3] == 0, Fraction(r[2], r[3] or 1), order.index((r[0], r[1]))))


def test_pass_rates_go_from_hardest_to_easiest(entries: list[Entry], page: tuple[str, Node]) -> None:
    _, dom = page
    rows = dom.find("table", cls="rates").find("tbody").find_all("tr")
    shown = [(row.attrs["data-exercise"], row.attrs["data-check"], row.find_all("td")[0].text()) for row in rows]
    expected = expected_rates(entries)
    assert shown == [(e, c, f"{p} / {a}") for e, c, p, a in expected]
    assert shown[:3] == [("3.2", "answer", "2 / 4"), ("3.1", "agree", "3 / 4"), ("3.1", "parameters", "3 / 4")]
    if GPU:
        assert ("device", "accelerator", "4 / 4") in shown, "compared on this machine's accelerator"
    else:
        assert shown[-1] == ("device", "accelerator", "0 / 0"), "skipped everywhere: not attempted, last"
        assert "skipped for everyone" in rows[-1].text("en") and "所有人均跳过" in rows[-1].text("zh")
    first = rows[0]
    titles = by_student(entries)["ann"].run.exercises[1].checks[0].titles  # type: ignore[union-attr]
    assert titles["en"] in first.find("th").text("en") and titles["zh"] in first.find("th").text("zh")
    assert "50%" in first.find_all("td")[1].text()
    assert first.find("span", cls="rate-bar").children[0].attrs["style"] == "width: 50.0%"


def test_ungradable_submissions_are_listed_with_why(page: tuple[str, Node]) -> None:
    _, dom = page
    rows = {row.find("th").text(): row for row in dom.find("section", id="problems").find("tbody").find_all("tr")}
    assert set(rows) == {"bob", "carol"}
    bob = rows["bob"]
    assert "bob.ipynb" in bob.text() and "could not be graded" in bob.text("en")
    assert catalogue.text(BAD_NOTEBOOK.key, "en", **BAD_NOTEBOOK.args) in bob.text("en")
    assert catalogue.text(BAD_NOTEBOOK.key, "zh", **BAD_NOTEBOOK.args) in bob.text("zh")
    assert catalogue.text(SANDBOX_FAILED.key, "zh", **SANDBOX_FAILED.args) in rows["carol"].text("zh")
    assert [li.text() for li in rows["carol"].find_all("li")] == ["carol.py", "=extra.py"]


def test_every_student_is_listed_and_linked(entries: list[Entry], page: tuple[str, Node]) -> None:
    _, dom = page
    rows = dom.find("table", cls="roster").find("tbody").find_all("tr")
    assert [row.find("a").text() for row in rows] == [entry.student for entry in entries]
    for row, entry in zip(rows, entries):
        href = row.find("a").attrs["href"]
        cells = [td.text("en") for td in row.find_all("td")]
        if entry.run is not None:
            assert href == page_name(entry.student)
            assert cells[0] == f"{entry.score:g} / {entry.max_score:g}"
            assert cells[1] == f"{round(float(percent(entry)), 1):g}%"
        else:  # no page was written: the link goes to why
            assert re.fullmatch(r"#problem-\d", href) and entry.student in dom.find(id=href[1:]).text()
            assert cells[:2] == ["—", "—"]
    failing = {row.find("a").text(): " ".join(row.find_all("td")[3].text("en").split()) for row in rows}
    assert failing["ann"] == "none: full marks"
    assert failing[INJECTION].startswith("failed 3.1 · ") and failing[SCRIPT].startswith("failed 3.2 · ")
    marks = {row.find("a").text(): row.find_all("td")[3].find_all("svg", cls="mark") for row in rows}
    assert [m.classes for m in marks[INJECTION]] == [{"mark", "failed"}] and marks["ann"] == []


def test_student_names_are_text_not_markup(page: tuple[str, Node]) -> None:
    text, dom = page
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert not dom.find_all("script")
    assert SCRIPT in {a.text() for a in dom.find_all("a")} and CHINESE in text


def test_the_page_is_self_contained(page: tuple[str, Node]) -> None:
    text, dom = page
    assert "http://" not in text and "https://" not in text and "@import" not in text and "url(" not in text
    assert not dom.find_all("script") and not dom.find_all("link") and not dom.find_all("img")
    for node in dom.walk():
        assert "src" not in node.attrs, node.tag
        href = node.attrs.get("href", "")
        assert "//" not in href and ":" not in href and not href.startswith("/"), href
        assert not any(name.startswith("on") for name in node.attrs), node.attrs
    style = dom.find("style").text()
    assert "color-scheme: light dark" in style and "prefers-color-scheme: dark" in style
    assert "@media print" in style


def test_every_sentence_is_there_in_both_languages(entries: list[Entry]) -> None:
    dom = parse(classbook.index_html(entries, "en"))
    radios = {n.attrs["id"]: n for n in dom.find_all("input", type="radio")}
    assert set(radios) == {"lang-en", "lang-zh"} and "checked" in radios["lang-en"].attrs
    main = dom.find("main")
    english, chinese = main.find_all(lang="en"), main.find_all(lang="zh")
    assert len(english) == len(chinese) > 50
    assert all(n.text().strip() for n in english + chinese), "no language left empty"
    assert dom.find("title").text() == "Class results: 3.1,3.2,device"
    zh = parse(classbook.index_html(entries, "zh"))
    assert "checked" in zh.find("input", id="lang-zh").attrs and "checked" not in zh.find("input", id="lang-en").attrs
    assert zh.find("html").attrs["lang"] == "zh-CN" and zh.find("title").text() == "全班成绩：3.1,3.2,device"


def test_headings_and_tables_are_in_order(page: tuple[str, Node]) -> None:
    _, dom = page
    levels = [int(n.tag[1]) for n in dom.walk() if re.fullmatch(r"h[1-6]", n.tag)]
    assert levels == [1, 2, 2, 2, 2, 2]
    for table in dom.find_all("table"):
        assert all(th.attrs.get("scope") in ("col", "row") for th in table.find_all("th"))
        assert table.find("thead").find_all("th")


def test_an_empty_class_has_a_page() -> None:
    dom = parse(classbook.index_html([], "en"))
    assert [int(bar.attrs["data-count"]) for bar in dom.find_all("rect")] == [0] * 10
    assert "—" in dom.find("dl", cls="class-summary").text()
    assert "No submission has been graded yet." in dom.find("section", id="checks").text("en")
    assert classbook.grades_csv([]) == '"student","total","max_score","status","adjusted","late"\n' and classbook.results_jsonl([]) == ""


def test_bins_include_their_lower_edge_and_the_last_holds_100() -> None:
    assert [classbook.score_bin(v) for v in (0, 9.99, 10, 100 * 0.7, 100 * 7 / 10, 79.9, 90, 100)] == \
        [0, 0, 1, 7, 7, 7, 9, 9]
    assert classbook.score_bin(69.99999999999999) == 7 and classbook.score_bin(69.9) == 6  # float noise, a real 69.9
