"""`grade adjust` as an instructor uses it after an appeal, through the real commands: a small class graded
with `grade batch`, one exercise's score set by hand, and every output (grades.csv, results.jsonl, the
overview, the student's page, the Gradescope export) showing it; taken back with --undo; kept through a
regrade, which says when the grader's own score under it changed."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
from markupsafe import escape
from pathlib import Path
from typing import Any

import pytest

from conftest import SOLUTION, mutant, mutations
from grader.classes.gradebook import FILENAME
from grader.outputs.names import page_name
from grader.messages import catalogue
from grader.messages.classes import MESSAGES
from grader.results import from_json, to_json
from classes.test_batch import grade_command, grade_command_in_process, jsonl, write

EXERCISES = "3.1,3.2"
REASON = "<script>alert(1)</script> =1+1 the transpose was explained in a comment"
BY = "Dr. Lin"


def batch(root: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return grade_command("batch", root / "in", "-e", EXERCISES, "-o", root / "out", "-j", 2, "--timeout", 30, *more)


def adjust(root: Path, *args: object) -> Any:
    return grade_command_in_process("adjust", root / "out", *args, cwd=root)


def grades(root: Path) -> dict[str, dict[str, str]]:
    text = (root / "out" / "grades.csv").read_text(encoding="utf-8")
    return {row["student"]: row for row in csv.DictReader(io.StringIO(text))}


def exercise(row: dict[str, Any], exercise_id: str) -> dict[str, Any]:
    return next(e for e in row["result"]["exercises"] if e["id"] == exercise_id)


def own(row: dict[str, Any], exercise_id: str) -> float:
    return sum(c["score"] for c in exercise(row, exercise_id)["checks"])


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ann (the book's answer) and bob (3.1 with its transpose missing), graded once for the module."""
    root = tmp_path_factory.mktemp("adjust")
    write(root / "in" / "ann.py", SOLUTION.read_text(encoding="utf-8"))
    write(root / "in" / "bob.py", mutant(mutations.SA_BUGS, "missing_transpose"))
    done = batch(root)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def klass(graded: Path, tmp_path: Path) -> Path:
    """A copy of the graded class, for a test to change."""
    shutil.copytree(graded, tmp_path, dirs_exist_ok=True)
    return tmp_path


def test_an_adjusted_score_shows_in_every_output(klass: Path) -> None:
    before = jsonl(klass / "out")["bob"]
    bob_own = own(before, "3.1")
    assert bob_own < 10 and all("adjustment" not in e for e in before["result"]["exercises"])

    done = adjust(klass, "bob", "3.1", "8", "--by", BY, "--why", REASON, "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == catalogue.text("adjust.done", "en", student="bob", exercise="3.1", before=bob_own,
                                                 after=8.0, max=10.0, own=bob_own, by=BY)
    total = 8 + exercise(before, "3.2")["score"]

    table = grades(klass)
    assert (table["bob"]["3.1"], float(table["bob"]["total"]), table["bob"]["adjusted"]) == ("8", total, "3.1")
    assert table["ann"]["adjusted"] == ""

    rows = jsonl(klass / "out")
    bob = rows["bob"]
    assert bob["score"] == bob["result"]["score"] == total
    adjusted = exercise(bob, "3.1")
    assert adjusted["score"] == 8 and own(bob, "3.1") == bob_own
    assert {k: adjusted["adjustment"][k] for k in ("points", "by", "why", "own_score")} == \
        {"points": 8, "by": BY, "why": REASON, "own_score": bob_own}
    assert to_json(from_json(bob["result"])) == bob["result"]  # read back as it was written
    assert all("adjustment" not in e for e in rows["ann"]["result"]["exercises"])

    index = (klass / "out" / "index.html").read_text(encoding="utf-8")
    for lang in catalogue.LANGS:
        assert catalogue.text("adjust.marked", lang, exercises="3.1") in index

    page = (klass / "out" / page_name("bob")).read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; =1+1" in page
    assert BY in page and adjusted["adjustment"]["at"][:10] in page
    for lang in catalogue.LANGS:
        assert escape(catalogue.text("adjust.own", lang, own=bob_own, max=10.0)) in page
    assert "8 / 10" in page

    exported = grade_command("export", klass / "out", "--format", "gradescope", "-o", klass / "gs")
    assert exported.returncode == 0, exported.stderr
    data = json.loads((klass / "gs" / "bob.json").read_text(encoding="utf-8"))
    assert data["score"] == total == pytest.approx(sum(t["score"] for t in data["tests"]))
    assert sum(t["score"] for t in data["tests"] if "3.1" in t["tags"]) == pytest.approx(8)
    [extra] = [t for t in data["tests"] if "3.1" in t["tags"]]  # the exercise's own test, not one more (issue 50)
    assert (extra["score"], extra["max_score"]) == (8, 10)
    assert REASON in extra["output"] and BY in extra["output"] and extra["output_format"] == "text"


