"""Who handed in what: turn the SOURCE arguments of `grade batch` into students and their files.

An LMS download is a folder or a zip holding per-student folders, per-student zips, or flat files
whose names carry the student. Nothing here runs or parses a submission; it reads names and unpacks
zips. A zip comes from students, so it is distrusted like their code: no entry may land outside the
folder it is unpacked into, links are never created or followed, and the size is capped twice (what
the zip declares, then what it actually yields) so a lying header cannot fill the disk. A file handed in
that is a second name of a file elsewhere (a hard link, as an instructor's `tar x` makes of a link entry),
or that its folder's owner may not read, is left out: a root-run grader reads anything, its sandboxes
get only what the student could have given them.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import os
import re
import shutil
import sys
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from grader.classes.file_names import Named, StudentPattern
from grader.classes.zips import RosterError as RosterError
from grader.classes.zips import Skipped as Skipped
from grader.classes.zips import extract
from grader.judge.scratch import handed_over
from grader.load.submission import GRADED_SUFFIXES
from grader.messages.catalogue import Msg
from grader.outputs.names import page_name
from grader.results import StudentKey, student_key, student_label
from grader.results.bounds import readable

# A class's download fits well within these; a zip beyond them is refused rather than unpacked.
MAX_READ = 1 << 20  # of each code file, for the modules it imports (a learner imports at the top)

# Clutter that editors, macOS and Jupyter leave beside the work (hidden names are ignored too).
IGNORED_NAMES = {"__MACOSX", "__pycache__", ".ipynb_checkpoints"}

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*", re.ASCII)
# What zipfile and zlib raise on a damaged archive or an entry they cannot decompress.


@dataclass(frozen=True)
class Student:
    name: str  # what is shown
    files: tuple[Path, ...]  # every file handed in, sorted by file name (support files included)
    lms_id: str = ""  # the id the LMS's file names carry (a pattern's `lms_id` group: Canvas's user id): who it is
    late: bool = False  # a file of theirs was named late by the LMS (a pattern's `late` group matched)
    # what was handed in, as the instructor knows it (`class.zip:wangwei_1111_501_a.py`): shown, not compared
    shown: str = field(default="", compare=False)

    @property
    def key(self) -> StudentKey:
        return student_key(self.name, self.lms_id)

    @property
    def label(self) -> str:
        return student_label(self.name, self.lms_id)

    @property
    def who(self) -> str:
        """Who the student is, as one string: their LMS id, else their name (a shard's and a seed's hash)."""
        return self.lms_id or self.name


def collect(
    sources: Sequence[Path], workdir: Path, pattern: str | None = None
) -> tuple[list[Student], list[Skipped]]:
    """Students sorted by name, and what was left out; zips are unpacked under `workdir` (the caller's)."""
    roster = _Roster(workdir, StudentPattern.compile(pattern))
    for source in sources:
        roster.add_source(source)
    return roster.students(), roster.skipped


def submission_files(folder: Path) -> tuple[Path, ...]:
    """One student's folder (Gradescope's /autograder/submission), read as `collect` reads a student's
    folder, so a submission grades the same on Gradescope as in a batch; empty when there is nothing."""
    roster = _Roster(workdir=folder, pattern=None)
    roster.hand_in(Named(folder.name), roster.walk(folder), folder)
    return next((student.files for student in roster.students()), ())


def parse_shard(spec: str) -> tuple[int, int]:
    """`K/N` -> (K, N): this machine grades the K-th of N shards of the class."""
    match = _SHARD.fullmatch(spec)
    if match:
        k, n = int(match[1]), int(match[2])
        if 1 <= k <= n:
            return k, n
    raise RosterError("roster.bad_shard", spec=spec)


def in_shard(student: str, shard: tuple[int, int]) -> bool:
    """A hash of who the student is (`Student.who`) rather than a position in the roster, so a student stays in
    the same shard on every machine even when the machines' downloads differ by a late submission."""
    k, n = shard
    return int(hashlib.sha256(student.encode()).hexdigest(), 16) % n == k - 1


@dataclass
class _Roster:
    """The students found so far, each with their files by file name (first one wins), and the skips."""

    workdir: Path
    pattern: StudentPattern | None
    skipped: list[Skipped] = field(default_factory=list)
    handed_in: dict[StudentKey, dict[str, Path]] = field(default_factory=dict)
    # ("name", likeness) and ("page", feedback page) -> (the student as first spelled, its hand-in)
    spellings: dict[tuple[str, str], tuple[str, Path]] = field(default_factory=dict)
    unpacked: dict[Path, str] = field(default_factory=dict)  # folder a zip went into -> how to show the zip
    hand_ins: dict[StudentKey, str] = field(default_factory=dict)  # student -> their first hand-in, as shown
    late: set[StudentKey] = field(default_factory=set)  # students a file of whom the LMS named late

    def add_source(self, source: Path) -> None:
        if not source.exists():
            raise RosterError("roster.missing", path=str(source))
        if source.is_dir():
            self.add_folder(source, source.resolve().name)
        elif _is_zip(source):
            self.add_folder(self.unpack(source), source.stem)
        elif source.suffix in GRADED_SUFFIXES or self.pattern:
            self.add_entry(source)
        else:
            raise RosterError("roster.bad_source", path=str(source))

    def add_folder(self, folder: Path, name: str) -> None:
        """Each entry is one student's; a folder that only wraps another (as many zips do) is looked through,
        and one whose code files use one another is one student's work, named `name` (_one_students_work)."""
        entries = _source_listing(folder)
        if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
            folder, name = entries[0], entries[0].name
            entries = _source_listing(folder)
        if self.pattern is None and _one_students_work(entries):
            self.hand_in(Named(name), self.walk(folder), folder)
            return
        for entry in entries:
            self.add_entry(entry)

    def add_entry(self, entry: Path) -> None:
        """A top-level file, folder or zip: one student's work, or part of it under --student-pattern."""
        named = self.named(entry)
        if entry.is_symlink():
            self.skip(entry, "roster.symlink")
        elif not entry.is_dir() and not (entry.is_file() and (self.pattern or _is_submission_file(entry))):
            self.skip(entry, "roster.not_submission")
        elif named is None or not _tidy(named.spelled):
            self.skip(entry, "roster.no_match", pattern=self.pattern.given if self.pattern else "")
        elif entry.is_dir():
            self.hand_in(named, self.walk(entry), entry)
        elif _is_zip(entry):
            self.hand_in(named, self.unpack_student_zip(entry), entry)
        else:
            self.hand_in(named, [entry], entry)

    def named(self, entry: Path) -> Named | None:
        """The folder's name or the file's stem, or what --student-pattern reads in the name (None: no match)."""
        if self.pattern is None:
            return Named(entry.name if entry.is_dir() else entry.stem)
        return self.pattern.read(entry.name)

    def student(self, named: Named, entry: Path) -> StudentKey:
        """Whose work `entry` is. Where the LMS's file name carries an id, it tells students apart: two
        students of one name are two. Otherwise hand-ins spelled alike are one student's (a folder in two
        downloads, `ann.py` beside `ann.ipynb`, what a pattern groups). Two spelled apart but alike to a
        reader (`zz .py` and `zz.py`, an accent composed or not, `Ann` and `ann`), or sharing a feedback page,
        would be two students under one name; grading them as one would share a scratch folder and a
        process, so the run stops and names both."""
        name, lms_id = _tidy(named.spelled), _tidy(named.lms_id)
        key, label = student_key(name, lms_id), student_label(name, lms_id)
        spelling = label if lms_id else named.spelled  # what every other hand-in of this student spells
        checks = [("page", page_name(label).casefold())] + ([] if lms_id else [("name", _likeness(spelling))])
        for check in checks:
            first, where = self.spellings.setdefault(check, (spelling, entry))
            if first != spelling:
                raise RosterError("roster.ambiguous", first=repr(self.shown(where)), second=repr(self.shown(entry)),
                                  one=repr(_tidy(first)), other=repr(label))
        self.hand_ins.setdefault(key, self.shown(entry))
        if named.late:
            self.late.add(key)
        return key

    def walk(self, folder: Path) -> list[Path]:
        """Every regular file under `folder`, in path order; a stack, not recursion, as zips nest deep."""
        files: list[Path] = []
        pending = [folder]
        while pending:
            current = pending.pop()
            try:
                entries = _listing(current)
            except OSError as exc:
                self.skip(current, "roster.unreadable", error=exc.strerror or str(exc))
                continue
            for entry in entries:
                if entry.is_symlink():
                    self.skip(entry, "roster.symlink")
                elif entry.is_dir():
                    pending.append(entry)
                elif entry.is_file():
                    files.append(entry)
        return sorted(files)

    def unpack(self, archive: Path) -> Path:
        """Unpack a zip into a fresh folder of the workdir; RosterError when it cannot be done safely."""
        shown = self.shown(archive)
        folder = Path(tempfile.mkdtemp(prefix="zip-", dir=self.workdir))
        try:
            self.skipped.extend(extract(archive, folder, shown))
        except RosterError:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self.unpacked[folder] = shown
        return folder

    def unpack_student_zip(self, archive: Path) -> list[Path]:
        """One student's damaged or oversized zip is their problem, not the class's: skip it, grade the rest."""
        try:
            return self.walk(self.unpack(archive))
        except RosterError as exc:
            self.skipped.append(Skipped(self.shown(archive), Msg(exc.key, exc.args_)))
            return []

    def hand_in(self, named: Named, files: list[Path], entry: Path) -> None:
        """Files are copied side by side for grading, so a student can hold only one file of each name."""
        if not files:
            return
        student = self.student(named, entry)
        by_name = self.handed_in.setdefault(student, {})
        for path in files:
            if not _theirs(path):
                self.skip(path, "roster.not_theirs")
                continue
            kept = by_name.setdefault(path.name, path)
            if kept != path:
                self.skip(path, "roster.duplicate", student=student_label(student[1], student[0]),
                          kept=self.shown(kept))

    def students(self) -> list[Student]:
        """Sorted by name, namesakes by their LMS id."""
        found = [Student(key[1], tuple(sorted(files.values(), key=lambda p: p.name)), key[0], key in self.late,
                         self.hand_ins[key])
                 for key, files in self.handed_in.items()]
        return sorted(found, key=lambda student: (student.name, student.lms_id))

    def skip(self, path: Path, key: str, **args: str) -> None:
        shown = self.shown(path)
        self.skipped.append(Skipped(shown, Msg(key, {"path": shown, **args})))

    def shown(self, path: Path) -> str:
        """A path as the instructor knows it: inside an unpacked zip it is `the.zip:entry`, not a temp path."""
        for folder, archive in self.unpacked.items():
            if path.is_relative_to(folder):
                return f"{archive}:{readable(path.relative_to(folder).as_posix())}"
        return readable(str(path))


def _tidy(name: str) -> str:
    """A student's name as the gradebook keeps it: without spaces at the ends, accents composed (macOS
    zips spell them decomposed), any byte that is not UTF-8 escaped (readable)."""
    return unicodedata.normalize("NFC", readable(name).strip())




def _likeness(name: str) -> str:
    """What a reader makes of a name: letter case, Unicode form, spaces and invisible characters aside."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in folded if not c.isspace() and not unicodedata.category(c).startswith("C"))


def _listing(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not _ignored(p.name))


def _source_listing(folder: Path) -> list[Path]:
    try:
        return _listing(folder)
    except OSError as exc:
        raise RosterError("roster.unreadable", path=str(folder), error=exc.strerror or str(exc)) from None


def _one_students_work(entries: list[Path]) -> bool:
    """Whether a folder's entries are one student's work: its .py and .ipynb files all hang together
    through imports of one another's modules (a notebook and the `attention.py` it imports), and nothing
    else in it is a submission (no zip, no folder holding code). Students do not import each other's
    files, so a class's folder keeps one student per file (even where two files of one student do). A file
    named like a module Python finds elsewhere (`random.py`, `torch.py`) links nothing: every classmate
    imports that module, and counting it would make the whole class one student, graded in one sandbox.
    The files are read as text for module names; nothing is run."""
    graded = [e for e in entries if e.is_file() and not e.is_symlink() and e.suffix in GRADED_SUFFIXES]
    others = [e for e in entries if e not in graded and not e.is_symlink()]
    if any(_is_zip(e) or (e.is_dir() and _holds_code(e)) for e in others):
        return False
    modules = {p.stem for p in graded if p.suffix == ".py" and p.stem.isidentifier() and not _found_elsewhere(p)}
    stems = {p.stem for p in graded}
    if len(stems) < 2 or not modules:
        return False
    importing = re.compile(r"\b(?:from|import)\s+(" + "|".join(map(re.escape, sorted(modules))) + r")\b")
    uses: dict[str, set[str]] = {stem: set() for stem in stems}
    for path in graded:
        for module in set(importing.findall(_text(path))) - {path.stem}:
            uses[path.stem].add(module)
            uses[module].add(path.stem)
    reached: set[str] = set()
    pending = [next(iter(stems))]
    while pending:
        stem = pending.pop()
        if stem not in reached:
            reached.add(stem)
            pending.extend(uses[stem])
    return reached == stems


def _found_elsewhere(module: Path) -> bool:
    """Whether `import <its stem>` finds a module of Python's own or an installed one, looking everywhere
    Python would but the file's own folder."""
    name, folder = module.stem, module.parent.resolve()
    if name in sys.stdlib_module_names or name in sys.builtin_module_names or name in sys.modules:
        return True
    elsewhere = [entry for entry in sys.path if entry and Path(entry).resolve() != folder]
    try:
        return importlib.machinery.PathFinder.find_spec(name, elsewhere) is not None
    except (ImportError, ValueError, OSError):  # a broken installed package: still a name that is taken
        return True


def _holds_code(folder: Path) -> bool:
    """Whether a .py, .ipynb or zip lies anywhere under `folder` (links not followed, clutter left out); a
    stack, not os.walk, whose recursion a folder tree a thousand deep would exhaust."""
    pending = [folder]
    while pending:
        try:
            with os.scandir(pending.pop()) as listing:
                entries = [e for e in listing if not _ignored(e.name)]
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif _is_submission_file(Path(entry.name)):
                return True
    return False


def _text(path: Path) -> str:
    """The start of a file as text, for the names of the modules it imports ("" when it cannot be read)."""
    try:
        with path.open("rb") as f:
            return f.read(MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _theirs(path: Path) -> bool:
    """Whether a hand-in file may reach the sandbox (grader.judge.scratch.handed_over), judged against the owner
    of the folder it lies in: an instructor's `tar x` of a class recreates a link entry as a hard link."""
    try:
        return handed_over(path.stat(follow_symlinks=False), path.parent.stat().st_uid)
    except OSError:  # gone meanwhile: reading it later says so
        return True


def _ignored(name: str) -> bool:
    return name.startswith(".") or name in IGNORED_NAMES


def _is_zip(path: Path) -> bool:
    return path.suffix.lower() == ".zip"  # Windows tools write .ZIP


def _is_submission_file(path: Path) -> bool:
    return path.suffix in GRADED_SUFFIXES or _is_zip(path)
