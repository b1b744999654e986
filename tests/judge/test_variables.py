"""The `variables` probe: a lecture's answers live in plain top-level variables, read by name."""
from __future__ import annotations

from pathlib import Path

import torch

from grader.judge import seeds
from grader.load.submission import load
from grader.judge.client import SandboxClient

NOTEBOOK_LIKE = """# %%
x = torch.arange(6).reshape(2, 3)
label = "first"
# %%
x = "rebound"
z = torch.zeros(2, dtype=torch.complex64)
big = "y" * 4_000_000
"""


def test_values_by_name_now_and_as_a_cell_left_them(launcher, tmp_path: Path) -> None:
    path = tmp_path / "answer.py"
    path.write_text("import torch\n" + NOTEBOOK_LIKE, encoding="utf-8")
    sandbox = SandboxClient(load(path), launcher, seed=0)
    try:
        now = sandbox.variables(["x", "label", "z", "big", "missing"])
        first = sandbox.variables(["x", "label"], cell=2)
    finally:
        sandbox.close()
    assert now["x"] == "rebound" and now["label"] == "first" and "missing" not in now
    # What cannot cross is named, and costs the other names nothing.
    assert set(now["z"]) == {"__unreadable__"} and "complex" in now["z"]["__unreadable__"]
    assert set(now["big"]) == {"__unreadable__"}
    assert torch.equal(first["x"], torch.arange(6).reshape(2, 3)) and first["label"] == "first"


def test_the_run_seed_seeds_what_the_submission_draws(launcher, tmp_path: Path) -> None:
    """Hidden inputs are fresh each run, yet one seed reproduces a run: a submission's own draws included."""
    path = tmp_path / "answer.py"
    path.write_text("import random\nimport torch\ndrawn = [torch.rand(3), random.random()]\n", encoding="utf-8")

    def drawn(seed: int) -> list:
        sandbox = SandboxClient(load(path), launcher, seed=seed)
        try:
            return sandbox.variables(["drawn"])["drawn"]
        finally:
            sandbox.close()

    first, again, other = drawn(7), drawn(7), drawn(8)
    assert torch.equal(first[0], again[0]) and first[1] == again[1]
    assert not torch.equal(first[0], other[0]) and first[1] != other[1]
    # torch's own stream, from a seed derived from the run's one way (grader.judge.seeds), never the run's own:
    # the judge's generators come from the run's seed, and the submission must not be able to recompute them
    derived = seeds.derive(7, "sandbox")
    assert torch.equal(first[0], torch.rand(3, generator=torch.Generator().manual_seed(derived)))
    assert not torch.equal(first[0], torch.rand(3, generator=torch.Generator().manual_seed(7)))
