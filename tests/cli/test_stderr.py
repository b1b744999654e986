"""Nothing but the grader's own lines on stderr: no library's warning reaches the terminal or a CI log.

A learner's notebook written by an older tool has no cell ids (nbformat warns), torch warns on import
when NumPy is absent, and a shell may set PYTHONWARNINGS=always: the command stays quiet all the same,
and GRADER_DEBUG=1 shows the warnings to whoever debugs the grader.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import SOLUTION

# nbformat 4.5 made cell ids required; this notebook, as older tools write it, has none.
NO_IDS = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
     "source": SOLUTION.read_text(encoding="utf-8")},
]}


def run(*args: object, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Python with `args`, as a shell that asks for every warning (PYTHONWARNINGS=always) runs it."""
    clean = {k: v for k, v in os.environ.items() if k != "GRADER_DEBUG" and not k.startswith("PYTEST")}
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**clean, "LANG": "C.UTF-8", "PYTHONWARNINGS": "always", **env})


def grade(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run("-m", "grader", *args, cwd=cwd)


def test_version_and_list_print_nothing_on_stderr(tmp_path: Path) -> None:
    for args in (("--version",), ("list",)):
        done = grade(*args, cwd=tmp_path)
        assert done.returncode == 0 and done.stdout and done.stderr == "", (args, done.stderr)


def test_grading_a_notebook_without_cell_ids_prints_nothing_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "old_tool.ipynb"
    path.write_text(json.dumps(NO_IDS), encoding="utf-8")
    done = grade("3.1", path, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""


def test_the_command_silences_library_warnings_unless_debugging(tmp_path: Path) -> None:
    """Whatever library warns in the grading process, the command keeps it off stderr; GRADER_DEBUG=1 shows it.
    The library here is an instructor's exercise file the command imports (grader.cli's own import leaves the
    process's warnings alone: tests/cli/test_edges.py)."""
    (tmp_path / "noisy").mkdir()
    (tmp_path / "noisy" / "noisy.py").write_text("import warnings\nwarnings.warn('a library speaks', UserWarning)\n")
    noisy = "import sys\nfrom grader.cli import main\nsys.argv = ['grade', '--exercises', 'noisy', 'list']\nmain()\n"
    quiet, debugging = run("-c", noisy, cwd=tmp_path), run("-c", noisy, cwd=tmp_path, GRADER_DEBUG="1")
    assert quiet.returncode == debugging.returncode == 0
    assert quiet.stderr == "" and "a library speaks" in debugging.stderr
