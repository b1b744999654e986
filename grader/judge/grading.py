"""Grading one submission: load it, start its sandbox, run each exercise's checks, build the result.

Failures are values: a student's exception, a timeout, a crash and a fault of the grader itself
each become a check result with its own message; only the last is marked "error", and it is ours.
"""
from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import torch

from grader import __version__
from grader.judge import near_miss, seeds
from grader.judge.client import SandboxClient
from grader.judge.exercise import Check, Exercise, NotFound, Outcome, Verdict, cause_of
from grader.judge.launcher import Launcher
from grader.judge.probes import (
    AnswerTooLarge,
    BadReturn,
    BudgetExhausted,
    ChildCrashed,
    NotUnderstood,
    ProbeFailure,
    ProbeTimeout,
    ProtocolViolation,
    StudentError,
)
from grader.judge.scratch import Siblings, siblings
from grader.load.submission import Submission, load, load_many, named_paths
from grader.messages import catalogue
from grader.messages.catalogue import Msg
from grader.results import CheckResult, ExerciseResult, RunResult, SubmissionInfo, bounded, count_cells, stopped_because
from grader.sandbox.limits import Limits


def grade(source: Path | Sequence[Path] | Submission, exercises: Sequence[Exercise], launcher: Launcher, *, seed: int,
          class_seed: int | None = None, lang: str = "en", timeout: float = 60.0, limits: Limits = Limits(),
          beside: bool = False) -> RunResult:
    """Grade one file, one student's files together, or a submission already loaded (what a Jupyter
    kernel ran). Raises grader.load.submission.LoadError when the
    submission cannot be graded at all. `beside`: one file also gets the files beside it, read-only
    (the command line's single-file mode; docs/students.md, "Files beside the submission"); an exercise's
    bundled data file is then only the fallback for a student who has no file of that name. `class_seed`: the
    draw a batch shares among its students, used where the sandbox keeps classmates apart (seeds.shareable),
    else `seed`, the student's own; the result records the one its checks drew from."""
    started = time.monotonic()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    torch.set_num_threads(1)  # as in the child: on small tensors a thread pool only spins
    submission = source if isinstance(source, Submission) else load(source) if isinstance(source, Path) \
        else load_many(source)
    single = isinstance(source, (Path, Submission))
    found = siblings(submission.path, named_paths(submission.cells)) if beside and single else Siblings()
    own = {sibling.name for sibling in found.files}
    data = dict.fromkeys(path for exercise in exercises for path in exercise.data if path.name not in own)
    sandbox = SandboxClient(submission, launcher, budget_s=timeout, limits=limits,
                            seed=seed if class_seed is None else class_seed, data=[*data, *found.files])
    try:
        try:
            sandbox.start()
        except ProbeFailure:
            pass  # whatever stopped the cells is recorded per cell; the checks report what is missing
        cells_s = time.monotonic() - started
        if class_seed is not None and seeds.shareable(sandbox.protections):
            seed = class_seed
        results = tuple(_run_exercise(ex, sandbox, seed, lang) for ex in exercises)
        cells = sandbox.cell_records()
        output = sandbox.output_tail()
    finally:
        sandbox.close()
    return bounded(RunResult(
        grader_version=__version__,
        seed=seed,
        lang=lang,
        started_at=started_at,
        duration_s=time.monotonic() - started,
        submission=SubmissionInfo(str(submission.path), submission.sha256, submission.kind,
                                  tuple(p.name for p in submission.files) if submission.support else (),
                                  left_out=found.note(), header=submission.header),
        cells=cells,
        exercises=results,
        protections=tuple(sandbox.protections),
        output_tail=output,
        cell_counts=count_cells(cells),
        budget_s=timeout,
        cells_s=cells_s,
    ))


def _run_exercise(exercise: Exercise, sandbox: SandboxClient, seed: int, lang: str) -> ExerciseResult:
    checks = []
    for check in exercise.checks:
        rng = torch.Generator().manual_seed(seeds.derive(seed, exercise.id, check.id))
        checks.append(_run_check(exercise, check, sandbox, rng, lang))
    titles = catalogue.every_lang(lambda each: catalogue.pick(exercise.title, each))
    statements = catalogue.every_lang(lambda each: catalogue.pick(exercise.statement, each))
    return ExerciseResult(
        id=exercise.id,
        title=catalogue.pick(titles, lang),
        statement=catalogue.pick(statements, lang),
        checks=tuple(checks),
        titles=titles,
        statements=statements,
    )


