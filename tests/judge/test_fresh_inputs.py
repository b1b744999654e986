"""Hidden inputs are drawn fresh each run (README; design §1): two runs without `--seed` send a submission
different inputs, and `--seed` sends the same ones again. A judge that ignored the seed, or drew from a
fixed one, would pass every other test; the submission here writes down what it received."""
from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import SOLUTION
from grader.judge.launcher import ZygoteLauncher
from helpers import grade_in_process, no_traceback

# The reference, with SelfAttention_v2.forward printing a digest of every input the judge sends it.
RECORDER = SOLUTION.read_text(encoding="utf-8") + '''
import hashlib

_forward = SelfAttention_v2.forward


def _recording(self, x):
    print("INPUT", tuple(x.shape), hashlib.sha256(repr(x.flatten().tolist()).encode()).hexdigest())
    return _forward(self, x)


SelfAttention_v2.forward = _recording
'''


def received(tmp_path: Path, launcher: ZygoteLauncher, *seed: str) -> tuple[int, list[str]]:
    """(the run's seed, the inputs the submission received, in order) of one `grade 3.1` run (the command
    in-process, with the session's zygote: the seed is the judge's, drawn per run)."""
    submission = tmp_path / "recorder.py"
    submission.write_text(RECORDER, encoding="utf-8")
    result = grade_in_process("3.1", submission, *seed, "--json", "-", cwd=tmp_path, launcher=launcher)
    assert result.code == 0, result.stderr
    no_traceback(result)
    data = json.loads(result.stdout)
    assert data["score"] == data["max_score"] > 0  # the recording changes no answer
    inputs = re.findall(r"^INPUT .*$", data["output_tail"], re.M)
    assert inputs, data["output_tail"]
    return data["seed"], inputs


def test_two_runs_without_seed_send_different_inputs(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    first_seed, first = received(tmp_path, launcher)
    second_seed, second = received(tmp_path, launcher)
    assert first_seed != second_seed
    assert len(first) == len(second) and [i.split()[1] for i in first] == [i.split()[1] for i in second]
    assert not set(first) & set(second), "an input came again in a run with a fresh seed"


def test_the_same_seed_sends_the_same_inputs(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    seed, first = received(tmp_path, launcher, "--seed", "4242")
    again, second = received(tmp_path, launcher, "--seed", "4242")
    assert seed == again == 4242
    assert first == second
    _, other = received(tmp_path, launcher, "--seed", "4243")
    assert not set(first) & set(other)
