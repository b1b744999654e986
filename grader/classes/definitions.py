"""What graded a result: a fingerprint of each exercise's definition, kept with the result in the gradebook.

An instructor who fixes a check in their own exercise file (`--exercises DIR`) and runs the same `grade batch`
again must get grades from the fixed check, not the stale ones: the gradebook's key has the grader's version,
which does not change when an exercise file does. So each result keeps, per exercise, a digest of the files
that define it (the exercise's own file, its reference solution, its data files, and the helpers beside its file
(`_*.py`), which it may import), and a result whose digests differ from today's is graded again.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from grader.judge.exercise import Exercise


def fingerprints(exercises: Sequence[Exercise]) -> dict[str, str]:
    """Exercise id -> a digest of the files that define it, as they are now."""
    return {exercise.id: _digest(_files(exercise)) for exercise in exercises}


def _files(exercise: Exercise) -> list[Path]:
    files = [exercise.origin, *sorted(exercise.origin.parent.glob("_*.py"))] if exercise.origin else []
    reference = getattr(exercise.reference, "__file__", None)
    return [*files, *([Path(reference)] if reference else []), *exercise.data]


def _digest(files: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # gone since it was loaded: it counts as changed
            digest.update(b"\0missing")
        digest.update(b"\0")
    return digest.hexdigest()[:16]