def _run_check(exercise: Exercise, check: Check, sandbox: SandboxClient, rng: torch.Generator,
               lang: str) -> CheckResult:
    missed: list[str] = []  # the names the check looked for in vain, to explain a NotFound with
    graded_as: dict[str, str] = {}  # the names it graded a near miss for: the exercise's -> the submission's
    found_as: dict[str, str] = {}  # and those it graded an answer found by what it is for
    started = time.monotonic()
    try:
        with near_miss.recording(missed, graded_as, found_as):
            outcome = check.fn(sandbox, exercise.reference, rng)
    except Verdict as exc:
        outcome = exc.outcome
    except NotFound as exc:
        what = Msg(exercise.message_key(exc.what), exc.args_)
        outcome = near_miss.explain(sandbox, what, [*missed, *exc.names])
    except ProbeFailure as exc:
        outcome = probe_failure_outcome(exc)
    except Exception as exc:  # a bug in the grader: reported as ours, never as the student's
        outcome = Outcome("error", "check.grader_error", {"error": f"{type(exc).__name__}: {exc}"})
    duration = time.monotonic() - started
    points = check.points
    key = exercise.message_key(outcome.key)
    if not catalogue.has(key):  # a check naming a message nobody wrote is the check's bug, not the student's
        outcome = Outcome("error", "check.grader_error", {"error": f"no message {key!r}"})
        key = outcome.key
    messages = catalogue.every_lang(lambda each: catalogue.text(key, each, **outcome.args))
    for kind, notes in (("graded_as", graded_as), ("found_as", found_as)):  # graded under another name
        if notes:  # whatever the verdict
            renames = "; ".join(f"{found} → {wanted}" for wanted, found in notes.items())
            messages = {each: f"{text} {catalogue.text(f'check.{kind}', each, renames=renames)}"
                        for each, text in messages.items()}
            outcome = replace(outcome, evidence={**outcome.evidence, kind: notes})
    diagnosis = outcome.args.get("diagnosis")  # the named bug a message explains itself with, for the class view
    evidence = outcome.evidence
    if isinstance(diagnosis, Msg):  # its key, and its title (the message's first clause) in every language
        evidence = {**evidence, "diagnosis": diagnosis.key, "diagnosis_titles": catalogue.every_lang(
            lambda each: catalogue.first_clause(catalogue.text(diagnosis.key, each, **diagnosis.args)))}
    cause = cause_of(evidence.get("diagnosis"), exercise.id)  # the lines of code the page quotes for it
    if cause is not None:
        evidence = {**evidence, "cause": cause}
    titles = catalogue.every_lang(lambda each: catalogue.pick(check.title, each))
    return CheckResult(
        id=check.id,
        title=catalogue.pick(titles, lang),
        status=outcome.status,
        score=points if outcome.status == "passed" else 0.0,
        max_score=0.0 if outcome.status == "skipped" else points,
        message=catalogue.pick(messages, lang),
        message_key=key,
        evidence=evidence,
        messages=messages,
        titles=titles,
        duration_s=round(duration, 6),
    )


def probe_failure_outcome(exc: ProbeFailure) -> Outcome:
    """The message for a probe that ended without an answer, naming what the judge had asked for."""
    name = exc.label
    if isinstance(exc, StudentError):
        error = exc.detail or {}
        evidence: dict[str, Any] = {"error": error}
        if error.get("type") == "NotImplementedError":
            return Outcome("failed", "check.not_implemented", {"name": name}, evidence)
        shown = f"{error.get('type')}: {error.get('message', '')}".strip()
        if error.get("line"):
            shown += f" (line {error['line']})"
        if isinstance(exc, NotUnderstood):
            return Outcome("failed", "check.not_understood", {"name": name, "error": shown,
                                                              "unknown": ", ".join(exc.unknown)}, evidence)
        return Outcome("failed", "check.raised", {"name": name, "error": shown}, evidence)
    if isinstance(exc, BudgetExhausted):
        return Outcome("failed", "check.deadline", {"seconds": exc.detail})
    if isinstance(exc, ProbeTimeout):
        return Outcome("failed", "check.timeout", {"name": name, "seconds": exc.detail})
    if isinstance(exc, ChildCrashed):
        status = exc.detail if isinstance(exc.detail, dict) else {}
        cause = stopped_because(status)
        if cause:
            return Outcome("failed", f"check.{cause[0]}", {"name": name, **cause[1]})
        if "signal" in status:
            return Outcome("failed", "check.killed", {"name": name, "signal": status["signal"]})
        return Outcome("failed", "check.exited", {"name": name, "code": status.get("exit", "?")})
    if isinstance(exc, BadReturn):
        return Outcome("failed", "check.bad_return", {"name": name, "got": exc.detail})
    if isinstance(exc, AnswerTooLarge):
        return Outcome("failed", "check.too_large", {"name": name, **exc.detail})
    assert isinstance(exc, ProtocolViolation)
    return Outcome("failed", "check.protocol", {"name": name}, {"detail": str(exc.detail)})
