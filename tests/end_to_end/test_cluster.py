"""Grading beyond one machine: `--shard auto` under each engine, and docs/cluster.md's examples run as written.

Contract: `--shard auto` reads K/N from a Slurm job array (counted from the array's min index, in its
steps) or a Kubernetes Indexed Job (N from --shards or GRADER_SHARDS), and says in one line what is
missing anywhere else. The Slurm script, the Kubernetes manifest's command and the GitHub Actions
workflow's steps in docs/cluster.md, run under the variables their engine sets and followed by their
merge step, grade every student of the class exactly once.
"""
from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, SOLUTION, mutant, mutations
from grader.messages.errors import GraderError as MessageError
from grader.classes.shards import ShardError, choose

DOC = ROOT / "docs" / "cluster.md"
CLASS = {
    "ann.py": SOLUTION.read_text(encoding="utf-8"),
    "bob.py": "",
    "chen.py": mutant(mutations.SA_BUGS, "missing_transpose"),
    "dan.py": "def broken(:\n",
    "eve.py": mutant(mutations.MASK_BUGS, "softmax_wrong_dim"),
    "张伟.py": "x = 1\n",
}
STUDENTS = sorted(Path(name).stem for name in CLASS)


# -- the arithmetic ------------------------------------------------------------------------------------------
def slurm(task: int, low: int, count: int, step: int = 1) -> dict[str, str]:
    return {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_MIN": str(low),
            "SLURM_ARRAY_TASK_MAX": str(low + step * (count - 1)), "SLURM_ARRAY_TASK_COUNT": str(count),
            "SLURM_ARRAY_TASK_STEP": str(step), "SLURM_ARRAY_JOB_ID": "77"}


@pytest.mark.parametrize("low, step", [(0, 1), (1, 1), (10, 2), (5, 3)])
def test_a_slurm_array_gives_each_task_its_own_part(low: int, step: int) -> None:
    parts = [choose("auto", None, slurm(low + step * n, low, 4, step)) for n in range(4)]
    assert parts == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_kubernetes_indexed_job_counts_from_zero() -> None:
    assert [choose("auto", 3, {"JOB_COMPLETION_INDEX": str(i)}) for i in range(3)] == [(1, 3), (2, 3), (3, 3)]
    assert choose("auto", None, {"JOB_COMPLETION_INDEX": "1", "GRADER_SHARDS": "2"}) == (2, 2)


def test_an_explicit_part_is_taken_as_given() -> None:
    """A GitHub Actions matrix: `--shard ${{ matrix.shard }}/N`, whatever the environment holds."""
    assert choose("2/3", None, slurm(1, 1, 4)) == (2, 3)
    assert choose("2/3", 3, {}) == (2, 3)


@pytest.mark.parametrize("spec, shards, environ, key", [
    ("auto", None, {}, "shard.no_engine"),
    ("auto", None, {"GITHUB_ACTIONS": "true"}, "shard.no_engine"),
    ("auto", None, {"JOB_COMPLETION_INDEX": "0"}, "shard.indexed_job_count"),
    ("auto", 3, {"JOB_COMPLETION_INDEX": "3"}, "shard.index_outside"),
    ("auto", 2, {"JOB_COMPLETION_INDEX": "0", "GRADER_SHARDS": "3"}, "shard.disagree"),
    ("auto", None, {"JOB_COMPLETION_INDEX": "x", "GRADER_SHARDS": "3"}, "shard.bad_variable"),
    ("auto", None, {"JOB_COMPLETION_INDEX": "0", "GRADER_SHARDS": "0"}, "shard.bad_variable"),
    ("auto", None, {**slurm(3, 1, 4), "SLURM_ARRAY_TASK_ID": "6"}, "shard.slurm_gaps"),
    ("auto", None, slurm(11, 10, 4, 2), "shard.slurm_gaps"),
    ("auto", 5, slurm(1, 1, 4), "shard.disagree"),
    ("2/3", 4, {}, "shard.disagree"),
    ("4/3", None, {}, "roster.bad_shard"),
])
def test_what_cannot_be_told_is_named(spec: str, shards: int | None, environ: dict[str, str], key: str) -> None:
    with pytest.raises(MessageError) as raised:
        choose(spec, shards, environ)
    assert raised.value.key == key


