"""Common mistakes of a class (grader.render.mistakes), on the overview page and as `grade export --format mistakes`.

Contract: a class with planted mistakes shows each named mistake once per exercise, with how many
students made it and their names, each linking to the check on their page that reported it; failures
no check names are "other", one group per check; the most common come first. Each check's pass rate
lists the students who failed it, one click away.
"""
from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXERCISES, ROOT, SOLUTION, TEMPLATE, grade, mutant, mutations
from grader.classes.gradebook import Gradebook
from grader.judge.launcher import ZygoteLauncher
from grader.render import classbook, html
from grader.render.mistakes import common_mistakes, mistakes_csv
from grader.outputs.names import page_name
from grader.results import Entry
from render.test_page import parse

EXERCISE_SET = "3.1,mask"
PLANTED = {  # student: (bug group, bug), or their own file
    "ann": None,
    "ben": (mutations.SA_BUGS, "missing_transpose"),
    "bo": (mutations.SA_BUGS, "missing_transpose"),
    "=cy": (mutations.MASK_BUGS, "mask_not_sliced"),
    "cat": (mutations.MASK_BUGS, "mask_not_sliced"),
    "dee": (mutations.MASK_BUGS, "softmax_wrong_dim"),
    "tom": "template",
}
NAMED = {  # the mistake each bug is named by, and who made it
    ("3.1", "3.1.diag.missing_transpose"): ["ben", "bo"],
    ("mask", "mask.short.raised"): ["=cy", "cat"],
    ("mask", "mask.bug.softmax_wrong_dim"): ["dee"],
}


def source(plan: object) -> str:
    if plan is None:
        return SOLUTION.read_text(encoding="utf-8")
    if plan == "template":
        return (TEMPLATE / "chapter3.py").read_text(encoding="utf-8")
    group, bug = plan  # type: ignore[misc]
    return mutant(group, bug)


@pytest.fixture(scope="module")
def graded(launcher: ZygoteLauncher, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Entry]]:
    folder = tmp_path_factory.mktemp("mistakes")
    chosen = [EXERCISES[e] for e in EXERCISE_SET.split(",")]
    with Gradebook(folder / "gradebook.sqlite") as book:
        for n, (student, plan) in enumerate(PLANTED.items()):
            path = folder / f"s{n}.py"
            path.write_text(source(plan), encoding="utf-8")
            run = grade(path, chosen, launcher, seed=n, timeout=60)
            book.record(Entry(student, EXERCISE_SET, run.submission.sha256, run.grader_version, (path.name,), run))
        return folder, book.latest()


def test_each_planted_mistake_is_found_with_its_count_and_names(graded) -> None:
    _, entries = graded
    mistakes = common_mistakes(entries)
    found = {(m.exercise, m.key): [s.name for s in m.students] for m in mistakes if m.key}
    for named, students in NAMED.items():
        assert found.get(named) == students, (named, found)
    counts = [m.count for m in mistakes]
    assert counts == sorted(counts, reverse=True)
    assert not any("ann" in names for names in found.values())
    softmax = next(m for m in mistakes if m.key == "mask.bug.softmax_wrong_dim")
    assert len(softmax.checks) > 1 and softmax.count == 1  # one student, however many checks said so


def test_unnamed_failures_are_other_one_group_per_exercise(graded) -> None:
    """One row per exercise for what no check names (issue 50: fifteen rows, one per check, buried the named
    mistakes; this test asserted one group per check before)."""
    _, entries = graded
    others = [m for m in common_mistakes(entries) if not m.key]
    assert others and len({m.exercise for m in others}) == len(others)
    assert any(len(m.checks) > 1 for m in others)  # the template's every check, in one row
    assert any("tom" in [s.name for s in m.students] for m in others)


def test_every_name_links_to_the_check_that_reported_it(graded) -> None:
    _, entries = graded
    runs = {entry.student: entry.run for entry in entries}
    for mistake in common_mistakes(entries):
        for student in mistake.students:
            page, anchor = student.href.split("#")
            assert page == page_name(student.name)
            run = runs[student.name]
            assert anchor in {f"ex-{e.id}-{c.id}" for e in run.exercises for c in e.checks if c.status == "failed"}
            assert f'id="{anchor}"' in html.render(run)


def test_the_overview_has_the_mistakes_and_who_failed_each_check(graded) -> None:
    _, entries = graded
    dom = parse(classbook.index_html(entries, "en"))
    rows = dom.find("section", id="mistakes").find("tbody").find_all("tr")
    shown = {(r.attrs["data-exercise"], r.attrs["data-mistake"]): [a.text() for a in r.find_all("a")] for r in rows}
    for named, students in NAMED.items():
        assert shown[named] == students
    assert [int(r.attrs["data-count"]) for r in rows] == sorted((int(r.attrs["data-count"]) for r in rows), reverse=True)
    for row in dom.find("section", id="checks").find("tbody").find_all("tr"):
        exercise, check = row.attrs["data-exercise"], row.attrs["data-check"]
        failed = sorted(e.student for e in entries for ex in e.run.exercises for c in ex.checks  # type: ignore[union-attr]
                        if ex.id == exercise and c.id == check and c.status == "failed")
        links = row.find("td", cls="who-failed").find_all("a")
        assert sorted(a.text() for a in links) == failed
        assert all(a.attrs["href"].endswith(f"#ex-{exercise}-{check}") for a in links)


def test_export_writes_the_mistakes_as_csv(graded) -> None:
    folder, entries = graded
    done = subprocess.run([sys.executable, "-m", "grader", "export", folder, "--format", "mistakes"], cwd=ROOT / "tests",
                          capture_output=True, text=True, timeout=300, env={**os.environ, "LANG": "en_US.UTF-8"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == mistakes_csv(entries)
    reader = csv.DictReader(io.StringIO(done.stdout))
    assert reader.fieldnames == ["mistake", "exercise", "check", "count", "students"]
    rows = list(reader)
    by_key = {(r["exercise"], r["mistake"]): r for r in rows}
    assert by_key["3.1", "3.1.diag.missing_transpose"]["students"] == "ben; bo"
    assert by_key["mask", "mask.short.raised"] == {"mistake": "mask.short.raised", "exercise": "mask",
                                                  "check": "short", "count": "2", "students": "'=cy; cat"}
    assert any(r["mistake"] == "other" for r in rows)
