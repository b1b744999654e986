"""A class's results are the one result model (grader.results.entry, grader.results.statuses).

Contract: a gradebook entry holds its SubmissionResult (a run, or `Ungraded`) and nothing beside it, so the
gradebook's status column, grades.csv and results.jsonl say what the result says; a gradebook written before
(a cell that raised spelled `error`, the word that is the grader's fault everywhere else) reads in today's
words; and the renderers import only the result model and the messages, never the classes that keep results.
"""
from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

from grader.classes.gradebook import FILENAME, Gradebook
from grader.messages.catalogue import Msg
from grader.results import CellRecord, CheckResult, Entry, ExerciseResult, RunResult, SubmissionInfo, Ungraded, to_json
from helpers import grade_in_process, no_traceback
from test_layout import graph, subpackage

BROKEN = Msg("cli.bad_notebook", {"path": "x.ipynb", "error": "broken"})
LOST = Msg("batch.worker_lost", {"how": "exit status -9"})


def run(*statuses: str) -> RunResult:
    checks = tuple(CheckResult(f"c{n}", f"check {n}", status,  # type: ignore[arg-type]
                               float(status == "passed"), 1.0, "m", "k", messages={"en": "m"},
                               titles={"en": f"check {n}"})
                   for n, status in enumerate(statuses))
    return RunResult(grader_version="0", seed=0, lang="en", started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                     submission=SubmissionInfo("answer.py", "0" * 64, "py"),
                     cells=(CellRecord(2, "raised", {"type": "NameError", "message": "x", "line": 1}),),
                     cell_counts={"ok": 1, "raised": 1},
                     exercises=(ExerciseResult("3.1", "t", "", checks, titles={"en": "t"}),),
                     protections=())


CLASS = {  # student -> (result, the status every output gives it)
    "ann": (run("passed", "failed"), "graded"),
    "bo": (run("passed", "error"), "error"),  # a run the grader failed a check of is ours: graded again
    "cy": (Ungraded("ungradable", BROKEN), "ungradable"),
    "di": (Ungraded("error", LOST), "error"),
}


def export(outdir: Path, fmt: str) -> str:
    result = grade_in_process("export", outdir, "--format", fmt, "--lang", "en", cwd=outdir)
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_an_entry_is_its_result_in_the_gradebook_and_every_output(tmp_path: Path) -> None:
    with Gradebook(tmp_path / FILENAME) as book:
        for student, (result, _) in CLASS.items():
            book.record(Entry(student, "3.1", "0" * 64, "0", ("answer.py",), result))
        read = {entry.student: entry for entry in book.latest()}
    assert {student: entry.result for student, entry in read.items()} == {s: r for s, (r, _) in CLASS.items()}
    expected = {student: status for student, (_, status) in CLASS.items()}
    with sqlite3.connect(tmp_path / FILENAME) as db:
        rows = db.execute("SELECT student, status, result IS NULL, problem IS NULL FROM results").fetchall()
    assert {student: status for student, status, _, _ in rows} == expected
    assert {student: (no_run, no_problem) for student, _, no_run, no_problem in rows} == {
        "ann": (0, 1), "bo": (0, 1), "cy": (1, 0), "di": (1, 0)}
    grades = {row["student"]: row["status"] for row in csv.DictReader(io.StringIO(export(tmp_path, "csv")))}
    lines = {line["student"]: line for line in map(json.loads, export(tmp_path, "jsonl").splitlines())}
    assert grades == {student: line["status"] for student, line in lines.items()} == expected
    assert lines["di"]["problem"]["key"] == "batch.worker_lost" and lines["bo"]["problem"] is None


def test_a_batch_publishes_what_it_recorded_as_a_later_reader_of_the_gradebook_would(tmp_path: Path) -> None:
    """The gradebook that recorded a run reads it back as that run, and gives its JSON from the row it wrote,
    so a batch's publish decodes nothing it just encoded: what it writes is what any later reader (another
    process, `grade export`) writes from the same rows, and a run it did not record (one with an adjustment in
    force) is encoded afresh."""
    from dataclasses import replace

    from grader.render.classbook import results_jsonl
    from grader.results import Adjustment

    with Gradebook(tmp_path / FILENAME) as book:
        recorded = {student: book.record(Entry(student, "3.1", "0" * 64, "0", ("answer.py",), result))
                    for student, (result, _) in CLASS.items()}
        read = book.latest()
        assert all(entry.result is recorded[entry.student].result for entry in read if entry.run)
        written = results_jsonl(read, (), book.json_of)
        adjusted = replace(read[0].run, exercises=tuple(replace(e, adjustment=Adjustment(1.0, "ta", "why", "now", 0.0))
                                                      for e in read[0].run.exercises))
        assert book.json_of(adjusted) == to_json(adjusted) != book.json_of(read[0].run)
    with Gradebook(tmp_path / FILENAME) as later:
        assert written == results_jsonl(later.latest())
    assert written.count("\n") == len(CLASS)
    assert json.loads(written.splitlines()[0])["result"] == to_json(CLASS["ann"][0])


def test_a_gradebook_written_before_reads_in_todays_words(tmp_path: Path) -> None:
    """Rows as the gradebook wrote them before its entries held their result: the status a column of its own,
    and a cell that raised spelled "error". They read as they were, the cell `raised`."""
    old = to_json(run("passed", "failed"))
    del old["format"]  # as results were written before they were numbered
    old["cells"] = [{**cell, "status": "error"} for cell in old["cells"]]
    old["cell_counts"] = {"ok": 1, "error": 1}
    with Gradebook(tmp_path / FILENAME) as book:
        book.record(Entry("cy", "3.1", "0" * 64, "0", ("x.ipynb",), Ungraded("ungradable", BROKEN)))
        book.db.execute("INSERT INTO results (uid, student, exercise_set, sha256, grader_version, status, score, "
                        "max_score, files, graded_at, result, problem) VALUES ('u-ann', 'ann', '3.1', 'abc', "
                        "'0.1.0', 'graded', 1, 2, '[\"ann.py\"]', '2026-01-01T00:00:00+00:00', ?, NULL)",
                        (json.dumps(old),))
        (ann, cy) = book.latest()
    assert (ann.status, cy.status, cy.problem) == ("graded", "ungradable", BROKEN)
    assert ann.run == run("passed", "failed")
    line = json.loads(export(tmp_path, "jsonl").splitlines()[0])
    assert [cell["status"] for cell in line["result"]["cells"]] == ["raised"]
    assert line["result"]["cell_counts"] == {"ok": 1, "raised": 1}


def test_renderers_import_only_the_result_model_the_messages_and_the_outputs_edge() -> None:
    """grader/render/__init__.py says so: a renderer is given what it shows (docs/design.md, section 5)."""
    reached = {f"{module} -> {target}" for module, targets in graph().items() if subpackage(module) == "render"
               for target in targets if subpackage(target) not in ("render", "results", "messages", "outputs", None)}
    assert not reached, sorted(reached)
