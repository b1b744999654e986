"""One draw for a class (docs/security.md, "One draw for a class"): within a `grade batch`, students whose
sandboxes keep classmates apart receive the same hidden inputs, each judge's first student its own; where a
sandbox could leave something for a classmate (no Landlock here), every student keeps a draw of their own. The
submission writes down what it received, as in tests/judge/test_fresh_inputs.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader.judge.seeds import shareable
from judge.test_fresh_inputs import RECORDER
from classes.test_batch import grade_command

FULL = ["pid-namespace", "network-namespace", "mount-namespace", "landlock-abi7", "unprivileged-user", "seccomp"]


@pytest.mark.parametrize(("protections", "shared"), [
    (FULL, True),
    (["landlock-abi4", "unprivileged-user", "seccomp"], True),  # no namespaces, a root-run grader
    (["landlock-abi6", "seccomp"], True),  # no namespaces, run as a user, signals scoped
    (["landlock-abi4", "seccomp"], False),  # GitHub's runners: kill(pid) reaches a classmate of the same user
    ([p for p in FULL if not p.startswith("landlock")], False),  # /tmp and $HOME are both sandboxes' to write
    ([p for p in FULL if p != "seccomp"], False),  # System V IPC outlives a sandbox
    (["single-use-worker", "deadlines"], False),  # not Linux
], ids=["all", "root-no-namespaces", "abi6-user", "abi4-user", "no-landlock", "no-seccomp", "not-linux"])
def test_a_draw_is_shared_only_where_sandboxes_keep_classmates_apart(protections: list[str], shared: bool) -> None:
    assert shareable(protections) is shared


def received_by_student(tmp_path: Path, **env: str) -> dict[str, tuple[int, list[str]]]:
    """Four students handing in the recorder, graded by one judge: student -> (recorded seed, inputs received)."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ann", "bo", "chen", "dana"):
        (folder / f"{name}.py").write_text(RECORDER, encoding="utf-8")
    out = tmp_path / "out"
    done = grade_command("batch", folder, "-e", "3.1", "-o", out, "-j", "1", env=env)
    assert done.returncode == 0, done.stderr
    received = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        result = json.loads(line)
        result = result.get("result", result)
        assert result["score"] == result["max_score"] > 0
        student = Path(result["submission"]["path"]).stem
        received[student] = (result["seed"], re.findall(r"^INPUT .*$", result["output_tail"], re.M))
    assert sorted(received) == ["ann", "bo", "chen", "dana"] and all(inputs for _, inputs in received.values())
    return received


def test_a_class_shares_one_draw_after_the_judges_first_student(tmp_path: Path) -> None:
    received = received_by_student(tmp_path)
    first, *rest = (received[name] for name in ("ann", "bo", "chen", "dana"))
    assert len({seed for seed, _ in rest}) == 1 and first[0] != rest[0][0]
    assert rest[0][1] == rest[1][1] == rest[2][1]  # the same inputs, each one, in the same order
    assert not set(first[1]) & set(rest[0][1])  # the first student's own draw


def test_without_landlock_every_student_keeps_a_draw_of_their_own(tmp_path: Path) -> None:
    received = received_by_student(tmp_path, GRADER_SANDBOX_WITHOUT="landlock")
    assert len({seed for seed, _ in received.values()}) == 4
    inputs = [set(each) for _, each in received.values()]
    assert not any(a & b for i, a in enumerate(inputs) for b in inputs[i + 1:])
