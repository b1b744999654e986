"""Issue 50, the student's terminal and commands, through the real `grade` command (in process):

1. under each failed check the terminal points at the student's line as `path/to/file.py:LINE`;
2. a named bug that several failed checks of one exercise share is told once, with the checks it failed,
   and counts read as a person writes them ("row 0", never "rows 0" or "difference nan");
4. a mistyped command gets help: the missing argument named, ids in any case, the nearest id suggested.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import mutant, mutations
from grader.messages import catalogue
from helpers import Result, grade_in_process, line_of

CAUSE = {"en": "The mask hides each token from itself", "zh": "掩码把每个 Token 对自身也遮住了"}
FAILED = {"en": "✗ failed", "zh": "✗ 未通过"}
ROW_0 = {"en": "(row 0)", "zh": "（第 0 行）"}
IT_FAILS = {"en": "It fails 4 checks: ", "zh": "它导致 4 项检查未通过："}


@pytest.fixture(scope="module")
def diagonal_zero(launcher, tmp_path_factory) -> dict[str, tuple[Path, Result]]:
    """The mask with diagonal=0, graded once per language from the folder above its own (`sub/`), the
    exercise given once as `Mask` (any case is the id)."""
    graded = {}
    for lang, spelled in (("en", "Mask"), ("zh", "mask")):
        root = tmp_path_factory.mktemp(f"diag-{lang}")
        (root / "sub").mkdir()
        path = root / "sub" / "my_solution.py"
        path.write_text(mutant(mutations.MASK_BUGS, "diagonal_zero"), encoding="utf-8")
        graded[lang] = path, grade_in_process(spelled, "sub/my_solution.py", "--lang", lang, "--seed", "1",
                                              "--html", "page.html", cwd=root, launcher=launcher)
    return graded


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_failed_check_points_at_the_line_as_a_terminal_links_it(diagonal_zero, lang: str) -> None:
    path, result = diagonal_zero[lang]
    assert result.code == 1, result.stderr  # graded: `Mask` is the mask exercise
    lines = result.stdout.splitlines()
    where = f"sub/my_solution.py:{line_of(path, 'diagonal=0')}"  # the line that makes the mistake
    failed = [n for n, line in enumerate(lines) if FAILED[lang] in line]
    assert len(failed) == 4, result.stdout
    for n in failed:
        assert lines[n + 1].lstrip().startswith(f"{where}: CausalAttention"), lines[n + 1]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_bug_is_told_once_with_the_checks_it_failed(diagonal_zero, lang: str) -> None:
    _, result = diagonal_zero[lang]
    out = result.stdout
    assert out.count(CAUSE[lang]) == 1, out
    lines = out.splitlines()
    cause = next(n for n, line in enumerate(lines) if CAUSE[lang] in line)
    assert lines[cause - 1].startswith("mask"), "the cause comes first, under the exercise's row"
    titles = {"en": ["The first token sees only itself", "Attention weights are normalised", "No NaN in the outputs",
                     "Equal to the reference with the same weights"],
              "zh": ["第一个 Token 只看到自己", "注意力权重已归一化", "输出中没有 NaN", "相同权重下与参考实现一致"]}[lang]
    listed = lines[cause + 1].strip()
    assert listed.startswith(IT_FAILS[lang]) and all(title in listed for title in titles), listed
    # counts and lists as a person writes them
    assert ROW_0[lang] in out
    for wrong in ("rows 0", "行 0", "difference nan", "差值 nan", " nan"):
        assert wrong not in out, wrong


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_forgotten_exercise_is_named_as_the_missing_argument(tmp_path: Path, lang: str) -> None:
    (tmp_path / "my_solution.py").write_text("x = 1\n", encoding="utf-8")
    result = grade_in_process("my_solution.py", "--lang", lang, cwd=tmp_path)
    assert result.code == 2
    error = result.stderr.strip().splitlines()[-1]
    assert catalogue.text("usage.missing_argument", lang, name="'EXERCISE'") in error, error
    assert "SUBMISSION" not in error and "grade EXERCISE my_solution.py" in error, error
    # a name that is no file may be a mistyped exercise: then SUBMISSION is what is missing, as before
    missing = grade_in_process("nowhere.py", "--lang", lang, cwd=tmp_path)
    assert catalogue.text("usage.missing_argument", lang, name="'SUBMISSION'") in missing.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("typed", ["maks", "MAKS", "msak"])
def test_a_mistyped_id_suggests_the_nearest(launcher, tmp_path: Path, lang: str, typed: str) -> None:
    (tmp_path / "my_solution.py").write_text("x = 1\n", encoding="utf-8")
    result = grade_in_process(typed, "my_solution.py", "--lang", lang, cwd=tmp_path, launcher=launcher)
    assert result.code == 2
    said = {"en": "(did you mean 'mask'?); choose from", "zh": "（是不是 'mask'？）；可选："}[lang]
    assert said in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_id_far_from_every_one_lists_them_without_a_guess(launcher, tmp_path: Path) -> None:
    (tmp_path / "my_solution.py").write_text("x = 1\n", encoding="utf-8")
    result = grade_in_process("xyzzy", "my_solution.py", "--lang", "en", cwd=tmp_path, launcher=launcher)
    assert result.code == 2 and "unknown exercise 'xyzzy'; choose from" in result.stderr
    assert "did you mean" not in result.stderr
