"""The hostile corpus, round 3: nothing outlives a grade, nothing a submission makes breaks the judge, a
classmate costs nobody points, and the sandbox gets no file its folder's owner could not read.

Each test runs an attack of tests/hostile/attacks written against the documented design and asserts the
property that holds whatever it does (docs/security.md): when a grade ends, normally, killed or by the
death of its parent, every process the submission started is gone and its scratch folder removed; a tree
of any depth is the submission's problem, never an exception in the judge; an honest student's verdict in
a batch is the one it gets alone; a file beside the submission reaches the sandbox only where its folder's
owner could read it and it has no other name. Most of these walls matter most without namespaces
(GRADER_SANDBOX_WITHOUT=namespaces, as on hosted CI runners), so the tests run in that mode and in full.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from jupyter_client.manager import start_new_kernel

import processes
from conftest import CORPUS, SOLUTION, grade, select, statuses
from grader.judge.launcher import ZygoteLauncher
from grader.classes.roster import collect
from grader.sandbox.limits import Limits
from helpers import GRADE, attack, cell, clean_env

from .test_attacks import ALL_31, SOURCE, Hostile, after, hostile  # noqa: F401
from .test_sandbox_walls import printed, root_only, without  # noqa: F401

MODES = pytest.mark.parametrize("without", ["", "namespaces"], indirect=True, ids=["all", "no-namespaces"])
CHAIN = 300  # processes in orphan_chain


def scratch_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("grader-"))


def surviving(mark: str, wait: float) -> list[int]:
    """The processes named `mark` still alive after `wait` s."""
    return processes.survivors([mark.encode()], wait)


@pytest.fixture
def links(hostile: Hostile) -> Iterator[str]:
    """The name every link of the test's chain runs under (its mark); what a failed test leaves is ended."""
    yield hostile.mark
    processes.kill(processes.marked([hostile.mark.encode()]))


@pytest.fixture
def temp(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temp folder of the test's own, where the judge makes its scratch folders (others' tests share /tmp),
    outside the submission's folder; emptied by `rm -rf` afterwards, which no depth stops."""
    folder = tmp_path_factory.mktemp("scratch")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


# -- 1. a chain of sessions ------------------------------------------------------------------------------------
@MODES
def test_a_chain_of_sessions_ends_with_the_grade(hostile: Hostile, links: str, without: str) -> None:
    """300 processes, each a child of the one before and each in a session of its own: every one is gone
    when `grade` returns, however deep the chain, and the answers keep their points."""
    run = hostile.grade(after(hostile.attack("orphan_chain") + "\nimport time\ntime.sleep(2)\n"), "3.1")
    assert not surviving(links, 5), "links of the chain outlived the grade"
    assert statuses(run, "3.1") == ALL_31


