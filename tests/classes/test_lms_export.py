"""`grade export --format canvas|moodle|lms`: a gradebook as the files an LMS imports, through the real command.

Contract: Canvas's own gradebook export comes back with the named assignment column filled and every
other byte as it was (BOM, CRLF, each field's quoting, the Points Possible row, the test student, the rows
without a result), points scaled to the column's Points Possible unless --no-scale; students are matched
by Canvas user id or SIS login only, and the unmatched on both sides are named on stderr; a column that is
missing, ambiguous or read only is refused with exit 2. Moodle's CSV and the generic one carry the
roster's identifiers, the grade and a bounded, inert feedback. A late hand-in is a `late` column in
grades.csv, a mark on the index, and a penalty only when --late-penalty asks for one.
"""
from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import SOLUTION
from grader.classes.gradebook import Gradebook
from grader.messages.catalogue import Msg
from grader.outputs.safe_text import inert
from grader.results import CheckResult, Entry, ExerciseResult, RunResult, SubmissionInfo, Ungraded
from helpers import grade_in_process, no_traceback
from render.test_page import parse

EXERCISE_SET = "3.1,3.2"
MAX = {"3.1": 6.0, "3.2": 7.0}  # 13 points: scaled to 10 they are rarely whole
TARGET = "Chapter 3: attention (4401)"
OTHER = "Reading quiz (4402)"
POSSIBLE = {TARGET: "10.00", OTHER: "25.00"}
HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", TARGET, OTHER, "Current Points",
          "Final Points", "Current Score", "Final Score"]
TARGET_AT = HEADER.index(TARGET)
FORMULA = "=cmd|' /C calc'!A0"
# Canvas's display names: "Last, First", accents, CJK, a quote, one with a line break in its section.
NAMES = ["Nguyễn, Thị Hoa", "O'Brien, Seán", "Müller, Jürgen", "张, 伟", 'O"Neil, Pat', "Ødegaard, Åse",
         "García Márquez, José", "Smith, John", "Kowalski, Łukasz", "Dubois, Zoé", "Ivanova, Анна",
         "Ito, 裕子",
         "Brown, Amy", "Khan, Imran", "Rossi, Giulia", "Silva, João", "Novak, Petr", "Cohen, Dana", "Lee, Min-jun",
         "Haddad, Layla", "Andersson, Björn", "Murphy, Aoife", "Schmidt, Lena", "Jones, Tom", "Patel, Priya",
         "Kim, Ji-woo", "Taylor, Sam", "Okafor, Chidi", "Larsen, Ida", "Wright, Eve"]
BY_LOGIN = {6, 7, 8}  # rows matched by SIS login (our name is their login), not by Canvas id
BY_ROSTER = {9}  # row matched by the roster's canvas_id
UNGRADED = 15  # matched, but could not be graded: its cell keeps its old value
NO_RESULT = 29  # a Canvas row with no result of ours
GHOST = "ghost"  # ours, not in Canvas


@dataclass
class Student:
    row: int
    canvas_id: str
    login: str
    ours: str  # our student name
    scores: tuple[float, float]
    late: bool = False


def students() -> list[Student]:
    found = []
    for n in range(len(NAMES)):
        login = f"s{n:02d}login"
        ours = login if n in BY_LOGIN else f"student{n:02d}"
        found.append(Student(n, str(70100 + n), login, ours, (float(n % 7), float(n % 8)), late=n in (3, 12)))
    return found


