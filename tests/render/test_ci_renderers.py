"""The CI renderers on real grading runs: JUnit XML read back by junitparser (what CI plugins parse
with), GitHub annotations read back the way actions/runner reads a workflow command, and the step
summary's Markdown.

`runner_parse` follows actions/runner's ActionCommand.TryParseV2 and its unescaping, so a test can
say what the runner would take from a line rather than how the line looks.
"""
from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

from conftest import CORPUS, SOLUTION, Grade, check, mutant, mutations
from grader import __version__
from grader.messages import catalogue
from grader.render.github import (annotations, escape_data, escape_property, markdown_text, step_summary,
                                  stop_commands)
from grader.render.junit import junit_xml, xml_text
from grader.outputs.safe_text import clean, json_text, one_line
from grader.render.text import cell_problem
from grader.results import RunResult
from helpers import line_of, require_extra

HOSTILE = ("bad ::set-output name=x::y\n::error::pwned %0A 100% <img src=x onerror=alert(1)> "
           "[link](http://evil) | a | b | \x1b[31mred\x07 \x0b\r \ud800 \ufffe")
junitparser = require_extra("junitparser")
Error, Failure, JUnitXml, Skipped = junitparser.Error, junitparser.Failure, junitparser.JUnitXml, junitparser.Skipped
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def runner_parse(line: str) -> tuple[str, dict[str, str], str] | None:
    """(command, properties, data) as actions/runner reads a log line; None when it is no command."""
    message = line.lstrip()
    end = message.find("::", 2)
    if not message.startswith("::") or end < 0:
        return None
    name, _, rest = message[2:end].partition(" ")
    properties = {}
    for pair in rest.strip().split(","):
        key, _, value = pair.partition("=")
        if key and value:
            properties[key] = (value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
                               .replace("%2C", ",").replace("%25", "%"))
    data = message[end + 2:].replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    return name, properties, data


def hostile_source() -> str:
    """The reference with SelfAttention_v1.forward raising HOSTILE, and a last cell raising it too."""
    old = "    def forward(self, x):\n        keys = x @ self.W_key\n"
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"), old,
                             "    def forward(self, x):\n        raise ValueError(HOSTILE)\n")
    return f"# %%\nHOSTILE = {HOSTILE!r}\n{source}\n# %%\nraise RuntimeError(HOSTILE)\n"


def with_statuses(run: RunResult) -> RunResult:
    """The run with 3.2's first check a grader fault and mask's first skipped, as real runs give
    only on a grader bug or a machine without an accelerator."""
    def changed(exercise, status, key, **args):
        messages = catalogue.every_lang(lambda lang: catalogue.text(key, lang, **args))
        first = dataclasses.replace(exercise.checks[0], status=status, score=0.0, message=messages["en"],
                                    messages=messages, message_key=key, evidence={},
                                    max_score=0.0 if status == "skipped" else exercise.checks[0].max_score)
        return dataclasses.replace(exercise, checks=(first, *exercise.checks[1:]))

    exercises = {e.id: e for e in run.exercises}
    exercises["3.2"] = changed(exercises["3.2"], "error", "check.grader_error", error="KeyError: 'x'")
    exercises["mask"] = changed(exercises["mask"], "skipped", "device.accelerator.none")
    return dataclasses.replace(run, exercises=tuple(exercises.values()))


# -- JUnit XML ------------------------------------------------------------------------------------------------


def test_junit_reference_solution_one_case_per_check(grade_file: Grade) -> None:
    run = grade_file(SOLUTION)
    text = junit_xml(run, "en")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="grader" ')
    report = JUnitXml.fromstring(text.encode("utf-8"))
    suites = list(report)
    assert [s.name for s in suites] == [f"{e.id} · {e.titles['en']}" for e in run.exercises]
    for suite, exercise in zip(suites, run.exercises):
        assert suite.timestamp == run.started_at
        assert {p.name: p.value for p in suite.properties()} == {
            "grader_version": __version__, "seed": "0", "score": f"{exercise.score:g}",
            "max_score": f"{exercise.max_score:g}", "submission": str(SOLUTION)}
        cases = list(suite)
        assert [(c.classname, c.name) for c in cases] == [
            (f"grader.{exercise.id}", f"{c.id} · {c.titles['en']}") for c in exercise.checks]
        for case, result in zip(cases, exercise.checks):
            assert case.is_passed == (result.status == "passed")
            if result.status == "passed":
                assert case.system_out == f"{result.max_score:g} / {result.max_score:g} points"
    checks = [c for e in run.exercises for c in e.checks]
    skipped = sum(c.status == "skipped" for c in checks)  # the GPU comparison, without an accelerator
    assert (report.tests, report.failures, report.errors, report.skipped) == (len(checks), 0, 0, skipped)
    assert report.time == pytest.approx(run.duration_s, abs=1e-3)


