"""Every output the grader writes goes through here: the one place that decides how a path is written.

Two kinds of path. A path the user named for one file (`--json`, `--html`, `--junit`, `--summary`, `grade
export -o`) is written with `write_file`: `-` is standard output; a link in it is resolved and the file is
written beside its target; a device, a FIFO or any other file that is not a regular one is opened and
written in place, never renamed over (`-o /dev/null` leaves /dev/null a device); a regular file is replaced
whole (a temporary file beside it, renamed over it). A file inside an output folder (the class's pages,
grades.csv and index, the Gradescope results, CI's page) is the grader's own: `write_atomic` replaces it whole
and follows no link below the folder (a link planted as `OUTDIR/grades.csv` or `OUTDIR/pages` is replaced, its
target left alone). `check` refuses what can be refused before any work is done: two outputs on standard
output, `-` for a folder, a parent that is a file, a folder where a file goes, a place that cannot be written.

Its own module so that grader.classes.pool (the pool) and grader.classes.worker (a worker) each import it and
not each other: the pool drives the workers and a worker never reaches back into the pool.
"""
from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path
from typing import Callable, Mapping

import click

from grader.messages.errors import GraderError, Unwritable, writing

STDOUT = "-"
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def is_stdout(path: Path | str | None) -> bool:
    return path is not None and str(path) == STDOUT


def check(files: Mapping[str, Path | str | None] | None = None,
          folders: Mapping[str, Path | str | None] | None = None) -> None:
    """Before a command does any work: its single-file outputs (`files`, option -> path, None where not asked
    for) and its output folders. At most one of the files is `-`, no folder is; each place can be written,
    as far as can be told without writing (GraderError `cli.stdout_twice` or `cli.stdout_folder`, else
    Unwritable: `cannot write the results: ...`)."""
    files = files or {}
    on_stdout = [option for option, path in files.items() if is_stdout(path)]
    if len(on_stdout) > 1:
        raise GraderError("cli.stdout_twice", first=on_stdout[0], second=on_stdout[1])
    for option, path in (folders or {}).items():
        if is_stdout(path):
            raise GraderError("cli.stdout_folder", option=option)
        if path is not None:
            _placeable(Path(path), folder=True)
    for path in files.values():
        if path is not None and not is_stdout(path):
            _placeable(Path(path), folder=False)


def _placeable(path: Path, folder: bool) -> None:
    """Unwritable where `path` (its links followed) cannot be written, as far as can be told without writing:
    a folder where a file goes or the other way round, a socket, a parent that is a file, a place this
    process may not write. The error names the path as the user gave it."""
    mode = _mode(path)
    if mode is not None:
        if stat.S_ISDIR(mode) != folder:
            raise Unwritable(_error(errno.ENOTDIR if folder else errno.EISDIR, path))
        if stat.S_ISSOCK(mode):
            raise Unwritable(_error(errno.ENXIO, path))
        if folder or not stat.S_ISREG(mode):  # a folder is written into, a device or FIFO in place
            if not os.access(path, os.W_OK | (os.X_OK if folder else 0)):
                raise Unwritable(_error(errno.EACCES, path))
            return
    # a regular file is replaced and a missing one created: its folder is written (a link's target's folder)
    parent = Path(os.path.realpath(path)).parent if os.path.islink(path) else path.parent
    while (mode := _mode(parent)) is None and parent != parent.parent:
        parent = parent.parent
    if mode is not None and not stat.S_ISDIR(mode):
        raise Unwritable(_error(errno.ENOTDIR, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise Unwritable(_error(errno.EACCES, parent))


def _mode(path: Path) -> int | None:
    """What `path` is (its links followed), None where nothing is there."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:  # a loop of links, a name too long, a folder that may not be searched
        raise Unwritable(exc) from None


def _error(number: int, path: Path) -> OSError:
    return OSError(number, os.strerror(number), str(path))


def write_file(path: Path | str, data: str | bytes, *, append: bool = False) -> None:
    """A file the user named: `-` is standard output; a link is resolved and the file written beside its
    target; a file that is not a regular one is opened and written in place; else the file is replaced whole
    (with `append`, added to). Missing folders are created. OSError or Unwritable when it cannot be written
    (the command's `writing()` tells an OSError). Bytes are written as they are, text as UTF-8."""
    if is_stdout(path):
        click.echo(data, nl=False)
        return
    given = Path(path)
    mode = _mode(given)
    if mode is not None and stat.S_ISDIR(mode):
        raise _error(errno.EISDIR, given)
    real = Path(os.path.realpath(given))
    if mode is not None and (not stat.S_ISREG(mode) or not _same(given, real)):
        # a device, a FIFO, or a link that resolves to no name (/dev/stdout, /proc/self/fd/N): written in place
        kept = os.O_APPEND if append else os.O_TRUNC if stat.S_ISREG(mode) else 0
        _write_in_place(given, _bytes(data), os.O_WRONLY | os.O_NOCTTY | kept)
        return
    real.parent.mkdir(parents=True, exist_ok=True)
    if append:
        _write_in_place(real, _bytes(data), os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOCTTY)
    else:
        _replace(real, _bytes(data), keep_mode=mode)


def _same(path: Path | str, real: Path) -> bool:
    try:
        return os.path.samefile(path, real)
    except OSError:
        return False


def write_atomic(path: Path, text: str | bytes, folder: Path) -> None:
    """A file inside the output folder `folder`: a reader (or a run killed mid-write) sees the old file or the
    new one, never half of one. Nothing below `folder` is followed: a link where the file or a folder of it
    belongs is replaced, never written through. Bytes are written as they are (an LMS file kept byte for
    byte), text as UTF-8."""
    folder.mkdir(parents=True, exist_ok=True)
    inside = folder
    for part in path.parent.relative_to(folder).parts:
        inside = inside / part
        if inside.is_symlink():
            inside.unlink()
        inside.mkdir(exist_ok=True)  # two workers may make pages/ at once
    _replace(path, _bytes(text))


def _replace(target: Path, data: bytes, keep_mode: int | None = None) -> None:
    """`data` written to a new file beside `target`, then renamed over it: whatever `target` was (a link
    too), it is now this file. A regular file replaced keeps its permissions."""
    for _ in range(100):
        partial = target.with_name(f".{target.name[:200]}.{secrets.token_hex(4)}.tmp")
        try:  # a new name, never a link: O_EXCL fails on anything there, O_NOFOLLOW on a link
            fd = os.open(partial, _FLAGS, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise _error(errno.EEXIST, target)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            if keep_mode is not None:
                os.chmod(out.fileno(), stat.S_IMODE(keep_mode))
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _write_in_place(target: Path, data: bytes, flags: int) -> None:
    fd = os.open(target, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _bytes(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8")


def attempt(write: Callable[[], object]) -> Unwritable | None:
    """One output written; what keeps it from being written is returned rather than raised, so that a
    command writes its other outputs and prints its summary first, then raises it: an output path that
    turns out bad costs nothing already done."""
    try:
        with writing():
            write()
    except Unwritable as exc:
        return exc
    return None
