"""The hostile corpus, round 2: the sandbox's walls and what the judge reads back.

Each test runs an attack written against the documented design (tests/hostile/attacks) and asserts the
property that holds whatever the attack does: the judge reads no path the child could touch, no socket
but AF_UNIX exists in any mode, a root-run grader runs the submission as a uid of no privilege, the
child sees no other process, one submission cannot fill the disk, and nothing the child can observe
predicts a hidden input. Where a test switches protections off (GRADER_SANDBOX_WITHOUT), it shows the
property holding in that degraded mode too.
"""
from __future__ import annotations

import os
import platform
import re
import signal
import socket
import subprocess
import pytest

from conftest import SOLUTION, statuses
from grader.render import terminal
from grader.results import RunResult
from grader.sandbox.limits import Limits

from .test_attacks import ALL_31, SOURCE, Hostile, after, cell, hostile, udp_server  # noqa: F401

MIB = 1 << 20
x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="the attack is x86-64 machine code")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="what a root-run grader does with the submission's uid")


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """The protections a parametrized test switches off, as a machine without them would."""
    value = str(getattr(request, "param", ""))
    monkeypatch.setenv("GRADER_SANDBOX_WITHOUT", value)
    return value


def status_of(run: RunResult, number: int) -> str:
    """A cell's status: cells that ran fine are counted, not listed."""
    return next((r.status for r in run.cells if r.cell == number), "ok")


def printed(run: RunResult, word: str) -> list[str]:
    return [line for line in run.output_tail.splitlines() if line.startswith(word)]


# -- 1. the captured output ------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["secret", "judge-environ", "/dev/zero"])
def test_the_output_is_read_through_the_judges_own_descriptor(hostile: Hostile, target: str) -> None:
    """The output file's name replaced by a link to the instructor's file, the judge's environment or an
    endless device: the judge reads what the submission printed, and nothing else, within its budget."""
    secret = hostile.root / "instructor-only.txt"
    secret.write_text(f"HIDDEN-REFERENCE {hostile.mark}\n", encoding="utf-8")
    secret.chmod(0o600)
    path = {"secret": str(secret), "judge-environ": f"/proc/{os.getpid()}/environ"}.get(target, target)
    run = hostile.grade(after(hostile.attack("output_symlink", secret=path)), "3.1")
    assert f"OUTPUT-REPLACED {hostile.mark}" in run.output_tail
    assert "HIDDEN-REFERENCE" not in run.output_tail and "PATH=" not in run.output_tail
    assert "\0" not in run.output_tail
    assert statuses(run, "3.1") == ALL_31


# -- 3. sockets of any kind, in any mode ---------------------------------------------------------------------
@x86_64_only
@pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["all", "no-namespaces"])
@pytest.mark.parametrize("attack, abi", [("foreign_abi_socket", "i386"), ("foreign_abi_socket", "x32"),
                                         ("io_uring_socket", "")], ids=["i386", "x32", "io_uring"])
def test_no_socket_but_af_unix_through_other_tables_or_io_uring(hostile: Hostile, udp_server: socket.socket,
                                                                  without: str, attack: str, abi: str) -> None:
    """`int 0x80`, x32 numbers and io_uring's IORING_OP_SOCKET: no AF_INET socket is made, with or without
    a network namespace; a foreign system-call table ends the process, io_uring is not there."""
    run = hostile.grade(after(hostile.attack(attack, abi=abi, port=udp_server.getsockname()[1])), "3.1")
    with pytest.raises(BlockingIOError):
        udp_server.recv(4096)
    assert not printed(run, "SOCKET-MADE"), run.output_tail
    record = cell(run, 2)
    if attack == "io_uring_socket":
        assert record.status == "raised" and record.error and "io_uring_setup" in record.error["message"]
    else:  # ended by the filter, and replayed without it
        assert record.status == "crashed" and record.error == {"how": {"signal": signal.SIGSYS}}, record
        assert ", line " in terminal.render(run, None, color=False).split(": made a system call the sandbox forbids")[0]
    assert statuses(run, "3.1") == ALL_31


# -- 4. a root-run grader ------------------------------------------------------------------------------------
@root_only
@pytest.mark.parametrize("without", ["", "landlock"], indirect=True, ids=["all", "no-landlock"])
def test_a_root_run_grader_gives_the_submission_no_privilege(hostile: Hostile, without: str) -> None:
    """Files only root may read stay closed (Landlock lets /etc be read; file permissions alone keep
    /etc/shadow and a root-only file closed), and the result says the submission ran unprivileged."""
    secret = hostile.root / "root-only.txt"
    secret.write_text("ROOT-ONLY\n", encoding="utf-8")
    secret.chmod(0o600)
    run = hostile.grade(after(hostile.attack("read_private_files", secret=secret)), "3.1")
    assert not printed(run, "READ"), run.output_tail
    assert len(printed(run, "DENIED")) == 2, run.output_tail
    assert "unprivileged-user" in run.protections
    assert statuses(run, "3.1") == ALL_31


@root_only
def test_the_process_cap_holds_for_a_root_run_grader(hostile: Hostile) -> None:
    """700 forks under a cap of 512: the cap holds (a uid of the sandbox's own counts them), and every
    process forked is gone after grading (Hostile.grade checks)."""
    run = hostile.grade(after(hostile.attack("fork_count")), "3.1")
    forked = printed(run, "FORKED")
    assert forked, run.output_tail
    assert int(forked[-1].split()[1]) < Limits().processes, forked
    assert "process-limit" in run.protections
    assert statuses(run, "3.1") == ALL_31