def quote(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


@dataclass
class CanvasFile:
    """The export as its raw fields, so the expected output is written independently of the code under test."""

    rows: list[list[str]] = field(default_factory=list)  # each field's raw text, quotes included
    bom: bool = True
    newline: str = "\r\n"

    def data(self, rows: list[list[str]] | None = None) -> bytes:
        text = "".join(",".join(row) + self.newline for row in rows or self.rows)
        return (("\ufeff" if self.bom else "") + text).encode("utf-8")

    def with_target(self, values: dict[int, str]) -> bytes:
        """The file with the target cell of these rows (indexes into `rows`) replaced, unquoted as Canvas writes
        numbers, or quoted where the original was."""
        rows = [list(row) for row in self.rows]
        for n, value in values.items():
            rows[n][TARGET_AT] = quote(value) if rows[n][TARGET_AT].startswith('"') else value
        return self.data(rows)


def canvas_export(header: list[str] = HEADER) -> CanvasFile:
    """A Canvas gradebook export of 30 students: quoted "Last, First" names, a BOM, CRLF, the Points Possible
    row with its read-only columns, the test student, a section with a line break, existing grades in the
    target column (one of them quoted) and the other assignment."""
    file = CanvasFile()
    file.rows.append([quote(h) if "," in h or ":" in h else h for h in header])
    file.rows.append(["    Points Possible", "", "", "", "", *(POSSIBLE.get(h, "") for h in header[5:7]),
                      *["(read only)"] * (len(header) - 7)])
    file.rows.append([quote("Student, Test"), "9999", "", "", "Section 01", "", "", "0.00", "0.00", "", ""])
    for s in students():
        section = quote("Section 02\nLab B") if s.row == 4 else quote("Section 01") if s.row % 2 else "Section 02"
        old = "5.00" if s.row % 3 == 0 else quote("4") if s.row == 1 else ""
        file.rows.append([quote(NAMES[s.row]) if "," in NAMES[s.row] else NAMES[s.row], s.canvas_id,
                          f"SIS{s.row:04d}", s.login, section, old, f"{(s.row * 3) % 25}.00", "12.00", "12.00",
                          "48.00", "48.00"])
    return file


ROW_OF = {s.row: s.row + 3 for s in students()}  # student -> their row in CanvasFile.rows


def run(scores: tuple[float, float]) -> RunResult:
    exercises = tuple(ExerciseResult(exercise, f"Exercise {exercise}", "", (
        CheckResult("main", "main", "passed" if score == MAX[exercise] else "failed", score, MAX[exercise], "m", "k"),))
        for exercise, score in zip(MAX, scores))
    return RunResult(grader_version="0", seed=0, lang="en", started_at="2026-01-01T00:00:00+00:00", duration_s=1.0,
                     submission=SubmissionInfo("answer.py", "0" * 64, "py"), cells=(), exercises=exercises,
                     protections=())


def record(book: Gradebook, student: str, scores: tuple[float, float] | None, lms_id: str = "",
           late: bool = False) -> None:
    if scores is None:
        book.record(Entry(student, EXERCISE_SET, "1" * 64, "0", ("x.ipynb",),
                          Ungraded("ungradable", Msg("cli.bad_notebook", {"path": "x.ipynb", "error": "broken"})),
                          lms_id=lms_id, late=late))
    else:
        book.record(Entry(student, EXERCISE_SET, "0" * 64, "0", ("x.py",), run(scores), lms_id=lms_id, late=late))


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """OUTDIR with a gradebook for the class, the Canvas export beside it, and a roster."""
    out = tmp_path / "out"
    out.mkdir()
    with Gradebook(out / "gradebook.sqlite") as book:
        for s in students():
            if s.row == NO_RESULT:
                continue
            lms_id = "" if s.row in BY_LOGIN | BY_ROSTER else s.canvas_id
            record(book, s.ours, None if s.row == UNGRADED else s.scores, lms_id, s.late)
        record(book, GHOST, (6.0, 7.0), "80000")
    (tmp_path / "canvas.csv").write_bytes(canvas_export().data())
    roster = [["student", "email", "username", "idnumber", "canvas_id"]]
    roster += [[s.ours, f"{s.login}@uni.example", s.login, f"ID{s.row}", s.canvas_id if s.row in BY_ROSTER else ""]
               for s in students()]
    (tmp_path / "roster.csv").write_text("".join(",".join(r) + "\n" for r in roster), encoding="utf-8")
    return tmp_path


def export(course: Path, *args: object) -> tuple[int, str, str]:
    result = grade_in_process("export", course / "out", "--lang", "en", *args, cwd=course)
    no_traceback(result)
    return result.returncode, result.stdout, result.stderr


def number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def expected_cells(scale: bool = True, penalty: float = 0.0, roster: bool = False) -> dict[int, str]:
    """The target cell of each row we fill, by its index in CanvasFile.rows."""
    cells = {}
    for s in students():
        if s.row in (NO_RESULT, UNGRADED) or (s.row in BY_ROSTER and not roster):
            continue
        kept = 1 - penalty / 100 if s.late else 1.0
        total = sum(s.scores)
        cells[ROW_OF[s.row]] = number(round(total / 13 * 10 * kept if scale else total * kept, 2))
    return cells


# -- Canvas ---------------------------------------------------------------------------------------------------
def test_canvas_fills_the_assignment_and_keeps_every_other_byte(course: Path) -> None:
    original = canvas_export()
    code, stdout, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv",
                                  "--assignment", TARGET, "-o", course / "filled.csv")
    assert code == 0, stderr
    filled = (course / "filled.csv").read_bytes()
    assert filled == original.with_target(expected_cells())
    assert filled.startswith(b"\xef\xbb\xbf") and filled.count(b"\r\n") == original.data().count(b"\r\n")
    # Line by line: only the target cell of graded, matched rows changed.
    before, after = original.data().split(b"\r\n"), filled.split(b"\r\n")
    changed = {n for n, (a, b) in enumerate(zip(before, after)) if a != b}
    assert len(before) == len(after) and len(changed) == len(expected_cells())
    # The header, the points, the test student, the row without a result, the ungraded, the one only a roster names.
    assert not changed & {0, 1, 2, ROW_OF[NO_RESULT], ROW_OF[UNGRADED], *(ROW_OF[n] for n in BY_ROSTER)}
    # Read back as any CSV reader does: the target column holds the scaled grade, the others what they held.
    old_rows, new_rows = (list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
                          for data in (original.data(), filled))
    for old, new in zip(old_rows, new_rows):
        assert old[:TARGET_AT] == new[:TARGET_AT] and old[TARGET_AT + 1:] == new[TARGET_AT + 1:]
    assert new_rows[ROW_OF[1]][TARGET_AT] == number(round(sum(students()[1].scores) / 13 * 10, 2))
    assert new_rows[ROW_OF[UNGRADED]][TARGET_AT] == old_rows[ROW_OF[UNGRADED]][TARGET_AT] == "5.00"
    assert stdout == ""
    # Both sides' unmatched on stderr, never guessed; the ungraded left blank.
    lines = stderr.splitlines()
    assert any("27 grades written to `Chapter 3: attention (4401)`" in line for line in lines), stderr
    assert any("2 students of the gradebook matched no row" in line and "ghost, student09" in line for line in lines)
    assert any("2 rows of" in line and "matched no result" in line and "Dubois, Zoé (70109), Wright, Eve (70129)"
               in line for line in lines), stderr
    assert any("without a grade" in line and "student15" in line for line in lines), stderr
    assert "Student, Test" not in stderr


