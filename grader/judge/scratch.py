"""The folder a submission runs in, from the judge's side: made, watched, removed.

The judge copies the submission (and the data files its exercises expect, and in single-file mode the
files beside it) into a fresh folder before any child exists, and never opens anything in it
afterwards: what a child leaves there is the child's.
Where a child has a mount namespace, its copy of the folder is a tmpfs of a fixed size
(grader/sandbox/isolation.py). Where it has none (hosted CI runners, other platforms), the judge
measures the folder while it waits for the child and stops a child that passes the same quota, so one
student cannot fill the disk that the gradebook and the other students share.

Whatever a child leaves there, the judge walks and removes it without recursion and through descriptors
(`walk`, `remove`), so no depth or length of path can raise in the judge or leave the folder behind; and
should the judge die before it removes a folder (a Jupyter kernel restarted mid-grade, `grade` killed), a
keeper process of its own removes it (grader.judge.keeper).
"""
from __future__ import annotations

import keyword
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

from grader.judge.keeper import Keeper
from grader.sandbox.folders import ENTRIES, READ_ONLY, remove, usage
from grader.sandbox.isolation import SANDBOX_UID_BASE
from grader.sandbox.limits import status_bytes

# What single-file mode copies from beside a submission, at most (docs/students.md, "Files beside the submission"):
# enough for a course folder of notebooks and data, not a home directory or a dataset.
SIBLING_FILES = 200
SIBLING_BYTES = 64 * 2**20

@dataclass(frozen=True)
class Sibling:
    """A file beside a single submission (`siblings`), copied read-only to `name`, its path
    relative to the submission's folder ('/'-separated: `data/input.txt`). `source` is the file itself,
    links already resolved inside the folder; `named`: the code spells its name, so it may be the text
    the submission read (exercises/_text.py)."""

    name: str
    source: Path
    size: int
    named: bool = False

    def read_bytes(self) -> bytes:
        """At most `size` bytes of a regular file, never through a link or a FIFO put there since
        (O_NOFOLLOW, O_NONBLOCK): a file that grew or changed kind is not the one that was counted."""
        fd = os.open(self.source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.name} is no longer a regular file")
            return file.read(self.size)


Copied = Path | Sibling  # a Path is copied by its own name, with its mode


class Scratch:
    def __init__(self, files: Iterable[Copied]) -> None:
        self.files = tuple(files)
        self.path = Path(tempfile.mkdtemp(prefix="grader-"))
        Keeper.mine().keep(self.path)
        self._fill()
        self.copied, self.copied_entries = usage(str(self.path))
        self.device = self.path.stat().st_dev

    def _fill(self) -> None:
        for item in self.files:  # a later file of the same name wins: the student's own copy of a data file
            if isinstance(item, Sibling):
                self._place(item)
            else:
                shutil.copy2(item, self.path / item.name)

    def _place(self, sibling: Sibling) -> None:
        """A sibling's copy, read-only for the submission; one that cannot be read now is left out, as
        if it had not been there (the student's folder may change while we grade)."""
        target = self.path.joinpath(*sibling.name.split("/"))
        try:
            content = sibling.read_bytes()
        except OSError:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        target.write_bytes(content)
        target.chmod(READ_ONLY)

    def package(self, submission: Path) -> str | None:
        """The package the submission's folder is, where an __init__.py was copied in beside it: its cells then
        run as a module of that package (`python -m pkg.main`), named as the folder is (else `submission`)."""
        if not any(item.name == "__init__.py" for item in self.files):
            return None
        name = submission.absolute().parent.name
        return name if name.isidentifier() and not keyword.iskeyword(name) else "submission"

    def reset(self) -> None:
        """Back to what the judge copied in, for the next child after one was stopped for filling it."""
        remove(self.path)
        self.path.mkdir(mode=0o700, exist_ok=True)
        self._fill()

    def over(self, quota_bytes: int, child: int | None = None) -> bool:
        """Whether the folder holds more than `quota_bytes` beyond what the judge copied into it; with `child`
        (the pid the launcher gave), the files its sandbox's processes hold on the folder's disk without a
        name count too (`held_without_name`)."""
        limit = self.copied_entries + ENTRIES
        used, entries = usage(str(self.path), limit)
        if child is not None:
            used += held_without_name(child, self.device)
        return used > self.copied + quota_bytes or entries >= limit

    def remove(self) -> None:
        """Removed now, or (should a process of the child still hold it) by the keeper when we are gone."""
        remove(self.path)
        if not os.path.lexists(self.path):
            Keeper.mine().forget(self.path)


def held_without_name(child: int, device: int) -> int:
    """Bytes on `device` in files that the sandbox's processes hold open or mapped but that have no name left
    (unlinked while open, or made with O_TMPFILE): a walk of the folder's names never meets them, yet they
    fill the disk until the last holder ends. Each is only looked at through /proc (stat), never opened.
    Where the judge may not read the processes' /proc entries, nothing is counted: docs/security.md says so."""
    seen: set[int] = set()
    total = 0
    for pid in sandbox_processes(child):
        for kind in ("fd", "map_files"):
            try:
                names = os.listdir(f"/proc/{pid}/{kind}")
            except OSError:
                continue
            for name in names:
                try:
                    info = os.stat(f"/proc/{pid}/{kind}/{name}")
                except OSError:
                    continue
                if (stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and info.st_dev == device
                        and info.st_ino not in seen):
                    seen.add(info.st_ino)
                    total += info.st_blocks * 512
    return total


