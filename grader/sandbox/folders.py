"""Walking, measuring and removing a folder a child wrote in, without recursion and through descriptors.

Both sides need it: the child's isolation measures its own scratch folder (a tmpfs's size), and the judge
measures one that no tmpfs caps and removes every scratch folder. No depth or length of path a child
makes can raise here, and no walk holds more than MAX_DEPTH descriptors.
"""
from __future__ import annotations

import itertools
import os
import shutil
import stat
from pathlib import Path
from typing import Any, Callable, Iterator

# Entries a scratch folder may hold beyond the files copied into it (the tmpfs's inode cap, or the
# watch's): counting a folder of more than this costs the judge more than the quota is worth.
ENTRIES = 10_000

READ_ONLY = 0o444  # the mode of a sibling's copy; grader/sandbox/isolation.py leaves such files root's

# Levels below a scratch folder that a walk enters: a tree deeper than this counts as full (`usage`), and
# `remove` moves what lies deeper up beside the top first, so a walk never holds more descriptors than this.
MAX_DEPTH = 64
# Through descriptors wherever the OS has descriptor-relative calls; on Windows, which has none (and no path
# deeper than it allows), by path, with os.scandir and shutil.rmtree.
_BY_DESCRIPTOR = {os.open, os.stat, os.unlink, os.rmdir, os.rename} <= os.supports_dir_fd
_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_PATH_ONLY = getattr(os, "O_PATH", 0)  # Linux: a handle on an entry itself, to change its mode through


def usage(folder: str, max_entries: int = 1 << 30) -> tuple[int, int]:
    """Bytes allocated under `folder` and how many entries it holds, links not followed; counting stops at
    `max_entries`, and a tree deeper than MAX_DEPTH counts as holding that many (what lies below is not
    counted, so it cannot be let through either)."""
    total = entries = 0
    for _, _, info, depth in walk(folder):
        total += info.st_blocks * 512
        entries += 1
        if entries >= max_entries or (depth == MAX_DEPTH and stat.S_ISDIR(info.st_mode)):
            return total, max(entries, max_entries)
    return total, entries


def walk(folder: str) -> Iterator[tuple[int | None, str, os.stat_result, int]]:
    """Every entry below `folder` as (its folder's descriptor, its name there, its lstat, its depth from 1),
    links never followed; `dir_fd=` of the first and the second name it for os calls. No recursion and no
    long paths: each folder is opened relative to its parent's descriptor, so a tree of any depth or name
    length walks in bounded stack; a folder at MAX_DEPTH is listed but not entered. An entry that vanishes
    or cannot be opened meanwhile is passed over. (On Windows: None and the entry's path.)"""
    if not _BY_DESCRIPTOR:
        yield from _walk_by_path(folder)
        return
    try:
        top = os.open(folder, _DIRECTORY)
    except OSError:
        return
    stack = [(top, iter(_names(top)))]
    try:
        while stack:
            fd, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(stack.pop()[0])
                continue
            try:
                info = os.lstat(name, dir_fd=fd)
            except OSError:
                continue
            yield fd, name, info, len(stack)
            if stat.S_ISDIR(info.st_mode) and len(stack) < MAX_DEPTH:
                try:
                    inner = os.open(name, _DIRECTORY, dir_fd=fd)
                except OSError:
                    continue
                stack.append((inner, iter(_names(inner))))
    finally:
        for fd, _ in stack:
            os.close(fd)


def _walk_by_path(folder: str) -> Iterator[tuple[None, str, os.stat_result, int]]:
    pending = [(folder, 1)]
    while pending:
        current, depth = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield None, entry.path, info, depth
            if stat.S_ISDIR(info.st_mode) and depth < MAX_DEPTH:
                pending.append((entry.path, depth + 1))


def remove(path: Path) -> None:
    """Remove `path` and everything in it, never following a link and never by recursion: each folder is
    opened relative to its parent's descriptor, one that denies its owner is opened up first, and one at
    MAX_DEPTH is moved up beside the top (a rename follows no link) to be emptied from there, so any depth
    costs at most MAX_DEPTH descriptors. What cannot be removed (a child still writing) stays, for the
    caller to try again."""
    if not _BY_DESCRIPTOR:
        shutil.rmtree(path, ignore_errors=True)
        return
    try:
        top = os.open(path, _DIRECTORY)
    except OSError:
        return
    moved = itertools.count()
    stack = [(top, "", _names(top))]  # (folder, its name in the one above, names still to remove)
    while stack:
        fd, _, pending = stack[-1]
        if not pending:
            os.close(fd)
            _, emptied, _ = stack.pop()
            if stack:
                _quietly(os.rmdir, emptied, dir_fd=stack[-1][0])
            continue
        name = pending.pop()
        try:
            is_dir = stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode)
        except OSError:
            continue
        if not is_dir:
            _quietly(os.unlink, name, dir_fd=fd)
        elif len(stack) == MAX_DEPTH:
            _move_up(fd, name, top, stack[0][2], moved)
        else:
            inner = _open_folder(fd, name)
            if inner is not None:
                stack.append((inner, name, _names(inner)))
    _quietly(os.rmdir, path)


def _names(fd: int) -> list[str]:
    try:
        return os.listdir(fd)
    except OSError:
        return []


def _open_folder(parent: int, name: str) -> int | None:
    """A folder below `parent`, opened for emptying even where the child took its owner's rights away
    (chmod 0, or no write): they are given back through a handle that cannot follow a link."""
    try:
        fd = os.open(name, _DIRECTORY, dir_fd=parent)
    except PermissionError:
        return _opened_up(parent, name)
    except OSError:
        return None
    if not os.fstat(fd).st_mode & stat.S_IWUSR:
        _quietly(os.fchmod, fd, 0o700)
    return fd


def _opened_up(parent: int, name: str) -> int | None:
    if not _PATH_ONLY:  # not Linux: what the owner cannot open stays, as shutil.rmtree leaves it
        return None
    try:
        handle = os.open(name, _PATH_ONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return None
    try:
        os.chmod(f"/proc/self/fd/{handle}", 0o700)
        return os.open(f"/proc/self/fd/{handle}", _DIRECTORY & ~os.O_NOFOLLOW)
    except OSError:
        return None
    finally:
        os.close(handle)


def _move_up(fd: int, name: str, top: int, top_pending: list[str], moved: Iterator[int]) -> None:
    """Move the folder `name` (at MAX_DEPTH) into the top folder under a fresh name, to be emptied from there."""
    for number in itertools.islice(moved, ENTRIES):  # a name the child took is passed over
        fresh = f".grader-deep-{number}"
        try:
            os.rename(name, fresh, src_dir_fd=fd, dst_dir_fd=top)
        except OSError:
            continue
        top_pending.append(fresh)
        return


def _quietly(step: Callable[..., object], *args: Any, **kwargs: Any) -> None:
    """One removal step; a failure leaves the entry for the caller's next try."""
    try:
        step(*args, **kwargs)
    except OSError:
        pass