def test_undo_gives_the_graders_own_score_back(klass: Path) -> None:
    out = klass / "out"
    csv_before, jsonl_before = (out / "grades.csv").read_bytes(), (out / "results.jsonl").read_bytes()
    bob_own = own(jsonl(out)["bob"], "3.1")
    assert adjust(klass, "bob", "3.1", "9.5", "--by", BY, "--why", "appeal").returncode == 0
    assert grades(klass)["bob"]["3.1"] == "9.5"

    undone = adjust(klass, "bob", "3.1", "--undo", "--by", BY, "--lang", "en")
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.strip() == catalogue.text("adjust.undone", "en", student="bob", exercise="3.1", before=9.5,
                                                   after=bob_own, max=10.0)
    assert (out / "grades.csv").read_bytes() == csv_before
    assert (out / "results.jsonl").read_bytes() == jsonl_before
    assert "appeal" not in (out / page_name("bob")).read_text(encoding="utf-8")
    db = sqlite3.connect(out / FILENAME)
    kept = db.execute("SELECT student, exercise, kind, points, by FROM adjustments ORDER BY id").fetchall()
    db.close()
    assert kept == [("bob", "3.1", "adjust", 9.5, BY), ("bob", "3.1", "undo", None, BY)]  # the history stays


@pytest.mark.parametrize("args, key", [
    (("nobody", "3.1", "5", "--by", BY, "--why", "x"), "adjust.unknown_student"),
    (("bob", "mask", "5", "--by", BY, "--why", "x"), "adjust.no_exercise"),
    (("bob", "3.1", "11", "--by", BY, "--why", "x"), "adjust.points_range"),
    (("bob", "3.1", "nan", "--by", BY, "--why", "x"), "adjust.points_range"),
    (("bob", "3.1", "seven", "--by", BY, "--why", "x"), "adjust.not_a_number"),
    (("bob", "3.1", "5", "--why", "x"), "adjust.no_by"),
    (("bob", "3.1", "5", "--by", " ", "--why", "x"), "adjust.no_by"),
    (("bob", "3.1", "5", "--by", BY), "adjust.no_why"),
    (("bob", "3.1", "5", "--by", BY, "--why", "x" * 2001), "adjust.too_long"),
    (("bob", "3.1", "--by", BY, "--why", "x"), "adjust.no_points"),
    (("bob", "3.1", "5", "--undo", "--by", BY), "adjust.points_with_undo"),
    (("bob", "3.1", "--undo", "--by", BY), "adjust.nothing_to_undo"),
])
def test_what_cannot_be_adjusted_is_one_line_and_exit_2(graded: Path, args: tuple[str, ...], key: str) -> None:
    before = (graded / "out" / "grades.csv").read_bytes()
    for lang in catalogue.LANGS:
        done = adjust(graded, *args, "--lang", lang)
        assert done.returncode == 2, done.stdout
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("grade: "), done.stderr
        said = max(re.split(r"\{[^}]*\}", MESSAGES[key][lang]), key=len)  # its longest stretch without a value
        assert said in done.stderr, (lang, done.stderr)
    assert (graded / "out" / "grades.csv").read_bytes() == before  # nothing written


def test_no_gradebook_is_exit_2(tmp_path: Path) -> None:
    done = grade_command_in_process("adjust", tmp_path / "none", "bob", "3.1", "5", "--by", BY, "--why", "x",
                                    cwd=tmp_path)
    assert done.returncode == 2 and "no gradebook" in done.stderr


