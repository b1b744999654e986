"""Writing an output file whole: the one piece the batch's pool and its workers both need.

Its own module so that grader.classes.pool (the pool) and grader.classes.worker (a worker) each import it and
not each other: the pool drives the workers and a worker never reaches back into the pool.
"""
from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, text: str | bytes) -> None:
    """A reader (or a run killed mid-write) sees the old file or the new one, never half of one. Bytes
    are written as they are (an LMS file kept byte for byte), text as UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(text, bytes):
        partial.write_bytes(text)
    else:
        partial.write_text(text, encoding="utf-8")
    partial.replace(path)
