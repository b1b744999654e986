"""`grade batch` as an instructor runs it, through the real command: a mixed class graded right, a run
killed with -9 and resumed, unchanged submissions left alone, shards merged, exports re-rendered."""
from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, EXERCISES, SOLUTION, grade, mutant, mutations
from grader.classes.gradebook import FILENAME, Gradebook
from grader.outputs.names import page_name
from helpers import chapter_notebook as notebook
from helpers import class_attacks, grade_in_process
from processes import alive, children_of, marked, named

ANSWERS = SOLUTION.read_text(encoding="utf-8")
CLASS_EXERCISES = "3.1,3.2,mask"

def grade_command(*args: object, cwd: Path | None = None,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env={**os.environ, "LANG": "en_US.UTF-8", **(env or {})})


def grade_command_in_process(*args: object, cwd: Path) -> Any:
    """The same command in this process, for what fails before any grading (the batch's workers are forks
    of the process that runs it, which must not have run torch: what grades stays a subprocess)."""
    return grade_in_process(*map(str, args), cwd=cwd, environ={**os.environ, "LANG": "en_US.UTF-8"})


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_class(folder: Path) -> dict[str, str]:
    """About twenty students as an LMS download gives them; returns what each one should get."""
    expected = {}
    for name in ("ann", "王小明"):
        write(folder / f"{name}.py", ANSWERS)
        expected[name] = "full"
    (folder / "bob.ipynb").write_bytes((CORPUS / "book_style.ipynb").read_bytes())
    expected["bob"] = "full"
    # Two files graded together: the notebook imports the module handed in beside it.
    write(folder / "chen" / "attention.py", ANSWERS)
    write(folder / "chen" / "answers.ipynb", notebook("from attention import *", "print('imported')"))
    expected["chen"] = "full"
    for name, (group, bug) in {"dmitri": (mutations.SA_BUGS, "missing_transpose"),
                               "eve": (mutations.MASK_BUGS, "diagonal_zero"),
                               "fay": (mutations.WRAPPER_BUGS, "changed_num_heads"),
                               "pat": (mutations.MASK_BUGS, "no_scaling")}.items():
        write(folder / f"{name}.py", mutant(group, bug))
        expected[name] = "partial"
    write(folder / "gus.ipynb", '{"cells": [ this is not json')
    expected["gus"] = "ungradable"
    write(folder / "ivan" / "report.pdf", "%PDF-1.4 not code")
    expected["ivan"] = "ungradable"
    write(folder / "hana.py", "")
    write(folder / "nia.py", "def broken(:\n    pass\n")
    for name in ("hana", "nia"):
        expected[name] = "zero"
    # A loop that never ends before the answers: interrupted at its share of the time, the answers after it
    # graded in full (a .py file runs statement by statement).
    write(folder / "max.py", "while True:\n    pass\n" + ANSWERS)
    expected["max"] = "full"
    for name, attack in class_attacks().items():
        write(folder / f"{name}.py", attack + ANSWERS)
        expected[name] = "full"
    return expected


def jsonl(outdir: Path) -> dict[str, dict]:
    lines = (outdir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["student"]: row for row in map(json.loads, lines)}


def statuses(row: dict) -> dict[str, str]:
    return {f"{e['id']}/{c['id']}": c["status"] for e in row["result"]["exercises"] for c in e["checks"]}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str], subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("class")
    expected = make_class(root / "submissions")
    done = grade_command("batch", root / "submissions", "-e", CLASS_EXERCISES, "-o", root / "out", "-j", 2,
                         "--timeout", 20)
    return root / "submissions", root / "out", expected, done


def test_a_mixed_class_gets_the_right_grades(graded_class, launcher) -> None:
    submissions, outdir, expected, done = graded_class
    assert done.returncode == 0, done.stderr
    rows = jsonl(outdir)
    assert sorted(rows) == sorted(expected)
    for student, verdict in expected.items():
        row = rows[student]
        if verdict == "ungradable":
            assert row["status"] == "ungradable" and row["result"] is None, student
            continue
        assert row["status"] == "graded", (student, row["problem"])
        if verdict == "full":
            assert row["score"] == row["max_score"] > 0, (student, statuses(row))
        elif verdict == "zero":
            assert row["score"] == 0, student
        else:
            assert 0 < row["score"] < row["max_score"], student
    assert rows["gus"]["problem"]["key"] == "cli.bad_notebook"
    assert rows["ivan"]["problem"]["key"] == "cli.nothing_to_grade"
    assert rows["chen"]["files"] == ["answers.ipynb", "attention.py"]
    # The named bugs fail where they should, and nowhere else.
    failed = {student: {k for k, s in statuses(rows[student]).items() if s != "passed"}
              for student, verdict in expected.items() if verdict == "partial"}
    assert failed == {"dmitri": {"3.1/agree", "3.1/parameters"}, "fay": {"3.2/answer"},
                      "eve": {"mask/first_token", "mask/normalised", "mask/finite", "mask/reference"},
                      "pat": {"mask/reference"}}
    # The batch gives what grading each file alone gives.
    selected = [EXERCISES[e] for e in CLASS_EXERCISES.split(",")]
    for student in ("ann", "eve", "pat", "hana"):
        alone = grade(submissions / f"{student}.py", selected, launcher, seed=5)
        assert {f"{e.id}/{c.id}": c.status for e in alone.exercises for c in e.checks} == statuses(rows[student])


