"""Every path the grader writes, through the real commands (issue 47, points 5 and 6).

Contract: `-` is standard output for every single-file output (`grade EXERCISE SUBMISSION --json/--html`,
`grade ci --junit/--summary`, `grade export -o` of a one-file format), at most one per command, and is refused
for a folder (`grade batch -o`, `grade export --format gradescope|html -o`, `grade gradescope --results`,
`grade ci --pages`); a FIFO or a device is opened and written in place, never renamed over; a link the user
named is followed and the file written beside its target; no link inside an output folder is followed. A bad
output path is refused before any grading, missing folders are created for every output, and a write that
fails after grading still leaves the terminal summary printed, then one line and exit 2. Every message in
English and Chinese. Device nodes are made under the test's own folder (never the machine's /dev), where
mknod works."""
from __future__ import annotations

import json
import os
import stat
import threading
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from conftest import SOLUTION
from grader.judge.launcher import ZygoteLauncher
from grader.messages import catalogue
from grader.outputs import paths
from helpers import grade, grade_in_process, no_traceback
from integrations.test_ci import course as ci_course
from integrations.test_ci import grade_ci
from classes.test_lms_export import TARGET, canvas_export, course, expected_cells, export  # noqa: F401 (course: a fixture)

UNWRITABLE = {lang: catalogue.text("cli.unwritable", lang).split("{")[0] for lang in catalogue.LANGS}


class Fifo:
    """A FIFO with a reader thread on it, as a shell's `grade ... -o >(cat)` or a named pipe has one: what
    the reader got is `data` after `finish()`. A second name for the same FIFO lets `finish()` end a reader
    still waiting for a writer (the command replaced the FIFO, or never wrote)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.spare = path.with_name(f"{path.name}.spare")
        os.link(path, self.spare)
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as reader:
            self.data = reader.read()

    def finish(self) -> bytes:
        self.thread.join(timeout=5)
        if self.thread.is_alive():  # no writer came: one opens and closes, the reader sees the end
            os.close(os.open(self.spare, os.O_WRONLY | os.O_NONBLOCK))
            self.thread.join(timeout=5)
        self.spare.unlink()
        return self.data


def device(path: Path, minor: int) -> Path:
    """A character device node in the test's folder: 1,3 is what /dev/null is, 1,7 /dev/full (every write
    fails with ENOSPC). Skipped, with the reason, where nodes cannot be made or opened (not root, a nodev
    mount)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.close(os.open(path, os.O_WRONLY))
    except OSError as exc:
        pytest.skip(f"cannot make and open a device node under {path.parent}: {exc}")
    return path


