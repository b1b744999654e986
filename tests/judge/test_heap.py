"""The start-up heap (grader.sandbox.heap): a process of ours loads torch with the cyclic collector off, then
freezes what it loaded and turns the collector back on; a submission's process and a Jupyter kernel's keep a
working collector. Each is read from a real process."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXERCISES, SOLUTION, Grade, grade
from helpers import clean_env
from grader.cli.commands import loads_exercises
from grader.judge.launcher import SpawnLauncher

LOADED = 100_000  # torch's import alone leaves more objects than this

COLLECTOR = "import gc; print('COLLECTOR', int(gc.isenabled()), gc.get_freeze_count())\n"


def collector(output: str) -> tuple[int, int]:
    """(whether the collector was on, how many objects were frozen) as the submission printed them."""
    line = next(line for line in output.splitlines() if line.startswith("COLLECTOR "))
    enabled, frozen = line.split()[1:]
    return int(enabled), int(frozen)


def read(code: str, *args: str, cwd: Path | None = None) -> dict[str, int]:
    """What `code` prints last, as JSON, run in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=clean_env(),
                          timeout=300, cwd=cwd)
    assert done.stdout, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_submission_runs_with_the_collector_on(grade_file: Grade, tmp_path: Path) -> None:
    """A sandbox forked from the zygote collects the submission's cycles, and walks none of what it inherited."""
    run = grade_file(COLLECTOR, "3.1")
    enabled, frozen = collector(run.output_tail)
    assert enabled == 1 and frozen > LOADED


def test_a_single_use_worker_runs_the_submission_with_the_collector_on(tmp_path: Path) -> None:
    (tmp_path / "collector.py").write_text(COLLECTOR, encoding="utf-8")
    launcher = SpawnLauncher()
    try:
        run = grade(tmp_path / "collector.py", [EXERCISES["3.1"]], launcher, seed=1, timeout=60)
    finally:
        launcher.close()
    assert collector(run.output_tail)[0] == 1


LOADS = """
import gc, json
from grader.sandbox import heap
heap.loading()
off = gc.isenabled()
import torch
heap.loaded()
print(json.dumps({"off_while_loading": int(not off), "enabled": int(gc.isenabled()), "frozen": gc.get_freeze_count()}))
"""


def test_loading_turns_the_collector_off_and_loaded_freezes_what_was_loaded() -> None:
    seen = read(LOADS)
    assert seen["off_while_loading"] == 1 and seen["enabled"] == 1 and seen["frozen"] > LOADED


KERNEL = """
import gc, json
gc.disable()  # a kernel's own choice, which grading must leave as it was
from grader.judge.grader import Grader
with Grader() as grader:
    grader.select("3.1")
print(json.dumps({"enabled": int(gc.isenabled()), "frozen": gc.get_freeze_count()}))
"""


def test_a_process_that_did_not_ask_keeps_its_collector_as_it_was() -> None:
    """A Jupyter kernel grading with `%grade` never calls `loading`: loading the exercises freezes nothing of the
    student's and does not turn a collector on that the kernel had turned off."""
    assert read(KERNEL) == {"enabled": 0, "frozen": 0}


ENTRY = """
import atexit, gc, json, sys
atexit.register(lambda: print(json.dumps({"enabled": int(gc.isenabled()), "frozen": gc.get_freeze_count()}),
                              flush=True))  # the entry point ends with os._exit, after these
sys.argv = ["grade", *sys.argv[1:]]
from grader.cli import main
main()
"""


@pytest.mark.e2e
def test_grading_a_file_loads_with_the_collector_off_and_grades_with_it_on(tmp_path: Path) -> None:
    seen = read(ENTRY, "3.1", str(SOLUTION), "--html", str(tmp_path / "page.html"), cwd=tmp_path)
    assert seen["enabled"] == 1 and seen["frozen"] > LOADED and (tmp_path / "page.html").is_file()


@pytest.mark.e2e
def test_a_command_that_loads_no_exercise_leaves_the_collector_alone(tmp_path: Path) -> None:
    seen = read(ENTRY, "export", "--help", cwd=tmp_path)
    assert seen == {"enabled": 1, "frozen": 0}


@pytest.mark.parametrize(("args", "loads"), [
    (["3.1", "my_solution.py"], True),
    (["exercise", "3.1", "my_solution.py"], True),
    (["--exercises", "week1", "batch", "class", "-e", "mask"], True),
    (["ci"], True), (["gradescope", "/autograder/submission"], True), (["list"], True),
    (["export", "out", "--canvas", "gradebook.csv"], False), (["similar", "class"], False), (["release", "out"], False),
    (["--help"], False), ([], False),
])
def test_which_command_lines_load_with_the_collector_off(args: list[str], loads: bool) -> None:
    """Only a command that loads torch and the exercises turns the collector off: one that does not would keep it off
    for its whole run (grader.cli.main)."""
    assert loads_exercises(args) is loads


def test_importing_the_zygote_module_leaves_the_collector_alone() -> None:
    """Only a zygote or a worker started as one (`python -m grader.sandbox.zygote`) loads with the collector off."""
    seen = read("import gc, json\nimport grader.sandbox.zygote\nprint(json.dumps({'enabled': int(gc.isenabled())}))")
    assert seen == {"enabled": 1}
