"""Gradescope: results.json from real grading runs, then `grade gradescope` and run_autograder end to end.

The renderer tests need only the library. The command tests (`-k command`) run the CLI in-process
with the session's zygote, but for the missing folder's exit status and stderr (and `grade export`),
which a real subprocess shows; the run_autograder tests (`-k run_autograder`) run examples/gradescope/run_autograder
against a fake /autograder under tmp_path, with `grade` on PATH from this interpreter.

`spec_errors` checks the field names, types and values of Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/).
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from conftest import ROOT, SOLUTION, Grade, check, mutant, mutations
from grader import __version__
from grader.messages import catalogue
from grader.messages.catalogue import Msg
from grader.render.gradescope import results
from grader.results import Ungraded
from grader.judge.launcher import ZygoteLauncher
from helpers import WITHOUT_ACCELERATOR, Result, grade_in_process

EXAMPLES = ROOT / "examples" / "gradescope"
CJK = re.compile(r"[\u4e00-\u9fff]")

# -- the specification's fields, as a validator ------------------------------------------------------------

VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUSES = {"passed", "failed"}
NUMBER = (int, float)
TOP_FIELDS: dict[str, Any] = {
    "score": NUMBER, "execution_time": int, "output": str, "output_format": FORMATS,
    "visibility": VISIBILITIES, "stdout_visibility": VISIBILITIES, "extra_data": dict, "tests": list,
}
TEST_FIELDS: dict[str, Any] = {
    "score": NUMBER, "max_score": NUMBER, "status": STATUSES, "name": str, "name_format": FORMATS,
    "number": str, "output": str, "output_format": FORMATS, "tags": list, "visibility": VISIBILITIES,
    "extra_data": dict,
}


def _field_errors(obj: dict[str, Any], fields: dict[str, Any], where: str) -> list[str]:
    errors = [f"{where}: unknown field {key!r}" for key in obj if key not in fields]
    for key, value in obj.items():
        want = fields.get(key)
        if isinstance(want, set):
            ok = value in want
        elif want is NUMBER or want is int:
            ok = isinstance(value, want) and not isinstance(value, bool)
        else:
            ok = want is None or isinstance(value, want)
        if not ok:
            errors.append(f"{where}.{key}: {value!r} is not {want}")
    if isinstance(obj.get("tags"), list) and not all(isinstance(t, str) for t in obj["tags"]):
        errors.append(f"{where}.tags: not all strings")
    return errors


def spec_errors(data: dict[str, Any]) -> list[str]:
    """What in `data` the specification does not allow: an unknown field, a wrong type or value, or
    a score neither at the top nor on every test."""
    errors = _field_errors(data, TOP_FIELDS, "results")
    tests = data.get("tests", [])
    for i, test in enumerate(tests):
        errors += _field_errors(test, TEST_FIELDS, f"tests[{i}]")
    if "score" not in data and (not tests or any("score" not in t for t in tests)):
        errors.append("results: no top-level score and not every test has one")
    return errors


def valid(data: dict[str, Any]) -> dict[str, Any]:
    """`data` as Gradescope would read it back, after checking it against the specification."""
    assert spec_errors(data) == []
    return json.loads(json.dumps(data, ensure_ascii=False))


def by_number(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["number"]: t for t in data["tests"]}


def test_validator_rejects_what_the_spec_does_not_allow() -> None:
    bad = {"score": "10", "visibility": "public", "tests": [{"status": "error", "tags": [1], "extra": 1}]}
    errors = spec_errors(bad)
    assert any("results.score" in e for e in errors)
    assert any("results.visibility" in e for e in errors)
    assert any("tests[0].status" in e for e in errors)
    assert any("tests[0].tags" in e for e in errors)
    assert any("unknown field 'extra'" in e for e in errors)
    assert any("no top-level score" in e for e in spec_errors({"tests": [{"max_score": 1}]}))


# -- the renderer, on real runs --------------------------------------------------------------------------


def test_reference_solution_one_passed_test_per_check(grade_file: Grade) -> None:
    run = grade_file(SOLUTION)
    data = valid(results(run, "en"))
    checks = [(ex, n, c) for ex in run.exercises for n, c in enumerate(ex.checks, 1)]
    assert len(data["tests"]) == len(checks)
    for test, (ex, n, c) in zip(data["tests"], checks):
        assert test["number"] == f"{ex.id}.{n}"
        assert test["name"] == f"{ex.id} · {c.titles['en']}"
        assert (test["score"], test["max_score"]) == (c.score, c.max_score)
        assert test["visibility"] == "visible" and test["tags"] == [ex.id]
        assert test.get("status") == ("passed" if c.status == "passed" else None)
    assert data["score"] == sum(t["score"] for t in data["tests"]) == run.score == run.max_score
    assert data["execution_time"] == round(run.duration_s)
    assert data["output_format"] == "text" and data["stdout_visibility"] == "hidden"
    first = data["output"].splitlines()[0]
    assert first == f"Total: {run.score:g} / {run.max_score:g} points · seed 0 · grader {__version__}"
    assert "Protections active: " + ", ".join(run.protections) in data["output"]
    assert "Cells that failed" not in data["output"] and "Files graded" not in data["output"]
    assert data["extra_data"]["seed"] == 0 and data["extra_data"]["sha256"] == run.submission.sha256


@WITHOUT_ACCELERATOR
def test_gpu_comparison_skipped_worth_nothing_and_no_status(grade_file: Grade,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    run = grade_file(SOLUTION, "device")
    accelerator = check(run, "device", "accelerator")
    for lang, prefix in (("en", "Skipped, worth 0 points: "), ("zh", "已跳过，计 0 分：")):
        test = by_number(valid(results(run, lang)))["device.2"]
        assert "status" not in test
        assert test["score"] == test["max_score"] == 0
        assert test["output"] == prefix + accelerator.messages[lang]
    assert "No CUDA or MPS device" in accelerator.messages["en"]


def test_named_bug_fails_its_checks_with_their_messages(grade_file: Grade) -> None:
    run = grade_file(mutant(mutations.SA_BUGS, "missing_transpose"))
    data = valid(results(run, "en"))
    tests = by_number(data)
    failing = {n for n, t in tests.items() if t.get("status") == "failed"}
    assert failing == {"3.1.1", "3.1.2"}
    parameters = check(run, "3.1", "parameters")
    assert tests["3.1.2"]["output"] == parameters.messages["en"]
    assert "without .T" in tests["3.1.2"]["output"]
    assert (tests["3.1.2"]["score"], tests["3.1.2"]["max_score"]) == (0, parameters.max_score)
    assert data["score"] == sum(t["score"] for t in data["tests"]) == run.score < run.max_score
    assert f"Total: {run.score:g} / {run.max_score:g} points" in data["output"]

    zh = by_number(valid(results(run, "zh")))["3.1.2"]
    assert zh["output"] == parameters.messages["zh"]
    assert zh["name"] == f"3.1 · {parameters.titles['zh']}" and CJK.search(zh["name"])


def test_cells_that_failed_are_listed_and_student_text_cleaned(grade_file: Grade) -> None:
    source = SOLUTION.read_text(encoding="utf-8") + '\n# %%\nraise ValueError("boom\\x1b[31m red\\x07")\n'
    run = grade_file(source)
    data = valid(results(run, "en"))
    assert "\nCells that failed to run:\n" in data["output"]
    assert re.search(r"^  submission\.py, line \d+: ValueError: boom red \(line \d+\)$", data["output"], re.M)
    assert "\x1b" not in json.dumps(data) and "\\u001b" not in json.dumps(data)
    assert data["score"] == run.score == run.max_score  # the answers still count


def test_grader_fault_is_a_failed_test_said_to_be_ours(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, "3.2")
    ex = run.exercises[0]
    broken = dataclasses.replace(
        ex.checks[0], status="error", score=0.0, message_key="check.grader_error",
        messages=catalogue.every_lang(lambda lang: catalogue.text("check.grader_error", lang, error="KeyError: 'x'")))
    run = dataclasses.replace(run, exercises=(dataclasses.replace(ex, checks=(broken, *ex.checks[1:])),))
    data = valid(results(run, "en"))
    test = data["tests"][0]
    assert test["status"] == "failed" and test["score"] == 0 and test["max_score"] == broken.max_score
    assert test["output"].startswith("The grader failed on this check (not your fault")
    assert "The grader itself failed on 1 check." in data["output"]


def test_files_graded_together_are_named(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, "3.2")
    run = dataclasses.replace(run, submission=dataclasses.replace(
        run.submission, files=("chapter3.ipynb", "helpers\x1b[2J.py")))
    output = valid(results(run, "zh"))["output"]
    assert "一起评分的文件：chapter3.ipynb, helpers.py" in output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ungradable_submission_scores_zero_with_the_problem(lang: str) -> None:
    problem = Msg("cli.bad_notebook", {"path": "hw\x1b[31m.ipynb", "error": "Expecting value: line 1"})
    data = valid(results(Ungraded("ungradable", problem), lang))
    assert data["score"] == 0 and data["tests"] == []
    clean_problem = Msg(problem.key, {**problem.args, "path": "hw.ipynb"})
    why = catalogue.text(clean_problem.key, lang, **clean_problem.args)
    assert data["output"] == why + "\n\n" + catalogue.text("gradescope.problem_hint", lang)
    assert bool(CJK.search(data["output"])) == (lang == "zh")
    assert data["extra_data"]["problem"] == "cli.bad_notebook"


def test_results_needs_a_run_or_a_problem() -> None:
    with pytest.raises(ValueError):
        results(None, "en")  # type: ignore[arg-type]


def test_gradescope_keys_in_every_language() -> None:
    keys = ["gradescope.test_name", "gradescope.skipped", "gradescope.summary", "gradescope.files",
            "gradescope.protections", "gradescope.grader_fault", "gradescope.cells", "gradescope.problem_hint"]
    for key in keys:
        for lang in catalogue.LANGS:
            assert "{" not in catalogue.text(key, lang, exercise="3.1", title="t", message="m", score=1,
                                             max=2, seed=3, version="v", files="f", protections="p", count=1)


# -- the example scripts -------------------------------------------------------------------------------------


def test_example_scripts_are_executable_bash() -> None:
    for name in ("setup.sh", "run_autograder"):
        script = EXAMPLES / name
        assert os.access(script, os.X_OK), f"chmod +x {script}"
        assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")
        subprocess.run(["bash", "-n", str(script)], check=True)
    setup = (EXAMPLES / "setup.sh").read_text(encoding="utf-8")
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in setup


# -- `grade gradescope`, end to end ------------------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_ACCELERATOR", "GRADER_DEBUG")}
    return {**env, **extra}


def _gradescope(launcher: ZygoteLauncher, submission: Path, results_dir: Path, *options: str) -> tuple[Result,
                                                                                                    dict[str, Any]]:
    proc = grade_in_process("gradescope", "--submission", submission, "--results", results_dir, *options,
                            cwd=results_dir.parent, launcher=launcher, environ=_env())
    assert proc.returncode == 0, proc.stderr
    return proc, valid(json.loads((results_dir / "results.json").read_text(encoding="utf-8")))


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    submission, results_dir = tmp_path / "submission", tmp_path / "results"
    submission.mkdir()
    results_dir.mkdir()
    return submission, results_dir


def _notebook(*cells: str) -> str:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]))


def test_command_good_student_full_marks(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    submission, results_dir = _dirs(tmp_path)
    shutil.copy(SOLUTION, submission / "chapter3.py")
    proc, data = _gradescope(launcher, submission, results_dir, "-e", "ch03", "--lang", "en")
    assert proc.stdout.strip() == catalogue.text("gradescope.written", "en", path=results_dir / "results.json",
                                                 score=data["score"], max=data["score"])
    assert data["tests"] and all(t.get("status", "passed") == "passed" for t in data["tests"])
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) == sum(t["score"] for t in data["tests"])
    assert data["output"].startswith(f"Total: {data['score']:g} / {data['score']:g} points")


def test_command_two_files_graded_together(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """The notebook imports the student's helper module: it runs first (name order), so the import
    has to find helpers.py beside it, or its cell would be listed as failed."""
    submission, results_dir = _dirs(tmp_path)
    shutil.copy(SOLUTION, submission / "helpers.py")
    (submission / "chapter3.ipynb").write_text(_notebook(
        "from helpers import SelfAttention_v1, SelfAttention_v2, CausalAttention\n"
        "from helpers import MultiHeadAttentionWrapper, MultiHeadAttention",
        "from helpers import transfer_weights, build_two_dim_wrapper, build_gpt2_small_attention",
    ), encoding="utf-8")
    _, data = _gradescope(launcher, submission, results_dir, "-e", "3.1,3.2,3.3", "--lang", "en")
    assert "Files graded together: chapter3.ipynb, helpers.py" in data["output"]
    assert "Cells that failed" not in data["output"]
    assert {t["number"].rsplit(".", 1)[0] for t in data["tests"]} == {"3.1", "3.2", "3.3"}
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) > 0


def test_command_a_data_file_named_in_gbk_is_carried(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """A Chinese Windows zip names `数据.txt` in GBK bytes, which are not UTF-8: the answers beside it are
    graded in full and results.json is written, naming the file."""
    submission, results_dir = _dirs(tmp_path)
    shutil.copy(SOLUTION, submission / "chapter3.py")
    with open(os.fsencode(submission) + b"/" + "数据".encode("gbk") + b".txt", "wb") as f:
        f.write("First Citizen:\n".encode("gbk"))
    proc, data = _gradescope(launcher, submission, results_dir, "-e", "3.1", "--lang", "zh")
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) == 10, data["output"]
    assert ".txt" in data["output"].splitlines()[1]  # Files graded together: chapter3.py, ....txt


def test_command_broken_notebook_scores_zero_with_a_message(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    submission, results_dir = _dirs(tmp_path)
    (submission / "chapter3.ipynb").write_text('{"cells": [', encoding="utf-8")
    _, data = _gradescope(launcher, submission, results_dir, "--lang", "zh")
    assert data["score"] == 0 and data.get("tests", []) == []
    assert "chapter3.ipynb" in data["output"] and "Jupyter" in data["output"]
    assert catalogue.text("gradescope.problem_hint", "zh") in data["output"]


def test_command_empty_submission_scores_zero_and_says_it_is_empty(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    submission, results_dir = _dirs(tmp_path)
    proc, data = _gradescope(launcher, submission, results_dir, "--lang", "en")
    assert data["score"] == 0 and data.get("tests", []) == []
    assert data["output"].startswith(catalogue.text("cli.empty_submission", "en"))
    assert "chapter3.ipynb" in data["output"] and "none of" not in data["output"]
    assert catalogue.text("gradescope.problem_hint", "en") in data["output"]
    assert str(results_dir / "results.json") in proc.stdout and "0 points" in proc.stdout


def test_command_missing_submission_folder_is_a_setup_error(tmp_path: Path) -> None:
    """No folder at all is the autograder image's fault: exit 2 and one line, no zero for the student."""
    results_dir = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "grader", "gradescope", "--submission", str(tmp_path / "nowhere"),
         "--results", str(results_dir), "--lang", "en"],
        capture_output=True, text=True, timeout=300, env=_env(), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "grade: " + catalogue.text("gradescope.no_submission_folder", "en", path=tmp_path / "nowhere")]
    assert not (results_dir / "results.json").exists()


