"""The same verdicts whoever runs the grader: root (a container, a course's CI image) or a student's own user.

This machine's tests run as root, where a child drops to a uid of its own. A student's laptop and a hosted CI
runner grade as an ordinary user: the child then enters a user namespace, or none where the kernel refuses
one (GitHub's Ubuntu 24.04 runners block unprivileged user namespaces). So one class is graded here as root
and again as `nobody`, with namespaces and without, and every check of every student must get the same verdict.

As `nobody`, Python may lie in a folder only root may enter (`/root/.pyenv` on this machine): the grader gets
CAP_DAC_READ_SEARCH as an ambient capability to reach it, which the sandbox drops with every other capability
before any submission code runs, as it does for root.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import CORPUS, SOLUTION, mutant, mutations
from helpers import GRADE, clean_env

SETPRIV = shutil.which("setpriv")
NOBODY = 65534
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None, reason="drops from root to nobody with setpriv")
AS_NOBODY = [str(SETPRIV), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
BUGS = {"bob": (mutations.SA_BUGS, "missing_transpose"), "cat": (mutations.MASK_BUGS, "diagonal_zero"),
        "dan": (mutations.GPT2_BUGS, "wrong_context"), "fay": (mutations.WRAPPER_BUGS, "four_dim"), "eve": (mutations.DEVICE_BUGS, "plain_tensor_mask")}


@pytest.fixture(scope="module")
def classroom() -> Iterator[Path]:
    """The book's notebook and five answers with one named bug each, in a folder anyone may read (pytest's own
    temporary folders are root's alone)."""
    root = Path(tempfile.mkdtemp(prefix="grader-unprivileged-"))
    try:
        root.chmod(0o755)
        submissions = root / "in"
        submissions.mkdir(mode=0o755)
        shutil.copyfile(CORPUS / "book_style.ipynb", submissions / "ann.ipynb")
        for student, (group, bug) in BUGS.items():
            (submissions / f"{student}.py").write_text(mutant(group, bug), encoding="utf-8")
        for path in submissions.iterdir():
            path.chmod(0o644)
        yield root
    finally:
        shutil.rmtree(root)


def batch(classroom: Path, name: str, prefix: list[str], without: str) -> dict[str, dict[str, Any]]:
    """`grade batch -e ch03` of the class, run after `prefix` (none: as root), into an output folder of its own
    that the user may write; each student's row of results.jsonl."""
    outdir = classroom / name
    outdir.mkdir(mode=0o777)
    outdir.chmod(0o777)
    done = subprocess.run([*prefix, *GRADE, "batch", str(classroom / "in"), "-e", "ch03", "-o", str(outdir),
                           "-j", "2", "--timeout", "60"], cwd=classroom, capture_output=True, text=True,
                          env=clean_env(HOME=str(outdir), GRADER_SANDBOX_WITHOUT=without), timeout=600)
    assert done.returncode in (0, 1), done.stderr
    rows = [json.loads(line) for line in (outdir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["student"]: row for row in rows}


def verdicts(row: dict[str, Any]) -> list[tuple[str, str, str, float]]:
    return [(e["id"], c["id"], c["status"], c["score"]) for e in row["result"]["exercises"] for c in e["checks"]]


@pytest.mark.parametrize("without", ["", "namespaces"], ids=["all", "no-namespaces"])
def test_root_and_an_ordinary_user_get_the_same_verdicts(classroom: Path, without: str) -> None:
    mode = without or "all"
    as_root = batch(classroom, f"root-{mode}", [], without)
    as_nobody = batch(classroom, f"nobody-{mode}", AS_NOBODY, without)
    assert sorted(as_root) == sorted(as_nobody) == sorted(["ann", *BUGS])
    for student in as_root:
        assert verdicts(as_nobody[student]) == verdicts(as_root[student]), student
    assert as_root["ann"]["score"] == as_root["ann"]["max_score"] == 38
    assert all(as_root[student]["score"] < 38 for student in BUGS)
    # each ran the sandbox its user gets: root's child has a uid of its own (without namespaces, only where that uid
    # could read Python), nobody's is nobody
    assert without or "unprivileged-user" in as_root["ann"]["result"]["protections"]
    assert "unprivileged-user" not in as_nobody["ann"]["result"]["protections"]
    assert not without or "user-namespace" not in as_nobody["ann"]["result"]["protections"]
