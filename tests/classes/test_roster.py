"""The roster: which students a class download holds and which files each handed in.

LMS downloads come in several shapes (flat files, a folder per student, a zip per student, all of
it wrapped in one more folder or zip), and the zips come from students, so unpacking must be as
careful as running their code. These tests build each shape in tmp_path; nothing is graded.
"""
from __future__ import annotations

import os
import re
import stat
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from grader.messages import catalogue
from grader.classes import roster, zips
from grader.messages.catalogue import Msg
from grader.classes.roster import RosterError, Skipped, Student, collect, in_shard, parse_shard, submission_files
from grader.sandbox.folders import remove

CANVAS = r"^(?P<student>[^_]+)_"


def write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_zip(path: Path, entries: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in entries.items():
            zf.writestr(name, text)
    return path


def roster_of(students: list[Student]) -> dict[str, list[str]]:
    """Students by name with their files' names: what the assertions compare."""
    return {s.name: [p.name for p in s.files] for s in students}


def reasons(skipped: list[Skipped]) -> dict[str, str]:
    return {s.path: s.reason.key for s in skipped}


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


# -- plain files and folders -----------------------------------------------------------------------------
def test_a_file_source_is_one_student_named_by_its_stem(tmp_path: Path, workdir: Path) -> None:
    notebook = write(tmp_path / "alice.ipynb", "{}")
    assert collect([notebook], workdir) == ([Student("alice", (notebook,))], [])


def test_flat_folder_gives_one_student_per_file_and_skips_other_files(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "class"
    for name in ("bob.py", "alice.ipynb", "notes.pdf", ".DS_Store", "__pycache__/bob.cpython-311.pyc"):
        write(source / name)
    students, skipped = collect([source], workdir)
    assert roster_of(students) == {"alice": ["alice.ipynb"], "bob": ["bob.py"]}
    assert skipped == [Skipped(str(source / "notes.pdf"),
                               Msg("roster.not_submission", {"path": str(source / "notes.pdf")}))]


def test_per_student_folders_hold_every_file_recursively(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "class"
    for name in ("alice/main.ipynb", "alice/lib/helper.py", "alice/data.txt", "alice/.ipynb_checkpoints/main.ipynb",
                 "bob/solution.py", "carol/report.pdf"):
        write(source / name)
    (source / "dave").mkdir()
    students, skipped = collect([source], workdir)
    assert roster_of(students) == {
        "alice": ["data.txt", "helper.py", "main.ipynb"],
        "bob": ["solution.py"],
        "carol": ["report.pdf"],  # nothing gradable, still listed so the instructor sees them
    }  # dave handed in nothing, so there is no dave
    assert students[0].files[1] == source / "alice" / "lib" / "helper.py"
    assert skipped == []


def test_a_single_wrapping_folder_is_looked_through(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "download"
    write(source / "Assignment 3" / "alice.py")
    write(source / "Assignment 3" / "bob" / "answer.ipynb")
    write(source / "__MACOSX" / "Assignment 3" / "._alice.py")
    students, _ = collect([source], workdir)
    assert roster_of(students) == {"alice": ["alice.py"], "bob": ["answer.ipynb"]}


def one_students_folder(folder: Path) -> Path:
    """What a learner keeps: a notebook that imports the module beside it, the lecture's text, a data folder."""
    write(folder / "attention.py", "import torch\nclass CausalAttention: ...\n")
    write(folder / "answers.ipynb", '{"cells": [{"cell_type": "code", "source": ["from attention import *\\n"]}]}')
    write(folder / "gpt_lecture.py", "import attention\nimport torch\n")
    write(folder / "input.txt", "First Citizen:\n")
    write(folder / "data" / "weights.csv", "1,2\n")
    return folder


def test_one_students_folder_is_that_student(tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`grade batch alice/`: her files use one another, so they are her work, not three students."""
    alice = one_students_folder(tmp_path / "alice")
    students, skipped = collect([alice], workdir)
    assert roster_of(students) == {"alice": ["answers.ipynb", "attention.py", "gpt_lecture.py", "input.txt",
                                             "weights.csv"]}
    assert skipped == []
    wrapped = one_students_folder(tmp_path / "download" / "bob")
    assert roster_of(collect([wrapped.parent], workdir)[0]) == {"bob": roster_of(students)["alice"]}
    monkeypatch.chdir(alice)  # `grade batch .` from inside her folder
    assert roster_of(collect([Path(".")], workdir)[0]).keys() == {"alice"}


def test_one_students_zip_is_named_by_the_zip(tmp_path: Path, workdir: Path) -> None:
    archive = make_zip(tmp_path / "carol.zip", {"attention.py": "", "answers.py": "from attention import *\n"})
    assert roster_of(collect([archive], workdir)[0]) == {"carol": ["answers.py", "attention.py"]}


@pytest.mark.parametrize("case", ["not_all_linked", "student_folders", "zip", "pattern", "stdlib_name",
                                  "installed_name"])
def test_a_class_folder_stays_one_student_per_file(tmp_path: Path, workdir: Path, case: str) -> None:
    """Only a folder whose code hangs together is one student's: a class's own folder never is, even where
    one student's two files import each other, beside other students' files and folders."""
    source = tmp_path / "class"
    write(source / "ann.py", "import ann_helper\n")
    write(source / "ann_helper.py", "")
    expected = {"ann": ["ann.py"], "ann_helper": ["ann_helper.py"]}
    pattern = None
    if case == "not_all_linked":
        write(source / "bob.ipynb", "{}")
        expected["bob"] = ["bob.ipynb"]
    elif case == "student_folders":
        write(source / "dan" / "lib" / "main.py")
        expected["dan"] = ["main.py"]
    elif case == "zip":
        make_zip(source / "eve.zip", {"main.py": ""})
        expected["eve"] = ["main.py"]
    elif case == "pattern":
        pattern, expected = r"^([a-z]+)", {"ann": ["ann.py", "ann_helper.py"]}
    elif case == "stdlib_name":  # a student named like a module of Python's own, which the other one imports
        (source / "ann_helper.py").unlink()
        write(source / "ann.py", "import random\n")
        write(source / "random.py", "")
        expected = {"ann": ["ann.py"], "random": ["random.py"]}
    else:  # a hand-in named like the library every classmate imports
        (source / "ann_helper.py").unlink()
        write(source / "ann.py", "# Exercise 3.1\nimport torch\nimport torch.nn as nn\n")
        write(source / "bob.ipynb", '{"cells": [{"cell_type": "code", "source": ["from torch import nn\\n"]}]}')
        write(source / "torch.py", "import os\nprint(os.listdir('.'))\n")
        expected = {"ann": ["ann.py"], "bob": ["bob.ipynb"], "torch": ["torch.py"]}
    assert roster_of(collect([source], workdir, pattern)[0]) == expected


def test_symlinks_are_never_followed(tmp_path: Path, workdir: Path) -> None:
    secret = write(tmp_path / "outside" / "secret.py")
    source = tmp_path / "class"
    write(source / "alice" / "main.py")
    (source / "alice" / "stolen.py").symlink_to(secret)
    (source / "mallory").symlink_to(secret.parent, target_is_directory=True)
    students, skipped = collect([source], workdir)
    assert roster_of(students) == {"alice": ["main.py"]}
    assert reasons(skipped) == {str(source / "alice" / "stolen.py"): "roster.symlink",
                                str(source / "mallory"): "roster.symlink"}


def test_submission_files_reads_one_students_folder_as_collect_does(tmp_path: Path) -> None:
    """Gradescope hands over one student's folder; it must give the files a batch would."""
    folder = tmp_path / "submission"
    for name in ("main.ipynb", "lib/helper.py", "other/helper.py", "data.txt", ".ipynb_checkpoints/main.ipynb"):
        write(folder / name)
    (folder / "link.py").symlink_to(write(tmp_path / "secret.py"))
    assert submission_files(folder) == (folder / "data.txt", folder / "lib" / "helper.py", folder / "main.ipynb")
    assert submission_files(tmp_path / "nowhere") == ()


# -- several sources -------------------------------------------------------------------------------------
def test_sources_are_merged_by_student_and_a_second_file_of_one_name_is_skipped(
    tmp_path: Path, workdir: Path
) -> None:
    first, second = tmp_path / "section1", tmp_path / "late"
    write(first / "alice" / "main.py")
    write(first / "carol.py")  # with alice alone, section1 would be one folder wrapping her files
    write(second / "alice" / "main.py", "x = 2\n")
    write(second / "alice" / "extra.py")
    write(second / "bob.py")
    students, skipped = collect([first, second], workdir)
    assert roster_of(students) == {"alice": ["extra.py", "main.py"], "bob": ["bob.py"], "carol": ["carol.py"]}
    assert students[0].files[1] == first / "alice" / "main.py"
    [duplicate] = skipped
    assert duplicate.path == str(second / "alice" / "main.py")
    assert duplicate.reason == Msg("roster.duplicate", {"path": duplicate.path, "student": "alice",
                                                        "kept": str(first / "alice" / "main.py")})


# -- --student-pattern -----------------------------------------------------------------------------------
def test_canvas_pattern_groups_a_students_files_and_skips_names_it_does_not_match(
    tmp_path: Path, workdir: Path
) -> None:
    source = tmp_path / "canvas"
    for name in ("alice_123_456_chapter3.ipynb", "alice_123_457_data.csv", "bob_124_458_chapter3.py",
                 "grades.csv"):
        write(source / name)
    students, skipped = collect([source], workdir, CANVAS)
    assert roster_of(students) == {
        "alice": ["alice_123_456_chapter3.ipynb", "alice_123_457_data.csv"],
        "bob": ["bob_124_458_chapter3.py"],
    }
    shown = str(source / "grades.csv")
    assert skipped == [Skipped(shown, Msg("roster.no_match", {"path": shown, "pattern": CANVAS}))]


def test_the_canvas_preset_keeps_each_students_canvas_id_and_late_hand_ins(tmp_path: Path, workdir: Path) -> None:
    """Canvas's download names (`name_USERID_SUBMISSIONID_file`, `name_late_...` for a late one): the preset
    groups them as the pattern above does, and keeps the user id and the late mark for the LMS export."""
    source = tmp_path / "canvas"
    for name in ("alice_123_456_chapter3.ipynb", "alice_123_457_data.csv", "bob_late_124_458_chapter3.py",
                 "carol_125_459_chapter3.py", "grades.csv"):
        write(source / name)
    students, skipped = collect([source], workdir, "canvas")
    assert [(s.name, s.lms_id, s.late, [p.name for p in s.files]) for s in students] == [
        ("alice", "123", False, ["alice_123_456_chapter3.ipynb", "alice_123_457_data.csv"]),
        ("bob", "124", True, ["bob_late_124_458_chapter3.py"]),
        ("carol", "125", False, ["carol_125_459_chapter3.py"]),
    ]
    assert [s.reason.key for s in skipped] == ["roster.no_match"]
    plain, _ = collect([source], workdir, CANVAS)  # a pattern without the groups keeps neither
    assert {(s.lms_id, s.late) for s in plain} == {("", False)}


@pytest.mark.parametrize("pattern, student", [
    (r"^(?P<id>\d+)-(?P<student>\w+)", "alice"),  # the group named student, wherever it is
    (r"^\d+-(\w+)", "alice"),                     # else the first group
    (r"^\d+", "123"),                             # else the whole match
])
def test_pattern_picks_the_student_group(tmp_path: Path, workdir: Path, pattern: str, student: str) -> None:
    notebook = write(tmp_path / "123-alice-final.ipynb", "{}")
    students, _ = collect([notebook], workdir, pattern)
    assert [s.name for s in students] == [student]


def test_pattern_names_per_student_folders(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "moodle"
    write(source / "Alice Smith_1001_assignsubmission_file_" / "chapter3.ipynb", "{}")
    write(source / "Bob Li_1002_assignsubmission_file_" / "chapter3.py")
    students, _ = collect([source], workdir, CANVAS)
    assert roster_of(students) == {"Alice Smith": ["chapter3.ipynb"], "Bob Li": ["chapter3.py"]}


def test_bad_pattern_stops_the_run(tmp_path: Path, workdir: Path) -> None:
    with pytest.raises(RosterError) as caught:
        collect([tmp_path], workdir, "(?P<student>[a-z")
    assert caught.value.key == "roster.bad_pattern"
    assert caught.value.args_["pattern"] == "(?P<student>[a-z"
    assert "unterminated" in caught.value.args_["error"]


# -- zips ------------------------------------------------------------------------------------------------
def test_flat_lms_zip(tmp_path: Path, workdir: Path) -> None:
    archive = make_zip(tmp_path / "class.zip", {"alice.ipynb": "{}", "bob.py": "x = 1\n", "readme.txt": "hi"})
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"alice": ["alice.ipynb"], "bob": ["bob.py"]}
    assert all(p.is_relative_to(workdir) for s in students for p in s.files)
    assert students[1].files[0].read_text() == "x = 1\n"
    assert reasons(skipped) == {f"{archive}:readme.txt": "roster.not_submission"}


def test_per_folder_zip_wrapped_in_one_folder(tmp_path: Path, workdir: Path) -> None:
    archive = make_zip(tmp_path / "class.zip", {
        "submissions/alice/main.ipynb": "{}",
        "submissions/alice/helper.py": "",
        "submissions/bob/main.py": "",
        "__MACOSX/submissions/._bob": "",
    })
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"alice": ["helper.py", "main.ipynb"], "bob": ["main.py"]}
    assert skipped == []


def test_a_zip_inside_a_folder_is_one_students_work(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "class"
    source.mkdir()
    make_zip(source / "alice.zip", {"alice/main.py": "", "alice/data.csv": ""})
    write(source / "bob.py")
    students, _ = collect([source], workdir)
    assert roster_of(students) == {"alice": ["data.csv", "main.py"], "bob": ["bob.py"]}


def test_a_students_broken_zip_is_skipped_and_the_class_still_runs(tmp_path: Path, workdir: Path) -> None:
    source = tmp_path / "class"
    write(source / "alice.zip", "not a zip")
    write(source / "bob.py")
    students, skipped = collect([source], workdir)
    assert roster_of(students) == {"bob": ["bob.py"]}
    assert reasons(skipped) == {str(source / "alice.zip"): "roster.bad_zip"}


@pytest.mark.parametrize("content", [b"this is not a zip", b"PK\x03\x04truncated"], ids=["text", "truncated"])
def test_a_bad_source_zip_stops_the_run(tmp_path: Path, workdir: Path, content: bytes) -> None:
    archive = tmp_path / "class.zip"
    archive.write_bytes(content)
    with pytest.raises(RosterError) as caught:
        collect([archive], workdir)
    assert (caught.value.key, caught.value.args_["path"]) == ("roster.bad_zip", str(archive))


def test_zip_slip_entries_are_not_unpacked(tmp_path: Path, workdir: Path) -> None:
    outside = tmp_path / "outside"
    archive = make_zip(tmp_path / "class.zip", {
        "alice.py": "",
        "../evil.py": "",
        "..\\evil_windows.py": "",
        f"{outside}/absolute.py": "",
        "C:/Windows/evil.py": "",
        "bob/../../evil_nested.py": "",
    })
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"alice": ["alice.py"]}
    assert sorted(reasons(skipped).values()) == ["roster.unsafe_entry"] * 5
    assert files_under(tmp_path) == {"class.zip"} | {f"work/{p}" for p in files_under(workdir)}
    assert [p.name for p in workdir.rglob("*.py")] == ["alice.py"]


def test_symlink_entries_are_not_unpacked(tmp_path: Path, workdir: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        link = zipfile.ZipInfo("alice/secret.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("alice/main.py", "")
        zf.writestr("bob.py", "")
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"alice": ["main.py"], "bob": ["bob.py"]}
    assert reasons(skipped) == {f"{archive}:alice/secret.py": "roster.symlink"}
    assert not any(p.is_symlink() for p in workdir.rglob("*"))


def test_encrypted_entries_are_skipped(tmp_path: Path, workdir: Path) -> None:
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bob.py", "")
        zf.writestr("alice.py", "")
    data = bytearray(archive.read_bytes())
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # set the encrypted bit of alice.py in both headers
        at = data.index(header, data.index(header) + 1)
        flags = 6 if header == b"PK\x03\x04" else 8
        data[at + flags] |= 0x1
    archive.write_bytes(bytes(data))
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"bob": ["bob.py"]}
    assert reasons(skipped) == {f"{archive}:alice.py": "roster.encrypted"}


def mangled_zip(path: Path, real_names: list[bytes]) -> Path:
    """A zip whose names are raw bytes without the UTF-8 flag, as Windows' built-in zip writes them:
    written with ASCII placeholders of the same length, then patched."""
    placeholders = [(b"%d" % i * len(name))[: len(name)] for i, name in enumerate(real_names)]
    with zipfile.ZipFile(path, "w") as zf:
        for placeholder in placeholders:
            zf.writestr(placeholder.decode() + ".py", "")
    data = path.read_bytes()
    for placeholder, name in zip(placeholders, real_names):
        data = data.replace(placeholder + b".py", name + b".py")
    path.write_bytes(data)
    return path


def test_chinese_names_from_windows_zips_are_recovered(tmp_path: Path, workdir: Path) -> None:
    archive = mangled_zip(tmp_path / "class.zip", ["张三".encode("gbk"), "李四".encode("utf-8")])
    assert {i.filename for i in zipfile.ZipFile(archive).infolist()} == {
        "张三".encode("gbk").decode("cp437") + ".py", "李四".encode("utf-8").decode("cp437") + ".py"}
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"张三": ["张三.py"], "李四": ["李四.py"]}
    assert skipped == []


def test_too_many_entries_is_refused(tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zips, "MAX_ZIP_ENTRIES", 3)
    archive = make_zip(tmp_path / "class.zip", {f"s{i}.py": "" for i in range(4)})
    with pytest.raises(RosterError) as caught:
        collect([archive], workdir)
    assert caught.value.key == "roster.zip_too_big"
    assert caught.value.args_["entries"] == "3"
    assert files_under(workdir) == set()


def test_too_many_declared_bytes_is_refused(tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zips, "MAX_ZIP_BYTES", 1000)
    archive = make_zip(tmp_path / "class.zip", {"alice.py": "#" * 600, "bob.py": "#" * 600})
    with pytest.raises(RosterError) as caught:
        collect([archive], workdir)
    assert caught.value.key == "roster.zip_too_big"
    assert files_under(workdir) == set()


def test_a_header_that_understates_the_size_cannot_fill_the_disk(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zips, "MAX_ZIP_BYTES", 1000)
    archive = make_zip(tmp_path / "class.zip", {"alice.py": "#" * 100_000})
    data = bytearray(archive.read_bytes())
    for header, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # declare 10 bytes, not 100,000
        at = data.index(header) + size_at
        data[at:at + 4] = (10).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    with pytest.raises(RosterError) as caught:
        collect([archive], workdir)
    assert caught.value.key in ("roster.bad_zip", "roster.zip_too_big")
    assert sum(p.stat().st_size for p in workdir.rglob("*") if p.is_file()) <= 1000


def test_the_cap_counts_bytes_as_they_are_written(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Declared sizes pass (the check reads them before the cap shrinks); the bytes written do not."""
    archive = make_zip(tmp_path / "class.zip", {"alice.py": "#" * 5000, "bob.py": "#" * 5000})
    declared = zips._check_declared

    def check_then_shrink(entries: list[zipfile.ZipInfo], shown: str) -> None:
        declared(entries, shown)
        monkeypatch.setattr(zips, "MAX_ZIP_BYTES", 6000)

    monkeypatch.setattr(zips, "_check_declared", check_then_shrink)
    with pytest.raises(RosterError) as caught:
        collect([archive], workdir)
    assert caught.value.key == "roster.zip_too_big"
    assert files_under(workdir) == set()


# -- sources that stop the run ---------------------------------------------------------------------------
def test_a_missing_source_stops_the_run(tmp_path: Path, workdir: Path) -> None:
    with pytest.raises(RosterError) as caught:
        collect([tmp_path / "nowhere"], workdir)
    assert (caught.value.key, caught.value.args_) == ("roster.missing", {"path": str(tmp_path / "nowhere")})


def test_a_source_of_another_type_stops_the_run(tmp_path: Path, workdir: Path) -> None:
    with pytest.raises(RosterError) as caught:
        collect([write(tmp_path / "grades.csv")], workdir)
    assert caught.value.key == "roster.bad_source"


def refuse_to_list(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Permission denied on `folder` (chmod alone would not stop a test run as root)."""
    listing = Path.iterdir

    def iterdir(self: Path):
        if self == folder:
            raise PermissionError(13, "Permission denied")
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)


def test_an_unreadable_source_folder_stops_the_run(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "class"
    write(source / "alice.py")
    refuse_to_list(monkeypatch, source)
    with pytest.raises(RosterError) as caught:
        collect([source], workdir)
    assert (caught.value.key, caught.value.args_) == (
        "roster.unreadable", {"path": str(source), "error": "Permission denied"})


def test_an_unreadable_folder_inside_a_students_work_is_skipped(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "class"
    write(source / "alice" / "main.py")
    write(source / "alice" / "private" / "notes.py")
    write(source / "bob.py")
    refuse_to_list(monkeypatch, source / "alice" / "private")
    students, skipped = collect([source], workdir)
    assert roster_of(students) == {"alice": ["main.py"], "bob": ["bob.py"]}
    assert reasons(skipped) == {str(source / "alice" / "private"): "roster.unreadable"}


# -- shards ----------------------------------------------------------------------------------------------
NAMES = [f"student{i:03d}" for i in range(100)]


def test_every_student_is_in_exactly_one_shard() -> None:
    for n in (1, 2, 3, 7):
        for name in NAMES:
            assert sum(in_shard(name, (k, n)) for k in range(1, n + 1)) == 1


def test_shards_are_roughly_balanced() -> None:
    sizes = Counter(k for name in NAMES for k in range(1, 5) if in_shard(name, (k, 4)))
    assert sorted(sizes) == [1, 2, 3, 4]
    assert all(10 <= size <= 40 for size in sizes.values()), sizes


def test_shards_are_the_same_on_every_machine() -> None:
    """Pinned values: sha256 does not vary with PYTHONHASHSEED, platform or run, unlike hash()."""
    assert [k for k in range(1, 6) if in_shard("alice", (k, 5))] == [1]
    assert [k for k in range(1, 6) if in_shard("张三", (k, 5))] == [5]
    assert [k for k in range(1, 4) if in_shard("bob", (k, 3))] == [2]


@pytest.mark.parametrize("spec, shard", [("1/1", (1, 1)), ("2/5", (2, 5)), (" 5 / 5 ", (5, 5))])
def test_parse_shard(spec: str, shard: tuple[int, int]) -> None:
    assert parse_shard(spec) == shard


@pytest.mark.parametrize("spec", ["0/3", "4/3", "x", "1/0", "1/", "/3", "1/3/4", "-1/3", "１/３"])
def test_parse_shard_refuses(spec: str) -> None:
    with pytest.raises(RosterError) as caught:
        parse_shard(spec)
    assert (caught.value.key, caught.value.args_) == ("roster.bad_shard", {"spec": spec})


# -- messages --------------------------------------------------------------------------------------------
def test_every_roster_message_exists_in_both_languages() -> None:
    source = "".join(Path(module.__file__).read_text(encoding="utf-8") for module in (roster, zips))
    keys = set(re.findall(r'"(roster\.[a-z_]+)"', source))
    assert len(keys) >= 10
    for key in sorted(keys):
        assert catalogue.has(key), key
        assert catalogue.text(key, "zh") != catalogue.text(key, "en"), key


def deep_tree(top: Path, depth: int) -> None:
    """`depth` folders one inside the next under `top`, made a level at a time (os.makedirs recurses)."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def test_a_folder_tree_a_thousand_deep_in_a_class_is_walked(tmp_path: Path, workdir: Path) -> None:
    classdir = tmp_path / "class"
    for student in ("ann", "bob"):
        (classdir / student).mkdir(parents=True)
        (classdir / student / "answers.py").write_text("x = 1\n")
    (classdir / "aaron").mkdir()
    deep_tree(classdir / "aaron", 1_400)  # and no code: the search for some walks all of it
    try:
        students, skipped = collect([classdir], workdir)
        assert roster_of(students) == {"ann": ["answers.py"], "bob": ["answers.py"]}
        assert reasons(skipped) == {}
    finally:
        remove(classdir / "aaron")  # pytest's own clean-up recurses as deep as the tree


def test_zip_entries_nested_past_the_depth_cap_are_not_unpacked(tmp_path: Path, workdir: Path) -> None:
    deep = "/".join(["d"] * 1_200) + "/notes.py"
    archive = make_zip(tmp_path / "class.zip", {"ann/answers.py": "", f"bob/{deep}": "", "bob/answers.py": ""})
    students, skipped = collect([archive], workdir)
    assert roster_of(students) == {"ann": ["answers.py"], "bob": ["answers.py"]}
    assert reasons(skipped) == {f"{archive}:bob/{deep}": "roster.too_deep"}
    reason = skipped[0].reason
    assert catalogue.text(reason.key, "en", **reason.args).endswith("lies more than 32 folders deep; it was not unpacked")