def test_a_regrade_keeps_the_adjustment_and_says_when_the_own_score_changed(klass: Path) -> None:
    bob_own = own(jsonl(klass / "out")["bob"], "3.1")
    assert adjust(klass, "bob", "3.1", "8", "--by", BY, "--why", REASON).returncode == 0

    again = batch(klass, "--force")  # every submission graded again, as it was
    assert again.returncode == 0, again.stderr
    assert grades(klass)["bob"]["3.1"] == "8" and grades(klass)["bob"]["adjusted"] == "3.1"
    page = (klass / "out" / page_name("bob")).read_text(encoding="utf-8")
    assert BY in page and "&lt;script&gt;" in page  # the worker's page, rewritten with the adjustment
    assert "bob 3.1" not in again.stderr  # the grader's own score did not change: nothing to say

    write(klass / "in" / "bob.py", SOLUTION.read_text(encoding="utf-8"))  # bob's fix: the grader now gives 10
    changed = batch(klass)
    assert changed.returncode == 0, changed.stderr
    row = jsonl(klass / "out")["bob"]
    assert exercise(row, "3.1")["score"] == 8 and own(row, "3.1") == 10  # the person's score stays
    assert exercise(row, "3.1")["adjustment"]["own_score"] == bob_own
    assert grades(klass)["bob"]["adjusted"] == f"3.1 (own score {bob_own:g} when adjusted, 10 now)"
    page = (klass / "out" / page_name("bob")).read_text(encoding="utf-8")
    assert escape(catalogue.text("adjust.own_changed", "en", now=10.0, then=bob_own, max=10.0)) in page
    warning = catalogue.text("adjust.drifted", "en", student="bob", exercise="3.1", then=bob_own, now=10.0,
                             points=8.0, by=BY, date=exercise(row, "3.1")["adjustment"]["at"][:10])
    assert warning in changed.stderr.replace("\n", " ")


def _adjustment_rows(out: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(out / FILENAME)
    try:
        return db.execute("SELECT student, exercise, kind, points, by, why FROM adjustments ORDER BY id").fetchall()
    finally:
        db.close()


def test_merged_shards_keep_their_adjustments(klass: Path) -> None:
    """An appeal settled in one shard's folder, a later one in another's: `grade merge` keeps both, the latest
    made is the one in force (whatever order the shards are named in), and merging again adds nothing."""
    first, second = klass / "shard1", klass / "shard2"
    shutil.copytree(klass / "out", first)
    shutil.copytree(klass / "out", second)
    assert grade_command_in_process("adjust", first, "bob", "3.1", "8", "--by", BY, "--why", "first appeal",
                                    cwd=klass).returncode == 0
    assert grade_command_in_process("adjust", second, "bob", "3.1", "9", "--by", BY, "--why", "second look",
                                    cwd=klass).returncode == 0
    assert grade_command_in_process("adjust", second, "ann", "3.2", "1", "--by", BY, "--why", "late",
                                    cwd=klass).returncode == 0
    db = sqlite3.connect(first / FILENAME)
    with db:  # the first appeal was settled a day before the second
        db.execute("UPDATE adjustments SET at = '2026-01-01T00:00:00+00:00'")
    db.close()

    merged = klass / "merged"
    for _ in range(2):
        done = grade_command("merge", merged, second, first)
        assert done.returncode == 0, done.stderr
    assert sorted(_adjustment_rows(merged)) == sorted([
        ("bob", "3.1", "adjust", 8.0, BY, "first appeal"), ("bob", "3.1", "adjust", 9.0, BY, "second look"),
        ("ann", "3.2", "adjust", 1.0, BY, "late")])
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO((merged / "grades.csv").read_text("utf-8")))}
    assert (rows["bob"]["3.1"], rows["bob"]["adjusted"]) == ("9", "3.1")
    assert (rows["ann"]["3.2"], rows["ann"]["adjusted"]) == ("1", "3.2")
    assert "second look" in (merged / page_name("bob")).read_text(encoding="utf-8")