def test_the_outputs_hold_the_class(graded_class) -> None:
    _, outdir, expected, done = graded_class
    table = {row["student"]: row for row in csv.DictReader(io.StringIO((outdir / "grades.csv").read_text("utf-8")))}
    assert sorted(table) == sorted(expected)
    assert float(table["ann"]["total"]) == float(table["ann"]["max_score"]) == 28
    assert table["gus"]["status"] == "ungradable"
    for student, row in jsonl(outdir).items():
        page = outdir / page_name(student)
        assert page.is_file() == (row["result"] is not None), student
    index = (outdir / "index.html").read_text(encoding="utf-8")
    assert "gus" in index and "ivan" in index
    assert "<script>" not in index
    assert "index.html" in done.stdout
    assert summary_count(done.stdout, "students") == len(expected)
    assert summary_count(done.stdout, "could not be graded") == 2
    assert not (outdir / ".sources").exists()


def test_hostile_output_stays_in_its_page(graded_class) -> None:
    _, outdir, _, done = graded_class
    assert "::error" not in done.stdout and "::set-output" not in done.stdout
    assert "::error" not in (outdir / "grades.csv").read_text(encoding="utf-8")


def test_a_second_run_grades_nothing_unchanged(graded_class, tmp_path: Path) -> None:
    submissions, outdir, expected, _ = graded_class
    before = Gradebook(outdir / FILENAME).latest()
    again = grade_command("batch", submissions, "-e", CLASS_EXERCISES, "-o", outdir, "-j", 2, "--timeout", 20)
    assert again.returncode == 0, again.stderr
    with Gradebook(outdir / FILENAME) as book:
        assert book.latest() == before
    assert summary_count(again.stdout, "already graded") == len(expected)
    assert summary_count(again.stdout, "graded now") == 0


def summary_count(stdout: str, label: str) -> float:
    line = next(line for line in stdout.splitlines() if line.startswith(label))
    return float(line.split()[-1])


def one_student_class(folder: Path, count: int) -> None:
    for n in range(count):
        write(folder / f"s{n:02d}.py", ANSWERS)


def rows(outdir: Path) -> list[tuple]:
    db = sqlite3.connect(outdir / FILENAME)
    found = db.execute("SELECT uid, student, sha256, status, score FROM results ORDER BY id").fetchall()
    db.close()
    return found


def started_in(folder: Path) -> list[int]:
    """The grader's processes working in this folder (other batches may run on the machine)."""
    found = []
    for pid in named("grade-worker") + marked([b"grader.sandbox.zygote"]):
        try:
            if Path(os.readlink(f"/proc/{pid}/cwd")) == folder:
                found.append(pid)
        except OSError:
            pass
    return found


def batch_in_background(folder: Path, exercises: str, out: Path, until_committed: int,
                        jobs: int = 1) -> subprocess.Popen[bytes]:
    """`grade batch folder/in` on `jobs` workers, returned once it has committed that many results."""
    proc = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(folder / "in"), "-e", exercises,
                             "-o", str(out), "-j", str(jobs)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=folder)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and committed(out) < until_committed:
        time.sleep(0.05)
    return proc


def committed(outdir: Path) -> int:
    """Rows a running batch has committed so far (0 before it has created its gradebook)."""
    try:
        return len(rows(outdir))
    except sqlite3.OperationalError:
        return 0


def test_force_regrades_and_a_changed_submission_keeps_its_history(tmp_path: Path) -> None:
    one_student_class(tmp_path / "in", 3)
    out = tmp_path / "out"
    assert grade_command("batch", tmp_path / "in", "-e", "3.1", "-o", out, "-j", 1).returncode == 0
    first = rows(out)
    assert grade_command("batch", tmp_path / "in", "-e", "3.1", "-o", out, "-j", 1).returncode == 0
    assert rows(out) == first
    write(tmp_path / "in" / "s01.py", mutant(mutations.SA_BUGS, "missing_transpose"))
    assert grade_command("batch", tmp_path / "in", "-e", "3.1", "-o", out, "-j", 1).returncode == 0
    changed = rows(out)
    assert changed[:3] == first and [r[1] for r in changed[3:]] == ["s01"]
    with Gradebook(out / FILENAME) as book:
        history = book.history("s01")
        assert len(history) == 2 and history[0].score == 10 > history[1].score
        assert {e.student: e.score for e in book.latest()}["s01"] < 10
    assert grade_command("batch", tmp_path / "in", "-e", "3.1", "-o", out, "-j", 1, "--force").returncode == 0
    assert len(rows(out)) == 7


