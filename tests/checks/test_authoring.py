"""An instructor's own exercise folder, added with `grade --exercises DIR`, without forking the package.

docs/authoring.md walks through examples/exercises/softmax.py; these tests hold it to what the page
says: the example is copied into a temporary folder and graded through the real command in a
subprocess (a correct answer gets full marks, a named wrong one fails with its message), an exercise
written inline here is one file, the folder is as hidden from students' code as the package's own
exercises, a folder that cannot be loaded is one line and exit 2, and `grade batch` hands the folder
to its workers. Each grading run costs a few seconds (an interpreter and torch), so assertions are
grouped per run. The runs that need no process of their own run the same command in-process
(`in_process`, with the session's zygote); a missing folder's exit status and stderr, the folder hidden
from a student's code, `grade batch` and the working directory on the import path stay real subprocesses.
"""
from __future__ import annotations

import csv
import json
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import torch

from grader import load_exercises
from grader.judge.launcher import ZygoteLauncher
from helpers import MODULE, Result, grade_in_process
from helpers import grade as run_grade

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "exercises" / "softmax.py"
# Not `exercises/`: run as `python -m grader`, the working directory is on the import path, and a folder
# of that name there could shadow the package's own `exercises` (the last test shows it does not).
FOLDER = "course_exercises"

GOOD = """\
import torch

def stable_softmax(x):
    shifted = x - x.max(dim=-1, keepdim=True).values
    return shifted.exp() / shifted.exp().sum(dim=-1, keepdim=True)
"""
NAIVE = """\
import torch

def stable_softmax(x):
    return torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)
"""
WRONG_DIM = """\
def stable_softmax(x):
    shifted = (x - x.max(dim=0, keepdim=True).values).exp()
    return shifted / shifted.sum(dim=0, keepdim=True)
"""

# An exercise is one file: id, texts in both languages, its reference, one check.
TOY = '''\
import sys

import torch

from grader.checks import Exercise, NotFound, failed, passed


def double(x):  # the reference
    return 2 * x


EXERCISE = Exercise(
    id="toy.double", group="toy", reference=sys.modules[__name__],
    title={"en": "Double it", "zh": "乘以二"},
    statement={"en": "Write double(x) that returns 2 * x.", "zh": "编写返回 2 * x 的 double(x)。"},
    messages={"missing": {"en": "no function double(x).", "zh": "没有函数 double(x)。"},
              "ok": {"en": "double(x) is 2 * x.", "zh": "double(x) 等于 2 * x。"},
              "wrong": {"en": "double(x) is not 2 * x.", "zh": "double(x) 不等于 2 * x。"}},
)


@EXERCISE.check("double", points=2, title={"en": "double(x) == 2 * x", "zh": "double(x) == 2 * x"})
def double_check(sb, reference, rng):
    found = [o for o in sb.inventory() if o.kind == "function" and o.cls == "double"]
    if not found:
        raise NotFound("missing")
    x = torch.randn(3, 4, generator=rng)
    got = sb.call(found[-1], x)
    ok = isinstance(got, torch.Tensor) and torch.allclose(got, reference.double(x))
    return passed("ok") if ok else failed("wrong")
'''


# -- the harness: the real command in a subprocess ---------------------------------------------------------
def grade(*args: str | Path, cwd: Path) -> Result:
    """`python -m grader ARGS...`, so that the working directory is on the import path (see FOLDER)."""
    return run_grade(*args, cwd=cwd, command=MODULE)


def in_process(*args: str | Path, cwd: Path, launcher: ZygoteLauncher | None = None) -> Result:
    """The same command in this process (no interpreter, no torch to import), grading with `launcher`."""
    return grade_in_process(*args, cwd=cwd, launcher=launcher)


