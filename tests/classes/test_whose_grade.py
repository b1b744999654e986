"""Every grade on the right student: a class downloaded from Canvas, graded and exported as an instructor does
at the end of term.

The zip is named as Canvas's own code names it (`get_filename` in its lib/content_zipper.rb): NAME_USERID_FILEID_file
with NAME the sortable name in lower case, word characters only; `NAME_LATE_USERID_...` for a late hand-in;
`anon_ANONID_FILEID_file` and `LATE_anon_...` under anonymous grading. Two students of the class are both
"Wang Wei" (wangwei), with user ids 1111 and 2222 and different work: they are two students everywhere.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest

from conftest import SOLUTION, mutant, mutations
from grader.classes.gradebook import Gradebook
from grader.classes.roster import Student, collect, in_shard
from grader.messages.catalogue import Msg
from grader.results import LeftOut
from helpers import grade, grade_in_process, no_traceback
from end_to_end.test_browser import chromium, visit  # noqa: F401  (the fixture: required in CI, else skipped)
from render.test_page import parse

BUGGY = mutant(mutations.SA_BUGS, "missing_transpose")
HAND_INS = {  # the name Canvas gives each file -> its code
    "wangwei_1111_900001_attention.py": SOLUTION.read_text(encoding="utf-8"),
    "wangwei_2222_900002_attention.py": BUGGY,
    "liuyang_LATE_1002_900003_my_solution.py": SOLUTION.read_text(encoding="utf-8"),
    "anon_x1Y2z_900004_attention.py": SOLUTION.read_text(encoding="utf-8"),
    "LATE_anon_Q7rT9_900005_attention.py": BUGGY,
    "王伟_3333_900006_attention.py": SOLUTION.read_text(encoding="utf-8"),
    "wang_wei2_4444_900007_attention.py": SOLUTION.read_text(encoding="utf-8"),
    "attention_final.py": SOLUTION.read_text(encoding="utf-8"),  # renamed by hand: Canvas's name lost
    "readme.txt": "notes, not code",
}
STUDENTS = {  # (lms id, name) of each student the class has
    ("1111", "wangwei"), ("2222", "wangwei"), ("1002", "liuyang"), ("anon_x1Y2z", "anon_x1Y2z"),
    ("anon_Q7rT9", "anon_Q7rT9"), ("3333", "王伟"), ("4444", "wang_wei2"),
}
LEFT_OUT = "submissions.zip:attention_final.py"


def canvas_zip(folder: Path) -> Path:
    archive = folder / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in HAND_INS.items():
            zf.writestr(name, text)
    return archive


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """The class graded once by the real command: its folder, and what the command printed."""
    folder = tmp_path_factory.mktemp("canvas-class")
    canvas_zip(folder)
    result = grade("batch", "submissions.zip", "-o", folder / "out", "-e", "3.1", "-j", "2", "--student-pattern",
                   "canvas", "--lang", "en", cwd=folder, timeout=600)
    return folder, result


@pytest.fixture
def course(graded: tuple[Path, object], tmp_path: Path) -> Path:
    """A copy of the graded class's output folder, to change."""
    shutil.copytree(graded[0] / "out", tmp_path / "out")
    return tmp_path


def grades(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


def by_id(out: Path) -> dict[str, dict[str, str]]:
    return {row["lms_id"]: row for row in grades(out) if row["lms_id"]}


# -- who handed in what (no grading) ----------------------------------------------------------------------
def test_canvas_names_give_each_student_their_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path)  # the zip as the instructor names it: `submissions.zip`
    students, left_out = collect([canvas_zip(Path("."))], tmp_path / "work", "canvas")
    assert {(s.lms_id, s.name) for s in students} == STUDENTS
    assert {s.lms_id for s in students if s.late} == {"1002", "anon_Q7rT9"}
    shown = {s.lms_id: s.shown for s in students}
    assert shown["2222"] == "submissions.zip:wangwei_2222_900002_attention.py"
    assert [(item.path, item.reason.key, item.hand_in) for item in left_out] == [
        (LEFT_OUT, "roster.no_match", True), ("submissions.zip:readme.txt", "roster.no_match", False)]