def test_the_command_says_so_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "ann.py").write_text("", encoding="utf-8")
    done = run_grade(["batch", tmp_path, "-o", tmp_path / "out", "--shard", "auto"], tmp_path, clean_env())
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "SLURM_ARRAY_TASK_ID" in done.stderr and "Traceback" not in done.stderr
    alone = run_grade(["batch", tmp_path, "-o", tmp_path / "out", "--shards", "3"], tmp_path, clean_env())
    assert alone.returncode == 2 and "--shard auto" in alone.stderr


# -- docs/cluster.md, run -----------------------------------------------------------------------------------
def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any engine's variables (a test may itself run under Slurm)."""
    kept = {k: v for k, v in os.environ.items()
            if not k.startswith(("SLURM_", "GRADER_SHARDS")) and k != "JOB_COMPLETION_INDEX"}
    return {**kept, "LANG": "en_US.UTF-8", **extra}


def run_grade(args: list[object], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A folder holding `submissions/` and a `grade` command on PATH, as a shard's machine has them."""
    for name, text in CLASS.items():
        (tmp_path / "submissions").mkdir(exist_ok=True)
        (tmp_path / "submissions" / name).write_text(text, encoding="utf-8")
    shim = tmp_path / "bin" / "grade"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m grader "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return tmp_path


def shell(script: str, course: Path, **variables: str) -> None:
    env = clean_env(**variables, PATH=f"{course / 'bin'}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(["bash", "-c", script], cwd=course, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def graded_students(gradebook: Path) -> list[str]:
    with sqlite3.connect(gradebook) as db:
        return [row[0] for row in db.execute("SELECT student FROM results")]


def assert_each_student_once(shards: list[Path], merged: Path) -> None:
    counts = Counter(student for shard in shards for student in graded_students(shard / "gradebook.sqlite"))
    assert sorted(counts) == STUDENTS and set(counts.values()) == {1}, counts
    assert sum(bool(graded_students(shard / "gradebook.sqlite")) for shard in shards) >= 2  # really split
    assert sorted(graded_students(merged / "gradebook.sqlite")) == STUDENTS
    assert (merged / "index.html").is_file()


def test_the_slurm_array_script_grades_every_student_once(course: Path) -> None:
    script = next(block for block in blocks("bash") if block.startswith("#!/bin/bash"))
    low, high = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)$", script, re.M).groups())  # type: ignore[union-attr]
    for task in range(low, high + 1):
        shell(script, course, **slurm(task, low, high - low + 1), SLURM_CPUS_PER_TASK="1")
    merge = re.search(r"--wrap '([^']+)'", "\n".join(blocks("bash"))).group(1)  # type: ignore[union-attr]
    shell(merge, course)
    assert_each_student_once([course / "shards" / str(task) for task in range(low, high + 1)], course / "class")


def test_the_kubernetes_indexed_job_grades_every_student_once(course: Path) -> None:
    grading, merging = (yaml.safe_load(block) for block in blocks("yaml")[:2])
    spec = grading["spec"]
    assert spec["completionMode"] == "Indexed"
    container = spec["template"]["spec"]["containers"][0]
    env = {item["name"]: item["value"] for item in container["env"]}
    assert container["command"] == ["sh", "-c"] and env["GRADER_SHARDS"] == str(spec["completions"])
    for index in range(spec["completions"]):  # what the job controller sets in each pod
        shell(container["args"][0], course, **env, JOB_COMPLETION_INDEX=str(index))
    shell(merging["spec"]["template"]["spec"]["containers"][0]["args"][0], course)
    assert_each_student_once([course / "shards" / str(i) for i in range(spec["completions"])], course / "class")


def test_the_github_actions_matrix_grades_every_student_once(course: Path) -> None:
    workflow = yaml.safe_load(blocks("yaml")[2])
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    runs = [step["run"] for step in shard_job["steps"] if "run" in step and "grade batch" in step["run"]]
    for value in shard_job["strategy"]["matrix"]["shard"]:
        shell(runs[0].replace("${{ matrix.shard }}", str(value)), course)
        # upload-artifact, then download-artifact with a pattern: each artifact in a folder of its name
        artifact = course / "downloaded" / "shards" / f"shard-{value}"
        artifact.mkdir(parents=True)
        (artifact / "gradebook.sqlite").write_bytes((course / "shards" / str(value) / "gradebook.sqlite").read_bytes())
    merge = next(step["run"] for step in merge_job["steps"] if "grade merge" in step.get("run", ""))
    (course / "downloaded" / "bin").symlink_to(course / "bin")
    shell(merge, course / "downloaded")
    assert_each_student_once(sorted((course / "downloaded" / "shards").iterdir()), course / "downloaded" / "class")
