"""The lecture's scripts, graded as students hand them in: a training loop at top level, generation after it.

benchmarks/lecture/bigram.py and gpt.py are stand-ins with the shape of the "Let's build GPT" lecture's
scripts (hyperparameters, input.txt read beside the script, model classes, a `for iter in range(max_iters)`
loop with periodic evaluation, `generate` at the end). Each is copied into a folder of its own beside the
bundled input.txt and graded with the real `grade` command on the gpt exercises it holds, with the
default --timeout. The report gives the score, the wall time against the budget, each statement that
was interrupted and the share it had, how long the cells ran in all and what the checks used after them.
Target: full marks on every exercise each script holds, within the default timeout, on 2 cores. It only
reports: it always exits 0.

    python benchmarks/lecture_scripts.py [--timeout 60] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from batch import grade_command

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {  # each stand-in and the gpt exercises it holds
    "bigram.py": "gpt.tokenizer,gpt.split,gpt.batch,gpt.bigram",
    "gpt.py": "gpt.tokenizer,gpt.split,gpt.batch,gpt.head",
}
TEXT = ROOT / "exercises" / "data" / "input.txt"


def grade(script: str, exercises: str, timeout: float, folder: Path) -> dict[str, Any]:
    """Grade one script in a folder of its own; the figures the report shows."""
    shutil.copy(ROOT / "benchmarks" / "lecture" / script, folder / script)
    shutil.copy(TEXT, folder / "input.txt")
    result = folder / "result.json"
    started = time.monotonic()
    proc = subprocess.run([*grade_command(), exercises, script, "--timeout", str(timeout), "--json", str(result),
                           "--html", str(folder / "page.html"), "--seed", "0"],
                          cwd=folder, capture_output=True, text=True)
    wall = time.monotonic() - started
    if not result.exists():
        return {"script": script, "exit": proc.returncode, "error": proc.stderr.strip()[-500:]}
    run = json.loads(result.read_text(encoding="utf-8"))
    interrupted = [{"line": c["first_line"], "seconds": (c.get("error") or {}).get("seconds")}
                   for c in run["cells"] if c["status"] == "interrupted"]
    return {
        "script": script,
        "exercises": exercises,
        "exit": proc.returncode,
        "score": run["score"],
        "max_score": run["max_score"],
        "wall_s": round(wall, 2),
        "budget_s": timeout,
        "cells_s": round(run["cells_s"], 2),
        "checks_s": round(run["duration_s"] - run["cells_s"], 2),
        "interrupted": interrupted,
    }


def report(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        if "error" in row:
            lines.append(f"MISS  {row['script']}: could not be graded (exit {row['exit']}): {row['error']}")
            continue
        stops = ", ".join(f"line {i['line']} after {i['seconds']:g} s" for i in row["interrupted"]) or "none"
        full = row["score"] == row["max_score"]
        within = row["wall_s"] <= row["budget_s"]
        lines.append(f"{row['script']}: {row['score']:g}/{row['max_score']:g} on {row['exercises']}; "
                     f"{row['wall_s']:.1f} s wall of a {row['budget_s']:g} s budget; cells ran {row['cells_s']:.1f} s "
                     f"(interrupted: {stops}); the checks used {row['checks_s']:.1f} s")
        lines.append(f"{'PASS' if full and within else 'MISS'}  {row['script']}: full marks within the timeout")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="the budget each script is graded with")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    rows = []
    for script, exercises in SCRIPTS.items():
        with tempfile.TemporaryDirectory(prefix="lecture-") as folder:
            rows.append(grade(script, exercises, args.timeout, Path(folder)))
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
