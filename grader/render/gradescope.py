"""Gradescope's results.json: one test per check, the run's summary as the submission's output.

Gradescope reads /autograder/results/results.json after run_autograder ends (autograder
specification, https://gradescope-autograders.readthedocs.io/en/latest/specs/). Everything here is
plain text ("output_format": "text"), so nothing a submission prints or raises can become markup or
a link on the student's results page; control characters and terminal escapes are removed as well.

What students see before the course releases its feedback (grader.results.release) maps onto the spec's
`visibility` (docs/instructors.md, "Feedback released when the course says"): the visible tests are those
of the withheld result; each check's whole test follows as `after_published`, which Gradescope shows once
the instructor publishes the grades, without points of its own, so the tests still add up to the score.
The total is the top-level `score`, and the visible `output` says it too.

An exercise a person adjusted (`grade adjust`) is one test instead of its checks' tests: the adjusted score
out of the exercise's points, its output saying who adjusted it, why, and what the grader gave; so the tests
still add up to the score, and no test shows points out of 0.
"""
from __future__ import annotations

from typing import Any

from grader import __version__
from grader.messages import catalogue
from grader.messages.catalogue import Msg, in_lang
from grader.outputs.safe_text import clean
from grader.render.text import STATUS_ICONS, cell_problems
from grader.results import Adjustment, CheckResult, ExerciseResult, RunResult, SubmissionResult, Ungraded
from grader.results.release import ForStudents

TEXT = "text"
VISIBLE = "visible"
AFTER_PUBLISHED = "after_published"
# The spec: "By default, anything printed to standard output is recorded and only shown to
# instructors, for debugging purposes." Said explicitly: what a student reads is in "output".
STDOUT_VISIBILITY = "hidden"


def results(outcome: SubmissionResult | ForStudents, lang: str) -> dict[str, Any]:
    """results.json for a graded run, what students see now visible and, where the release policy withheld
    some of it (grader.results.release.for_students), the rest once the grades are published; or, when the
    submission could not be graded, a zero score whose output says why and what to do, so the student never
    faces a bare error."""
    view = outcome if isinstance(outcome, ForStudents) else ForStudents(outcome)
    if isinstance(view.now, Ungraded):
        return _ungradable(view.now.problem, lang)
    if not isinstance(view.now, RunResult):
        raise ValueError("results() needs a run or the problem that prevented one")
    return _graded(view.now, view.later, lang)


def _graded(seen: RunResult, whole: RunResult | None, lang: str) -> dict[str, Any]:
    run = whole or seen
    return {
        "score": run.score,
        "execution_time": round(run.duration_s),  # the spec's example is whole seconds
        "output": _summary(seen, lang),
        "output_format": TEXT,
        "visibility": VISIBLE,
        "stdout_visibility": STDOUT_VISIBILITY,
        "tests": _tests(seen, lang) + ([] if whole is None else _published(whole, lang)),
        "extra_data": {
            "grader_version": run.grader_version,
            "seed": run.seed,
            "max_score": run.max_score,
            "sha256": run.submission.sha256,
            "protections": list(run.protections),
        },
    }


def _tests(run: RunResult, lang: str) -> list[dict[str, Any]]:
    """A test per check; an exercise a person adjusted is one test instead, holding its points."""
    tests = []
    for exercise in run.exercises:
        if exercise.adjustment:
            tests.append(_adjusted_test(exercise, exercise.adjustment, lang))
        else:
            tests += [_test(exercise, number, check, lang) for number, check in enumerate(exercise.checks, 1)]
    return tests


def _check_tests(run: RunResult, lang: str) -> list[dict[str, Any]]:
    """A test per check, adjusted or not: the published details are each check's own."""
    return [_test(exercise, number, check, lang)
            for exercise in run.exercises for number, check in enumerate(exercise.checks, 1)]


def _published(run: RunResult, lang: str) -> list[dict[str, Any]]:
    """The whole feedback, for once the grades are published: each check's test without its points (the
    visible tests hold them), and the submission's own details (cells that did not run) where there are any."""
    checks = [(exercise, check) for exercise in run.exercises for check in exercise.checks]
    tests = [{**{key: value for key, value in test.items() if key not in ("score", "max_score")},
              "name": catalogue.text("gradescope.details_name", lang, exercise=exercise.id,
                                     title=clean(in_lang(check.titles, check.title, lang))),
              "visibility": AFTER_PUBLISHED}
             for test, (exercise, check) in zip(_check_tests(run, lang), checks)]
    if cell_problems(run, lang):
        tests.append({"name": catalogue.text("gradescope.submission_details", lang), "name_format": TEXT,
                      "output": _summary(run, lang), "output_format": TEXT, "visibility": AFTER_PUBLISHED})
    return tests