@MODES
def test_a_chain_of_sessions_ends_when_the_grade_is_killed(hostile: Hostile, links: str, without: str) -> None:
    """`grade` killed with -9 while the whole chain sleeps: every link is gone soon after, though the judge
    that started the sandbox could clean nothing up."""
    path = hostile.folder / "submission.py"
    path.write_text(after(hostile.attack("orphan_chain") + "\nimport time\ntime.sleep(60)\n"), encoding="utf-8")
    proc = subprocess.Popen([*GRADE, "3.1", str(path), "--timeout", "120"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=clean_env(GRADER_SANDBOX_WITHOUT=without))
    try:
        deadline = time.monotonic() + 60
        while len(processes.marked([links.encode()])) < CHAIN and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(processes.marked([links.encode()])) == CHAIN, "the chain was not built"
    finally:
        proc.kill()
        proc.wait()
    assert not surviving(links, 10), "links of the chain outlived the killed grade"


# -- 2. a kernel restarted during %grade ----------------------------------------------------------------------------
@MODES
def test_a_kernel_restarted_mid_grade_leaves_no_process_and_no_scratch_folder(tmp_path: Path, without: str) -> None:
    """The kernel killed (as a restart does) while its `%grade` runs a cell that left a chain of sessions
    behind: the chain is gone and so is the scratch folder, with its copies of the files beside the notebook."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    (tmp_path / "input.txt").write_text("a file beside the notebook\n", encoding="utf-8")
    mark = "kernel" + os.urandom(4).hex()
    env = {**os.environ, "TMPDIR": str(temp), "GRADER_SANDBOX_WITHOUT": without}
    submission = tmp_path / "submission.py"
    submission.write_text(after(attack("orphan_chain", mark=mark) + "\nimport time\ntime.sleep(60)\n"),
                          encoding="utf-8")
    kernel, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        client.execute("%load_ext grader\n%grade 3.1 submission.py --timeout 200")
        deadline = time.monotonic() + 90
        while len(processes.marked([mark.encode()])) < CHAIN and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(processes.marked([mark.encode()])) == CHAIN, "the graded cell did not run"
        assert scratch_folders(temp), "no scratch folder while grading"
        os.kill(kernel.provisioner.process.pid, signal.SIGKILL)  # type: ignore[union-attr]
        assert not surviving(mark, 15), "a process the graded code started outlived the kernel"
        deadline = time.monotonic() + 15
        while scratch_folders(temp) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not scratch_folders(temp), "the grade's scratch folder outlived the kernel"
    finally:
        client.stop_channels()
        if kernel.is_alive():
            kernel.shutdown_kernel(now=True)
        processes.kill(processes.marked([mark.encode()]))


# -- 3. a tree deeper than recursion ------------------------------------------------------------------------------
@MODES
def test_a_tree_of_any_depth_cannot_raise_in_the_judge(hostile: Hostile, without: str, temp: Path) -> None:
    """1,400 nested folders in the scratch folder: no exception reaches the grade (the disk watch stops the
    child or the tmpfs holds it), the answers keep their points, and the scratch folder is removed."""
    run = hostile.grade(after(hostile.attack("deep_tree")), "3.1")
    if without:  # the watch counts a tree past its depth as full: the child is stopped, the folder put back
        assert cell(run, 2).status == "crashed" and cell(run, 2).error == {"how": {"disk_bytes": Limits().disk_bytes}}
    else:  # on the child's tmpfs, which goes with its namespace
        assert printed(run, "DEEP") and cell(run, 2).status == "ok", run.output_tail
    assert statuses(run, "3.1") == ALL_31
    assert not scratch_folders(temp), "the deep tree's scratch folder was left behind"


# -- 4. a classmate who takes the machine --------------------------------------------------------------------------
def test_a_busy_classmate_costs_an_honest_student_nothing(tmp_path: Path) -> None:
    """`grade batch -j 2` of the book's notebook beside 300 spinning processes of a classmate (within the
    process cap): the honest student gets the verdict it gets alone, full marks, and nothing spins after."""
    classroom = tmp_path / "class"
    classroom.mkdir()
    (classroom / "ann.ipynb").write_bytes((CORPUS / "book_style.ipynb").read_bytes())
    (classroom / "zed.py").write_text(attack("busy_processes") + "\n" + SOURCE, encoding="utf-8")
    outdir = tmp_path / "out"
    result = subprocess.run([*GRADE, "batch", str(classroom), "-o", str(outdir), "-j", "2", "-e", "ch03",
                             "--timeout", "20"], capture_output=True, text=True,
                            env=clean_env(GRADER_SANDBOX_WITHOUT="namespaces"), timeout=300)
    assert result.returncode == 0, result.stderr
    rows = {row["student"]: row for row in map(json.loads, (outdir / "results.jsonl").read_text().splitlines())}
    honest = rows["ann"]
    assert (honest["score"], honest["max_score"]) == (38, 38), json.dumps(honest["result"]["exercises"])[:3000]
    assert not processes.survivors([b"987657"], 5)



@MODES
def test_a_new_session_stays_in_the_sandboxs_group(hostile: Hostile, without: str) -> None:
    """A child that calls setsid and setpgid, as a daemon does, is told it succeeded and stays in the session
    and process group the judge kills as one (seccomp makes both calls succeed and do nothing)."""
    run = hostile.grade(after(hostile.attack("session_escape")), "3.1")
    assert printed(run, "CALLS ok") and printed(run, "STAYED"), run.output_tail
    assert not printed(run, "ESCAPED"), run.output_tail
    assert statuses(run, "3.1") == ALL_31

# -- 5. files beside the submission -----------------------------------------------------------------------------------
@root_only
@MODES
def test_the_sandbox_gets_no_file_its_folders_owner_could_not_read(hostile: Hostile, launcher: ZygoteLauncher,
                                                                     without: str) -> None:
    """A student's folder (owned by the student) holding a second name of a root-only file that lies in a
    closed folder (a tar's hard-link entry makes one), and a root-only file of its own: neither reaches the
    sandbox; the student's own file beside them does."""
    closed = hostile.root / "instructor"
    closed.mkdir(mode=0o700)
    secret = closed / "key.txt"
    secret.write_text("ROOT-ONLY-KEY\n", encoding="utf-8")
    secret.chmod(0o600)
    os.link(secret, hostile.folder / "linked.txt")
    private = hostile.folder / "private.txt"
    private.write_text("ROOT-ONLY-NOTE\n", encoding="utf-8")
    private.chmod(0o600)
    (hostile.folder / "notes.txt").write_text("the student's own notes\n", encoding="utf-8")
    os.chown(hostile.folder, 54321, 54321)
    path = hostile.folder / "submission.py"
    path.write_text(after(hostile.attack("read_beside", names="linked.txt,private.txt,notes.txt")), encoding="utf-8")
    run = grade(path, select("3.1"), launcher, seed=0, beside=True)
    assert "ROOT-ONLY" not in run.output_tail, run.output_tail
    assert {line.split()[1] for line in printed(run, "ABSENT")} == {"linked.txt", "private.txt"}, run.output_tail
    assert printed(run, "READ notes.txt"), run.output_tail
    assert statuses(run, "3.1") == ALL_31


@root_only
def test_a_batch_hand_in_gets_no_second_name_of_a_file_elsewhere(tmp_path: Path) -> None:
    """A student's folder of a class (unpacked by the instructor's tar) with a hard link to a root-only
    file: the link is left out, and the instructor is told why."""
    closed = tmp_path / "instructor"
    closed.mkdir(mode=0o700)
    secret = closed / "key.txt"
    secret.write_text("ROOT-ONLY-KEY\n", encoding="utf-8")
    secret.chmod(0o600)
    for name in ("ann", "bob"):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "answers.py").write_text(SOURCE, encoding="utf-8")
    linked = tmp_path / "class" / "ann" / "data.txt"
    os.link(secret, linked)
    students, skipped = collect([tmp_path / "class"], tmp_path)
    assert {s.name: [f.name for f in s.files] for s in students} == {"ann": ["answers.py"], "bob": ["answers.py"]}
    assert [(s.path, s.reason.key) for s in skipped] == [(str(linked), "roster.not_theirs")]