def test_namesakes_land_in_shards_by_their_id() -> None:
    one, other = Student("wangwei", (), "1111"), Student("wangwei", (), "2222")
    assert one.who == "1111" and other.who == "2222" and one.key != other.key
    assert in_shard(one.who, (1, 1)) and in_shard(other.who, (1, 1))
    assert [in_shard(one.who, (k, 7)) for k in range(1, 8)].count(True) == 1


def test_a_file_that_is_no_hand_in_is_listed_apart() -> None:
    assert LeftOut("c.zip:notes/readme.md", Msg("roster.no_match")).hand_in is False
    assert LeftOut("c.zip:x.PY", Msg("roster.no_match")).hand_in is True  # code, in a Windows spelling
    assert LeftOut("c.zip:old.ipynb", Msg("roster.unreadable")).hand_in is True
    assert LeftOut("/class/broken.zip", Msg("roster.bad_zip")).hand_in is True
    assert LeftOut("/class/report.py", Msg("roster.not_submission")).hand_in is False


# -- the batch -----------------------------------------------------------------------------------------------
@pytest.mark.e2e
def test_namesakes_are_two_students_with_their_own_grades(graded: tuple[Path, object]) -> None:
    out = graded[0] / "out"
    rows = by_id(out)
    assert {(row["lms_id"], row["student"]) for row in rows.values()} == STUDENTS
    assert rows["1111"]["total"] == "10" and float(rows["2222"]["total"]) < 10, rows
    assert rows["1002"]["late"] == "yes" and rows["anon_Q7rT9"]["late"] == "yes" and rows["1111"]["late"] == "no"
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    pages = {line["lms_id"]: line["page"] for line in lines if line.get("lms_id")}
    assert pages["1111"] != pages["2222"] and len(set(pages.values())) == len(STUDENTS)
    for page in pages.values():
        assert (out / page).is_file()
    index = parse((out / "index.html").read_text(encoding="utf-8"))
    roster = index.find("table", cls="roster")
    ids = [span.text() for span in roster.find_all("span", cls="lms-id")]
    assert sorted(ids) == sorted(lms_id for lms_id, name in STUDENTS if lms_id != name)


@pytest.mark.e2e
def test_a_hand_in_left_out_is_counted_listed_and_has_a_row(graded: tuple[Path, object]) -> None:
    folder, result = graded
    out = folder / "out"
    assert result.code == 1, result.stderr  # type: ignore[attr-defined]
    assert re.search(r"^hand-ins left out \(see index.html\) +1$", result.stdout, re.M)  # type: ignore[attr-defined]
    assert f"{LEFT_OUT}: the name does not match --student-pattern" in result.stderr  # type: ignore[attr-defined]
    left = [row for row in grades(out) if row["status"] == "left out"]
    assert [row["student"] for row in left] == [LEFT_OUT]  # the readme is no hand-in: no row
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(line["path"], line["problem"]["key"]) for line in lines if line["status"] == "left out"] == [
        (LEFT_OUT, "roster.no_match")]
    text = (out / "index.html").read_text(encoding="utf-8")
    assert "Every submission was graded" not in text and "所有提交均已评分" not in text
    index = parse(text)
    table = index.find("table", cls="left-out")
    assert [row.find("code").text() for row in table.find_all("tr")[1:]] == [LEFT_OUT]
    other = index.find("details", cls="other-files")
    assert "submissions.zip:readme.txt" in other.text() and "readme" not in table.text()
    problems = index.find("section", id="problems")
    assert "1 hand-in got no grade" in problems.text("en") and "1 个提交文件没有得到成绩" in problems.text("zh")


