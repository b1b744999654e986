"""The batch's fork-before-torch rule, held by the object that needs it (grader.classes.pool.Pool): the zygote its
judges' sandboxes start from is started before this process imports torch with the exercises, so that the two
imports run at once, and the judges fork from a process that imported torch but never ran it. `grade batch` starts it
earlier still, before it loads the class's own modules (grader.classes.course): grading waits on the zygote's import.

Run through the real command in a fresh interpreter (this one imported torch long ago): `Grader.zygotes`, where
every batch's zygote starts, records whether torch was already imported when it was called."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import clean_env

pytestmark = pytest.mark.e2e

PROBE = """
import json, sys
from grader.judge.grader import Grader

seen, course = [], []
started = Grader.zygotes

def zygotes(count):
    seen.append("torch" in sys.modules)
    course.append("grader.classes.course" in sys.modules)
    return started(count)

Grader.zygotes = staticmethod(zygotes)
if sys.argv[3] == "torch-first":
    import torch
if sys.argv[3] == "course-first":
    import grader.classes.course
from grader.cli import cli
code = cli.main(["batch", sys.argv[1], "-o", sys.argv[2], "-j", "1", "-e", "mask", "--lang", "en"],
                standalone_mode=False)
print(json.dumps({"torch_before_zygote": seen, "course_before_zygote": course, "torch_at_end": "torch" in sys.modules,
                  "code": code}))
"""


def _batch(tmp_path: Path, order: str) -> dict[str, object]:
    (tmp_path / "class").mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "class"), str(tmp_path / order), order],
                          capture_output=True, text=True, env=clean_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_grade_batch_starts_its_one_zygote_before_importing_torch_or_the_class(tmp_path: Path) -> None:
    found = _batch(tmp_path, "as-the-command-does")
    assert found == {"torch_before_zygote": [False], "course_before_zygote": [False], "torch_at_end": True, "code": 0}


@pytest.mark.parametrize("first, seen", [("torch-first", "torch_before_zygote"),
                                         ("course-first", "course_before_zygote")])
def test_the_probe_sees_what_was_imported_first(tmp_path: Path, first: str, seen: str) -> None:
    """The check above can fail: with torch, or the class's modules, imported before the command runs, the probe
    says so."""
    assert _batch(tmp_path, first)[seen] == [True]
