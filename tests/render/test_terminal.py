"""The terminal summary, rendered from a RunResult built by hand (no sandbox, no grading).

Contract: one row per check with status icon and word, title and points; exercise rows with their
subtotal; the message under rows that did not pass, on one line; the total; the page's path last.
Points line up in terminal columns in English and Chinese; colour only when asked.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from grader.messages import catalogue
from grader.render.terminal import render, width
from grader.results import CellRecord, CheckResult, ExerciseResult, RunResult, SubmissionInfo

ESC = "\x1b"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
POINTS = re.compile(r"\d+(\.\d+)?/\d+(\.\d+)?$")
HOSTILE = "outputs differ\n::error::x"
TITLES = {
    "en": ["v1 and v2 agree on fresh inputs", "v1 holds v2's weights", "Same on the GPU", "A check that crashed"],
    "zh": ["v1 与 v2 在新输入上一致", "v1 以 nn.Parameter 持有 v2 权重的转置", "GPU 与 CPU 输出相同", "评分器出错的检查"],
}
EXERCISE_TITLES = {"en": ("Transfer weights", "Causal masking"), "zh": ("转移权重", "因果掩码")}


def make_run(lang: str, message: str = "wrong") -> RunResult:
    first, second, third, fourth = TITLES[lang]
    checks_a = (
        CheckResult("agree", first, "passed", 4.0, 4.0, "ok", "k"),
        CheckResult("parameters", second, "failed", 0.0, 3.0, message, "k"),
    )
    checks_b = (
        CheckResult("accelerator", third, "skipped", 0.0, 0.0, "no GPU", "k"),
        CheckResult("broken", fourth, "error", 0.0, 12.0, "grader bug", "k"),
    )
    return RunResult(
        grader_version="0", seed=7, lang=lang, started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
        submission=SubmissionInfo("work/answer.py", "0" * 64, "py"),
        cells=(CellRecord(3, "raised", {"type": "NameError", "message": "name 'x' is not defined", "line": 2}),),
        exercises=(ExerciseResult("3.1", EXERCISE_TITLES[lang][0], "", checks_a),
                   ExerciseResult("mask", EXERCISE_TITLES[lang][1], "", checks_b)),
        protections=(),
    )


def columns(text: str) -> int:
    """Terminal columns, measured here independently of the renderer's own `width`."""
    return sum(0 if unicodedata.category(ch) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def scored_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if POINTS.search(line)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_path_is_the_last_line(lang: str) -> None:
    text = render(make_run(lang), Path("feedback/answer.html"), color=False)
    assert text.splitlines()[-1] == catalogue.text("cli.written", lang, path="feedback/answer.html")
    assert text.splitlines()[-2].startswith(catalogue.text("term.total", lang))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_colour_only_when_asked(lang: str) -> None:
    plain = render(make_run(lang), Path("p.html"), color=False)
    coloured = render(make_run(lang), Path("p.html"), color=True)
    assert ESC not in plain
    assert ESC in coloured
    assert ANSI.sub("", coloured) == plain  # colour adds escapes, never moves a column


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_row_per_check_with_icon_word_title_and_points(lang: str) -> None:
    run = make_run(lang)
    lines = render(run, None, color=False).splitlines()
    icons = {"passed": "✓", "failed": "✗", "skipped": "–", "error": "!"}
    for exercise in run.exercises:
        assert sum(line.startswith(exercise.id) for line in lines) == 1
        header = next(line for line in lines if line.startswith(exercise.id))
        assert exercise.title in header and header.endswith(f"{exercise.score:g}/{exercise.max_score:g}")
        for check in exercise.checks:
            rows = [line for line in lines if check.title in line]
            assert len(rows) == 1, (check.title, rows)
            word = catalogue.text(f"status.{check.status}", lang)
            assert f"{icons[check.status]} {word}" in rows[0]
            assert rows[0].endswith(f"{check.score:g}/{check.max_score:g}")
    # the message under each row that did not pass, and none under a passed one
    for check, after in [(c, lines[lines.index(next(x for x in lines if c.title in x)) + 1])
                         for e in run.exercises for c in e.checks]:
        assert (check.message in after) == (check.status != "passed")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("color", [False, True])
def test_points_column_lines_up(lang: str, color: bool) -> None:
    text = ANSI.sub("", render(make_run(lang), None, color=color))
    rows = scored_rows(text)
    assert len(rows) == 2 + 4 + 1  # exercise rows, check rows, total
    assert len({columns(row) for row in rows}) == 1, rows  # right-aligned: every row ends in one column
    # titles start in one column too (after the status word, or after the exercise id)
    titles = [line for line in rows if any(t in line for t in [*TITLES[lang], *EXERCISE_TITLES[lang]])]
    starts = {columns(line[:line.index(t)]) for line in titles for t in [*TITLES[lang], *EXERCISE_TITLES[lang]]
              if t in line}
    assert len(starts) == 1, titles


def test_width_counts_terminal_columns() -> None:
    assert width("Total") == 5
    assert width("总分") == 4
    assert width("✓ 通过") == 6
    assert width(":\u200b:") == 2  # the zero-width space one_line inserts takes no column


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hostile_message_stays_on_one_line(lang: str) -> None:
    run = make_run(lang, message=HOSTILE)
    clean = render(make_run(lang), None, color=False).splitlines()
    lines = render(run, None, color=False).splitlines()
    assert len(lines) == len(clean)  # the message's newline added no line
    assert any("outputs differ" in line and line.rstrip().endswith("x") for line in lines)
    for line in lines:
        assert not line.lstrip().startswith("::"), line
        assert "::" not in line, line  # no workflow command can start anywhere


def test_a_lone_surrogate_cannot_crash_the_report() -> None:
    """JSON carries a lone surrogate from the child's error; UTF-8 cannot encode one."""
    text = render(make_run("en", message="bad \ud800 byte"), None, color=False)
    assert "bad \ufffd byte" in text
    text.encode("utf-8")