@pytest.mark.e2e
def test_pages_name_the_hand_in_not_a_temporary_folder(graded: tuple[Path, object]) -> None:
    out = graded[0] / "out"
    handed_in = "submissions.zip:wangwei_2222_900002_attention.py"
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    line = next(line for line in lines if line.get("lms_id") == "2222")
    assert line["result"]["submission"]["path"] == handed_in
    page = (out / line["page"]).read_text(encoding="utf-8")
    assert ".sources" not in page and ".sources" not in (out / "results.jsonl").read_text(encoding="utf-8")
    dom = parse(page)
    assert handed_in in dom.find("title").text() and handed_in in dom.find("h1").text()
    assert dom.find("dl", cls="meta").find("code").text() == handed_in


# -- the LMS files --------------------------------------------------------------------------------------------
CANVAS_ROWS = [  # Canvas's own export: (Student, ID, SIS Login ID); the target column is filled by us
    ("Wang, Wei", "1111", "wwang1"), ("Wang, Wei", "2222", "wwang2"), ("Liu, Yang", "1002", "yliu"),
    ("王, 伟", "3333", "wwang3"), ("Wang_Wei2", "4444", "wwang4"), ("Zhao, Lei", "5555", "lzhao"),
]


def canvas_file(cells: dict[str, str]) -> bytes:
    lines = ["\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Attention (501),Current Points",
             "    Points Possible,,,,,20.00,(read only)"]
    lines += [f'"{name}",{lms_id},S{lms_id},{login},Section 01,{cells.get(lms_id, "")},0.00'
              for name, lms_id, login in CANVAS_ROWS]
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


def scaled(total: str) -> str:
    return f"{round(float(total) / 10 * 20, 2):.2f}".rstrip("0").rstrip(".")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_canvas_gives_every_student_their_own_grade(course: Path, lang: str) -> None:
    (course / "canvas.csv").write_bytes(canvas_file({}))
    result = grade_in_process("export", course / "out", "--format", "canvas", "--gradebook", course / "canvas.csv",
                              "--assignment", "Attention", "-o", course / "filled.csv", "--lang", lang, cwd=course)
    no_traceback(result)
    assert result.code == 0, result.stderr
    rows = by_id(course / "out")
    expected = {lms_id: scaled(rows[lms_id]["total"]) for lms_id in ("1111", "2222", "1002", "3333", "4444")}
    assert expected["1111"] == "20" and expected["2222"] != "20"
    assert (course / "filled.csv").read_bytes() == canvas_file(expected)  # every other byte as it was
    said = {"en": ("2 anonymous hand-ins", "anon_x1Y2z", "anon_Q7rT9", "cannot be matched without a roster",
                   f"1 hand-in left out by `grade batch`", LEFT_OUT),
            "zh": ("2 份匿名提交", "没有名单指明其身份时无法对应", "1 份提交文件被 `grade batch` 略过", LEFT_OUT)}[lang]
    for words in said:
        assert words in result.stderr, result.stderr


def test_a_roster_names_namesakes_by_id_for_moodle(course: Path) -> None:
    roster = course / "roster.csv"
    roster.write_text("student,lms_id,email\nwangwei,1111,a@uni.example\nwangwei,2222,b@uni.example\n"
                      "anon_x1Y2z,,f@uni.example\n3333,,d@uni.example\n", encoding="utf-8")
    result = grade_in_process("export", course / "out", "--format", "moodle", "--roster", roster, "--lang", "en",
                              cwd=course)
    no_traceback(result)
    assert result.code == 0, result.stderr
    moodle = {row["Email address"]: row["Grade"] for row in csv.DictReader(io.StringIO(result.stdout))}
    rows = by_id(course / "out")
    assert moodle == {"a@uni.example": rows["1111"]["total"], "b@uni.example": rows["2222"]["total"],
                      "f@uni.example": rows["anon_x1Y2z"]["total"], "d@uni.example": rows["3333"]["total"]}
    assert moodle["a@uni.example"] != moodle["b@uni.example"]


