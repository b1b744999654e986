"""How long `%grade ch03` takes in a Jupyter kernel, the first time and again, next to `grade ch03 FILE`.

One kernel (jupyter_client and ipykernel, as Jupyter runs it) runs the book's code, loads the extension
and grades N times; the first `%grade` starts the kernel's judge (its own `import torch` and zygote),
the others find it warm. Beside it, the installed `grade ch03 solutions/chapter3.py` runs N times as a
subprocess, as a student in a terminal would. Both are timed in this one run, side by side, so the
machine's speed of the moment cancels out of the ratio. It only reports: it always exits 0.

    pip install ".[test]"   # ipykernel and jupyter_client
    python benchmarks/jupyter_warm.py [--runs N] [--set ch03] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from grade_vs_import import SOLUTION, grade_command, time_once

TIMEOUT = 300


def kernel_times(spec: str, runs: int, cwd: Path) -> dict[str, Any]:
    from jupyter_client.manager import start_new_kernel

    kernel, client = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    try:
        client.execute_interactive(SOLUTION.read_text(encoding="utf-8"), timeout=TIMEOUT)
        client.execute_interactive("%load_ext grader", timeout=TIMEOUT)
        times, statuses = [], set()
        for _ in range(runs + 1):
            started = time.perf_counter()
            reply = client.execute_interactive(f"%grade {spec}", timeout=TIMEOUT, output_hook=lambda msg: None)
            times.append(time.perf_counter() - started)
            statuses.add(reply["content"]["status"])
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
    return {"first_s": times[0], "warm_median_s": statistics.median(times[1:]), "warm_s": times[1:],
            "statuses": sorted(statuses)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="warm %%grade runs and command-line runs (default 5)")
    parser.add_argument("--set", dest="spec", default="ch03", help="what to grade (default ch03)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jupyter-warm-") as work:
        cwd = Path(work)
        kernel = kernel_times(args.spec, args.runs, cwd)
        command = [*grade_command(), args.spec, str(SOLUTION), "--html", str(cwd / "page.html")]
        cli = [time_once(command, cwd) for _ in range(args.runs)]
    figures = {
        "set": args.spec,
        "kernel": kernel,
        "command_line": {"median_s": statistics.median(t for t, _ in cli), "times_s": [t for t, _ in cli],
                         "exit_codes": sorted({code for _, code in cli})},
    }
    figures["warm_over_command_line"] = kernel["warm_median_s"] / figures["command_line"]["median_s"]
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"%grade {args.spec} in a kernel: first {kernel['first_s']:.2f} s (starts the judge), "
          f"then median {kernel['warm_median_s']:.2f} s over {args.runs} warm runs ({kernel['statuses']})")
    print(f"grade {args.spec} FILE on the command line: median {figures['command_line']['median_s']:.2f} s "
          f"over {args.runs} runs (exit {figures['command_line']['exit_codes']})")
    print(f"warm %grade / command line: {figures['warm_over_command_line']:.2f}")


if __name__ == "__main__":
    main()