def test_a_run_killed_mid_way_resumes_without_losing_or_regrading(tmp_path: Path) -> None:
    one_student_class(tmp_path / "in", 12)
    out = tmp_path / "out"
    proc = batch_in_background(tmp_path, "3.1,mask", out, until_committed=3)
    assert started_in(tmp_path)  # the worker and its zygote, seen while they work
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = rows(out)
    assert 3 <= len(before) < 12
    # Nothing the killed run started outlives it: its judge worker, the worker's zygote.
    deadline = time.monotonic() + 5
    while started_in(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started_in(tmp_path) == []

    again = grade_command("batch", tmp_path / "in", "-e", "3.1,mask", "-o", out, "-j", 2)
    assert again.returncode == 0, again.stderr
    after = rows(out)
    assert after[:len(before)] == before  # what was committed stays, as it was
    assert sorted(r[1] for r in after) == [f"s{n:02d}" for n in range(12)]  # each graded exactly once
    assert all(r[3] == "graded" and r[4] == 22 for r in after)


EARLIER_SCHEMA = """CREATE TABLE results (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, student TEXT NOT NULL,
    exercise_set TEXT NOT NULL, sha256 TEXT NOT NULL, grader_version TEXT NOT NULL, status TEXT NOT NULL,
    score REAL NOT NULL, max_score REAL NOT NULL, files TEXT NOT NULL, graded_at TEXT NOT NULL, result TEXT,
    problem TEXT);
INSERT INTO results VALUES (1, 'u1', 'ann', '3.1', 'abc', '0.1.0', 'ungradable', 0, 0, '["ann.py"]',
    '2026-01-01T00:00:00+00:00', NULL, '{"key": "batch.no_code", "args": {}}');"""


def test_a_gradebook_from_an_earlier_version_opens_merges_and_is_graded_again(tmp_path: Path) -> None:
    """A gradebook written before results kept their exercise definitions and LMS ids: it opens, gains the
    columns (its rows with none), merges into a new one, and its results count as graded by unknown
    definitions, so the next run grades them again."""
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as db:
        db.executescript(EARLIER_SCHEMA)
    merged = tmp_path / FILENAME
    with Gradebook(merged) as book:
        assert book.merge(old) == 1
        (entry,) = book.latest()
        assert (entry.student, entry.definitions, entry.lms_id, entry.late) == ("ann", {}, "", False)
        assert book.standing("ann", "3.1", "abc", "0.1.0", {"3.1": "f00d"}) == (False, ["3.1"])
    with Gradebook(old) as book:
        assert [e.student for e in book.latest()] == ["ann"]


def test_shards_merged_equal_the_whole_class(graded_class, tmp_path: Path) -> None:
    submissions, whole, expected, _ = graded_class
    shards = []
    for k in (1, 2, 3):
        shard = tmp_path / f"shard{k}"
        done = grade_command("batch", submissions, "-e", CLASS_EXERCISES, "-o", shard, "-j", 2,
                             "--timeout", 20, "--shard", f"{k}/3")
        assert done.returncode == 0, done.stderr
        shards.append(shard)
    parts = [set(jsonl(s)) for s in shards]
    assert sum(map(len, parts)) == len(expected) and set.union(*parts) == set(expected)
    merged = grade_command("merge", tmp_path / "merged", *shards)
    assert merged.returncode == 0, merged.stderr
    once, combined = jsonl(whole), jsonl(tmp_path / "merged")
    assert sorted(combined) == sorted(once)
    for student, row in once.items():
        other = combined[student]
        assert (other["status"], other["score"], other["max_score"]) == (row["status"], row["score"], row["max_score"])
        if row["result"]:
            assert statuses(other) == statuses(row)
    assert (tmp_path / "merged" / "index.html").is_file()
    assert all((tmp_path / "merged" / page_name(s)).is_file() for s, r in combined.items() if r["result"])
    again = grade_command("merge", tmp_path / "merged", *shards)
    assert "0 new results" in again.stdout


def test_export_rerenders_without_grading(graded_class, tmp_path: Path) -> None:
    _, outdir, expected, _ = graded_class
    exported = grade_command("export", outdir, "--format", "csv")
    assert exported.returncode == 0
    assert exported.stdout == (outdir / "grades.csv").read_text(encoding="utf-8")
    assert grade_command("export", outdir, "--format", "jsonl", "-o", tmp_path / "r.jsonl").returncode == 0
    assert (tmp_path / "r.jsonl").read_text(encoding="utf-8") == (outdir / "results.jsonl").read_text(encoding="utf-8")
    assert grade_command("export", outdir, "--format", "gradescope", "-o", tmp_path / "gs").returncode == 0
    ann = json.loads((tmp_path / "gs" / "ann.json").read_text(encoding="utf-8"))
    assert ann["score"] == 28 and all(t.get("status", "passed") == "passed" for t in ann["tests"])
    gus = json.loads((tmp_path / "gs" / "gus.json").read_text(encoding="utf-8"))
    assert gus["score"] == 0 and "notebook" in gus["output"]
    assert len(list((tmp_path / "gs").glob("*.json"))) == len(expected)
    assert grade_command("export", outdir, "--format", "html", "-o", tmp_path / "site").returncode == 0
    assert (tmp_path / "site" / "index.html").read_text(encoding="utf-8") == \
        (outdir / "index.html").read_text(encoding="utf-8")


def test_one_students_folder_is_graded_as_that_student(tmp_path: Path) -> None:
    """`grade batch chen/`: the folder of a learner whose notebook imports her module is one student, graded
    with both files together, not a class of two half-submissions."""
    chen = tmp_path / "chen"
    write(chen / "attention.py", ANSWERS)
    write(chen / "answers.ipynb", notebook("from attention import *", "print('imported')"))
    done = grade_command("batch", chen, "-e", "3.1", "-o", tmp_path / "out", "-j", 1)
    assert done.returncode == 0, done.stderr
    [row] = jsonl(tmp_path / "out").values()
    assert row["student"] == "chen" and row["result"]["score"] == row["result"]["max_score"] == 10


def test_what_cannot_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = [
        ("batch", tmp_path / "nowhere", "-o", tmp_path / "out"),
        ("batch", tmp_path, "-e", "9.9", "-o", tmp_path / "out"),
        ("batch", tmp_path, "-o", tmp_path / "out", "--shard", "4/3"),
        ("batch", tmp_path, "-o", tmp_path / "out", "--student-pattern", "(unclosed"),
        ("export", tmp_path / "empty", "--format", "csv"),
        ("merge", tmp_path / "m", tmp_path / "not-a-shard"),
    ]
    for n, args in enumerate(cases):  # the first as a real process, the rest in-process
        done = grade_command(*args) if n == 0 else grade_command_in_process(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("grade: "), (args, done.stderr)



def test_the_workers_share_one_zygote(tmp_path: Path) -> None:
    """`-j 2` imports torch twice, not three times: the batch process, and one zygote whose children
    are the sandboxes of both workers."""
    for n in range(4):
        write(tmp_path / "in" / f"s{n:02d}.py", "import time\ntime.sleep(1)\n" + ANSWERS)
    out = tmp_path / "out"
    proc = batch_in_background(tmp_path, "3.1", out, until_committed=0, jobs=2)
    most = 0
    deadline = time.monotonic() + 120
    while proc.poll() is None and most < 2 and time.monotonic() < deadline:
        zygotes = [pid for pid in marked([b"grader.sandbox.zygote"]) if pid in children_of(proc.pid)]
        assert len(zygotes) <= 1
        if zygotes:
            most = max(most, len([pid for pid in children_of(zygotes[0]) if alive(pid)]))
        time.sleep(0.05)
    assert most == 2  # two submissions at once, both forked by the one zygote
    assert proc.wait(timeout=300) == 0
    assert [(row[3], row[4]) for row in rows(out)] == [("graded", 10)] * 4


def test_a_worker_replaces_the_zygote_it_was_handed(tmp_path: Path) -> None:
    """The batch process starts the workers' zygote and hands it over; when that zygote is killed (the
    OOM killer, or a submission where no namespace or Landlock stopped it), the worker starts its own
    and the students after it are graded as usual."""
    write(tmp_path / "in" / "s00.py", ANSWERS)
    write(tmp_path / "in" / "s01.py", "import time\ntime.sleep(4)\n" + ANSWERS)  # its zygote dies meanwhile
    write(tmp_path / "in" / "s02.py", ANSWERS)
    write(tmp_path / "in" / "s03.py", ANSWERS)
    out = tmp_path / "out"
    proc = batch_in_background(tmp_path, "3.1", out, until_committed=1)
    time.sleep(0.5)  # s01 is asleep in its first cell
    zygotes = [pid for pid in marked([b"grader.sandbox.zygote"]) if pid in children_of(proc.pid)]
    assert len(zygotes) == 1  # the batch process's own child, not the worker's
    os.kill(zygotes[0], signal.SIGKILL)
    assert proc.wait(timeout=300) == 0
    grades = {row[1]: (row[3], row[4]) for row in rows(out)}
    assert grades["s00"] == grades["s02"] == grades["s03"] == ("graded", 10)
    assert grades["s01"][0] == "graded"
