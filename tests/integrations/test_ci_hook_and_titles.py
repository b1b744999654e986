"""The course repository in CI, round 5 (issue 50, points 6 and 8), through `grade ci` in a copy of
examples/course-repo/, in both languages.

6. The pre-commit hook (`grade ci` given the staged files) and CI (`grade ci`) grade the same files the same
   way: a staged `answers.py` beside the untouched template notebook is graded with it, as CI grades them,
   so both give the same score, checks and verdict.
8. GitHub annotations are titled by the check's title in the run's language, as the summary's table names
   it, never by its id; the summary heading names every graded file.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SOLUTION, mutant, mutations
from grader.judge.launcher import ZygoteLauncher
from grader.messages import catalogue
from grader.render.github import escape_property, markdown_text
from helpers import no_traceback
from integrations.test_ci import ANNOTATION, cases, course, grade_ci, regions

LANGS = catalogue.LANGS
FILES = "chapter3/answers.py, chapter3/chapter3.ipynb"  # what the globs match, in name order


def error_lines(lines: list[str]) -> list[re.Match[str]]:
    """The `::error` annotations among `lines` (test_ci's pattern)."""
    return [m for m in map(ANNOTATION.match, lines) if m]


def heading(lang: str, files: str) -> str:
    return "## " + markdown_text(catalogue.text("ci.summary_title", lang, path=files))


def junit_titles(path: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    """(exercise, check id) -> (the check's title in the run's language, passed), from the JUnit file."""
    return {(suite.removeprefix("grader."), check_id): (case.name.split(" · ", 1)[1], case.is_passed)  # type: ignore[attr-defined]
            for (suite, check_id), case in cases(path).items()}


@pytest.mark.parametrize("lang", LANGS)
def test_the_hook_grades_what_ci_grades(tmp_path: Path, launcher: ZygoteLauncher, lang: str) -> None:
    """The student's answers in `answers.py`, the template notebook untouched: CI grades both together and the
    notebook's stubs (run after it, in name order) are what the checks find. The hook, given the staged
    `answers.py`, used to grade it alone (28/28) where CI failed it; now both say the same."""
    repo = course(tmp_path, {"chapter3/answers.py": SOLUTION.read_text(encoding="utf-8")}, keep_template=True)
    hook = grade_ci(repo, "chapter3/answers.py", "--lang", lang, "--junit", "hook.xml", launcher=launcher)
    pushed = grade_ci(repo, "--lang", lang, "--junit", "ci.xml", launcher=launcher)
    for result in (hook, pushed):
        no_traceback(result)
    assert hook.code == pushed.code
    verdicts = [result.stdout.strip().splitlines()[-1] for result in (hook, pushed)]
    assert verdicts[0] == verdicts[1], verdicts
    assert hook.outputs == pushed.outputs and hook.outputs["passed"] == "false"
    assert junit_titles(repo / "hook.xml") == junit_titles(repo / "ci.xml")
    marks = [sorted(m.group(0) for m in error_lines(regions(result.stdout)[2])) for result in (hook, pushed)]
    assert marks[0] == marks[1] and marks[0]
    # both name the two files they graded, in the summary heading (point 8)
    assert hook.summary.count(heading(lang, FILES) + "\n") == 1
    assert pushed.summary.count(heading(lang, FILES) + "\n") == 2  # appended after the hook's
    # a staged file the globs do not match still grades nothing
    quiet = grade_ci(repo, "README.md", "--lang", lang, actions=False, launcher=launcher)
    assert quiet.code == 0 and quiet.stdout.strip() == catalogue.text(
        "ci.cmd.nothing_to_grade", lang, globs="chapter3/*.ipynb, chapter3/*.py")


@pytest.mark.parametrize("lang", LANGS)
def test_annotations_are_titled_by_the_check_in_the_runs_language(tmp_path: Path, launcher: ZygoteLauncher,
                                                                   lang: str) -> None:
    """A mask with diagonal=0 fails `first_token` and others: each annotation names the exercise and the check's
    title with its status (`mask · The first token sees only itself: failed`), as the summary's table does."""
    repo = course(tmp_path, {"chapter3/chapter3.py": mutant(mutations.MASK_BUGS, "diagonal_zero")})
    result = grade_ci(repo, "--lang", lang, "--junit", "grader-junit.xml", launcher=launcher)
    no_traceback(result)
    assert result.code == 1, result.stdout + result.stderr
    checks = junit_titles(repo / "grader-junit.xml")
    failed = {key: title for key, (title, passed) in checks.items() if not passed}
    assert ("mask", "first_token") in failed
    separator = "：" if lang == "zh" else ": "
    status = catalogue.text("status.failed", lang)
    expected = sorted(escape_property(f"{ex} · {title}{separator}{status}") for (ex, _), title in failed.items())
    marks = error_lines(regions(result.stdout)[2])
    assert sorted(m["title"] for m in marks) == expected
    ids = {check_id for _, check_id in checks}
    assert not [m["title"] for m in marks if any(f" · {check_id} " in m["title"] for check_id in ids)]
    # the summary's table names the same checks by the same titles
    rows = [line for line in result.summary.splitlines() if line.startswith("| mask |")]
    for (ex, _), title in failed.items():
        assert any(f"| {markdown_text(title)} |" in row and "✗" in row for row in rows), title
    # one file graded: the heading names it alone
    assert result.summary.startswith(heading(lang, "chapter3/chapter3.py") + "\n")