def test_junit_named_bug_failures_carry_points_and_every_language(grade_file: Grade) -> None:
    run = grade_file(mutant(mutations.SA_BUGS, "missing_transpose"), "3.1")
    for lang in catalogue.LANGS:
        (suite,) = JUnitXml.fromstring(junit_xml(run, lang).encode("utf-8"))
        cases = {case.name: case for case in suite}
        assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (3, 2, 0, 0)
        for check_id in ("agree", "parameters"):
            result = check(run, "3.1", check_id)
            (failure,) = cases[f"{check_id} · {result.titles[lang]}"].result
            assert isinstance(failure, Failure) and failure.type == "failed"
            assert failure.message == result.messages[lang]
            points = catalogue.text("ci.points", lang, score=0, max=result.max_score)
            assert failure.text == f"{points}\n\nen: {result.messages['en']}\nzh: {result.messages['zh']}"
    assert "0 / 6 points" in junit_xml(run, "en") and "0 / 4 分" in junit_xml(run, "zh")  # 4 and 3 before issue 49


def test_junit_counts_grader_errors_and_skipped_checks(grade_file: Grade) -> None:
    run = with_statuses(grade_file(mutant(mutations.SA_BUGS, "missing_transpose"), "3.1,3.2,mask"))
    report = JUnitXml.fromstring(junit_xml(run, "en").encode("utf-8"))
    counts = [(s.name.split(" ")[0], s.tests, s.failures, s.errors, s.skipped) for s in report]
    assert counts == [("3.1", 3, 2, 0, 0), ("3.2", 2, 0, 1, 0), ("mask", 6, 0, 0, 1)]
    assert (report.tests, report.failures, report.errors, report.skipped) == (11, 2, 1, 1)
    for suite in report:  # the attributes agree with the cases, as a consumer recounting them finds
        stated = (suite.tests, suite.failures, suite.errors, suite.skipped)
        suite.update_statistics()
        assert (suite.tests, suite.failures, suite.errors, suite.skipped) == stated
    suites = {s.name.split(" ")[0]: list(s) for s in report}
    (error,) = suites["3.2"][0].result
    fault = check(run, "3.2", "answer")
    assert isinstance(error, Error) and error.type == "grader-error" and error.message == fault.messages["en"]
    assert error.text.endswith(catalogue.text("ci.grader_fault", "en"))
    (skipped,) = suites["mask"][0].result
    assert isinstance(skipped, Skipped) and skipped.message == check(run, "mask", "causal").messages["en"]


def test_junit_well_formed_with_a_hostile_error(grade_file: Grade) -> None:
    run = grade_file(hostile_source(), "3.1")
    text = junit_xml(run, "en")
    root = ET.fromstring(text.encode("utf-8"))  # raises on any character XML 1.0 forbids
    assert root.tag == "testsuites"
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff\x1b]", text)
    (suite,) = JUnitXml.fromstring(text.encode("utf-8"))
    (failure,) = next(iter(suite)).result
    assert failure.message.startswith("v1 raised ValueError: bad ::set-output name=x::y\n::error::pwned %0A 100% <img")
    cells = failure.text.split("\n\n")[-1].splitlines()
    assert cells[0] == "Cells that failed to run"
    raised = line_of(hostile_source(), "raise RuntimeError(HOSTILE)")  # in the last `# %%` block, the line before
    assert cells[1] == "  submission.py, line %d: RuntimeError: bad ::set-output name=x::y (line %d)" % (
        raised - 1, raised)


