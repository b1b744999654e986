"""Degrade, never refuse: with protections switched off (as on machines that lack them), grading
still works, the result says which protections were active, and what remains still holds.

The modes are those docs/security.md documents; GRADER_SANDBOX_WITHOUT switches protections off in
the judge's environment, as a kernel without them would.
"""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from conftest import SOLUTION, Grade, statuses
from processes import survivors

ANSWERS = SOLUTION.read_text(encoding="utf-8")
FULL = {"agree": "passed", "parameters": "passed", "classes": "passed"}


def attempts(outside: Path, port: int) -> str:
    """Right answers next to a write outside the scratch dir, a TCP connect and an orphan."""
    return ANSWERS + f"""
import socket, subprocess
try:
    open({str(outside)!r}, "w").write("escaped")
except OSError:
    pass
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    open("connected", "w").write("yes")  # scratch dir: harmless, read back by nothing
except OSError as exc:
    print("no network:", exc)
_orphan = subprocess.Popen(["sleep", "987653"], start_new_session=True)
"""


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.1)
    yield server
    server.close()


def _accepted(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except OSError:
        return False
    conn.close()
    return True


@pytest.mark.parametrize("without, narrowed, connects", [
    ("", True, False),
    ("namespaces", True, False),  # Landlock and seccomp still hold; the subreaper ends the orphan
    ("seccomp", True, False),  # the network namespace has no route out
    ("landlock", False, False),  # file access is the uid's: a root-run grader's sandbox has a uid of its own
    ("namespaces,seccomp", True, False),  # Landlock ABI >= 4 still denies TCP connect
    ("namespaces,landlock,seccomp", False, True),  # only the boundary, limits and process kill remain
], ids=["all", "no-namespaces", "no-seccomp", "no-landlock", "landlock-only", "none"])
def test_degraded_modes(grade_file: Grade, tmp_path: Path, listener: socket.socket,
                        monkeypatch: pytest.MonkeyPatch, without: str, narrowed: bool, connects: bool) -> None:
    monkeypatch.setenv("GRADER_SANDBOX_WITHOUT", without)
    outside = tmp_path / "outside.txt"
    run = grade_file(attempts(outside, listener.getsockname()[1]), "3.1")

    assert statuses(run, "3.1") == FULL  # grading never refuses
    off = set(filter(None, without.split(",")))
    assert ("pid-namespace" in run.protections) == ("namespaces" not in off)
    assert any(p.startswith("landlock") for p in run.protections) == ("landlock" not in off)
    assert ("seccomp" in run.protections) == ("seccomp" not in off)
    if os.geteuid() == 0 and "namespaces" not in off:  # its own mount namespace brings Python within reach
        assert "unprivileged-user" in run.protections
    # Without Landlock, a write outside the scratch folder fails only where the sandbox has a uid of its
    # own (a root-run grader whose child can still reach Python); as the grader's own user, it lands.
    assert outside.exists() == (not narrowed and "unprivileged-user" not in run.protections)
    assert _accepted(listener) == connects
    assert not survivors([b"987653"])  # namespaces or the subreaper: in every mode nothing outlives grading
