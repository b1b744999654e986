"""The judge's secrets on disk, which no child may read: the references, the checks, an instructor's
exercise folders as they load, and a checkout's tests. The sandbox hides each of them from every child."""
from __future__ import annotations

from pathlib import Path

_HIDDEN: list[str] = []  # instructors' exercise folders loaded in this process


def hide(path: str) -> None:
    """Add a folder to the judge's secrets (an instructor's exercises and their references)."""
    if path not in _HIDDEN:
        _HIDDEN.append(path)


def hidden_paths() -> list[str]:
    """The judge's secrets on disk, which no child may read: references, checks, a checkout's tests."""
    import exercises
    import solutions

    paths = [*solutions.__path__, *exercises.__path__, *_HIDDEN]
    tests = Path(solutions.__path__[0]).parent / "tests"
    return paths + [str(tests)] if tests.is_dir() else paths