def test_xml_text_drops_what_xml_forbids() -> None:
    forbidden = "".join(map(chr, [*range(0x20), *range(0x7f, 0xa0)])) + "\ud800\udfff\ufffe\uffff"
    # clean() shows a lone surrogate as U+FFFD; the other forbidden characters go.
    assert xml_text("a" + forbidden + "b\u00e9\U0001f600") == "a\t\n\ufffd\ufffdb\u00e9\U0001f600"


# -- GitHub annotations ---------------------------------------------------------------------------------------


def test_annotations_named_bug_exact_lines(grade_file: Grade, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source = mutant(mutations.SA_BUGS, "missing_transpose")
    run = grade_file(source, "3.1")
    agree, parameters = check(run, "3.1", "agree"), check(run, "3.1", "parameters")
    assert not re.search("[%\n\r]", agree.messages["en"] + parameters.messages["en"])
    expected = [
        f"::error file=submission.py,line={line_of(source, 'keys = x @ self.W_key')},"
        f"title={escape_property('3.1 · ' + agree.titles['en'] + ': failed')}::{agree.messages['en']}",
        f"::error file=submission.py,line={line_of(source, 'def transfer_weights')},"
        f"title={escape_property('3.1 · ' + parameters.titles['en'] + ': failed')}::{parameters.messages['en']}",
    ]
    assert annotations(run, "en", root=tmp_path) == expected
    monkeypatch.chdir(tmp_path)
    assert annotations(run, "en") == expected
    outside = annotations(run, "zh", root=tmp_path / "elsewhere")
    assert outside[0].startswith(f"::error file={escape_property(tmp_path.as_posix())}/submission.py,line=")
    assert f"title={escape_property('3.1 · ' + agree.titles['zh'] + '：未通过')}::" in outside[0] and outside[0].endswith(agree.messages["zh"])


def test_annotations_notebook_cell_on_line_one_with_cell_in_title(grade_file: Grade, tmp_path: Path) -> None:
    notebook = nbformat.read(CORPUS / "book_style.ipynb", as_version=4)
    number = {name: next(n for n, c in enumerate(notebook.cells, 1) if c.cell_type == "code" and find in c.source)
              for name, find in (("classes", "class SelfAttention_v1"), ("transfer", "sa_v1.W_query ="),
                                 ("call", "sa_v1(inputs)"))}
    transfer = notebook.cells[number["transfer"] - 1]
    transfer.source = transfer.source.replace(".weight.T)", ".weight)")
    path = tmp_path / "book.ipynb"
    nbformat.write(notebook, path)
    run = grade_file(path, "3.1")
    classes = notebook.cells[number["classes"] - 1].source
    raised, made = line_of(classes, "keys = x @ self.W_key"), line_of(classes, "sa_v1 =")
    where = f"(cell {number['classes']}%2C line {raised})"
    lines = annotations(run, "en", root=tmp_path)

    def titled(check_id: str, lang: str = "en") -> str:  # a check by its title (issue 50), escaped as a property
        status = catalogue.text("status.failed", lang)
        return escape_property(f"3.1 · {check(run, '3.1', check_id).titles[lang]}{'：' if lang == 'zh' else ': '}{status}")

    call = next(c for c in run.cells if c.cell == number["call"])
    assert lines == [
        f"::error file=book.ipynb,line=1,title=cell {number['call']} did not run {where}::"
        + escape_data(cell_problem(call, "en")),
        f"::error file=book.ipynb,line=1,title={titled('agree')} {where}::{check(run, '3.1', 'agree').message}",
        f"::error file=book.ipynb,line=1,title={titled('parameters')} (cell {number['classes']}%2C line {made})"
        f"::{check(run, '3.1', 'parameters').message}",
    ]
    zh = annotations(run, "zh", root=tmp_path)[1]
    assert f"title={titled('agree', 'zh')}（单元格 {number['classes']}，第 {raised} 行）::" in zh


def test_annotations_hostile_message_cannot_start_a_command(grade_file: Grade, tmp_path: Path) -> None:
    source = hostile_source()
    run = grade_file(source, "3.1")
    lines = annotations(run, "en", root=tmp_path)
    assert len(lines) == 3  # cell 2, then the checks agree and classes
    for line in lines:
        assert "\n" not in line and "\r" not in line and "\x1b" not in line
        line.encode("utf-8")  # a lone surrogate would stop `grade ci` printing it
        command, properties, _ = runner_parse(line)
        assert command == "error" and set(properties) <= {"file", "line", "title"}
        assert properties["file"] == "submission.py"
    cell_line, agree_line = lines[0], lines[1]
    raised = line_of(source, "raise RuntimeError(HOSTILE)")
    assert runner_parse(cell_line)[1] == {"file": "submission.py", "title": f"submission.py, line {raised - 1} did not run",
                                         "line": str(raised)}
    message = check(run, "3.1", "agree").messages["en"]
    assert runner_parse(agree_line)[2] == clean(message).replace("\ud800", "\ufffd")
    data = agree_line.split("::", 2)[2]
    assert "::set-output name=x::y%0A::error::pwned %250A 100%25 <img" in data


def test_annotations_for_grader_errors_not_for_skipped_or_passed(grade_file: Grade, tmp_path: Path) -> None:
    assert annotations(grade_file(SOLUTION), "en", root=tmp_path) == []
    run = with_statuses(grade_file(SOLUTION, "3.1,3.2,mask"))
    (line,) = annotations(run, "en", root=tmp_path)
    title = escape_property(f"3.2 · {run.exercises[1].checks[0].titles['en']}: grader error")  # its title (issue 50)
    assert line.startswith(f"::error file={escape_property(SOLUTION.as_posix())},title={title}::"
                           "The grader failed on this check")


def test_annotations_name_the_file_of_a_submission_of_several(grade_file: Grade, tmp_path: Path) -> None:
    (tmp_path / "answer.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "zz_helper.py").write_text('x = 1\nraise ValueError("boom")\n', encoding="utf-8")
    run = grade_file([tmp_path / "answer.py", tmp_path / "zz_helper.py"], "3.2")
    assert run.submission.files == ("answer.py", "zz_helper.py")
    (line,) = annotations(run, "en", root=tmp_path)
    assert line.startswith("::error file=zz_helper.py,line=2,title=zz_helper.py%2C line 2 did not run::")


def test_escaping_follows_the_actions_toolkit() -> None:
    assert escape_data("100% done\r\n::set-output name=x::y") == "100%25 done%0D%0A::set-output name=x::y"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    text = "x%0A%y:,\r\n%25"
    assert runner_parse(f"::error title={escape_property(text)}::{escape_data(text)}") == (
        "error", {"title": text}, text)


# -- the step summary -----------------------------------------------------------------------------------------


def test_step_summary_table_and_verdict_both_ways(grade_file: Grade) -> None:
    run = grade_file(mutant(mutations.SA_BUGS, "missing_transpose"), "3.1")
    agree, parameters = check(run, "3.1", "agree"), check(run, "3.1", "parameters")
    failed = step_summary(run, 80, False, "en").splitlines()
    assert failed[0] == "## Grading results: " + markdown_text(run.submission.path)
    # 3.1's given classes earn nothing (issue 49): 3 / 10 before
    assert failed[2] == "**✗ Failed: 0 / 10 points (0%), threshold 80%**"
    assert failed[4:] == [
        "| Exercise | Check | Status | Points | Message |",
        "| --- | --- | --- | --- | --- |",
        f"| 3.1 | v1 and v2 agree on fresh inputs | ✗ failed | 0 / 6 | {markdown_text(agree.message)} |",
        f"| 3.1 | v1 holds v2's weights, transposed, as nn.Parameters | ✗ failed | 0 / 4 | "
        f"{markdown_text(parameters.message)} |",
        "| 3.1 | Your classes compute the reference attention | ✓ passed | 0 / 0 |  |",
    ]
    assert "W\\_query holds sa\\_v2.W\\_query.weight without .T" in failed[6]
    assert step_summary(run, 0, True, "en").splitlines()[2] == "**✓ Passed: 0 / 10 points (0%), threshold 0%**"
    zh = step_summary(run, 0, True, "zh").splitlines()
    assert zh[2] == "**✓ 通过：0 / 10 分（0%），及格线 0%**"
    assert zh[4] == "| 练习 | 检查 | 状态 | 得分 | 说明 |"


def test_step_summary_lists_cells_and_escapes_student_text(grade_file: Grade) -> None:
    run = grade_file(hostile_source(), "3.1")
    summary = step_summary(run, 50, False, "en")
    summary.encode("utf-8")
    assert "<img" not in summary and "](http://" not in summary and "\x1b" not in summary
    assert "&lt;img src=x onerror=alert(1)&gt; \\[link\\](http:\u200b//evil) \\| a \\| b \\|" in summary
    rows = [line for line in summary.splitlines() if line.startswith("|")]
    assert len(rows) == 5 and all(len(UNESCAPED_PIPE.findall(row)) == 6 for row in rows)
    raised = line_of(hostile_source(), "raise RuntimeError(HOSTILE)")
    assert summary.endswith(f"### Cells that failed to run\n\n- submission.py, line {raised - 1}: RuntimeError: bad "
                            f"::set-output name=x::y (line {raised})\n")


def test_step_summary_says_when_the_grader_failed(grade_file: Grade) -> None:
    summary = step_summary(with_statuses(grade_file(SOLUTION, "3.1,3.2,mask")), 80, True, "en")
    assert "| 3.2 | " in summary and " | ! grader error | 0 / 4 | The grader failed on this check" in summary
    assert "| mask | " in summary and " | – skipped | 0 / 0 | " in summary
    assert "\n\nThe grader itself failed on 1 check: this is not a mistake" in summary


@pytest.mark.parametrize(("hostile", "shown"), [
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("[link](http://evil)", "\\[link\\](http:\u200b//evil)"),
    ("| a | b |", "\\| a \\| b \\|"),
    ("`code` *b* _i_ ~s~ $x$ \\", "\\`code\\` \\*b\\* \\_i\\_ \\~s\\~ \\$x\\$ \\\\"),
    ("one\ntwo\r\n\tthree", "one two three"),
    ("&amp; www.evil.example @octocat", "&amp;amp; www\u200b.evil.example @\u200boctocat"),
    ("\x1b[31mred\x1b[0m", "red"),
])
def test_markdown_text_shows_hostile_strings_as_text(hostile: str, shown: str) -> None:
    assert markdown_text(hostile) == shown


# -- stop-commands and the catalogue --------------------------------------------------------------------------


def test_stop_commands_random_tokens_and_well_formed_lines() -> None:
    first, second = stop_commands(), stop_commands()
    for stop, resume in (first, second):
        token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", stop).group(1)
        assert resume == f"::{token}::"
        assert runner_parse(stop) == ("stop-commands", {}, token) and runner_parse(resume) == (token, {}, "")
    assert first[0] != second[0]
    assert stop_commands("abc") == ("::stop-commands::abc", "::abc::")


def test_ci_keys_in_every_language() -> None:
    keys = ["suite_name", "case_name", "points", "grader_fault", "grader_faults", "cells", "annotation_title",
            "at_cell", "at_cell_line", "cell_title", "summary_title", "verdict_pass", "verdict_fail",
            "col_exercise", "col_check", "col_status", "col_points", "col_message"]
    for key in keys:
        for lang in catalogue.LANGS:
            shown = catalogue.text("ci." + key, lang, exercise="3.1", title="t", check="c", score=1, max=2,
                                   count=1, status="s", cell=3, line=4, unit="cell 3", path="p", percent=50,
                                   threshold=80)
            assert shown and "{" not in shown


# The runner obeys the old spelling anywhere in a line (ActionCommand.TryParse); Azure's and TeamCity's
# commands have its shape.
OLD_COMMAND = re.compile(r"##[A-Za-z]*\[")


@pytest.mark.parametrize("text", ["##[error]forged", "###[add-mask]x", "a ##[group]b ##[endgroup]",
                                  "##vso[task.complete]", "##teamcity[message]", ":::error::x", "  ::group::x"])
def test_a_log_line_and_json_hold_no_workflow_command_in_either_spelling(text: str) -> None:
    line = one_line(text)
    assert not OLD_COMMAND.search(line) and "::" not in line and runner_parse(line) is None
    assert line.replace("\u200b", "") == " ".join(text.split())  # broken invisibly, nothing else changed
    data = {"message": text, text: [text, 1.5]}
    written = json_text(data, indent=2)
    assert not OLD_COMMAND.search(written) and not any(runner_parse(row) for row in written.splitlines())
    assert json.loads(written) == data  # strict JSON, the text whole