def one_line_error(result: Result, *needles: str) -> None:
    """Exit 2 with one `grade:` line on stderr that says what and where, never a traceback."""
    assert result.code == 2, (result.code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grade: "), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def checks(data: dict[str, Any], exercise_id: str) -> dict[str, dict[str, Any]]:
    exercise = next(e for e in data["exercises"] if e["id"] == exercise_id)
    return {c["id"]: c for c in exercise["checks"]}


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course folder as an instructor keeps it: the exercise folder (the example, copied) beside students' work."""
    (tmp_path / FOLDER).mkdir()
    shutil.copy(EXAMPLE, tmp_path / FOLDER / EXAMPLE.name)
    return tmp_path


def student(folder: Path, name: str, source: str) -> Path:
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return path


# -- the worked example --------------------------------------------------------------------------------
def test_the_example_loads_and_its_reference_is_a_stable_softmax() -> None:
    exercise = load_exercises(folders=[EXAMPLE.parent])["softmax"]
    assert (exercise.group, exercise.points) == ("extra", 6)
    assert [c.id for c in exercise.checks] == ["values", "large", "dtype"]
    for texts in (exercise.title, exercise.statement, *(c.title for c in exercise.checks)):
        assert set(texts) == {"en", "zh"} and all(texts.values())
    rng = torch.Generator().manual_seed(0)
    for x in (torch.randn(5, generator=rng), torch.randn(2, 3, 7, generator=rng) * 4,
              torch.randn(3, 8, generator=rng) + torch.tensor([[1000.0], [-1000.0], [0.0]])):
        got = exercise.reference.stable_softmax(x)
        assert torch.isfinite(got).all()
        assert torch.allclose(got, torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)


def test_list_shows_the_folders_exercise_beside_the_packages(course: Path) -> None:
    result = in_process("--exercises", course / FOLDER, "list", "--lang", "en", cwd=course)
    assert result.code == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()}
    assert rows["softmax"][1:4] == ["extra", "6", "A"]
    assert "A softmax that does not overflow" in result.stdout
    assert {"3.1", "mask"} <= set(rows)
    zh = in_process("--exercises", course / FOLDER, "list", "--lang", "zh", cwd=course)
    assert "不会溢出的 softmax" in zh.stdout


def test_a_correct_answer_gets_full_marks(course: Path, launcher: ZygoteLauncher) -> None:
    answer = student(course, "good.py", GOOD)
    result = in_process("--exercises", course / FOLDER, "softmax", answer, "--json", "-",
                        "--html", course / "good.html", "--lang", "en", cwd=course, launcher=launcher)
    assert result.code == 0, result.stderr
    data = result.json()
    assert (data["score"], data["max_score"]) == (6, 6)
    assert {c: v["status"] for c, v in checks(data, "softmax").items()} == \
        {"values": "passed", "large": "passed", "dtype": "passed"}
    assert checks(data, "softmax")["values"]["message_key"] == "softmax.values.ok"
    assert "不会溢出" in (course / "good.html").read_text(encoding="utf-8")  # both languages on the page


@pytest.mark.parametrize("source, check, key, words", [
    (NAIVE, "large", "softmax.large.naive", "exp() overflows"),
    (WRONG_DIM, "values", "softmax.values.wrong_dim", "normalises over the first dim"),
], ids=["naive-exp", "wrong-dim"])
def test_a_named_wrong_answer_fails_with_its_message(course: Path, launcher: ZygoteLauncher, source: str, check: str,
                                                     key: str, words: str) -> None:
    answer = student(course, "wrong.py", source)
    result = in_process("--exercises", course / FOLDER, "softmax", answer, "--json", "-",
                        "--html", course / "wrong.html", "--lang", "en", cwd=course, launcher=launcher)
    assert result.code == 1, result.stderr
    data = result.json()
    found = checks(data, "softmax")[check]
    assert (found["status"], found["score"], found["message_key"]) == ("failed", 0, key)
    assert words in found["messages"]["en"]
    assert found["messages"]["zh"] and found["messages"]["zh"] != found["messages"]["en"]
    # where the answer was bound: the statement that defines it (after NAIVE's import, the second)
    assert found["evidence"]["object"] == {"name": "stable_softmax", "cell": 1 if source == WRONG_DIM else 2}
    assert found["evidence"]["expected_shape"] == found["evidence"]["got_shape"]
    assert data["score"] < data["max_score"] == 6