def sandbox_processes(child: int) -> set[int]:
    """The processes of the sandbox `child` (the pid the launcher gave): it and what descends from it, and, for
    a root-run grader, the orphans of the uid it became (grader.sandbox.isolation), which its zygote adopted.
    Found through each process's children, so the cost is the sandbox's size, not the machine's."""
    pending = [child]
    try:
        with open(f"/proc/{child}/stat", "rb") as f:
            zygote = int(f.read().rsplit(b")", 1)[1].split()[1])
        pending += [pid for pid in _children(zygote) if os.stat(f"/proc/{pid}").st_uid == SANDBOX_UID_BASE + child]
    except (OSError, ValueError, IndexError):
        pass
    mine: set[int] = set()
    while pending:
        pid = pending.pop()
        if pid not in mine:
            mine.add(pid)
            pending += _children(pid)
    return mine


def _children(pid: int) -> list[int]:
    """The children of every thread of `pid` (Linux's /proc/PID/task/TID/children), none where it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                found += [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            continue
    return found


@dataclass(frozen=True)
class Siblings:
    """What single-file mode copies from beside a submission, and the names the caps left out."""

    files: tuple[Sibling, ...] = ()
    left_out: tuple[str, ...] = ()

    def note(self) -> dict[str, object]:
        """What a result says of the files the caps left out (results.SubmissionInfo.left_out); {} when none."""
        if not self.left_out:
            return {}
        return {"count": len(self.left_out), "names": list(self.left_out), "max_files": SIBLING_FILES,
                "max_mib": SIBLING_BYTES // 2**20}


def siblings(submission: Path, named: Iterable[str]) -> Siblings:
    """The files beside a single submission that its scratch folder gets: a script opens `input.txt` from
    its own folder. Its folder's regular files come along; a sub-folder only where the code names it
    (`named`: grader.load.submission.named_paths), a link only where it stays inside the folder (never a way out
    to files of the grader's user), and only what the folder's owner could read (`handed_over`). The files
    the code names go first, then the rest by name, each while it fits under SIBLING_FILES files and
    SIBLING_BYTES bytes; the others are left out, by name."""
    root = submission.absolute().parent.resolve()
    try:
        owner = root.stat().st_uid
    except OSError:
        return Siblings()
    found = sorted(_files_in(root, set(named), submission.name, owner), key=lambda s: (not s.named, s.name))
    kept: list[Sibling] = []
    left_out: list[str] = []
    total = 0
    for sibling in found:
        if len(kept) < SIBLING_FILES and total + sibling.size <= SIBLING_BYTES:
            kept.append(sibling)
            total += sibling.size
        else:
            left_out.append(sibling.name)
    return Siblings(tuple(kept), tuple(left_out))


def _files_in(root: Path, named: set[str], skip: str, owner: int) -> Iterator[Sibling]:
    """The regular files in `root` and in the sub-folders `named` spells (a stack, not recursion: a folder
    may be named at every level of a deep tree), named from `root`; `skip` is the submission itself."""
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            name = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in named and handed_over(entry.stat(follow_symlinks=False), owner):
                        pending.append((Path(entry.path), name + "/"))
                    continue
                real = Path(entry.path).resolve(strict=True) if entry.is_symlink() else Path(entry.path)
                info = real.stat()
            except (OSError, RuntimeError):  # gone, unreadable, or a loop of links
                continue
            if (name != skip and stat.S_ISREG(info.st_mode) and real.is_relative_to(root)
                    and handed_over(info, owner)):
                yield Sibling(name, real, info.st_size, named=name in named or entry.name in named)


def handed_over(info: os.stat_result, owner: int) -> bool:
    """Whether a file (or folder) found in a student's folder may reach the sandbox: `owner`, the uid that
    owns the folder, could read it (a folder: list and enter it) by its mode, and a file has no other name.
    The grader may run as root and read anything, but the sandbox gets only what its student could have
    given it: a second name (a hard link, as a tar's link entry makes) of a file elsewhere bypasses the
    folder that closes it to the student, so no mode inside the folder says whether the student may read it."""
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        return False
    if owner == 0:
        return True
    need = 0o5 if stat.S_ISDIR(info.st_mode) else 0o4
    shift = 6 if info.st_uid == owner else 3 if info.st_gid in _groups(owner) else 0
    return (info.st_mode >> shift) & need == need


@lru_cache(maxsize=16)
def _groups(uid: int) -> frozenset[int]:
    """The groups of a user (none known for a uid without an account, or where there are no such groups)."""
    try:
        import pwd  # not on Windows, where files carry no uid to compare

        account = pwd.getpwuid(uid)
        return frozenset(os.getgrouplist(account.pw_name, account.pw_gid))
    except (ImportError, KeyError, OSError):
        return frozenset()
