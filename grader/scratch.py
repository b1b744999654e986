"""The folder a submission runs in, from the judge's side: made, watched, removed.

The judge copies the submission (and the data files its exercises expect) into a fresh folder before
any child exists, and never opens anything in it afterwards: what a child leaves there is the child's.
Where a child has a mount namespace, its copy of the folder is a tmpfs of a fixed size
(grader/sandbox/isolation.py). Where it has none (hosted CI runners, other platforms), the judge
measures the folder while it waits for the child and stops a child that passes the same quota, so one
student cannot fill the disk that the gradebook and the other students share.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable

# Entries a scratch folder may hold beyond the files copied into it (the tmpfs's inode cap, or the
# watch's): counting a folder of more than this costs the judge more than the quota is worth.
ENTRIES = 10_000


class Scratch:
    def __init__(self, files: Iterable[Path]) -> None:
        self.files = tuple(files)
        self.path = Path(tempfile.mkdtemp(prefix="grader-"))
        self._fill()
        self.copied, self.copied_entries = usage(str(self.path))

    def _fill(self) -> None:
        for path in self.files:  # a later file of the same name wins: the student's own copy of a data file
            shutil.copy2(path, self.path / path.name)

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
