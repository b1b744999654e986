"""The GPU check in one run: what a course on a CUDA machine relies on, and how fast a class goes there.

On the device the judge finds (grader.judge.accelerator: CUDA or MPS, or the one GRADER_ACCELERATOR names):
runs the tests that expect the GPU comparison, grades the bundled notebook and the solutions on ch03 (full
marks, with the comparison passed on that device), times a class of copies of the book's code through the
real `grade batch -j J` (submissions per second, every student at full marks) and prints one summary, a line
a step with PASS or FAIL. Exit 0 when every step passed, 1 when one failed, 2 when there is no device.

    python benchmarks/gpu.py [--class 64] [-j 16] [--no-tests] [--json PATH]

benchmarks/gpu.sh runs it on a machine without network, installing what is missing from wheels beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "tests" / "corpus" / "book_style.ipynb"
BOOK_CODE = ROOT / "tests" / "corpus" / "book_style.py"
SOLUTION = ROOT / "solutions" / "chapter3.py"
# The tests that compare on the machine's accelerator where it has one (tests/helpers.accelerator), and the
# sandbox's own hostile corpus, which must hold with the GPU's grant in the rules.
GPU_TESTS = ["tests/exercise/test_device.py", "tests/exercise/test_solutions.py", "tests/exercise/test_one_charge.py",
             "tests/sandbox/test_gpu_rules.py", "tests/render/test_classbook.py", "tests/hostile/test_trust.py",
             "tests/hostile/test_scoring.py", "tests/hostile/test_attacks.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="students", type=int, default=64, help="students in the timed class")
    parser.add_argument("-j", "--jobs", type=int, default=16, help="submissions graded at a time")
    parser.add_argument("--no-tests", action="store_true", help="leave out the test run")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    warnings.filterwarnings("ignore", "Failed to initialize NumPy")  # torch without NumPy, as the grader runs
    from grader.judge.accelerator import judge_accelerator

    device = judge_accelerator()
    if device is None:
        print("gpu: no CUDA or MPS device on this machine (GRADER_ACCELERATOR=cpu runs the comparison on the CPU)")
        return 2
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "PYTHONUNBUFFERED": "1"}
    steps: list[dict[str, Any]] = []
    print(f"gpu: comparing on {device} ({describe(device)}), torch {torch_version()}, Python {platform.python_version()}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="grader-gpu-") as work:
        if not args.no_tests:
            steps.append(run_tests(env))
        steps.append(grade_one("bundled notebook", NOTEBOOK, device, Path(work), env))
        steps.append(grade_one("solutions", SOLUTION, device, Path(work), env))
        steps.append(grade_class(args.students, args.jobs, Path(work), env))
    print("\nsummary")
    for step in steps:
        print(f"  {'PASS' if step['ok'] else 'FAIL'}  {step['name']}: {step['said']}")
    if args.json:
        args.json.write_text(json.dumps({"device": device, "steps": steps}, indent=2), encoding="utf-8")
    return 0 if all(step["ok"] for step in steps) else 1


def describe(device: str) -> str:
    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        return f"{torch.cuda.get_device_name(0)}, {'HIP ' + str(torch.version.hip) if torch.version.hip else 'CUDA ' + str(torch.version.cuda)}"
    return "as named" if os.environ.get("GRADER_ACCELERATOR") else device


def torch_version() -> str:
    import torch

    return str(torch.__version__)


def run_tests(env: dict[str, str]) -> dict[str, Any]:
    """The tests that expect the comparison; the closing line of pytest is the figure."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GPU_TESTS], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    print(done.stdout[-3000:], done.stderr[-2000:], sep="", flush=True)
    closing = next((line.strip("= ") for line in reversed(done.stdout.splitlines())
                    if re.search(r"\d+ (passed|failed|error)", line)), "no closing line")
    return {"name": "tests that expect the GPU comparison", "ok": done.returncode == 0,
            "said": f"{closing} ({time.monotonic() - started:.0f} s)"}


def grade_one(name: str, path: Path, device: str, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """`grade ch03` on one file: full marks, with the comparison passed on the device."""
    result = work / f"{path.stem}.json"
    done = subprocess.run([sys.executable, "-m", "grader", "ch03", str(path), "--json", str(result),
                           "--html", str(work / f"{path.stem}.html")], cwd=work, env=env, capture_output=True, text=True)
    if not result.exists():
        return {"name": name, "ok": False, "said": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
    run = json.loads(result.read_text(encoding="utf-8"))
    compared = next((c for e in run["exercises"] if e["id"] == "device" for c in e["checks"] if c["id"] == "accelerator"),
                    {"status": "missing", "message": ""})
    ok = done.returncode == 0 and run["score"] == run["max_score"] and compared["status"] == "passed"
    said = f"{run['score']:g}/{run['max_score']:g}, device/accelerator {compared['status']} on {device}"
    if not ok:
        said += "; " + "; ".join(f"{e['id']}/{c['id']}: {c['messages'][run['lang']]}"
                                 for e in run["exercises"] for c in e["checks"]
                                 if c["score"] < c["max_score"] or c["status"] != "passed")[:600]
    return {"name": name, "ok": ok, "said": said}


def grade_class(students: int, jobs: int, work: Path, env: dict[str, str]) -> dict[str, Any]:
    """A class of copies of the book's code through `grade batch`, start-up included, as a course runs it."""
    folder, out = work / "class", work / "out"
    folder.mkdir()
    for number in range(students):
        shutil.copyfile(BOOK_CODE, folder / f"student{number:03d}.py")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(folder), "-o", str(out), "-e", "ch03",
                           "-j", str(jobs)], cwd=work, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()] if (out / "results.jsonl").exists() else []
    full = sum(1 for row in rows if row.get("score") is not None and row.get("score") == row.get("max_score"))
    said = (f"{students} students at -j {jobs}: {seconds:.1f} s, {students / seconds:.2f} submissions/s, "
            f"{full}/{students} at full marks")
    if done.returncode != 0:
        said += f"; exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return {"name": "class", "ok": done.returncode == 0 and full == students, "said": said,
            "seconds": round(seconds, 2), "rate": round(students / seconds, 3)}


if __name__ == "__main__":
    sys.exit(main())
