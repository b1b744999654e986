"""benchmarks/gpu.sh, the GPU check in one command, as a course would run it: here on the device
GRADER_ACCELERATOR names (the CPU), since CI has no GPU; on a machine with none and no such name it says so."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from helpers import WITHOUT_ACCELERATOR

pytestmark = pytest.mark.e2e


def gpu_check(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "GRADER_ACCELERATOR"}
    return subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu.sh"), *args], capture_output=True, text=True,
                          timeout=600, env={**environ, **env})


def test_the_gpu_check_grades_and_times_a_class_on_the_named_device(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    done = gpu_check("--class", "3", "-j", "2", "--no-tests", "--json", str(figures), GRADER_ACCELERATOR="cpu")
    assert done.returncode == 0, (done.stdout, done.stderr)
    summary = done.stdout.split("\nsummary\n", 1)[1].splitlines()
    assert summary[0] == "  PASS  bundled notebook: 40/40, device/accelerator passed on cpu"
    assert summary[1] == "  PASS  solutions: 40/40, device/accelerator passed on cpu"
    assert summary[2].startswith("  PASS  class: 3 students at -j 2: ") and "3/3 at full marks" in summary[2]
    steps = json.loads(figures.read_text(encoding="utf-8"))["steps"]
    assert [step["ok"] for step in steps] == [True, True, True] and steps[2]["rate"] > 0


@WITHOUT_ACCELERATOR
def test_without_a_device_it_says_so() -> None:
    done = gpu_check("--no-tests")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout.strip() == ("gpu: no CUDA or MPS device on this machine "
                                   "(GRADER_ACCELERATOR=cpu runs the comparison on the CPU)")
