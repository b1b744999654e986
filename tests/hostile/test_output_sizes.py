"""The hostile corpus, against what the grader writes: the size of every output is bounded whatever
the submission (README, "JSON result", caps), and nothing a submission chose reaches a text output
with a control character raw (README, "Security").

Each attack is graded end to end through the `hostile` fixture (attacks/*.py), or through the
command line where the output under test is the command's own (stderr, --json, `grade batch`).
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import SOLUTION
from grader.classes.gradebook import Gradebook
from grader.render import classbook, github, gradescope, html, junit, terminal
from grader.results import Entry, RunResult, from_json, to_json

from .test_attacks import ALL_31, SOURCE, Hostile, after, hostile  # noqa: F401

CELLS = 8_000
# What this file holds the outputs of an 8,000-cell submission to (README, "JSON result"): the result's
# caps make them a few KB here; the page may be "a few hundred KB at most".
JSON_BYTES = 64_000
PAGE_BYTES = 300_000
TERMINAL_LINES = 40
LISTED_PROBLEMS = 20

# C0 but newline and tab, DEL, C1, and the bidirectional overrides and isolates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def statuses(run: RunResult) -> dict[str, str]:
    return {c.id: c.status for e in run.exercises if e.id == "3.1" for c in e.checks}


def raw_controls(text: str) -> list[str]:
    return sorted({repr(ch) for ch in RAW_CONTROL.findall(text)})


def grade_command(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env={**os.environ, "LANG": "en_US.UTF-8"})


def many_cells(hostile: Hostile, attack: str, kind: str) -> str:
    """The answers, then CELLS cells of the attack, as a notebook or a .py of `# %%` blocks."""
    bodies = [hostile.attack(attack, n=n) for n in range(CELLS)]
    if kind == ".py":
        return "\n# %%\n".join([SOURCE, *bodies])
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (SOURCE, *bodies)]
    return nbformat.writes(nb)


def assert_bounded(run: RunResult, tmp_path: Path) -> None:
    """Every output of the run within the caps: the JSON result, the page, the terminal summary, a
    results.jsonl line, the gradebook row and the class index that holds it."""
    result = json.dumps(to_json(run), ensure_ascii=False)
    assert len(result.encode()) <= JSON_BYTES, f"JSON result of {len(result.encode()):,} bytes"
    page = html.render(run)
    assert len(page.encode()) <= PAGE_BYTES, f"page of {len(page.encode()):,} bytes"
    lines = terminal.render(run, None, color=False).splitlines()
    assert len(lines) <= TERMINAL_LINES, f"{len(lines):,} terminal lines"
    entry = Entry("student", "3.1", run.submission.sha256, run.grader_version, ("s.ipynb",), run)
    line = classbook.results_jsonl([entry])
    assert len(line.encode()) <= JSON_BYTES, f"results.jsonl line of {len(line.encode()):,} bytes"
    assert len(classbook.index_html([entry], "en").encode()) <= PAGE_BYTES
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(entry)
    with sqlite3.connect(tmp_path / "gradebook.sqlite") as db:
        (row,) = db.execute("SELECT length(CAST(result AS BLOB)) FROM results").fetchone()
    assert row <= JSON_BYTES, f"gradebook row of {row:,} bytes"


# -- 11. outputs bounded whatever the submission ------------------------------------------------------------------
@pytest.mark.parametrize("kind", [".ipynb", ".py"])
def test_thousands_of_cells_that_run_are_counted_not_listed(hostile: Hostile, tmp_path: Path, kind: str) -> None:
    run = hostile.grade(many_cells(hostile, "tiny_cell", kind), "3.1", suffix=kind, timeout=60)
    assert statuses(run) == ALL_31
    assert_bounded(run, tmp_path)
    assert run.cell_counts == {"ok": CELLS + 1}
    assert run.cells == ()  # every cell ran, and no check failed that the page would quote


def test_thousands_of_cells_that_raise_are_counted_and_the_first_listed(hostile: Hostile, tmp_path: Path) -> None:
    huge = "# " + "x" * 1_000_000 + "\nraise ValueError('after a megabyte of comment')"
    source = many_cells(hostile, "raise_in_every_cell", ".ipynb")
    nb = nbformat.reads(source, as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(huge))
    run = hostile.grade(nbformat.writes(nb), "3.1", suffix=".ipynb", timeout=60)
    assert statuses(run) == ALL_31  # the answers in cell 1 still count
    assert_bounded(run, tmp_path)
    assert run.cell_counts == {"ok": 1, "raised": CELLS + 1}
    problems = [c for c in run.cells if c.status != "ok"]
    assert [c.cell for c in problems] == list(range(2, 2 + LISTED_PROBLEMS))
    assert run.unlisted_problems == CELLS + 1 - LISTED_PROBLEMS
    assert problems[0].source == ""  # its one line is longer than a cell's source may be
    summary = terminal.render(run, None, color=False)
    assert f"and {CELLS + 1 - LISTED_PROBLEMS} more cells that failed to run (not listed)" in summary
    assert f"{CELLS + 1 - LISTED_PROBLEMS}" in html.render(run)


def test_a_gradebook_row_that_lists_every_cell_is_read_bounded(hostile: Hostile) -> None:
    """A row written before results were bounded lists every cell: it renders bounded all the same."""
    run = hostile.grade(after(hostile.attack("raise_in_every_cell", n=1)), "3.1")
    old = to_json(run)
    del old["format"]  # as results were written before they were numbered
    old.pop("cell_counts", None)
    error = next(c for c in old["cells"] if c["status"] == "raised")
    ok = {**error, "cell": 1, "status": "ok", "error": None, "source": SOURCE}
    old["cells"] = [ok] + [{**error, "cell": n} for n in range(2, 2 + CELLS)]
    again = from_json(old)
    assert len(terminal.render(again, None, color=False).splitlines()) <= TERMINAL_LINES
    assert again.cell_counts == {"ok": 1, "raised": CELLS}
    assert [c.cell for c in again.cells if c.status != "ok"] == list(range(2, 2 + LISTED_PROBLEMS))
    assert again.unlisted_problems == CELLS - LISTED_PROBLEMS


# -- 12. control characters escaped in every text output ----------------------------------------------------------
def test_control_characters_from_a_submission_reach_no_output_raw(hostile: Hostile, tmp_path: Path) -> None:
    source = after(hostile.attack("control_characters"))
    run = hostile.grade(source, "3.1")
    assert statuses(run) == ALL_31
    assert any("\x1b" in (c.error or {}).get("message", "") for c in run.cells)  # it reached the result
    outputs = {
        "terminal": terminal.render(run, None, color=False),
        "page": html.render(run),
        "junit": junit.junit_xml(run, "en"),
        "annotations": "\n".join(github.annotations(run, "en")),
        "step summary": github.step_summary(run, 100, True, "en"),
        "gradescope": json.dumps(gradescope.results(run, "en"), ensure_ascii=False),
    }
    # and through the command line, from a file whose very name holds them
    evil = tmp_path / "cli" / "ev\x1b]0;pwned\x07il\u202e\x9b.py"
    evil.parent.mkdir()
    evil.write_text(source, encoding="utf-8")
    done = grade_command("3.1", evil, "--json", "result.json", "--html", "page.html", "--seed", 0, cwd=evil.parent)
    assert done.returncode == 0, done.stderr
    outputs |= {"stdout": done.stdout, "stderr": done.stderr,
                "--json": (evil.parent / "result.json").read_text(encoding="utf-8"),
                "--html": (evil.parent / "page.html").read_text(encoding="utf-8")}
    found = {name: raw_controls(text) for name, text in outputs.items() if raw_controls(text)}
    assert not found, found
    result = json.loads(outputs["--json"])  # the JSON result keeps the text whole, escaped
    assert result["submission"]["path"].endswith(evil.name)
    assert any("\u202edegnar" in (c.get("error") or {}).get("message", "") for c in result["cells"])


def test_control_characters_in_student_names_reach_no_class_output_raw(tmp_path: Path) -> None:
    names = ["\x1b]0;pwned\x07evil", "a\rb", "rlo\u202etxt", "c1\x9b31m", "del\x7fete", "bel\x07\x1b[2J"]
    folder = tmp_path / "in"
    folder.mkdir()
    answers = SOLUTION.read_text(encoding="utf-8")
    for name in names:
        (folder / f"{name}_1.py").write_text(answers, encoding="utf-8")
    (folder / "\x1b[2Jno\rmatch\u202e.py").write_text(answers, encoding="utf-8")  # said so on stderr
    done = grade_command("batch", folder, "-e", "3.2", "-o", tmp_path / "out", "-j", 2,
                         "--student-pattern", "^(?P<student>[^_]+)_", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # a hand-in left out (issue 47): named on stderr, listed, exit 1
    assert "grade: " in done.stderr  # the file left out is named there
    out = tmp_path / "out"
    outputs = {"stdout": done.stdout, "stderr": done.stderr,
               **{name: (out / name).read_text(encoding="utf-8")
                  for name in ("grades.csv", "results.jsonl", "index.html")},
               **{page.name: page.read_text(encoding="utf-8") for page in (out / "pages").iterdir()}}
    found = {name: raw_controls(text) for name, text in outputs.items() if raw_controls(text)}
    assert not found, found
    rows = [json.loads(line) for line in outputs["results.jsonl"].splitlines()]
    # and the file left out, a line and a row of its own (issue 47)
    assert [row["status"] for row in rows] == ["graded"] * len(names) + ["left out"]
    assert len(outputs["grades.csv"].splitlines()) == 1 + len(names) + 1
