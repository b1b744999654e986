"""The hostile corpus, round 5 (issue 48, point 3): the grader hands out no copy of the answers.

The grader keeps the book's chapter 3 and the GPT lecture as printed (grader/classes/given/) so that its
look-alike comparison can set aside what every student was given. A one-line submission,
`from grader.classes.given.book_chapter3 import *`, scored 34 of 38: the folder was readable in the sandbox, and
a lookup by exact name took a class from any module. Now:

* grader/classes/given/ is hidden wherever solutions/ is (grader.judge.secrets.hidden_paths, Landlock): in every
  mode with Landlock, the import fails and the files can be neither read nor listed;
* in every mode, a class or function the child reports as defined in the grader's package (its module under
  `grader`, or its file in a copy of the grader's distribution) is found by no lookup, exact names included,
  and the check that finds nothing else says what it found and why it earns nothing, in English and Chinese;
* the book's code pasted into the student's own file still earns what the book's code earns: no text is
  matched, only where a class was defined.

Without Landlock (GRADER_SANDBOX_WITHOUT=landlock) nothing hides the folder: its files are the book's public code,
readable by the uid the child runs as, and a submission that reads one and runs the text as its own gets what
pasting it gets; one that imports it gets nothing (docs/security.md, "What earns points").
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT, statuses
from grader.render import html, terminal
from grader.results import RunResult
from helpers import GRADE, attack, clean_env, error_type, every_cell, no_grader_errors

from .test_attacks import SOURCE, Hostile, after, hostile  # noqa: F401
from .test_sandbox_walls import printed, without  # noqa: F401

BOOK = ROOT / "grader" / "classes" / "given" / "book_chapter3.py"
CH03 = "3.1,3.2,3.3,mask,device"
# What the book's chapter 3 earns as printed, pasted into a student's own file: everything but 3.2's answer and
# 3.3's configuration, which are the exercises' own (a 2-dim wrapper, GPT-2 small's attention).
BOOK_EARNS = 34.0
# Every mode docs/security.md documents (this machine runs the grader as root: "all" is the root-run mode; the
# full mode of an ordinary user is the last test's); `cgroup` changes only how memory is held, and is tried too.
ALL = {"": "all", "namespaces": "no-namespaces", "seccomp": "no-seccomp", "landlock": "no-landlock",
       "cgroup": "no-cgroup", "namespaces,seccomp": "landlock-only", "namespaces,landlock,seccomp,cgroup": "none"}
WITH_LANDLOCK = [mode for mode in ALL if "landlock" not in mode]
MODES = pytest.mark.parametrize("without", list(ALL), indirect=True, ids=list(ALL.values()))
LANDLOCK_MODES = pytest.mark.parametrize("without", WITH_LANDLOCK, indirect=True, ids=[ALL[m] for m in WITH_LANDLOCK])
GRADER_CODE_EN = "that is the grader's own code, not yours"
GRADER_CODE_ZH = "这是评分器自带的代码，不是你的代码"
FROM_THE_BOOK = "grader.classes.given.book_chapter3"


def earns_nothing(run: RunResult) -> None:
    """No point: every check failed (the GPU comparison is skipped where there is no GPU), none as the grader's
    error."""
    no_grader_errors(run)
    assert run.score == 0, [(e.id, c.id, c.score) for e in run.exercises for c in e.checks if c.score]
    assert all(c.status in ("failed", "skipped") for e in run.exercises for c in e.checks)


@MODES
def test_the_book_code_the_grader_keeps_earns_nothing(hostile: Hostile, without: str) -> None:
    """`from grader.classes.given.book_chapter3 import *`: with Landlock the import fails (the folder is hidden);
    without it the import works, every class of chapter 3 is bound under the exercises' names, and no lookup
    takes one: each check says it found the grader's own code, which earns nothing."""
    run = hostile.grade(hostile.attack("given_import"), CH03)
    earns_nothing(run)
    [record] = every_cell(run)
    if "landlock" not in without:
        assert record.status == "raised" and error_type(record) in ("ModuleNotFoundError", "PermissionError"), record
        return
    assert record.status == "ok", record  # nothing hides the book's public code: what it defines earns nothing
    refused = [c for e in run.exercises for c in e.checks if c.message_key == "check.grader_code"]
    assert {c.id for c in refused} >= {"agree", "classes", "answer", "concat", "parameters", "causal", "registered"}
    for result in refused:
        assert FROM_THE_BOOK in result.messages["en"] and GRADER_CODE_EN in result.messages["en"], result.messages
        assert FROM_THE_BOOK in result.messages["zh"] and GRADER_CODE_ZH in result.messages["zh"], result.messages
        assert result.evidence["grader_code"] and set(result.evidence["grader_code"].values()) == {FROM_THE_BOOK}
    shown = terminal.render(run, None, color=False)
    assert GRADER_CODE_EN in shown and "code of the grader earns nothing" in shown, shown
    page = html.render(run)
    assert FROM_THE_BOOK in page and "code of the grader earns nothing" in page


