"""The hostile corpus, round 5 (issue 48, points 1 and 2): the memory cap holds for the whole submission.

RLIMIT_DATA caps one process's data mappings. A mapping of the kind a stack is (MAP_GROWSDOWN) is not a data
mapping: the system-call filter refuses it, and where there is no filter the whole-submission cap counts it. A
submission that forks holds the per-process cap in each process: what all of them add together is held to the
cap, by a memory cgroup where the judge may make one (root on this machine: cgroup v1's memory hierarchy), else
by the judge's watch (GRADER_SANDBOX_WITHOUT=cgroup makes a run take it), which stops the submission at its
first reading past the cap. Each test runs in every mode that can hold it.
"""
from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.judge import memory
from grader.render import terminal
from grader.results import RunResult

from .test_attacks import ALL_31, Hostile, after, cell, hostile  # noqa: F401
from .test_sandbox_walls import printed, without  # noqa: F401
from .test_caps_and_reach import MIB, capped  # noqa: F401

CAP_MIB = 384  # the `capped` fixture's cap
STEP_MIB, PAUSE_S = 16, 0.1  # the forking attack's pace: 2 x 16 MiB every 0.1 s, a reading's worth at a time
MODES = pytest.mark.parametrize("without", ["", "namespaces", "cgroup", "cgroup,namespaces"], indirect=True,
                                ids=["all", "no-namespaces", "watch", "watch-no-namespaces"])
UNFILTERED = pytest.mark.parametrize("without", ["seccomp", "seccomp,cgroup"], indirect=True,
                                     ids=["no-seccomp", "no-seccomp-watch"])


def cap_kind(run: RunResult, without: str) -> str:
    kind = "memory-watch" if "cgroup" in without else next(
        (p for p in run.protections if p in ("memory-cgroup", "memory-watch")), "")
    assert kind in run.protections, run.protections
    return kind


def stopped_for_memory(run: RunResult, most_mib: float) -> None:
    """Cell 2 stopped at the cap, having held at most `most_mib` (the judge's reading, or the cgroup's peak)."""
    record = cell(run, 2)
    how = (record.error or {}).get("how", {})
    assert record.status == "crashed" and set(how) == {"memory_bytes", "held_bytes"}, record
    assert how["memory_bytes"] == CAP_MIB * MIB and 0 < how["held_bytes"] <= most_mib * MIB, (how, most_mib)
    shown = terminal.render(run, None, color=False)
    assert f": held more than {CAP_MIB} MiB of memory (all its processes together), was stopped" in shown, shown
    assert statuses_31(run) == ALL_31


def statuses_31(run: RunResult) -> dict[str, str]:
    return {check.id: check.status for e in run.exercises if e.id == "3.1" for check in e.checks}


@MODES
def test_a_stack_kind_mapping_is_refused(capped: Hostile, without: str) -> None:  # noqa: F811
    """Four 128 MiB mappings that grow down, populated, under a cap of 384 MiB: the filter refuses the first."""
    run = capped.grade(after(capped.attack("memory_growsdown", count=4, mib=128)), "3.1")
    assert printed(run, "HELD") == [] and printed(run, "REFUSED") == [f"REFUSED {errno.ENOMEM}"], run.output_tail
    assert statuses_31(run) == ALL_31


@UNFILTERED
def test_without_the_filter_a_stack_kind_mapping_counts_against_the_cap(capped: Hostile,  # noqa: F811
                                                                         without: str) -> None:
    """Where no filter refuses it, the same 512 MiB is held to the whole submission's cap: the cell is stopped."""
    run = capped.grade(after(capped.attack("memory_growsdown", count=4, mib=128)), "3.1")
    kind = cap_kind(run, without)
    # each mapping comes populated whole: a reading may come after a further 128 MiB mapping was made (and the
    # few MiB the child's own work adds)
    stopped_for_memory(run, CAP_MIB + (128 + 16 if kind == "memory-watch" else 0))


@MODES
def test_the_cap_holds_for_all_the_processes_together(capped: Hostile, without: str) -> None:  # noqa: F811
    """Two processes each touching 352 MiB (under the cap of one process) hold 704 MiB together under a cap of
    384 MiB: the submission is stopped as soon as the two hold more than the cap, by the kernel as the pages are
    touched (the cgroup's peak is the cap), or by the judge at its first reading past it: at this pace a reading
    every 0.1 s sees at most 2 x 16 MiB more than the last, so the reading that stops it is within that of the
    cap (and a step each in flight)."""
    run = capped.grade(after(capped.attack("memory_fork", mib=352, step=STEP_MIB, pause=PAUSE_S)), "3.1")
    kind = cap_kind(run, without)
    stopped_for_memory(run, CAP_MIB + (2 * STEP_MIB * 2 if kind == "memory-watch" else 0))


