"""JUnit XML for CI systems: one <testsuite> per exercise, one <testcase> per check.

Written for the consumers a course repository's CI has: GitHub (mikepenz/action-junit-report,
dorny/test-reporter), GitLab (`artifacts:reports:junit`) and Jenkins (JUnit plugin). What they read
decides where things go:

- GitLab ignores a failure's `message` attribute and shows the element's text as the case's
  "System output", so the text of <failure>/<error>/<skipped> repeats the message, with the points,
  in every language. GitLab also keeps only the first of several cases with the same classname and
  name, so both come from ids, which are unique.
- A passed check's points go in <system-out>: Jenkins shows it on every case's page as "Standard
  Output"; GitLab ignores testsuite and testcase properties altogether.
- A case's `time` is how long its check ran, a suite's the sum of its cases (what Jenkins and
  GitLab add up), and the <testsuites> total the whole run's, loading and cells included.

Submission-derived text goes through text.clean, and then everything loses the characters XML 1.0
forbids, which ElementTree would otherwise write into a file no consumer can parse.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from grader.messages import catalogue
from grader.messages.catalogue import in_lang
from grader.outputs.safe_text import clean
from grader.render.text import cell_problems
from grader.results import CheckResult, ExerciseResult, RunResult

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
GRADER_ERROR = "grader-error"

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def junit_xml(run: RunResult, lang: str) -> str:
    root = ET.Element("testsuites", _counts(run.exercises, "grader"))
    root.set("time", _seconds(run.duration_s))
    for exercise in run.exercises:
        root.append(_suite(run, exercise, lang))
    ET.indent(root)
    return DECLARATION + ET.tostring(root, encoding="unicode") + "\n"


def xml_text(value: object) -> str:
    """Text as XML 1.0 can carry it: clean, and without the code points the standard excludes
    (lone surrogates, U+FFFE, U+FFFF), which would make the whole report unreadable."""
    return _NOT_XML.sub("", clean(value))


def _counts(exercises: tuple[ExerciseResult, ...], name: str) -> dict[str, str]:
    checks = [c for e in exercises for c in e.checks]
    return {
        "name": xml_text(name),
        "tests": str(len(checks)),
        "failures": str(sum(c.status == "failed" for c in checks)),
        "errors": str(sum(c.status == "error" for c in checks)),
        "skipped": str(sum(c.status == "skipped" for c in checks)),
    }


def _suite(run: RunResult, exercise: ExerciseResult, lang: str) -> ET.Element:
    name = catalogue.text("ci.suite_name", lang, exercise=exercise.id,
                          title=in_lang(exercise.titles, exercise.title, lang))
    suite = ET.Element("testsuite", _counts((exercise,), name))
    suite.set("time", _seconds(exercise.duration_s))
    suite.set("timestamp", xml_text(run.started_at))
    properties = ET.SubElement(suite, "properties")
    for key, value in (("grader_version", run.grader_version), ("seed", run.seed),
                       ("score", f"{exercise.score:g}"), ("max_score", f"{exercise.max_score:g}"),
                       ("submission", run.submission.path)):
        ET.SubElement(properties, "property", name=key, value=xml_text(value))
    broken = _broken_cells(run, lang)
    for check in exercise.checks:
        suite.append(_case(exercise, check, broken, lang))
    return suite


def _case(exercise: ExerciseResult, check: CheckResult, broken: list[str], lang: str) -> ET.Element:
    case = ET.Element("testcase", {
        "classname": xml_text(f"grader.{exercise.id}"),
        "name": xml_text(catalogue.text("ci.case_name", lang, check=check.id,
                                        title=in_lang(check.titles, check.title, lang))),
        "time": _seconds(check.duration_s),
    })
    points = catalogue.text("ci.points", lang, score=check.score, max=check.max_score)
    message = xml_text(in_lang(check.messages, check.message, lang))
    if check.status == "passed":
        ET.SubElement(case, "system-out").text = points
    elif check.status == "skipped":
        ET.SubElement(case, "skipped", message=message).text = _every_language(check)
    elif check.status == "failed":
        outcome = ET.SubElement(case, "failure", message=message, type="failed")
        outcome.text = _details(points, check, broken)
    else:
        outcome = ET.SubElement(case, "error", message=message, type=GRADER_ERROR)
        outcome.text = _details(points, check, [catalogue.text("ci.grader_fault", lang)])
    return case


def _details(points: str, check: CheckResult, notes: list[str]) -> str:
    """The text of a failure or error: what GitLab shows as the case's output, so it holds all a
    student needs there: the points, the message in every language, then what else explains it."""
    return "\n\n".join([points, _every_language(check), *notes])


def _every_language(check: CheckResult) -> str:
    messages = check.messages or {"": check.message}
    return "\n".join(xml_text(f"{lang}: {text}" if lang else text) for lang, text in messages.items())


def _broken_cells(run: RunResult, lang: str) -> list[str]:
    """Cells that did not run, which explain a failure such as "no answer found"; attached to each
    failure because a JUnit consumer shows nothing run-wide."""
    lines = cell_problems(run, lang)
    if not lines:
        return []
    return [xml_text("\n  ".join([catalogue.text("ci.cells", lang), *lines]))]


def _seconds(value: float) -> str:
    return f"{value:.3f}"