def test_canvas_to_stdout(course: Path) -> None:
    """The same file on stdout (CliRunner reads it back with `\n` line ends; the e2e test below takes a real
    process's bytes)."""
    code, stdout, _ = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", "4401")
    assert code == 0
    assert stdout == canvas_export().with_target(expected_cells()).decode("utf-8").replace("\r\n", "\n")


@pytest.mark.parametrize("named", ["Chapter 3: attention", "4401", " 4401 "])
def test_canvas_column_by_its_name_or_its_id(course: Path, named: str) -> None:
    code, _, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", named,
                             "-o", course / "filled.csv")
    assert code == 0, stderr
    assert (course / "filled.csv").read_bytes() == canvas_export().with_target(expected_cells())


def test_canvas_no_scale_and_late_penalty(course: Path) -> None:
    code, _, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", TARGET,
                             "--no-scale", "-o", course / "raw.csv")
    assert code == 0, stderr
    assert (course / "raw.csv").read_bytes() == canvas_export().with_target(expected_cells(scale=False))
    code, _, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", TARGET,
                             "--late-penalty", "20", "-o", course / "late.csv")
    assert code == 0, stderr
    assert (course / "late.csv").read_bytes() == canvas_export().with_target(expected_cells(penalty=20))
    assert expected_cells(penalty=20)[ROW_OF[3]] != expected_cells()[ROW_OF[3]]
    assert "(2 late, 20% off)" in stderr