@LANDLOCK_MODES
def test_the_book_code_the_grader_keeps_cannot_be_read(hostile: Hostile, without: str) -> None:
    """The files of grader/classes/given/, found beside the grader's own code: neither read nor listed, while the
    grader's code runs the submission (3.1's answers beside the attack keep their points)."""
    run = hostile.grade(after(hostile.attack("given_read")), "3.1")
    assert not printed(run, "READ"), run.output_tail
    assert len(printed(run, "NOT-READ")) == 2 and printed(run, "NOT-LISTED"), run.output_tail
    assert statuses(run, "3.1") == {"agree": "passed", "parameters": "passed", "classes": "passed"}


@LANDLOCK_MODES
def test_a_forged_origin_does_not_bring_the_book_code_back(hostile: Hostile, without: str) -> None:
    """The book's classes taken from the grader's copy, their module rewritten and the child's description of
    every class told to say they are the submission's own: the copy cannot be imported, so there is nothing to
    forge. (Without Landlock the forgery would stand, and earn what the book's code pasted in earns.)"""
    run = hostile.grade(hostile.attack("given_forged"), CH03)
    earns_nothing(run)
    first = every_cell(run)[0]
    assert first.status == "raised" and error_type(first) in ("ModuleNotFoundError", "PermissionError"), first


@pytest.mark.parametrize("without", ["", "landlock"], indirect=True, ids=["all", "no-landlock"])
def test_the_students_own_classes_are_found_beside_the_graders(hostile: Hostile, without: str) -> None:
    """The student's own answers, then the book's copy imported over the same names (where it can be): the
    lookups take the student's classes, which keep every point."""
    run = hostile.grade(after(hostile.attack("given_import")), CH03)
    no_grader_errors(run)
    assert run.score == run.max_score == 38, [(e.id, c.id, c.message) for e in run.exercises for c in e.checks
                                              if c.status != "passed"]


def test_the_book_code_pasted_in_earns_what_it_earns(hostile: Hostile) -> None:
    """The book's chapter 3 as printed, in the student's own file: no text is matched, so it earns what the book's
    code does, as it did before the grader's copy was refused."""
    run = hostile.grade(BOOK.read_text(encoding="utf-8"), CH03)
    no_grader_errors(run)
    assert run.score == BOOK_EARNS, [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if not c.score]
    assert not any(c.message_key == "check.grader_code" for e in run.exercises for c in e.checks)


# -- a grader run as an ordinary user: the full mode, with a user namespace -------------------------------------
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="drops from root to nobody")
def test_as_an_ordinary_user_the_book_code_is_out_of_reach() -> None:
    """The same attacks graded by `grade` run as `nobody` (the grader as a student's laptop runs it: a user
    namespace instead of a uid of its own): the import fails, the files cannot be read, nothing is earned."""
    from sandbox.test_unprivileged import AS_NOBODY

    folder = Path(tempfile.mkdtemp(prefix="grader-given-"))
    try:
        folder.chmod(0o777)
        results = {}
        for name in ("given_import", "given_read"):
            (folder / f"{name}.py").write_text(attack(name), encoding="utf-8")
            (folder / f"{name}.py").chmod(0o644)
            done = subprocess.run([*AS_NOBODY, *GRADE, CH03, f"{name}.py", "--json", f"{name}.json", "--html",
                                   f"{name}.html"], cwd=folder, capture_output=True, text=True, timeout=300,
                                  env=clean_env(HOME=str(folder)))
            assert done.returncode in (0, 1), done.stderr
            results[name] = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(folder)
    imported, read = results["given_import"], results["given_read"]
    assert "unprivileged-user" not in imported["protections"], imported["protections"]
    assert any(p.startswith("landlock") for p in imported["protections"]) and "user-namespace" in imported["protections"]
    assert imported["score"] == 0 and read["score"] == 0
    assert [c["status"] for c in imported["cells"]] == ["raised"], imported["cells"]
    said = read["output_tail"].splitlines()
    assert not [line for line in said if line.startswith("READ")], said
    assert len([line for line in said if line.startswith("NOT-READ")]) == 2, said