def _ungradable(problem: Msg, lang: str) -> dict[str, Any]:
    why = catalogue.text(problem.key, lang, **problem.args)
    return {
        "score": 0.0,
        "output": clean(why) + "\n\n" + catalogue.text("gradescope.problem_hint", lang),
        "output_format": TEXT,
        "visibility": VISIBLE,
        "stdout_visibility": STDOUT_VISIBILITY,
        "tests": [],
        "extra_data": {"grader_version": __version__, "problem": problem.key},
    }


def _test(exercise: ExerciseResult, number: int, check: CheckResult, lang: str) -> dict[str, Any]:
    """One check as a test. A skipped check (no GPU) carries no status and is worth 0 of 0 points,
    so it costs nothing; its output says it was skipped and why. A grader fault is a failed test whose message
    says it is ours, so the instructor sees the lost points and can regrade."""
    status = "passed" if check.status == "passed" else "failed"
    return {
        "score": check.score,
        "max_score": check.max_score,
        **({} if check.status == "skipped" else {"status": status}),
        "name": catalogue.text("gradescope.test_name", lang, exercise=exercise.id,
                               title=clean(in_lang(check.titles, check.title, lang))),
        "name_format": TEXT,
        "number": f"{exercise.id}.{number}",
        "output": _check_output(check, lang),
        "output_format": TEXT,
        "tags": [exercise.id],
        "visibility": VISIBLE,
    }


def _adjusted_test(exercise: ExerciseResult, adjustment: Adjustment, lang: str) -> dict[str, Any]:
    """An exercise whose score a person set (`grade adjust`) as its own test: the adjusted score out of the
    exercise's usual points, where its checks' tests would hold them (a per-check test cannot carry a score
    given to the whole exercise). Its output says who adjusted it, when and why, what the grader gave, and
    then each check as the grader judged it (under a release policy, what that policy shows of it)."""
    output = [catalogue.text("adjust.by", lang, by=adjustment.by, date=adjustment.at[:10], why=adjustment.why),
              catalogue.text("adjust.own", lang, own=exercise.own_score, max=exercise.max_score)
              if adjustment.own_score == exercise.own_score else
              catalogue.text("adjust.own_changed", lang, now=exercise.own_score, max=exercise.max_score,
                             then=adjustment.own_score), ""]
    for check in exercise.checks:
        output.append(f"{STATUS_ICONS[check.status]} {catalogue.text('status.' + check.status, lang)} · "
                      f"{in_lang(check.titles, check.title, lang)} · {check.score:g} / {check.max_score:g}")
        if check.status != "passed":
            output += ["  " + line for line in _check_output(check, lang).splitlines()]
    title = in_lang(exercise.titles, exercise.title, lang)
    return {
        "score": exercise.score,
        "max_score": exercise.max_score,
        "name": clean(catalogue.text("gradescope.test_name", lang, exercise=exercise.id, title=title)
                      + " · " + catalogue.text("adjust.mark", lang)),
        "name_format": TEXT,
        "number": exercise.id,
        "output": clean("\n".join(output).rstrip("\n")),
        "output_format": TEXT,
        "tags": [exercise.id],
        "visibility": VISIBLE,
    }


def _check_output(check: CheckResult, lang: str) -> str:
    message = clean(in_lang(check.messages, check.message, lang))
    if check.status == "skipped":
        return catalogue.text("gradescope.skipped", lang, message=message)
    return message


def _summary(run: RunResult, lang: str) -> str:
    """The submission-wide output: the total and how to reproduce it, then anything the student
    must act on (a grader fault, cells that did not run)."""
    lines = []
    lines.append(catalogue.text("gradescope.summary", lang, score=run.score, max=run.max_score,
                                seed=run.seed, version=run.grader_version))
    if run.submission.files:
        lines.append(catalogue.text("gradescope.files", lang,
                                    files=", ".join(clean(name) for name in run.submission.files)))
    lines.append(catalogue.text("gradescope.protections", lang,
                                protections=", ".join(run.protections) or "-"))
    faults = sum(c.status == "error" for e in run.exercises for c in e.checks)
    if faults:
        lines.append(catalogue.text("gradescope.grader_fault", lang, count=faults))
    broken = cell_problems(run, lang)
    if broken:
        lines.append("")
        lines.append(catalogue.text("gradescope.cells", lang))
        lines += ["  " + clean(problem) for problem in broken]
    return "\n".join(lines)