def test_canvas_matches_by_the_roster(course: Path) -> None:
    """Without the roster, the student known only by the roster's canvas_id has no row (and their row no
    result); with it, they are matched."""
    code, _, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", TARGET,
                             "--roster", course / "roster.csv", "-o", course / "filled.csv")
    assert code == 0, stderr
    assert (course / "filled.csv").read_bytes() == canvas_export().with_target(expected_cells(roster=True))
    _, _, without = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", TARGET,
                           "-o", course / "other.csv")
    assert "student09" in without and "student09" not in stderr


@pytest.mark.parametrize(("assignment", "says"), [
    ("Current Points", "read only"),
    ("Final Score", "read only"),
    ("ID", "read only"),
    ("Nope", "no assignment column `Nope`"),
    ("Quiz", "names several columns"),
])
def test_canvas_refuses_a_column_it_cannot_fill(course: Path, assignment: str, says: str) -> None:
    header = [*HEADER[:6], "Quiz (4402)", *HEADER[7:]] if assignment == "Quiz" else HEADER
    header = [*header[:5], "Quiz (4403)", *header[6:]] if assignment == "Quiz" else header
    (course / "canvas.csv").write_bytes(canvas_export(header).data())
    code, stdout, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv",
                                  "--assignment", assignment, "-o", course / "filled.csv")
    assert code == 2 and says in stderr and stdout == ""
    assert len(stderr.strip().splitlines()) == 1 and stderr.startswith("grade: ")
    assert not (course / "filled.csv").exists()


@pytest.mark.parametrize(("args", "says"), [
    (("--format", "canvas", "--assignment", TARGET), "needs --gradebook"),
    (("--format", "canvas", "--gradebook", "missing.csv", "--assignment", TARGET), "no such file: missing.csv"),
    (("--format", "moodle"), "needs --roster"),
    (("--format", "moodle", "--roster", "roster.csv", "--identifier", "canvas_id"), "email, username or idnumber"),
    (("--format", "csv", "--late-penalty", "10"), "--late-penalty is not read by --format csv"),
    (("--format", "moodle", "--roster", "roster.csv", "--no-scale"), "--scale/--no-scale is not read"),
    (("--format", "lms", "--roster", "broken.csv"), "has no `student` column"),
    (("--format", "lms", "--roster", "roster.csv", "--identifier", "phone"), "has no `phone` column"),
    (("--format", "canvas", "--gradebook", "unclosed.csv", "--assignment", TARGET), "a quote is never closed"),
    (("--format", "canvas", "--gradebook", "roster.csv", "--assignment", TARGET), "has no `ID` column"),
])
def test_bad_lms_options_and_files_are_one_line_and_exit_2(course: Path, args: tuple[str, ...], says: str) -> None:
    (course / "broken.csv").write_text("name,email\nann,a@x\n", encoding="utf-8")
    (course / "unclosed.csv").write_bytes(canvas_export().data() + b'"Late, Row,1\r\n')
    code, stdout, stderr = export(course, *args)
    assert code == 2 and says in stderr, stderr
    assert len(stderr.strip().splitlines()) == 1 and stdout == ""


def test_two_students_matching_one_row_stop_the_export(course: Path) -> None:
    with Gradebook(course / "out" / "gradebook.sqlite") as book:
        record(book, "impostor", (1.0, 1.0), students()[0].canvas_id)
    code, _, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv", "--assignment", TARGET,
                             "-o", course / "filled.csv")
    assert code == 2 and "impostor" in stderr and "student00" in stderr and not (course / "filled.csv").exists()


# -- Moodle and the generic CSV -------------------------------------------------------------------------------
def add_formula_student(course: Path) -> None:
    """A student whose name (a file name they chose) and username look like formulas."""
    with Gradebook(course / "out" / "gradebook.sqlite") as book:
        record(book, FORMULA, (2.0, 7.0), late=True)
    with (course / "roster.csv").open("a", encoding="utf-8") as roster:
        roster.write(f'"{FORMULA.replace(chr(34), chr(34) * 2)}",wang@uni.example,@sum(1+1),ID99,\n')


