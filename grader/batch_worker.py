"""One judge of a batch: `python -m grader.batch_worker EXERCISE_IDS [FOLDER...]`, started by grader.batch.

Why separate processes and not threads: the judge does real work per check (drawing inputs, running the
reference, comparing), so N judges on N cores each need their own interpreter; each keeps its own warm
zygote, so a submission that kills one zygote costs its neighbours nothing. A worker is trusted code: it
reads jobs as JSON lines on stdin and answers each with one JSON line on the pipe that was its stdout
(its fd 1 then points at stderr, so nothing a library prints can corrupt the answers). It also writes
the student's feedback page, so rendering spreads over the workers too.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence


def main(argv: Sequence[str]) -> None:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    from grader.launcher import default_launcher
    from grader.sandbox.confine import die_with_parent, hide_from_tracing

    die_with_parent()  # a batch killed with -9 leaves no judge behind
    hide_from_tracing()
    launcher = default_launcher()  # its `import torch` overlaps with ours
    from grader.exercise import discover

    known = discover(folders=[Path(folder) for folder in argv[1:]])
    exercises = [known[name] for name in argv[0].split(",")]
    try:
        for line in sys.stdin:
            answers.write(json.dumps(grade_job(json.loads(line), exercises, launcher), ensure_ascii=False) + "\n")
            answers.flush()
    finally:
        launcher.close()


def grade_job(job: dict[str, Any], exercises: list[Any], launcher: Any) -> dict[str, Any]:
    """Grade one student; every outcome is an answer (a grade, why it cannot be graded, or our fault)."""
    from grader.batch import write_atomic
    from grader.judge import grade
    from grader.launcher import LaunchError
    from grader.loading import LoadError
    from grader.render import html
    from grader.results import to_json

    answer: dict[str, Any] = {"student": job["student"]}
    try:
        run = grade([Path(f) for f in job["files"]], exercises, launcher, seed=job["seed"], lang=job["lang"],
                    timeout=job["timeout"])
    except LoadError as exc:
        return {**answer, "status": "ungradable", "problem": {"key": exc.key, "args": exc.args_}}
    except LaunchError as exc:
        return {**answer, "status": "error", "problem": {"key": "cli.sandbox_failed", "args": {"error": str(exc)}}}
    except Exception as exc:  # a grader bug: recorded, and the submission is graded again next run
        return {**answer, "status": "error",
                "problem": {"key": "batch.grader_error", "args": {"error": f"{type(exc).__name__}: {exc}"}}}
    write_atomic(Path(job["page"]), html.render(run))
    return {**answer, "status": "error" if run.grader_fault else "graded", "result": to_json(run)}


if __name__ == "__main__":
    main(sys.argv[1:])