@pytest.mark.parametrize("without", [""], indirect=True)
def test_the_cgroup_is_made_and_removed(capped: Hostile, without: str) -> None:  # noqa: F811
    """Where the judge may make a memory cgroup (root, here), each child has one, and none outlives the grade."""
    parents = [p for p in (memory._own_v2(), memory._own_v1()) if p is not None]
    if not parents or not os.access(parents[0], os.W_OK):
        pytest.skip("this machine does not let the judge make a memory cgroup: the judge's watch holds the cap")
    run = capped.grade(after("x = 1\n"), "3.1")
    assert "memory-cgroup" in run.protections and "memory-watch" not in run.protections
    mine = re.compile(rf"grader-{os.getpid()}-\d+")
    assert not [child for parent in parents for child in parent.iterdir() if mine.fullmatch(child.name)]


# A process that forks once when told (a line on stdin), then touches MiB told the same way, and sleeps.
FORKS_WHEN_TOLD = """
import os, sys, time
sys.stdin.readline()
os.fork()
held = bytearray(int(sys.stdin.readline()) << 20)
time.sleep(60)
"""


@pytest.fixture
def leader() -> Iterator[subprocess.Popen[str]]:
    """A stand-in for a sandbox's first process, in a group of its own: the process the judge moves first."""
    proc = subprocess.Popen([sys.executable, "-c", FORKS_WHEN_TOLD], stdin=subprocess.PIPE, text=True,
                            start_new_session=True)
    yield proc
    os.killpg(proc.pid, 9)
    proc.wait()


def forked(leader: subprocess.Popen[str]) -> int:
    assert leader.stdin is not None
    leader.stdin.write("fork\n")
    leader.stdin.flush()
    deadline = time.monotonic() + 10
    while not (children := Path(f"/proc/{leader.pid}/task/{leader.pid}/children").read_text().split()):
        assert time.monotonic() < deadline, "the leader did not fork"
        time.sleep(0.01)
    return int(children[0])


def test_a_process_forked_before_its_move_is_moved_once_the_sandbox_has_started(
        leader: subprocess.Popen[str]) -> None:
    """The judge moves a sandbox into its cgroup while the sandbox starts, and the sandbox forks its PID 1
    meanwhile: a fork that came first leaves that process outside (here, moved back out by hand), and
    `started`, before any submission code runs, moves it in."""
    parents = [p for p in (memory._own_v2(), memory._own_v1()) if p is not None]
    if not parents or not os.access(parents[0], os.W_OK):
        pytest.skip("this machine does not let the judge make a memory cgroup: the judge's watch holds the cap")
    cap = memory.MemoryCap.start(CAP_MIB * MIB, leader.pid, watch_only=False)
    assert cap.cgroup is not None and cap.cgroup.holds() == {leader.pid}
    child = forked(leader)
    assert cap.cgroup.holds() == {leader.pid, child}  # born in it
    (cap.cgroup.path.parent / "cgroup.procs").write_text(str(child))  # as if forked before the move
    assert cap.cgroup.holds() == {leader.pid}
    cap.started()
    assert cap.cgroup.holds() == {leader.pid, child} and cap.kind == "memory-cgroup"
    cap.end()
    assert not cap.cgroup.path.exists()


def test_the_watch_counts_from_the_sandbox_start(leader: subprocess.Popen[str]) -> None:
    """The watch starts with the child forked and takes its baseline once the sandbox has started: until then
    nothing it holds (the zygote's memory) counts; after, what it adds does."""
    cap = memory.MemoryCap.start(4 * MIB, leader.pid, watch_only=True)
    assert cap.kind == "memory-watch" and cap.over() == {}  # the interpreter it started with, ~10 MB, is not counted
    cap.started()
    forked(leader)
    assert leader.stdin is not None
    leader.stdin.write("64\n")
    leader.stdin.flush()
    deadline = time.monotonic() + 10
    while not (full := cap.over()):
        assert time.monotonic() < deadline, "64 MiB more was never counted"
        time.sleep(0.05)
    assert full["memory_bytes"] == 4 * MIB and full["held_bytes"] > 4 * MIB  # the first reading past the cap
