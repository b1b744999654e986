"""A root-run zygote forks each sandbox straight into PID 1 of a PID namespace of its own
(grader.sandbox.isolation.PidNamespaces): no process of the sandbox waits outside its namespace, and the zygote's
forks after it are ordinary ones again. Where the grader is not root, a waiting parent stays (tests/sandbox/
test_unprivileged.py grades a class both ways)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.judge.client import SandboxClient
from grader.load.submission import load
from grader.sandbox import isolation
from processes import children_of

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only a root-run zygote forks into a PID namespace")


def _namespace_pids(pid: int) -> list[int]:
    """The process's pid in each PID namespace it is in, the host's first (/proc/PID/status, NSpid)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("NSpid:"))
    return [int(p) for p in line.split()[1:]]


def _forked_pid() -> int:
    """The pid a child forked now sees as its own."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, str(os.getpid()).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as seen:
        return int(seen.read())


def test_a_sandbox_is_pid_one_of_its_own_namespace_and_the_zygotes_child(launcher, zygote_pid: int | None,
                                                                          tmp_path: Path) -> None:
    if zygote_pid is None or os.environ.get("GRADER_SANDBOX_WITHOUT"):
        pytest.skip("a forking zygote with every protection")
    path = tmp_path / "answer.py"
    path.write_text("x = 1\n", encoding="utf-8")
    sandbox = SandboxClient(load(path), launcher, seed=0)
    try:
        sandbox.start()
        child = sandbox._child
        assert child is not None
        assert _namespace_pids(child.pid) == [child.pid, 1]
        assert child.pid in children_of(zygote_pid)
        assert "pid-namespace" in sandbox.protections
    finally:
        sandbox.close()


def test_after_a_fork_into_a_fresh_namespace_the_next_fork_is_an_ordinary_one() -> None:
    namespaces = isolation.PidNamespaces()
    if not namespaces.fresh():
        pytest.skip("this kernel refuses a PID namespace")
    try:
        first = _forked_pid()
    finally:
        namespaces.reset()
    assert first == 1
    assert _forked_pid() != 1


def test_pid_one_whose_other_namespaces_are_refused_still_runs_as_a_uid_of_its_own(monkeypatch: pytest.MonkeyPatch,
                                                                                  tmp_path: Path) -> None:
    """A kernel that lets the zygote make a PID namespace but refuses the child its network and mount ones leaves
    it PID 1 without walls of its own: it still drops to a uid of its own where that uid reads Python."""
    monkeypatch.setattr(isolation, "_enter", lambda root, shared: [])
    walls = isolation.isolate(-1, str(tmp_path), 0, ("/usr",), pid_one=True)
    assert walls.protections == ["pid-namespace"]
    assert walls.uid == isolation.SANDBOX_UID_BASE + os.getpid()
