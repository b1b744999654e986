"""Unpacking a class's zip safely: no entry escapes the folder, no bomb fills the disk, no depth overflows.

Every limit is checked against what is written, not what the archive declares; an entry that breaks
one is left out with a reason (roster.Skipped), and an archive that breaks the class's whole allowance
stops the roster with one message.
"""
from __future__ import annotations

import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from grader.messages.catalogue import Msg
from grader.messages.errors import GraderError
from grader.results.entry import LeftOut

MAX_ZIP_ENTRIES = 20_000
MAX_ZIP_BYTES = 1 << 30
MAX_ZIP_DEPTH = 32  # folders an entry's name may nest: a class's work sits a few deep, and a deeper one is left out
_ENCRYPTED_FLAG = 0x1
_CHUNK = 1 << 20
_DRIVE = re.compile(r"^[A-Za-z]:")
_UTF8_FLAG = 0x800
_CORRUPT = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError)


class RosterError(GraderError):
    """The run cannot start."""


Skipped = LeftOut  # something under a SOURCE that is not (part of) a graded submission, and why


@dataclass
class _Allowance:
    """Bytes a zip may still write; counted as they are written, whatever its headers claim."""

    shown: str
    left: int

    def spend(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise _too_big(self.shown)


def extract(archive: Path, folder: Path, shown: str) -> list[Skipped]:
    """Unpack the entries that are safe to unpack; the others come back as skips."""
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = zf.infolist()
            _check_declared(entries, shown)
            allowance = _Allowance(shown, MAX_ZIP_BYTES)
            skips = [_extract_entry(zf, entry, folder, shown, allowance) for entry in entries]
    except _CORRUPT as exc:
        raise RosterError("roster.bad_zip", path=shown, error=str(exc)) from None
    except OSError as exc:
        raise RosterError("roster.unreadable", path=shown, error=exc.strerror or str(exc)) from None
    return [s for s in skips if s is not None]


def _check_declared(entries: list[zipfile.ZipInfo], shown: str) -> None:
    if len(entries) > MAX_ZIP_ENTRIES or sum(e.file_size for e in entries) > MAX_ZIP_BYTES:
        raise _too_big(shown)


def _too_big(shown: str) -> RosterError:
    return RosterError("roster.zip_too_big", path=shown, entries=str(MAX_ZIP_ENTRIES),
                       size=f"{MAX_ZIP_BYTES / (1 << 20):g} MiB")


def _extract_entry(
    zf: zipfile.ZipFile, entry: zipfile.ZipInfo, folder: Path, shown: str, allowance: _Allowance
) -> Skipped | None:
    name = _entry_name(entry)
    where = f"{shown}:{name}"
    if _escapes(name):
        return Skipped(where, Msg("roster.unsafe_entry", {"path": where}))
    if stat.S_ISLNK(entry.external_attr >> 16):
        return Skipped(where, Msg("roster.symlink", {"path": where}))
    if name.endswith("/"):
        return None
    if len(PurePosixPath(name).parts) > MAX_ZIP_DEPTH:
        return Skipped(where, Msg("roster.too_deep", {"path": where, "depth": str(MAX_ZIP_DEPTH)}))
    if entry.flag_bits & _ENCRYPTED_FLAG:
        return Skipped(where, Msg("roster.encrypted", {"path": where}))
    target = folder.joinpath(*PurePosixPath(name).parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        out = target.open("xb")  # an entry may not overwrite an earlier one of the same name
    except OSError as exc:
        return Skipped(where, Msg("roster.unextractable", {"path": where, "error": exc.strerror or str(exc)}))
    with out, zf.open(entry) as data:
        _copy(data, out, allowance)
    return None


def _copy(data: IO[bytes], out: IO[bytes], allowance: _Allowance) -> None:
    while chunk := data.read(_CHUNK):
        allowance.spend(len(chunk))
        out.write(chunk)


def _escapes(name: str) -> bool:
    """An absolute name (POSIX or Windows) or a `..` would write outside the folder: the zip-slip attack."""
    return name.startswith("/") or bool(_DRIVE.match(name)) or ".." in PurePosixPath(name).parts


def _entry_name(entry: zipfile.ZipInfo) -> str:
    """The entry's name with `/` separators, recovered when a Windows tool stored it in a local code page."""
    name = entry.filename if entry.flag_bits & _UTF8_FLAG else _recover(entry.filename)
    return name.replace("\\", "/")


def _recover(name: str) -> str:
    """Without the UTF-8 flag zipfile reads a name as cp437, which garbles what Windows in China wrote
    in GBK (and what some tools wrote in UTF-8 without setting the flag); undo that when the bytes allow."""
    raw = name.encode("cp437")
    for encoding in ("utf-8", "gbk"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return name
