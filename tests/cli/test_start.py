"""What `grade EXERCISE FILE` imports before its zygote starts. The zygote imports torch while the judge does,
on another core, and the submission's first cell waits for it: so it starts first thing in grader.cli.main, before the
command line is parsed (click, the command's modules), and no more than the launcher is imported before it. The
judge's Grader then takes that zygote; one the command never took (it stopped first) is killed at exit. Read in
a fresh interpreter through the real entry point."""
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
import atexit, json, sys
from grader.judge import launcher

seen = {"before_zygote": [], "zygotes": []}
made = launcher._Zygote.__init__

def zygote(self, *args, **kwargs):
    if not seen["zygotes"]:
        seen["before_zygote"] = sorted(sys.modules)
    made(self, *args, **kwargs)
    seen["zygotes"].append(self.proc.pid)

launcher._Zygote.__init__ = zygote
atexit.register(lambda: print(json.dumps(seen), flush=True))  # the entry point ends with os._exit, after these
sys.argv = ["grade", *sys.argv[1:]]
from grader.cli import main
main()
"""


def run(tmp_path: Path, *args: str) -> tuple[dict[str, list], int]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=clean_env(),
                          timeout=300, cwd=tmp_path)
    return json.loads(done.stdout.splitlines()[-1]), done.returncode


def test_grading_a_file_starts_its_zygote_before_the_command_line_is_parsed(tmp_path: Path) -> None:
    seen, code = run(tmp_path, "3.1", str(SOLUTION), "--html", str(tmp_path / "page.html"), "--lang", "en")
    assert code == 0 and (tmp_path / "page.html").is_file()
    assert len(seen["zygotes"]) == 1  # the judge graded with the zygote started first, not one of its own
    loaded = set(seen["before_zygote"])
    assert "grader.cli" in loaded and "grader.judge.launcher" in loaded
    assert not loaded & {"click", "grader.cli.group", "grader.cli.grade", "torch", "nbformat", "jinja2"}


def test_a_zygote_the_command_never_took_is_killed_at_exit(tmp_path: Path) -> None:
    seen, code = run(tmp_path, "3.1", str(tmp_path / "missing.py"))
    assert code == 2 and len(seen["zygotes"]) == 1
    pid = seen["zygotes"][0]
    state = Path(f"/proc/{pid}/stat")
    assert not state.exists() or state.read_text().rpartition(")")[2].split()[0] == "Z", "the zygote outlived grade"


def test_other_commands_start_no_zygote_before_their_own(tmp_path: Path) -> None:
    seen, code = run(tmp_path, "list")
    assert code == 0 and seen["zygotes"] == []