def test_moodle_csv(course: Path) -> None:
    add_formula_student(course)
    code, stdout, stderr = export(course, "--format", "moodle", "--roster", course / "roster.csv", "--identifier",
                                  "username", "--assignment", "Attention", "--late-penalty", "10",
                                  "-o", course / "moodle.csv")
    assert code == 0, stderr
    data = (course / "moodle.csv").read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert rows[0] == ["Username", "Attention", "Feedback"]
    by = {row[0]: row for row in rows[1:]}
    s = students()[5]
    assert by[s.login][1] == number(sum(s.scores))
    assert by[s.login][2] == f"{number(sum(s.scores))}/13 points; points lost in 3.1 (5/6), 3.2 (5/7)"
    late = students()[3]
    assert by[late.login][1] == number(round(sum(late.scores) * 0.9, 2))
    assert f"handed in late: 10% off, {by[late.login][1]}/13" in by[late.login][2]
    # The formula-looking username is inert; the student's own name reaches no cell.
    assert by["'@sum(1+1)"][2].startswith("9/13 points; points lost in 3.1 (2/6); handed in late")
    assert FORMULA not in data.decode("utf-8")
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    assert "s15login" not in by and "without a grade" in stderr and "student15" in stderr
    assert "ghost" in stderr and "matched no row" in stderr


def test_moodle_identifiers_and_chinese_feedback(course: Path) -> None:
    code, stdout, stderr = export(course, "--format", "moodle", "--roster", course / "roster.csv", "--lang", "zh")
    assert code == 0, stderr
    rows = list(csv.reader(io.StringIO(stdout)))
    assert rows[0] == ["Email address", "Grade", "Feedback"]
    feedback = {row[0]: row[2] for row in rows[1:]}["s05login@uni.example"]
    assert feedback == "10/13 分；失分的练习：3.1 (5/6), 3.2 (5/7)"
    code, stdout, _ = export(course, "--format", "moodle", "--roster", course / "roster.csv",
                             "--identifier", "idnumber")
    assert list(csv.reader(io.StringIO(stdout)))[0][0] == "ID number"
    assert {row[0] for row in list(csv.reader(io.StringIO(stdout)))[1:]} == \
        {f"ID{s.row}" for s in students() if s.row not in (NO_RESULT, UNGRADED)}


def test_generic_lms_csv(course: Path) -> None:
    add_formula_student(course)
    code, stdout, stderr = export(course, "--format", "lms", "--late-penalty", "50")
    assert code == 0, stderr
    rows = list(csv.reader(io.StringIO(stdout)))
    assert rows[0] == ["identifier", "grade", "max_grade", "late", "feedback"]
    by = {row[0]: row for row in rows[1:]}
    assert by[inert(FORMULA)][1:4] == ["4.5", "13", "yes"]
    assert "handed in late: 50% off, 4.5/13" in by[inert(FORMULA)][4]
    assert by["student00"][1:4] == ["0", "13", "no"] and by[GHOST][1:4] == ["13", "13", "no"]
    assert by[GHOST][4] == "13/13 points; full marks"
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    # With the roster: its `--identifier` column, and the roster's students without a result named.
    code, stdout, stderr = export(course, "--format", "lms", "--roster", course / "roster.csv", "--identifier", "email")
    by = {row[0]: row for row in csv.reader(io.StringIO(stdout))}
    assert code == 0 and by["s00login@uni.example"][1:4] == ["0", "13", "no"] and by["wang@uni.example"][3] == "yes"
    assert "s29login" not in stdout and "student29" in stderr and "matched no result" in stderr