def test_a_roster_row_by_a_shared_name_goes_to_neither(course: Path) -> None:
    roster = course / "roster.csv"
    roster.write_text("student,lms_id,email\nwangwei,,z@uni.example\nwangwei,1111,a@uni.example\n", encoding="utf-8")
    result = grade_in_process("export", course / "out", "--format", "moodle", "--roster", roster, "--lang", "en",
                              cwd=course)
    assert result.code == 0, result.stderr
    emails = [row["Email address"] for row in csv.DictReader(io.StringIO(result.stdout))]
    assert emails == ["a@uni.example"]
    assert "wangwei_2222" in result.stderr and "matched no result" in result.stderr  # z@ is reported as theirs
    lms = grade_in_process("export", course / "out", "--format", "lms", "--lang", "en", cwd=course)
    ids = [row["identifier"] for row in csv.DictReader(io.StringIO(lms.stdout))]
    assert "wangwei" not in ids and "liuyang" in ids and "wangwei_1111" in lms.stderr and "wangwei_2222" in lms.stderr


# -- adjust, merge, similar --------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_adjust_refuses_a_shared_name_and_takes_the_id(course: Path, lang: str) -> None:
    out = course / "out"
    refused = grade_in_process("adjust", out, "wangwei", "3.1", "9", "--by", "TA", "--why", "appeal", "--lang", lang,
                               cwd=course)
    assert refused.code == 2 and "1111, 2222" in refused.stderr, refused.stderr
    assert {"en": "more than one student", "zh": "不止一位"}[lang] in refused.stderr
    before = by_id(out)
    done = grade_in_process("adjust", out, "2222", "3.1", "9", "--by", "TA", "--why", "appeal", "--lang", lang,
                            cwd=course)
    assert done.code == 0, done.stderr
    after = by_id(out)
    assert after["2222"]["total"] == "9" and after["2222"]["adjusted"] == "3.1"
    assert after["1111"] == before["1111"]
    again = grade_in_process("adjust", out, "wangwei_1111", "3.1", "8", "--by", "TA", "--why", "x", cwd=course)
    assert again.code == 0 and by_id(out)["1111"]["total"] == "8" and by_id(out)["2222"]["total"] == "9"


def test_merged_shards_keep_namesakes_apart(course: Path) -> None:
    out = course / "out"
    with Gradebook(out / "gradebook.sqlite") as book:
        entries = book.latest()
    shards = []
    for n, wanted in enumerate(("1111", "2222")):
        shard = course / f"shard{n}"
        shard.mkdir()
        with Gradebook(shard / "gradebook.sqlite") as book:
            for entry in entries:
                if entry.lms_id == wanted:
                    book.record(entry)
            book.leave_out([LeftOut(LEFT_OUT, Msg("roster.no_match", {"path": LEFT_OUT, "pattern": "canvas"}))])
        shards.append(shard)
    merged = course / "merged"
    result = grade_in_process("merge", merged, *shards, "--lang", "en", cwd=course)
    assert result.code == 0, result.stderr
    rows = grades(merged)
    assert [(row["student"], row["lms_id"]) for row in rows if row["status"] == "graded"] == [
        ("wangwei", "1111"), ("wangwei", "2222")]
    assert [row["student"] for row in rows if row["status"] == "left out"] == [LEFT_OUT]


def test_similar_compares_namesakes_as_two(course: Path) -> None:
    result = grade_in_process("similar", course / "out", "--lang", "en", cwd=course)
    assert result.code == 0, result.stderr
    assert f"of {len(STUDENTS)} submissions" in result.stdout


# -- an output folder written before namesakes were told apart ----------------------------------------------------
OLD_SCHEMA = """
CREATE TABLE results (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, student TEXT NOT NULL,
    exercise_set TEXT NOT NULL, sha256 TEXT NOT NULL, grader_version TEXT NOT NULL, status TEXT NOT NULL,
    score REAL NOT NULL, max_score REAL NOT NULL, files TEXT NOT NULL, graded_at TEXT NOT NULL, result TEXT,
    problem TEXT, definitions TEXT NOT NULL DEFAULT '{}', lms_id TEXT NOT NULL DEFAULT '',
    late INTEGER NOT NULL DEFAULT 0);
CREATE TABLE code (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE adjustments (id INTEGER PRIMARY KEY, student TEXT NOT NULL, exercise TEXT NOT NULL, kind TEXT NOT NULL,
    points REAL, own_score REAL NOT NULL, by TEXT NOT NULL, why TEXT NOT NULL, at TEXT NOT NULL);
"""