def test_export_says_what_it_wrote_where(tmp_path: Path) -> None:
    from grader.classes.gradebook import FILENAME, Gradebook
    from grader.results import Entry

    with Gradebook(tmp_path / FILENAME) as book:
        for student in ("ann", "bo"):
            book.record(Entry(student, "ch03", "0" * 64, __version__, (),
                              Ungraded("ungradable", Msg("cli.empty_submission"))))
    proc = subprocess.run([sys.executable, "-m", "grader", "export", str(tmp_path), "--format", "gradescope",
                           "--lang", "en"], capture_output=True, text=True, timeout=300, env=_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "gradescope"
    assert sorted(p.name for p in folder.iterdir()) == ["ann.json", "bo.json"]
    assert proc.stdout.strip() == catalogue.text("gradescope.exported", "en", count=2, path=folder)
    assert "2 Gradescope results.json files" in proc.stdout


# -- examples/gradescope/run_autograder, against a fake /autograder ---------------------------------------


def _autograder(tmp_path: Path, env: dict[str, str]) -> dict[str, Any]:
    root = tmp_path / "autograder"
    for sub in ("source", "submission", "results"):
        (root / sub).mkdir(parents=True)
    shutil.copy(SOLUTION, root / "submission" / "chapter3.py")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    grade = bin_dir / "grade"
    grade.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m grader "$@"\n', encoding="utf-8")
    grade.chmod(0o755)
    env = {**_env(AUTOGRADER_ROOT=str(root), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"), **env}
    proc = subprocess.run([str(EXAMPLES / "run_autograder")], capture_output=True, text=True, timeout=300,
                          env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return valid(json.loads((root / "results" / "results.json").read_text(encoding="utf-8")))


def test_run_autograder_defaults_to_chapter_3_in_chinese(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_EXERCISES", raising=False)
    monkeypatch.delenv("GRADER_LANG", raising=False)
    data = _autograder(tmp_path, {})
    assert {t["tags"][0] for t in data["tests"]} == {"3.1", "3.2", "3.3", "mask", "device"}
    assert data["output"].startswith("总分：") and all(CJK.search(t["name"]) for t in data["tests"])
    assert data["score"] == sum(t["max_score"] for t in data["tests"])


def test_run_autograder_takes_exercises_and_language_from_the_environment(tmp_path: Path) -> None:
    data = _autograder(tmp_path, {"GRADER_EXERCISES": "3.1,mask", "GRADER_LANG": "en"})
    assert {t["tags"][0] for t in data["tests"]} == {"3.1", "mask"}
    assert data["output"].startswith("Total: ") and not CJK.search(data["output"])
