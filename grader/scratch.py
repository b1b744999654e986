"""The folder a submission runs in, from the judge's side: made, watched, removed.

The judge copies the submission (and the data files its exercises expect, and in single-file mode the
files beside it) into a fresh folder before any child exists, and never opens anything in it
afterwards: what a child leaves there is the child's.
Where a child has a mount namespace, its copy of the folder is a tmpfs of a fixed size
(grader/sandbox/isolation.py). Where it has none (hosted CI runners, other platforms), the judge
measures the folder while it waits for the child and stops a child that passes the same quota, so one
student cannot fill the disk that the gradebook and the other students share.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

# Entries a scratch folder may hold beyond the files copied into it (the tmpfs's inode cap, or the
# watch's): counting a folder of more than this costs the judge more than the quota is worth.
ENTRIES = 10_000

# What single-file mode copies from beside a submission, at most (README, "Files beside the submission"):
# enough for a course folder of notebooks and data, not a home directory or a dataset.
SIBLING_FILES = 200
SIBLING_BYTES = 64 * 2**20
READ_ONLY = 0o444  # the mode of a sibling's copy; grader/sandbox/isolation.py leaves such files root's


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
        self._fill()
        self.copied, self.copied_entries = usage(str(self.path))

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

    def reset(self) -> None:
        """Back to what the judge copied in, for the next child after one was stopped for filling it."""
        self.remove()
        self.path.mkdir(mode=0o700)
        self._fill()

    def over(self, quota_bytes: int) -> bool:
        """Whether the folder holds more than `quota_bytes` beyond what the judge copied into it."""
        limit = self.copied_entries + ENTRIES
        used, entries = usage(str(self.path), limit)
        return used > self.copied + quota_bytes or entries >= limit

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)  # never follows a link the child planted


def usage(folder: str, max_entries: int = 1 << 30) -> tuple[int, int]:
    """Bytes allocated under `folder` and how many entries it holds, links not followed; counting
    stops at `max_entries`."""
    total = entries = 0
    for parent, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            try:
                total += os.lstat(os.path.join(parent, name)).st_blocks * 512
            except OSError:
                continue
            entries += 1
            if entries >= max_entries:
                return total, entries
    return total, entries


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
    (`named`: grader.loading.named_paths), a link only where it stays inside the folder (never a way out
    to files of the grader's user). The files the code names go first, then the rest by name, each while
    it fits under SIBLING_FILES files and SIBLING_BYTES bytes; the others are left out, by name."""
    root = submission.absolute().parent.resolve()
    found = sorted(_files_in(root, root, "", set(named), submission.name), key=lambda s: (not s.named, s.name))
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


def _files_in(folder: Path, root: Path, prefix: str, named: set[str], skip: str) -> Iterator[Sibling]:
    """The regular files in `folder` and in the sub-folders `named` spells, named from `root`; `skip`
    is the submission itself."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        name = prefix + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.name in named:
                    yield from _files_in(Path(entry.path), root, name + "/", named, skip)
                continue
            real = Path(entry.path).resolve(strict=True) if entry.is_symlink() else Path(entry.path)
            info = real.stat()
        except (OSError, RuntimeError):  # gone, unreadable, or a loop of links
            continue
        if name != skip and stat.S_ISREG(info.st_mode) and real.is_relative_to(root):
            yield Sibling(name, real, info.st_size, named=name in named or entry.name in named)