def test_an_old_output_folder_still_opens_and_loses_nothing(course: Path) -> None:
    """The format before this one: no table of left-out files, adjustments keyed by the name alone."""
    out = course / "out"
    new = sqlite3.connect(out / "gradebook.sqlite")
    columns = [row[1] for row in new.execute("PRAGMA table_info(results)")]
    rows = new.execute(f"SELECT {', '.join(columns[1:])} FROM results ORDER BY id").fetchall()
    new.close()
    (out / "gradebook.sqlite").unlink()
    old = sqlite3.connect(out / "gradebook.sqlite")
    old.executescript(OLD_SCHEMA)
    old.executemany(f"INSERT INTO results ({', '.join(columns[1:])}) VALUES ({', '.join('?' * (len(columns) - 1))})",
                    rows)
    old.execute("INSERT INTO adjustments (student, exercise, kind, points, own_score, by, why, at) "
                "VALUES ('liuyang', '3.1', 'adjust', 7, 10, 'TA', 'old appeal', '2026-01-01T00:00:00+00:00')")
    old.commit()
    old.close()
    result = grade_in_process("export", out, "--format", "csv", cwd=course)
    assert result.code == 0, result.stderr
    rows_now = {row["lms_id"]: row for row in csv.DictReader(io.StringIO(result.stdout))}
    assert {(lms_id, row["student"]) for lms_id, row in rows_now.items()} == STUDENTS
    assert rows_now["1002"]["total"] == "7" and rows_now["1002"]["adjusted"] == "3.1"  # the old adjustment holds
    refused = grade_in_process("adjust", out, "wangwei", "3.1", "1", "--by", "TA", "--why", "x", cwd=course)
    assert refused.code == 2 and "1111, 2222" in refused.stderr


# -- a phone ------------------------------------------------------------------------------------------------------
# Headless Chromium lays a window out at least 500 px wide: the page goes in a frame 400 px wide, and the probe
# (allowed to read a file:// frame) measures it there.
PHONE_FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="phone" src="PAGE" style="width:400px;height:800px;border:0"></iframe>
<script>
document.getElementById("phone").addEventListener("load", (event) => {
  const doc = event.target.contentDocument;
  const name = doc.querySelector("dl.meta code").getBoundingClientRect();
  const out = document.createElement("pre"); out.id = "width-report";
  out.textContent = JSON.stringify({page: doc.documentElement.scrollWidth, window: doc.documentElement.clientWidth,
                                    name_right: name.right, h1: doc.querySelector("h1").scrollWidth});
  document.body.append(out);
});
</script></body></html>"""


def test_a_long_hand_in_name_fits_a_phone(graded: tuple[Path, object], chromium: str, tmp_path: Path) -> None:
    """The page of a hand-in from a zip, 400 px wide: its name breaks rather than widen the page."""
    out = graded[0] / "out"
    line = next(json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
                if json.loads(line).get("lms_id") == "2222")
    shutil.copy(out / line["page"], tmp_path / "page.html")
    frame = tmp_path / "phone.html"
    frame.write_text(PHONE_FRAME.replace("PAGE", "page.html"), encoding="utf-8")
    dom = visit(chromium, frame, "--dump-dom", "--allow-file-access-from-files").stdout
    found = re.search(r'<pre id="width-report">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    report = json.loads(found.group(1))
    assert 380 <= report["window"] <= 400, report  # less a scroll bar
    assert report["page"] <= report["window"] and report["name_right"] <= report["window"], report
    assert report["h1"] <= report["window"], report
