"""The hostile corpus, round 5 (issue 48, point 4): every protection a result lists is held by a test that
fails without it.

A mutation check (one protection removed from the code at a time, tests/hostile run) found caps that no
attack pressed on: the file-size and open-files caps, the CPU cap and the core-dump cap. Each gets an attack
here that a submission past it would win: a file past 64 MiB (the write fails with EFBIG and the file stays
at the cap), more than 256 descriptors at once (EMFILE, the judge unharmed), a process that spins for ever
(killed at its CPU cap, here lowered so that it costs little), a core dump (none, the cap cannot be lifted).
Protections that stand behind another one (the network namespace behind seccomp, the PID namespace and its
`/proc` behind Landlock, the subreaper behind the PID namespace, seccomp's refusal of `setsid` and the memory
cgroup's removal) are tested here in the mode where they are the only wall (GRADER_SANDBOX_WITHOUT). The
table of every protection and the test that holds it is in docs/security.md, "Which test holds each
protection".
"""
from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

from conftest import grade, select, statuses
from grader.judge.launcher import ZygoteLauncher
from grader.results import RunResult
from grader.sandbox.limits import Limits
from helpers import cell, cells

from .test_attacks import ALL_31, Hostile, after, hostile, udp_server  # noqa: F401
from .test_sandbox_walls import printed, without  # noqa: F401

MODES = pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["all", "no-namespaces"])
MIB = 1 << 20


def line(run: RunResult, word: str) -> list[str]:
    """The words of the last line the attack printed starting with `word` (the line must be there)."""
    found = printed(run, word)
    assert found, f"the attack printed no {word} line: {run.output_tail[-600:]!r}"
    return found[-1].split()


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


# -- the caps of grader/sandbox/limits.py ----------------------------------------------------------------------
@MODES
def test_no_file_grows_past_the_file_size_cap(hostile: Hostile, without: str) -> None:
    """80 MiB written to one file, and another stretched to 80 MiB with ftruncate, under a cap of 64 MiB (and a
    disk quota of 256 MiB, which would hold it): the write fails with EFBIG once the file holds exactly the
    cap, the stretch fails too, the cap cannot be lifted, and the answers keep their points."""
    cap = Limits().file_bytes
    run = hostile.grade(after(hostile.attack("protect_file_size", mib=80)), "3.1")
    assert not printed(run, "RAISED") and not printed(run, "WROTE"), run.output_tail
    assert line(run, "STOPPED")[1:] == ["EFBIG", str(cap)]
    assert line(run, "NOT-STRETCHED")[1:] == ["EFBIG"]
    assert "file-size-limit" in run.protections
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31


@MODES
def test_no_submission_holds_more_files_than_the_open_files_cap(hostile: Hostile, without: str) -> None:
    """2,048 descriptors asked for, held open past the end of the cell, after lifting the cap to its hard limit:
    opening stops with EMFILE below 256, the cap stays where it was, the answers before it keep their points,
    and the judge holds no more descriptors after the grade than before it."""
    cap = Limits().open_files
    held = open_descriptors()
    run = hostile.grade(after(hostile.attack("protect_open_files", count=2048)), "3.1")
    assert not printed(run, "HELD"), run.output_tail
    stopped = line(run, "STOPPED")
    assert stopped[1] == "EMFILE" and 0 < int(stopped[2]) < cap, stopped
    assert line(run, "NOFILE")[1:] == [str(cap), str(cap)]
    assert "open-files-limit" in run.protections
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31
    assert open_descriptors() <= held


@pytest.fixture
def cpu_capped(launcher: ZygoteLauncher, tmp_path: Path) -> Hostile:
    """A Hostile whose grades run under a CPU cap of 2 s a process, so that spinning past it costs little."""
    limits = Limits(cpu_seconds=2)

    def run(path: Path, exercises: str, *, timeout: float = 60.0) -> RunResult:
        return grade(path, select(exercises), launcher, seed=0, timeout=timeout, limits=limits)

    return Hostile(run, tmp_path)


@MODES
def test_a_process_that_spins_is_killed_at_the_cpu_cap(cpu_capped: Hostile, without: str) -> None:
    """A forked process spins for ever, ignoring SIGXCPU and trying to lift the cap: under a cap of 2 CPU
    seconds the kernel kills it there (long before the cell's share of the 60 s budget would interrupt the
    cell waiting for it), and the answers keep their points."""
    run = cpu_capped.grade(after(cpu_capped.attack("protect_cpu_spin")), "3.1", timeout=60)
    ended = line(run, "SPINNER-ENDED")
    assert int(ended[1]) in (signal.SIGKILL, signal.SIGXCPU), ended
    assert 1.5 <= float(ended[2]) < 4.0, ended
    assert "cpu-limit" in run.protections
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31


def core_pattern() -> str:
    try:
        return Path("/proc/sys/kernel/core_pattern").read_text().strip()
    except OSError:
        return ""


@MODES
def test_no_process_of_a_submission_dumps_core(hostile: Hostile, without: str) -> None:
    """A process of the submission aborted after the core-size cap was lifted to its hard limit: the cap is 0
    and stays 0, so no core is dumped (a core of a process near the memory cap is gigabytes of disk) and no
    core file appears. Where the machine pipes cores to a program (`|` in core_pattern), the kernel hands
    the dump to that program whatever the cap says, so only the cap itself is asserted there."""
    run = hostile.grade(after(hostile.attack("protect_core_dump")), "3.1")
    aborted = line(run, "ABORTED")
    assert int(aborted[1]) == signal.SIGABRT, aborted
    if not core_pattern().startswith("|"):
        assert aborted[2] == "NO-CORE", aborted
        assert line(run, "FILES")[1:] == ["[]"]
    assert line(run, "CORE-LIMIT")[1:] == ["0", "0"]
    assert "no-core-dumps" in run.protections
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31


# -- walls that stand behind another, in the mode where they stand alone --------------------------------------------
@pytest.mark.parametrize("without", ["seccomp"], indirect=True)
def test_without_seccomp_the_network_namespace_alone_keeps_a_datagram_in(hostile: Hostile,
                                                                           udp_server: socket.socket,
                                                                           without: str) -> None:
    """A UDP datagram to a port of the test's, with seccomp (which refuses every socket but AF_UNIX) switched
    off: Landlock does not cover UDP, so the empty network namespace is what keeps it in. Nothing arrives,
    the cell says the network is unreachable, and the answers keep their points."""
    run = hostile.grade(after(hostile.attack("socket_udp", port=udp_server.getsockname()[1])), "3.1")
    with pytest.raises(BlockingIOError):
        udp_server.recv(4096)
    assert cell(run, 2).status == "raised", run.output_tail
    assert "network-namespace" in run.protections and "seccomp" not in run.protections
    assert statuses(run, "3.1") == ALL_31


@pytest.mark.parametrize("without", ["namespaces,seccomp,cgroup"], indirect=True)
def test_without_namespaces_seccomp_and_a_cgroup_the_subreaper_ends_an_orphan_in_a_session_of_its_own(
        hostile: Hostile, without: str) -> None:
    """`sleep` in a new session: with no PID namespace to end it with PID 1, no seccomp to make `setsid` do
    nothing (so it leaves the sandbox's process group, and the group kill misses it) and no memory cgroup to
    be emptied when the grade ends (`cgroup` in GRADER_SANDBOX_WITHOUT; a grader without one ignores it), the
    zygote, its subreaper, inherits it and ends it with the grade (Hostile.grade asserts that no marked process
    is left)."""
    run = hostile.grade(after(hostile.attack("orphan_setsid")), "3.1")
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31
    assert "subreaper" in run.protections