def test_feedback_is_bounded(course: Path) -> None:
    with Gradebook(course / "out" / "gradebook.sqlite") as book:
        for n in range(50):  # a course with many exercises
            book.record(Entry(f"many{n}", "many", "0" * 64, "0", ("x.py",), RunResult(
                grader_version="0", seed=0, lang="en", started_at="", duration_s=1.0,
                submission=SubmissionInfo("a.py", "0" * 64, "py"), cells=(), protections=(),
                exercises=tuple(ExerciseResult(f"exercise-{'x' * 40}-{k}", "t", "", (
                    CheckResult("c", "c", "failed", 0.0, 1.0, "m", "k"),)) for k in range(100)))))
    code, _, stderr = export(course, "--format", "lms")
    assert code == 2 and "several exercise sets" in stderr  # one grade a student, or a refusal
    shutil.rmtree(course / "out")
    (course / "out").mkdir()
    with Gradebook(course / "out" / "gradebook.sqlite") as book:
        book.record(Entry("many", "many", "0" * 64, "0", ("x.py",), RunResult(
            grader_version="0", seed=0, lang="en", started_at="", duration_s=1.0,
            submission=SubmissionInfo("a.py", "0" * 64, "py"), cells=(), protections=(),
            exercises=tuple(ExerciseResult(f"exercise-{'x' * 40}-{k}", "t", "", (
                CheckResult("c", "c", "failed", 0.0, 1.0, "m", "k"),)) for k in range(100)))))
    code, stdout, _ = export(course, "--format", "lms")
    feedback = list(csv.reader(io.StringIO(stdout)))[1][4]
    assert code == 0 and len(feedback) <= 1000 and feedback.endswith("…") and "-0 (0/1)" in feedback
    assert "-20 (0/1)" not in feedback


# -- late hand-ins in grades.csv and on the index --------------------------------------------------------------
def test_late_is_a_column_of_grades_csv_and_a_mark_on_the_index(course: Path) -> None:
    code, stdout, _ = export(course, "--format", "csv")
    assert code == 0
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(stdout))}
    assert rows["student03"]["late"] == "yes" and rows["student12"]["late"] == "yes"
    assert {name for name, row in rows.items() if row["late"] == "yes"} == {"student03", "student12"}
    code, _, _ = export(course, "--format", "html")
    assert code == 0
    dom = parse((course / "out" / "index.html").read_text(encoding="utf-8"))
    roster = dom.find("table", cls="roster")
    marked = {row.find("a").text() for row in roster.find_all("tr") if row.find_all("span", cls="late")}
    assert marked == {"student03", "student12"}
    mark = roster.find("span", cls="late")
    assert mark.text("en") == "late" and mark.text("zh") == "迟交"


# -- a real batch, Canvas-named ---------------------------------------------------------------------------------
@pytest.mark.e2e
def test_a_canvas_named_batch_exports_to_canvas(tmp_path: Path) -> None:
    """`grade batch --student-pattern canvas` keeps each student's Canvas id and late hand-in, and the export
    fills their rows of the Canvas file with no roster at all."""
    hand_ins = tmp_path / "submissions"
    hand_ins.mkdir()
    shutil.copy(SOLUTION, hand_ins / "smithjohn_2001_9001_chapter3.py")
    shutil.copy(SOLUTION, hand_ins / "doejane_late_2002_9002_chapter3.py")
    grade = [sys.executable, "-m", "grader"]
    done = subprocess.run([*grade, "batch", hand_ins, "-o", tmp_path / "out", "-e", "3.1", "-j", "1",
                           "--student-pattern", "canvas", "--lang", "en"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {row["student"]: row for row in csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8"))}
    assert {name: row["late"] for name, row in rows.items()} == {"smithjohn": "no", "doejane": "yes"}
    index = parse((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    assert [row.find("a").text() for row in index.find("table", cls="roster").find_all("tr")
            if row.find_all("span", cls="late")] == ["doejane"]
    canvas = ('\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Attention (501),Current Points\r\n'
              '    Points Possible,,,,,20.00,(read only)\r\n'
              '"Smith, John",2001,S1,jsmith,Section 01,,0.00\r\n'
              '"Doe, Jane",2002,S2,jdoe,Section 01,3.00,0.00\r\n')
    (tmp_path / "canvas.csv").write_text(canvas, encoding="utf-8", newline="")
    exported = subprocess.run([*grade, "export", tmp_path / "out", "--format", "canvas", "--gradebook",
                               tmp_path / "canvas.csv", "--assignment", "Attention", "--late-penalty", "25",
                               "--lang", "en"],
                              capture_output=True, timeout=120)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == canvas.replace(",jsmith,Section 01,,", ",jsmith,Section 01,20,") \
        .replace(",jdoe,Section 01,3.00,", ",jdoe,Section 01,15,").encode("utf-8")  # stdout, byte for byte
    assert b"2 grades written" in exported.stderr and b"(1 late, 25% off)" in exported.stderr
