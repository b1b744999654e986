"""What `grade EXERCISE FILE` imports before its zygote starts. The zygote imports torch while the judge does,
on another core, so every module the judge imports before starting it is time the two imports do not share:
the other commands' modules (the group loads a command when it runs) and nbformat (only a notebook needs it)
stay out, and so does torch itself. Read in a fresh interpreter through the real command."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOLUTION
from helpers import clean_env

pytestmark = pytest.mark.e2e

PROBE = """
import json, sys
from grader.judge.grader import Grader

seen = []
entered = Grader.__enter__

def enter(self):
    seen.append(sorted(sys.modules))
    return entered(self)

Grader.__enter__ = enter
from grader.cli import cli
code = cli.main(["3.1", sys.argv[1], "--html", sys.argv[2], "--lang", "en"], standalone_mode=False)
print(json.dumps({"before_zygote": seen[0], "code": code}))
"""


def test_grading_a_file_starts_its_zygote_before_any_other_command_or_torch(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(SOLUTION), str(tmp_path / "page.html")],
                          capture_output=True, text=True, env=clean_env(), timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["code"] == 0
    loaded = set(found["before_zygote"])
    others = {f"grader.cli.{name}" for name in ("batch", "export", "merge", "similar", "gradescope", "ci", "adjust",
                                                "release", "listing")}
    assert "grader.cli.grade" in loaded
    assert not loaded & (others | {"torch", "nbformat", "jinja2", "grader.classes.similarity"})