def test_an_exercise_is_one_file(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "double.py").write_text(TOY, encoding="utf-8")
    right = student(tmp_path, "right.py", "def double(x):\n    return x + x\n")
    result = in_process("--exercises", folder, "toy.double", right, "--json", "-", "--html", tmp_path / "r.html",
                        cwd=tmp_path, launcher=launcher)
    assert result.code == 0, result.stderr
    assert checks(result.json(), "toy.double")["double"]["messages"]["en"] == "double(x) is 2 * x."
    wrong = student(tmp_path, "wrong.py", "def double(x):\n    return x * x\n")
    result = in_process("--exercises", folder, "toy", wrong, "--json", "-", "--html", tmp_path / "w.html",
                        "--lang", "zh", cwd=tmp_path, launcher=launcher)  # by its set, in Chinese
    assert result.code == 1, result.stderr
    found = checks(result.json(), "toy.double")["double"]
    assert (found["status"], found["messages"]["zh"], found["message_key"]) == \
        ("failed", "double(x) 不等于 2 * x。", "toy.double.wrong")


def test_a_helper_module_beside_the_exercises_is_importable_and_not_an_exercise(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "_course_texts.py").write_text('TITLE = {"en": "From a helper", "zh": "来自辅助模块"}\n')
    (folder / "double.py").write_text(TOY.replace("import torch\n", "import torch\nimport _course_texts\n", 1)
                                      .replace('title={"en": "Double it", "zh": "乘以二"}',
                                               "title=_course_texts.TITLE"), encoding="utf-8")
    result = in_process("--exercises", folder, "list", "--lang", "en", cwd=tmp_path)
    assert result.code == 0, result.stderr
    ours = [line for line in result.stdout.splitlines() if line.split()[1] == "toy"]
    assert len(ours) == 1 and ours[0].split()[0] == "toy.double" and ours[0].endswith("From a helper")


def test_two_folders_may_each_have_a_helper_of_the_same_name(tmp_path: Path) -> None:
    for name in ("week1", "week2"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "_helpers.py").write_text(f'TITLE = {{"en": "{name}", "zh": "{name}"}}\n')
        (folder / "double.py").write_text(
            TOY.replace("import torch\n", "import torch\nimport _helpers\n", 1)
               .replace('id="toy.double"', f'id="{name}.double"')
               .replace('title={"en": "Double it", "zh": "乘以二"}', "title=_helpers.TITLE"), encoding="utf-8")
    result = in_process("--exercises", tmp_path / "week1", "--exercises", tmp_path / "week2", "list", "--lang", "en",
                        cwd=tmp_path)
    assert result.code == 0, result.stderr
    titles = {line.split()[0]: line.split()[-1] for line in result.stdout.splitlines()}
    assert (titles["week1.double"], titles["week2.double"]) == ("week1", "week2")


# Written for the versions that installed the references and the checks as top-level packages.
OLD_NAMES = """\
import grader.exercises._attention
import grader.solutions.chapter3
import solutions
from exercises._attention import GIVEN
from solutions import chapter3
from solutions.chapter3 import CausalAttention

# the grader's own modules, not second copies loaded under the old names
assert chapter3 is solutions.chapter3 is grader.solutions.chapter3
assert CausalAttention is grader.solutions.chapter3.CausalAttention and GIVEN is grader.exercises._attention.GIVEN
"""