def is_device(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def no_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that grades fails the test: what it is given must be refused first."""

    def graded(*_: object) -> None:
        raise AssertionError("graded before refusing its output path")

    for command in ("grade", "ci", "gradescope"):
        monkeypatch.setattr(f"grader.cli.{command}.new_grader", graded)
    monkeypatch.setattr("grader.classes.pool.Pool", graded)  # a class is graded by its judges' pool


def one_line(result: Any, lang: str, key: str, **args: str) -> None:
    no_traceback(result)
    assert result.code == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines() == ["grade: " + catalogue.text(key, lang, **args)], result.stderr


def unwritable(result: Any, lang: str) -> None:
    no_traceback(result)
    assert result.code == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines()[-1].startswith("grade: " + UNWRITABLE[lang]), result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


# -- `-` is standard output, and refused for a folder ----------------------------------------------------------
def test_export_dash_is_stdout(course: Path) -> None:  # noqa: F811 (course: the fixture)
    code, stdout, stderr = export(course, "--format", "csv", "-o", "-")
    assert code == 0, stderr
    assert stdout == export(course, "--format", "csv")[1] and "student" in stdout.splitlines()[0]
    assert not (course / "-").exists()


@pytest.mark.parametrize("lang", catalogue.LANGS)
@pytest.mark.parametrize("args", [["batch", "{tmp}", "-o", "-"], ["export", "{tmp}", "--format", "html", "-o", "-"],
                                  ["export", "{tmp}", "--format", "gradescope", "--output", "-"],
                                  ["gradescope", "--submission", "{tmp}", "--results", "-"],
                                  ["merge", "-", "{tmp}"]],
                         ids=lambda args: " ".join(args))
def test_dash_is_no_folder(args: list[str], lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_grading(monkeypatch)
    (tmp_path / "alice.py").write_text("x = 1\n", encoding="utf-8")
    result = grade_in_process(*[a.replace("{tmp}", str(tmp_path)) for a in args], "--lang", lang, cwd=tmp_path)
    option = {"batch": "-o/--outdir", "export": "-o/--output", "gradescope": "--results", "merge": "OUTDIR"}[args[0]]
    one_line(result, lang, "cli.stdout_folder", option=option)
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_one_dash_per_command(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_grading(monkeypatch)
    (tmp_path / "solution.py").write_text("x = 1\n", encoding="utf-8")
    result = grade_in_process("3.1", "solution.py", "--json", "-", "--html", "-", "--lang", lang, cwd=tmp_path)
    one_line(result, lang, "cli.stdout_twice", first="--json", second="--html")
    result = grade_in_process("3.1", "solution.py", "--html", "-", "--open", "--lang", lang, cwd=tmp_path)
    one_line(result, lang, "cli.open_stdout")
    repo = ci_course(tmp_path, {"chapter3/chapter3.py": "x = 1\n"})
    result = grade_in_process("ci", "--junit", "-", "--summary", "-", "--lang", lang, cwd=repo)
    one_line(result, lang, "cli.stdout_twice", first="--junit", second="--summary")
    result = grade_in_process("ci", "--pages", "-", "--lang", lang, cwd=repo)
    one_line(result, lang, "cli.stdout_folder", option="--pages")


# -- a FIFO, a device and a link are written in place or through -------------------------------------------------
def test_export_into_a_fifo(course: Path) -> None:  # noqa: F811
    """Canvas's file, every byte of it, reaches the FIFO's reader; the FIFO stays a FIFO."""
    fifo = Fifo(course / "pipe")
    code, stdout, stderr = export(course, "--format", "canvas", "--gradebook", course / "canvas.csv",
                                  "--assignment", TARGET, "-o", fifo.path)
    data = fifo.finish()
    assert code == 0, stderr
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)
    assert data == canvas_export().with_target(expected_cells()) and stdout == ""


def test_export_into_a_device(course: Path) -> None:  # noqa: F811
    null = device(course / "null", 3)
    code, _, stderr = export(course, "--format", "csv", "-o", null)
    assert code == 0, stderr
    assert is_device(null)
    assert sorted(p.name for p in course.iterdir()) == sorted(["out", "canvas.csv", "roster.csv", "null"])


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_a_device_that_fails_is_one_line(lang: str, course: Path) -> None:  # noqa: F811
    full = device(course / "full", 7)
    result = grade_in_process("export", course / "out", "--format", "jsonl", "-o", full, "--lang", lang, cwd=course)
    unwritable(result, lang)
    assert is_device(full)


def test_export_to_dev_stdout(course: Path) -> None:  # noqa: F811
    """/dev/stdout is a link to the process's own file descriptor (a pipe here, whose name resolves to
    nothing): written in place, as a FIFO is, in a real process."""
    result = grade("export", course / "out", "--format", "csv", "-o", "/dev/stdout", cwd=course)
    assert result.code == 0, result.stderr
    assert result.stdout == export(course, "--format", "csv")[1] and result.stderr == ""


def test_export_through_a_link(course: Path) -> None:  # noqa: F811
    """A link the user named stays a link; the file is written beside its target, whole."""
    (course / "elsewhere").mkdir()
    target = course / "elsewhere" / "grades.csv"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o640)
    (course / "grades.csv").symlink_to(target)
    code, stdout, stderr = export(course, "--format", "csv", "-o", course / "grades.csv")
    assert code == 0, stderr
    assert (course / "grades.csv").is_symlink() and os.readlink(course / "grades.csv") == str(target)
    assert target.read_text(encoding="utf-8") == export(course, "--format", "csv")[1]
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file replaced keeps its permissions
    assert [p.name for p in target.parent.iterdir()] == ["grades.csv"]  # no temporary file left


def test_no_link_inside_an_output_folder_is_followed(course: Path) -> None:  # noqa: F811
    """A link planted inside the folder of `grade export --format gradescope -o DIR`, where a student's
    results.json goes or where a temporary file of it was written, is replaced, never written through."""
    folder = course / "gs"
    code, _, stderr = export(course, "--format", "gradescope", "-o", folder)
    assert code == 0, stderr
    first, second = sorted(folder.iterdir())[:2]
    victims = [course / "victim1", course / "victim2"]
    for victim in victims:
        victim.write_text("kept\n", encoding="utf-8")
    first.unlink()
    first.symlink_to(victims[0])
    (folder / f".{second.name}.{os.getpid()}.tmp").symlink_to(victims[1])  # the old temporary file's name
    code, _, stderr = export(course, "--format", "gradescope", "-o", folder)
    assert code == 0, stderr
    assert [victim.read_text(encoding="utf-8") for victim in victims] == ["kept\n", "kept\n"]
    assert not first.is_symlink() and strict_json(first.read_text(encoding="utf-8"))["score"] >= 0
    assert strict_json(second.read_text(encoding="utf-8"))["score"] >= 0


def test_no_link_inside_the_class_folder_is_followed(course: Path) -> None:  # noqa: F811
    """Links planted in a class's folder as its pages/ and grades.csv are replaced when the class's outputs are
    written again (`grade release`, as `grade batch`, `export --format html` and `similar` write them)."""
    victim = course / "victim"
    victim.mkdir()
    (victim / "kept.txt").write_text("kept\n", encoding="utf-8")
    (course / "victim.csv").write_text("kept\n", encoding="utf-8")
    (course / "out" / "pages").symlink_to(victim)
    (course / "out" / "grades.csv").symlink_to(course / "victim.csv")
    result = grade_in_process("release", course / "out", "--lang", "en", cwd=course)
    no_traceback(result)
    assert result.code == 0, result.stderr
    assert [p.name for p in victim.iterdir()] == ["kept.txt"]
    assert (course / "victim.csv").read_text(encoding="utf-8") == "kept\n"
    pages, grades = course / "out" / "pages", course / "out" / "grades.csv"
    assert not pages.is_symlink() and len(list(pages.glob("*.html"))) > 20
    assert not grades.is_symlink() and "student" in grades.read_text(encoding="utf-8").splitlines()[0]


# -- a bad output path costs nothing: refused before grading, or told after the summary ---------------------------
@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_a_bad_output_path_is_refused_before_grading(lang: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    no_grading(monkeypatch)
    (tmp_path / "solution.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    (tmp_path / "a-folder").mkdir()
    for args in (["--html", "a-file/page.html"], ["--json", "a-file/sub/r.json"], ["--json", "a-folder"]):
        unwritable(grade_in_process("3.1", "solution.py", *args, "--lang", lang, cwd=tmp_path), lang)
    (tmp_path / "feedback").write_text("", encoding="utf-8")  # where the page goes by default
    unwritable(grade_in_process("3.1", "solution.py", "--lang", lang, cwd=tmp_path), lang)
    unwritable(grade_in_process("gradescope", "--submission", tmp_path, "--results", "a-file", "--lang", lang,
                                cwd=tmp_path), lang)
    unwritable(grade_in_process("batch", tmp_path, "-o", "a-file", "--lang", lang, cwd=tmp_path), lang)
    repo = ci_course(tmp_path, {"chapter3/chapter3.py": "x = 1\n"})
    (repo / "a-file").write_text("", encoding="utf-8")
    for args in (["--junit", "a-file/junit.xml"], ["--pages", "a-file"], ["--summary", "a-file/x/summary.md"]):
        unwritable(grade_in_process("ci", *args, "--lang", lang, cwd=repo), lang)


def test_every_output_is_written_where_it_is_asked(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    """Missing folders are created for the JSON as for the page; a link to the page is followed; the JSON
    is strict."""
    (tmp_path / "solution.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "site").mkdir()
    (tmp_path / "page.html").symlink_to(tmp_path / "site" / "solution.html")
    result = grade_in_process("3.1", "solution.py", "--json", "nodir/sub/r.json", "--html", "page.html",
                              "--lang", "en", cwd=tmp_path, launcher=launcher)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert strict_json((tmp_path / "nodir" / "sub" / "r.json").read_text(encoding="utf-8"))["seed"] >= 0
    assert (tmp_path / "page.html").is_symlink()
    assert (tmp_path / "site" / "solution.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "10/10" in result.stdout and "page.html" in result.stdout.splitlines()[-1]


def test_the_page_to_stdout_and_the_json_to_a_fifo(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    (tmp_path / "solution.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    fifo = Fifo(tmp_path / "result.json")
    result = grade_in_process("3.1", "solution.py", "--json", fifo.path, "--html", "-", "--lang", "en",
                              cwd=tmp_path, launcher=launcher)
    data = fifo.finish()
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stdout.rstrip().endswith("</html>")
    assert "10/10" in result.stderr  # the summary, on stderr: stdout is the page
    assert strict_json(data.decode("utf-8"))["$report_type"] == "RunResult"
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)
    assert not (tmp_path / "feedback").exists()


@pytest.mark.parametrize("lang", catalogue.LANGS)
def test_a_write_that_fails_after_grading_keeps_the_summary(lang: str, tmp_path: Path,
                                                          launcher: ZygoteLauncher) -> None:
    """The page is written, the summary printed, then the one line and exit 2."""
    (tmp_path / "solution.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    full = device(tmp_path / "full", 7)
    result = grade_in_process("3.1", "solution.py", "--json", full, "--lang", lang, cwd=tmp_path, launcher=launcher)
    unwritable(result, lang)
    assert "10/10" in result.stdout
    assert result.stdout.splitlines()[-1] == catalogue.text("cli.written", lang, path="feedback/solution.html")
    assert (tmp_path / "feedback" / "solution.html").is_file() and is_device(full)


def test_ci_junit_to_stdout_and_summary_to_a_fifo(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    repo = ci_course(tmp_path, {"chapter3/chapter3.py": SOLUTION.read_text(encoding="utf-8")})
    fifo = Fifo(tmp_path / "summary.md")
    result = grade_ci(repo, "--junit", "-", "--summary", fifo.path, "--lang", "en", actions=False, launcher=launcher)
    summary = fifo.finish().decode("utf-8")
    assert result.code == 0, result.stderr
    assert ElementTree.fromstring(result.stdout).tag == "testsuites"
    assert "28/28" in result.stderr and not (repo / "-").exists()
    assert summary.count("| ") > 10 and stat.S_ISFIFO(os.lstat(fifo.path).st_mode)
