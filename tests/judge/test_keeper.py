"""The scratch folders' keeper as each judge starts it: on the interpreter alone while the judge lives, and with
what removing a folder takes once a judge left one behind. That a killed judge's folders go is held end to end
by tests/hostile/test_lifetime.py."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader.judge.keeper import Keeper
from grader.judge.launcher import python_env


def keeper(messages: bytes, *options: str) -> subprocess.CompletedProcess[bytes]:
    """The keeper's command as Keeper starts it, `options` before its script, told `messages`, then its pipe
    closed as by a judge that exited."""
    return subprocess.run([sys.executable, "-S", *options, Keeper.SCRIPT], input=messages, capture_output=True,
                          env=python_env(), timeout=60, check=True)


def imported(importtime: bytes) -> set[str]:
    """The modules a `-X importtime` run imported, from its stderr."""
    lines = importtime.decode().splitlines()
    return {line.rpartition("|")[2].strip() for line in lines if line.startswith("import time:")}


def test_a_keeper_whose_judge_removed_every_folder_imports_nothing_of_the_grader(tmp_path: Path) -> None:
    folder = tmp_path / "scratch"
    message = b"+" + bytes(folder) + b"\0-" + bytes(folder) + b"\0"
    modules = imported(keeper(message, "-X", "importtime").stderr)
    assert modules, "-X importtime listed no module: the probe cannot tell"
    assert not {m for m in modules if m.split(".")[0] in ("grader", "pathlib", "shutil", "typing", "runpy")}


def test_a_keeper_removes_what_its_judge_left_with_the_graders_remover(tmp_path: Path) -> None:
    left = tmp_path / "scratch"
    (left / "deep" / "er").mkdir(parents=True)
    (left / "deep" / "er" / "file.txt").write_text("x")
    (left / "deep" / "er" / "file.txt").chmod(0o444)
    kept = tmp_path / "kept"
    kept.mkdir()
    done = keeper(b"+" + bytes(left) + b"\0+" + bytes(kept) + b"\0-" + bytes(kept) + b"\0", "-X", "importtime")
    assert not left.exists()
    assert kept.exists()  # forgotten: the judge removed it, or means to keep it
    assert "grader.sandbox.folders" in imported(done.stderr)