def test_a_folder_written_for_the_old_package_names_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`from solutions import chapter3` and `from exercises._attention import ...` load the grader's own modules
    while the folder loads, and the old names are gone once it has (the checkout, which holds folders of those
    names, is off the import path here, as it is for an installed grader)."""
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != ROOT])
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "double.py").write_text(OLD_NAMES + TOY, encoding="utf-8")
    assert "toy.double" in load_exercises(folders=[folder])
    assert not {name for name in sys.modules if name.partition(".")[0] in ("solutions", "exercises")}


def test_a_package_of_an_old_name_on_the_path_is_not_shadowed(tmp_path: Path) -> None:
    """A module of the instructor's own named like an old name is theirs, not the grader's."""
    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "solutions.py").write_text("OWN = True\n", encoding="utf-8")
    (folder / "double.py").write_text("from solutions import OWN\n" + TOY, encoding="utf-8")
    assert "toy.double" in load_exercises(folders=[folder])


# -- the trust boundary --------------------------------------------------------------------------------
def test_the_exercise_folder_is_hidden_from_the_students_code(course: Path) -> None:
    secret = f"SECRET-{uuid.uuid4().hex}"
    exercise = course / FOLDER / "softmax.py"
    exercise.write_text(f"# {secret}\n" + exercise.read_text(encoding="utf-8"), encoding="utf-8")
    notes = course / "notes.txt"  # beside the folder, and readable: the folder itself is what is hidden
    public = f"PUBLIC-{uuid.uuid4().hex}"
    notes.write_text(public, encoding="utf-8")
    spy = student(course, "spy.py", GOOD + f"""
import os, sys
for path in {[str(notes), str(exercise)]!r}:
    try:
        with open(path) as f:
            print("READ", path, f.read()[:3000])
    except OSError as exc:
        print("DENIED", path, type(exc).__name__)
try:
    print("LISTED", os.listdir({str(exercise.parent)!r}))
except OSError as exc:
    print("DENIED listing", type(exc).__name__)
try:
    sys.path.insert(0, {str(exercise.parent)!r})
    import softmax as stolen
    print("IMPORTED", open(stolen.__file__).read()[:3000])
except Exception as exc:
    print("DENIED import", type(exc).__name__)
