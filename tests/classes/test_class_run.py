"""Several submissions graded under one parent with one zygote, as an instructor's run does: one that
kills every process it can see, its parent and its group, floods its output, forks until it cannot, reads
the reference or prints fake results (helpers.CLASS_ATTACKS, from the hostile corpus) costs nobody else."""
from __future__ import annotations

import time
from pathlib import Path

from conftest import EXERCISES, SOLUTION, grade
from grader.judge.launcher import ZygoteLauncher
from helpers import class_attacks
from processes import survivors

ANSWERS = SOLUTION.read_text(encoding="utf-8")
ATTACKS = class_attacks()


def test_a_class_with_hostile_members(tmp_path: Path) -> None:
    files = [tmp_path / "first.py"]
    files[0].write_text(ANSWERS, encoding="utf-8")
    for name, attack in ATTACKS.items():
        files.append(tmp_path / f"{name}.py")
        files[-1].write_text(attack + ANSWERS, encoding="utf-8")
    files.append(tmp_path / "last.py")
    files[-1].write_text(ANSWERS, encoding="utf-8")

    launcher = ZygoteLauncher()
    started = time.monotonic()
    try:
        runs = {f.stem: grade(f, [EXERCISES["3.1"], EXERCISES["mask"]], launcher, seed=3, timeout=60)
                for f in files}
    finally:
        launcher.close()

    assert time.monotonic() - started < 120
    assert runs["first"].full_marks and runs["last"].full_marks
    for name in ATTACKS:
        run = runs[name]
        assert not run.grader_fault, name
        # The attack ran in its own sandbox; the answers beside it are still graded on their merits.
        assert run.score == run.max_score, (name, [(c.id, c.message) for e in run.exercises for c in e.checks])
    assert not survivors([b"987652"]), "the fork bomb's processes outlived grading"