# -- 5. /proc of other processes ------------------------------------------------------------------------------
@pytest.mark.parametrize("without", ["", "namespaces", "landlock"], indirect=True,
                         ids=["all", "no-namespaces", "no-landlock"])
def test_the_submission_sees_no_other_process(hostile: Hostile, zygote_pid: int | None, without: str) -> None:
    """Neither the zygote's /proc entries (its command line, its open files, its other children: the
    sandboxes of classmates) nor a marked process of the test's are readable: a PID namespace with its
    own /proc where there is one, Landlock rules that admit only the child's own entries where not; without
    Landlock, the PID namespace and its /proc alone (each protection holds on its own)."""
    canary = subprocess.Popen(["sleep", "123459", hostile.mark], env={"CANARY": hostile.mark})
    try:
        pids = ",".join(str(p) for p in (zygote_pid, canary.pid, os.getpid()) if p)
        run = hostile.grade(after(hostile.attack("proc_of_others", pids=pids)), "3.1")
    finally:
        canary.kill()
        canary.wait()
    assert not printed(run, "LEAK"), run.output_tail
    if "namespaces" not in without:
        assert {"pid-namespace", "private-proc"} <= set(run.protections), run.protections
    assert statuses(run, "3.1") == ALL_31


# -- 6. the disk ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["tmpfs", "judge-watch"])
def test_a_submission_cannot_fill_the_disk(hostile: Hostile, without: str) -> None:
    """Up to 1 GiB in files under the file-size cap: the scratch folder stops at its quota, on a tmpfs of
    that size (the write fails) or by the judge's watch (the child is stopped and the cell says so); the
    answers keep their points and the next student is graded as usual."""
    quota = Limits().disk_bytes
    run = hostile.grade(after(hostile.attack("disk_fill")), "3.1", timeout=60)
    if not without:
        assert "disk-quota" in run.protections
        stopped = printed(run, "STOPPED")
        assert status_of(run, 2) == "ok" and stopped, run.output_tail
        assert int(stopped[-1].split()[1]) * MIB <= quota, stopped
    else:
        assert "disk-watch" in run.protections and "disk-quota" not in run.protections
        record = cell(run, 2)
        assert record.status == "crashed" and record.error == {"how": {"disk_bytes": quota}}, record
        assert ": wrote more than 256 MiB into the submission's folder" in terminal.render(run, None, color=False)
        filled = [int(line.split()[1]) for line in printed(run, "FILLED")]
        assert max(filled, default=0) * MIB < 4 * quota, filled  # stopped within a few files of the quota
    assert statuses(run, "3.1") == ALL_31
    honest = hostile.grade_file(SOLUTION, "3.1")
    assert honest.full_marks


@pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["tmpfs", "judge-watch"])
def test_files_filled_through_mappings_count_as_they_grow(hostile: Hostile, without: str) -> None:
    """Files made at once as holes, then filled page by page through shared mappings: no new entry and no
    write() as they grow. The tmpfs refuses the page past its size (the child ends on SIGBUS) and the judge's
    watch, which measures blocks, stops the child near the quota; the answers keep their points."""
    quota = Limits().disk_bytes
    run = hostile.grade(after(hostile.attack("disk_fill_mapped")), "3.1", timeout=60)
    record = cell(run, 2)
    assert record.status == "crashed", record
    filled = [int(line.split()[1]) for line in printed(run, "FILLED")]
    assert max(filled, default=0) * MIB < 2 * quota, filled
    if without:
        assert "disk-watch" in run.protections and record.error == {"how": {"disk_bytes": quota}}, record
    assert statuses(run, "3.1") == ALL_31


# -- 7. hidden inputs --------------------------------------------------------------------------------------------
def test_the_sandbox_seed_predicts_no_hidden_input(hostile: Hostile) -> None:
    """The child's torch.initial_seed() run through the judge's formula for a check's generator gives
    a tensor that is not the check's input: the sandbox is seeded from the run's seed one way only."""
    run = hostile.grade(SOURCE + "\n" + hostile.attack("predict_inputs"), "mask")
    assert not printed(run, "PREDICTED"), run.output_tail
    assert run.full_marks
    seeds = {int(s) for s in re.findall(r"SEED (\d+)", run.output_tail)}
    assert seeds and run.seed not in seeds


# -- the message a check gives when its probe ends the sandbox ------------------------------------------------
@x86_64_only
@pytest.mark.parametrize("without", ["namespaces"], indirect=True)
@pytest.mark.parametrize("attack, key", [("foreign_abi_socket", "check.forbidden_call"),
                                         ("disk_fill", "check.disk_full")])
def test_a_forward_that_breaks_a_wall_fails_its_check_by_name(hostile: Hostile, udp_server: socket.socket,
                                                              without: str, attack: str, key: str) -> None:
    """The attack inside CausalAttention.forward: the mask checks that run it fail with a message that says
    what stopped it (a forbidden system call, the disk quota); 3.1 beside it keeps its points."""
    code = hostile.attack(attack, abi="i386", port=udp_server.getsockname()[1])
    wrapped = (f"_ATTACK = {code!r}\n_book_forward = CausalAttention.forward\n\n\n"
               "def _forward(self, x):\n    exec(_ATTACK, {})\n    return _book_forward(self, x)\n\n\n"
               "CausalAttention.forward = _forward\n")
    run = hostile.grade(after(wrapped), "3.1,mask", timeout=60)
    causal = next(c for e in run.exercises if e.id == "mask" for c in e.checks if c.id == "causal")
    assert (causal.status, causal.message_key) == ("failed", key), causal
    assert "CausalAttention" in causal.message
    assert statuses(run, "3.1") == ALL_31