print("MODULES", sorted(k for k in sys.modules if k.startswith("grader_exercises")))
""")
    result = grade("--exercises", FOLDER, "softmax", spy, "--json", "-", "--html", course / "spy.html",
                   "--lang", "en", cwd=course)
    assert result.code == 0, result.stderr  # the checks still grade the answer beside the attack
    data = result.json()
    tail = data["output_tail"]
    assert secret not in result.stdout + result.stderr, "the exercise file reached the student's output"
    assert secret not in (course / "spy.html").read_text(encoding="utf-8")
    assert f"DENIED {exercise}" in tail and "DENIED listing" in tail and "DENIED import" in tail
    assert "MODULES []" in tail  # the judge's exercise modules never exist in the child


# -- what cannot be loaded ---------------------------------------------------------------------------------
def test_a_missing_folder_cannot_grade(tmp_path: Path) -> None:
    answer = student(tmp_path, "good.py", GOOD)
    result = grade("--exercises", tmp_path / "nowhere", "softmax", answer, cwd=tmp_path)
    one_line_error(result, str(tmp_path / "nowhere"), "is not a folder")


def test_an_exercise_file_that_raises_on_import_cannot_grade(course: Path) -> None:
    broken = course / FOLDER / "broken.py"
    broken.write_text("import torch\n\nraise RuntimeError('no reference yet')\n", encoding="utf-8")
    result = in_process("--exercises", course / FOLDER, "list", cwd=course)
    one_line_error(result, str(broken), "RuntimeError: no reference yet")


def test_an_unknown_id_lists_the_folders_ids_among_the_choices(course: Path, launcher: ZygoteLauncher) -> None:
    answer = student(course, "good.py", GOOD)
    result = in_process("--exercises", course / FOLDER, "sofmtax", answer, cwd=course, launcher=launcher)
    one_line_error(result, "'sofmtax'")
    choices = result.stderr.split("choose from", 1)[1]
    assert {"softmax", "extra", "3.1", "ch03", "all"} <= {c.strip() for c in choices.split(",")}


# -- a class --------------------------------------------------------------------------------------------
def test_batch_grades_a_class_with_the_folders_exercise(course: Path) -> None:
    hand_in = course / "hand-in"
    hand_in.mkdir()
    student(hand_in, "alice.py", GOOD)
    student(hand_in, "bob.py", NAIVE)
    out = course / "out"
    # A relative folder: the workers run elsewhere, so it must reach them resolved.
    result = grade("--exercises", FOLDER, "batch", hand_in, "-e", "softmax", "-o", out, "-j", "1",
                   "--lang", "en", cwd=course)
    assert result.code == 0, (result.stdout, result.stderr)
    with open(out / "grades.csv", encoding="utf-8", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert {name: (row["softmax"], row["total"], row["max_score"], row["status"]) for name, row in rows.items()} == {
        "alice": ("6", "6", "6", "graded"), "bob": ("4", "4", "6", "graded")}
    results = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    bob = next(r["result"] for r in results if r["student"] == "bob")
    assert checks(bob, "softmax")["large"]["message_key"] == "softmax.large.naive"
    assert (out / "pages" / "alice.html").is_file() and (out / "pages" / "bob.html").is_file()


def test_a_changed_exercise_regrades_what_it_graded_and_keeps_the_history(course: Path) -> None:
    """The instructor fixes a check's points (3 -> 10) in their exercise file and runs the same `grade batch`:
    the results that exercise graded are graded again, with a line that says why, and the old ones stay in
    the history; a set the change does not touch keeps its results, and a run after that grades nothing."""
    from grader.classes.gradebook import FILENAME, Gradebook

    hand_in = course / "hand-in"
    hand_in.mkdir()
    student(hand_in, "alice.py", GOOD)
    student(hand_in, "bob.py", NAIVE)
    out = course / "out"

    def batch(exercises: str) -> Result:
        result = grade("--exercises", FOLDER, "batch", hand_in, "-e", exercises, "-o", out, "-j", "1",
                       "--lang", "en", cwd=course)
        assert result.code == 0, (result.stdout, result.stderr)
        return result

    def rows() -> dict[tuple[str, str], list[float]]:
        with Gradebook(out / FILENAME) as book:
            return {(e.student, e.exercise_set): [h.max_score for h in book.history(e.student)
                                                  if h.exercise_set == e.exercise_set] for e in book.latest()}

    batch("softmax")
    batch("3.1")
    assert rows() == {("alice", "3.1"): [10.0], ("alice", "softmax"): [6.0], ("bob", "3.1"): [10.0],
                      ("bob", "softmax"): [6.0]}
    exercise = course / FOLDER / EXAMPLE.name
    exercise.write_text(exercise.read_text(encoding="utf-8").replace('check("values", points=3',
                                                                      'check("values", points=10'), encoding="utf-8")
    untouched = batch("3.1")
    assert "changed since the last run" not in untouched.stderr
    changed = batch("softmax")
    assert "softmax changed since the last run: 2 submissions to grade again" in changed.stderr, changed.stderr
    assert rows() == {("alice", "3.1"): [10.0], ("alice", "softmax"): [6.0, 13.0], ("bob", "3.1"): [10.0],
                      ("bob", "softmax"): [6.0, 13.0]}
    with open(out / "grades.csv", encoding="utf-8", newline="") as f:
        grades = {row["student"]: (row["softmax"], row["max_score"]) for row in csv.DictReader(f)}
    assert grades == {"alice": ("13", "13"), "bob": ("11", "13")}
    again = batch("softmax")
    assert "changed since the last run" not in again.stderr
    assert rows()[("alice", "softmax")] == [6.0, 13.0]


# -- a course repository's configuration ----------------------------------------------------------------
def test_the_configuration_names_exercise_folders(course: Path, launcher: ZygoteLauncher) -> None:
    student(course, "good.py", GOOD)
    (course / "grader.toml").write_text(
        '[tool.grader]\nexercises = ["softmax"]\nfiles = ["good.py"]\nexercise_folders = ["course_exercises"]\n',
        encoding="utf-8")
    result = in_process("ci", cwd=course, launcher=launcher)
    assert result.code == 0, result.stderr
    assert "6/6" in result.stdout


def test_a_course_folder_named_exercises_does_not_shadow_the_package(course: Path) -> None:
    shutil.copytree(course / FOLDER, course / "exercises")
    (course / "exercises" / "__init__.py").write_text("")
    result = grade("--exercises", "exercises", "list", "--lang", "en", cwd=course)
    assert result.code == 0, result.stderr
    assert {"3.1", "mask", "softmax"} <= {line.split()[0] for line in result.stdout.splitlines()}
